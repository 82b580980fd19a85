// Adam (Kingma & Ba 2015) with PyTorch's update rule (torch.optim.Adam, no weight decay, no
// amsgrad), written for speed: on the CPU each parameter is updated in one fused pass over (p, g,
// m, v) with LibTorch's thread pool instead of six tensor operations; on CUDA with multi-tensor
// (_foreach) ops. The state (step count, first and second moments) is exposed for checkpoints.
// Never logs.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace nmt::train {

struct AdamOptions {
  double beta1 = 0.9;         // first-moment decay
  double beta2 = 0.999;       // second-moment decay
  double eps = 1e-8;          // added to the denominator
  double weight_decay = 0.0;  // AdamW's decoupled decay: p -= lr * weight_decay * p; 0 disables
};

class Adam {
 public:
  Adam(std::vector<at::Tensor> parameters, AdamOptions options);

  // One update with learning rate lr from the parameters' .grad(); parameters without a
  // gradient are skipped (their moments are unchanged), as in PyTorch.
  void step(double lr);
  // Drops the gradients, so that the next backward pass allocates them afresh (no memset).
  void zero_grad();

  int64_t steps() const { return steps_; }
  const std::vector<at::Tensor>& first_moments() const { return first_moments_; }
  const std::vector<at::Tensor>& second_moments() const { return second_moments_; }
  // Restores a saved state; throws CheckpointError when the shapes do not match.
  void load_state(int64_t steps,
                  const std::vector<at::Tensor>& first,
                  const std::vector<at::Tensor>& second);

 private:
  std::vector<at::Tensor> parameters_;
  std::vector<at::Tensor> first_moments_;
  std::vector<at::Tensor> second_moments_;
  AdamOptions options_;
  int64_t steps_ = 0;
};

}  // namespace nmt::train
