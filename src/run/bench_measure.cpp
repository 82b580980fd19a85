// What the benchmarks share: memory, GEMM peak, FLOPs of a step, the --profile trace.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <sys/resource.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>

#include <chrono>
#include <functional>

#include "nmt/error.h"
#include "nmt/run/bench.h"

namespace nmt::run {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::ofstream open_profile(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error("--profile " + path + ": cannot write this file");
  return out;
}

void write_profile_of(const std::function<void()>& work,
                      std::ofstream& out,
                      const std::string& path) {
  {
    torch::autograd::profiler::RecordProfile profile(out);
    work();
  }
  out.close();
  if (!out) throw Error("--profile " + path + ": writing the trace failed");
}

double measure_gemm_peak(const c10::Device& device, model::WeightForm form) {
  const int64_t n = device.is_cuda() ? 8192 : 1024;
  const auto options = at::TensorOptions().device(device).dtype(
      form == model::WeightForm::kBf16 ? at::kBFloat16 : at::kFloat);
  const at::Tensor a = at::randn({n, n}, options);
  const at::Tensor b = at::randn({n, n}, options);
  model::Linear int8(n, n);
  std::function<void()> multiply = [&] { a.mm(b); };
  if (model::is_int8(form)) {
    int8->eval();
    int8->set_inference_form(form);
    multiply = [&] { int8(a); };
  }
  auto sync = [&] {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
  };
  c10::InferenceMode inference;
  for (int i = 0; i < 3; ++i) multiply();
  sync();
  int iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0.0;
  while (seconds < 0.5) {
    multiply();
    ++iterations;
    if (iterations % 4 == 0 || !device.is_cuda()) {
      sync();
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  }
  sync();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * static_cast<double>(n) * n * n * iterations / seconds;
}

double translation_flops(const model::TransformerOptions& options,
                         int64_t target_vocab,
                         int64_t source_positions,
                         int64_t step_rows) {
  const double d = static_cast<double>(options.d_model);
  const double f = static_cast<double>(options.ff_mult) * d;
  const double encoder_layers = static_cast<double>(options.encoder_depth());
  const double decoder_layers = static_cast<double>(options.decoder_depth());
  // 2 FLOPs per multiply-add. Encoder layer: Q, K, V, output and feed-forward; the decoder's
  // cross-attention keys and values of every source position once.
  const double per_source =
      encoder_layers * 2 * (4 * d * d + 2 * d * f) + decoder_layers * 2 * 2 * d * d;
  // Decoder layer per row and step: self Q, K, V and output, cross Q and output, feed-forward.
  const double per_step =
      decoder_layers * 2 * (6 * d * d + 2 * d * f) + 2 * d * static_cast<double>(target_vocab);
  return static_cast<double>(source_positions) * per_source +
         static_cast<double>(step_rows) * per_step;
}

double training_flops(const model::TransformerOptions& options,
                      int64_t target_vocab,
                      const StepShape& shape,
                      bool padded) {
  const double d = static_cast<double>(options.d_model);
  const double f = static_cast<double>(options.ff_mult) * d;
  const double encoder_layers = static_cast<double>(options.encoder_depth());
  const double decoder_layers = static_cast<double>(options.decoder_depth());
  // Positions that are computed, and the lengths attention runs over.
  const double source_positions = padded ? static_cast<double>(shape.rows * shape.source_length)
                                         : static_cast<double>(shape.source_tokens);
  const double target_positions = padded ? static_cast<double>(shape.rows * shape.target_length)
                                         : static_cast<double>(shape.target_tokens);
  const double s = source_positions / std::max<double>(1.0, static_cast<double>(shape.rows));
  const double t = target_positions / std::max<double>(1.0, static_cast<double>(shape.rows));
  // Per position, 2 FLOPs per multiply-add: projections, feed-forward, attention scores and mixing.
  const double encoder = source_positions * (2 * (4 * d * d + 2 * d * f) + 4 * s * d);
  const double decoder = target_positions * (2 * (8 * d * d + 2 * d * f) + 4 * (t + s) * d) +
                         source_positions * 2 * 2 * d * d;  // cross-attention keys and values
  const double output =
      static_cast<double>(shape.target_tokens) * 2 * d * static_cast<double>(target_vocab);
  return 3.0 * (encoder_layers * encoder + decoder_layers * decoder + output);
}

}  // namespace nmt::run
