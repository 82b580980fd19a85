// Scoped bf16 autocast for the forward passes of training, validation and decoding, on the CPU or
// on CUDA: matrix products run in bf16 while parameters, the residual stream, layer norms, softmax
// and the loss stay fp32 (the model keeps them so; see model/attention.cpp and train/loss.h).
// Leaving the scope drops the bf16 copies of the weights autocast made, so the next scope sees
// the optimiser's updates.
#pragma once

#include <c10/core/Device.h>

#include "torch_compat.h"

namespace nmt {

class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, bool enabled) : device_(device), enabled_(enabled) {
    if (enabled_) compat::set_autocast(device_, /*enabled=*/true, c10::kBFloat16);
  }
  ~AutocastScope() {
    if (enabled_) compat::set_autocast(device_, /*enabled=*/false, c10::kBFloat16);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool enabled_;
};

}  // namespace nmt
