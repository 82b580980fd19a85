// The places where LibTorch 1.13 (Debian) and 2.x (the CUDA wheel) differ, behind one interface
// (STYLE.md rule 18). Nothing else in nmt tests TORCH_VERSION_MAJOR.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

namespace c10d {
class Backend;
class ProcessGroup;
}  // namespace c10d

namespace nmt::compat {

// The c10d class whose allreduce/broadcast a concrete process group (Gloo, NCCL) implements: the
// ProcessGroup itself in 1.13, its Backend since 2.0.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveBackend = ::c10d::Backend;
#else
using CollectiveBackend = ::c10d::ProcessGroup;
#endif

// True when LibTorch provides a fused scaled_dot_product_attention (2.0 and later).
bool has_fused_attention();

// softmax(q k^T / sqrt(d) masked) v with LibTorch's fused kernel. q [B,H,T,Dh], k/v [B,H,S,Dh],
// mask bool broadcastable to [B,H,T,S], true = may attend. Requires has_fused_attention(). On a
// GPU it turns LibTorch's cuDNN attention off for the process, once (see torch_compat.cpp).
at::Tensor fused_attention(const at::Tensor& query,
                           const at::Tensor& key,
                           const at::Tensor& value,
                           const at::Tensor& mask);

// Turns autocast on or off for the CPU or CUDA with the given low-precision type; returns the
// previous state. Turning it off drops the cached low-precision copies of the weights.
bool set_autocast(c10::DeviceType device, bool enabled, c10::ScalarType dtype);

// Whether autocast is on for the CPU or CUDA.
bool autocast_enabled(c10::DeviceType device);

// State of the default random generator of a device (CPU or CUDA), as a byte tensor.
at::Tensor generator_state(const c10::Device& device);
void set_generator_state(const c10::Device& device, const at::Tensor& state);

}  // namespace nmt::compat
