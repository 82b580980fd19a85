// A scripted StepModel for search tests: the next-token logits depend only on the previous token
// (a Markov chain over a small vocabulary), so expected outputs can be worked out by hand.
#pragma once

#include <ATen/ATen.h>

#include <map>
#include <vector>

#include "nmt/decode/search.h"

namespace nmt::testing {

class MarkovStepModel final : public decode::StepModel {
 public:
  // probabilities[previous] = next-token probabilities over `vocab` tokens (missing rows: uniform).
  MarkovStepModel(int64_t vocab, std::map<int64_t, std::vector<double>> probabilities)
      : vocab_(vocab), probabilities_(std::move(probabilities)) {}

  void start(const at::Tensor& source) override {
    rows_ = source.size(0);
    ++starts_;
  }
  at::Tensor step(const at::Tensor& last_ids) override {
    EXPECT_EQ(last_ids.size(0), rows_);
    ++steps_;
    rows_per_step_.push_back(rows_);
    at::Tensor logits = at::zeros({rows_, vocab_});
    for (int64_t r = 0; r < rows_; ++r) {
      const auto it = probabilities_.find(last_ids[r].item<int64_t>());
      if (it == probabilities_.end()) continue;
      for (int64_t v = 0; v < vocab_; ++v) {
        const double p = it->second[static_cast<std::size_t>(v)];
        logits[r][v] = p > 0 ? std::log(p) : -1e9;
      }
    }
    return logits;
  }
  void keep_rows(const at::Tensor& rows) override {
    EXPECT_TRUE(rows.lt(rows_).all().item<bool>());
    rows_ = rows.size(0);
  }

  int64_t steps() const { return steps_; }
  const std::vector<int64_t>& rows_per_step() const { return rows_per_step_; }

 private:
  int64_t vocab_;
  std::map<int64_t, std::vector<double>> probabilities_;
  int64_t rows_ = 0;
  int64_t starts_ = 0;
  int64_t steps_ = 0;
  std::vector<int64_t> rows_per_step_;
};

}  // namespace nmt::testing
