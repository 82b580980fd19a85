// `nmt bench` as library calls: training throughput of a configuration (with a breakdown of the
// step and model FLOPs utilisation against a GEMM peak measured on the same device) and
// translation throughput of a trained run. Both write nothing; bench_train prepares the data in a
// scratch directory that it removes. Logs the phases it is in.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "nmt/config.h"
#include "nmt/model/linear.h"
#include "nmt/model/options.h"
#include "nmt/run/open_run.h"

namespace nmt::run {

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

// Dense matrix-multiply throughput measured on device, in FLOP/s, in the number format given:
// square matrices of 1024 on the CPU, 8192 on CUDA, multiplied for half a second. int8 goes
// through model::Linear's int8 form (input quantisation included), as decoding does.
double measure_gemm_peak(const c10::Device& device, model::WeightForm form);

// The shape of one training batch.
struct StepShape {
  int64_t rows = 0;
  int64_t source_length = 0;  // padded S
  int64_t target_length = 0;  // padded T
  int64_t source_tokens = 0;  // real
  int64_t target_tokens = 0;  // real
};

// Matrix-multiply FLOPs of one training step (forward + backward = 3 x forward), with the real
// target tokens projected onto the vocabulary. With padded=false only real tokens count (model
// FLOPs); with padded=true every computed position does.
double training_flops(const model::TransformerOptions& options,
                      int64_t target_vocab,
                      const StepShape& shape,
                      bool padded);

// Matrix-multiply FLOPs of translating: the encoder over source_positions and, per decoder row
// and step, the decoder layers' projections and feed-forward layers and the vocabulary
// projection. Attention's score products are left out (a few percent at Tatoeba's lengths).
double translation_flops(const model::TransformerOptions& options,
                         int64_t target_vocab,
                         int64_t source_positions,
                         int64_t step_rows);

struct BenchTrainOptions {
  int64_t steps = 100;  // timed steps
  int64_t warmup = 10;  // untimed steps first
  // Ranks: target tokens/s of one rank training alone, for the scaling efficiency; 0 = unknown.
  double baseline_tokens_per_s = 0.0;
  // Non-empty: LibTorch's profiler records every operator of up to kProfiledSteps further updates
  // (after the timed ones, which it would slow) into this file as a Chrome trace
  // (scripts/profile-ops.py sums it per operator). One process only, not ranks.
  std::string profile_path;
};

inline constexpr int64_t kProfiledSteps = 20;

// `nmt bench train`: a JSON object with device, threads, precision, steps, tgt_tokens_per_s,
// src_tokens_per_s, sentences_per_s, tgt_tokens_per_step, ms_per_step, ms_per_step_phases {data,
// forward, backward, optimizer}, padding_fraction, peak_rss_mib, gemm_peak_gflops,
// model_tflops_per_step, mfu, hardware_utilisation and batching.
// When the environment makes this process a rank of a job (torchrun, Slurm, --nproc), the ranks
// train together as `nmt train` does (one batch each per update, gradients all-reduced) and the
// object also has rank, ranks, backend, tgt_tokens_per_s (all ranks together),
// tgt_tokens_per_s_per_rank, collective_ms_per_step, collective_share and, given the baseline,
// baseline_tgt_tokens_per_s and scaling_efficiency (total / (ranks x baseline)); MFU and the
// phases are rank 0's. With a profile_path the object also has profile (the path) and
// profiled_steps.
nlohmann::json bench_train(const Config& config, const BenchTrainOptions& options);
// `nmt bench train --nproc N`: measures one rank training alone (a plain process of this program,
// with a rank's threads), then starts N local ranks that run the benchmark against that baseline;
// rank 0 prints the report. Returns the exit status for the command (as launch_local_ranks).
int bench_train_local_ranks(int ranks, const Config& config);
// The same as lines for a person; `title` names the configuration.
std::string bench_train_text(const nlohmann::json& result, const std::string& title);

struct BenchTranslateOptions {
  std::string split = "test";  // the run's split whose sources are translated
  int64_t sentences = 1000;    // the split is repeated when it is shorter
};

// `nmt bench translate`: a JSON object with device, threads, strategy, beam_size, batch_size,
// precision, sentences, seconds, sentences_per_s, output_tokens_per_s, peak_rss_mib,
// gemm_peak_gflops (in that precision) and mfu.
nlohmann::json bench_translate(OpenedRun& run, const BenchTranslateOptions& options);
std::string bench_translate_text(const nlohmann::json& result,
                                 const OpenedRun& run,
                                 const BenchTranslateOptions& options);

}  // namespace nmt::run
