// Scoped CUDA bf16 autocast for the training and validation forward passes.
#pragma once

#include "torch_compat.h"

namespace nmt::train {

class AutocastScope {
 public:
  explicit AutocastScope(bool enabled) : enabled_(enabled) {
    if (enabled_) compat::set_cuda_autocast(/*enabled=*/true, c10::kBFloat16);
  }
  ~AutocastScope() {
    if (enabled_) compat::set_cuda_autocast(/*enabled=*/false, c10::kBFloat16);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool enabled_;
};

}  // namespace nmt::train
