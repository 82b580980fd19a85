// Several models decoding as one (ensembling): at every step the next-token log-probabilities are
// the mean of the members' log-probabilities (a normalised geometric mean of their distributions
// once the search applies its softmax), and every member's state advances and reorders with the
// same rows. The members must share the target vocabulary. Never logs.
#pragma once

#include <vector>

#include "nmt/decode/search.h"

namespace nmt::decode {

class EnsembleStepModel final : public StepModel {
 public:
  // The members stay owned by the caller and must outlive this object.
  explicit EnsembleStepModel(std::vector<StepModel*> members);

  void start(const at::Tensor& source) override;
  at::Tensor step(const at::Tensor& last_ids) override;
  void keep_rows(const at::Tensor& rows) override;

 private:
  std::vector<StepModel*> members_;
};

}  // namespace nmt::decode
