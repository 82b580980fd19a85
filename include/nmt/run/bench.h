// `nmt bench` as library calls: training throughput of a configuration (with a breakdown of the
// step and model FLOPs utilisation against a GEMM peak measured on the same device) and
// translation throughput of a trained run. Both write nothing; bench_train prepares the data in a
// scratch directory that it removes. Logs the phases it is in.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "nmt/model/linear.h"
#include "nmt/model/options.h"
#include "nmt/run/config.h"
#include "nmt/run/fma_peak.h"
#include "nmt/run/open_run.h"

namespace nmt::run {

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

// Dense matrix-multiply throughput measured on device, in FLOP/s, in the number format given:
// square matrices of 1024 on the CPU, 8192 on CUDA, multiplied for half a second. int8 goes
// through model::Linear's int8 form (input quantisation included), as decoding does.
double measure_gemm_peak(const c10::Device& device, model::WeightForm form);

// --profile's file, opened before a benchmark that may take minutes so that a bad path fails at
// once (Error naming it).
std::ofstream open_profile(const std::string& path);

// Runs `work` under LibTorch's profiler, which writes every operator's start and duration on the
// calling thread as a Chrome trace into `out`, then closes it; a failed write is an Error naming
// `path`.
void write_profile_of(const std::function<void()>& work,
                      std::ofstream& out,
                      const std::string& path);

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
  // Non-empty: train on the data `nmt prepare` (or a training run) left in this directory, prepared
  // with the configuration's data and text settings, instead of preparing it into a scratch
  // directory first; one process only, not ranks.
  std::string prepared_path;
};

inline constexpr int64_t kProfiledSteps = 20;

// What `nmt bench train` measured (per second, per step and per phase of the step in ms).
struct BenchTrainResult {
  std::string device;             // "cpu (2 threads)", "cuda:0 (NVIDIA H100 ...)"
  int64_t threads = 0;            // CPU threads
  std::string precision;          // "fp32" or "bf16"
  std::string auto_row;           // where auto chose the precision on a CPU, the CPU's row of its
                                  // table (nmt::precision_auto_row()); else ""
  std::string batching;           // "max_tokens 4000" or "batch_size 128"
  int64_t steps = 0;              // timed updates
  double tgt_tokens_per_s = 0.0;  // real target tokens; with ranks, all ranks together
  double src_tokens_per_s = 0.0;
  double sentences_per_s = 0.0;
  double tgt_tokens_per_step = 0.0;
  double ms_per_step = 0.0;
  double ms_data = 0.0, ms_forward = 0.0, ms_backward = 0.0, ms_optimizer = 0.0;  // per step
  double padding_fraction = 0.0;  // of the target positions computed
  double peak_rss_mib = 0.0;
  double gemm_peak_gflops = 0.0;       // measured on the device, in the precision
  std::optional<FmaPeak> fma_peak;     // fp32 on the CPU only
  double model_tflops_per_step = 0.0;  // real tokens only
  double mfu = 0.0;                    // model FLOPs / peak
  double hardware_utilisation = 0.0;   // FLOPs of every computed position / peak

  // The job, when this process was a rank of one: MFU and the phases are this rank's.
  struct Ranks {
    int rank = 0;
    int ranks = 0;
    std::string backend;
    double tgt_tokens_per_s_per_rank = 0.0;
    double collective_ms_per_step = 0.0;
    double collective_share = 0.0;  // of the step's time
    // Given one rank's speed alone: it, and total / (ranks x it).
    std::optional<double> baseline_tgt_tokens_per_s;
    std::optional<double> scaling_efficiency;
  };
  std::optional<Ranks> job;

  std::string profile;         // the Chrome trace written, if any
  int64_t profiled_steps = 0;  // the updates it holds

  // Rank 0 reports for the job; a single process reports.
  bool is_reporter() const { return !job || job->rank == 0; }
};

// `nmt bench train`. When the environment makes this process a rank of a job (torchrun, Slurm,
// --nproc), the ranks train together as `nmt train` does (one batch each per update, gradients
// all-reduced). With a profile_path, the further updates are profiled into it.
BenchTrainResult bench_train(const Config& config, const BenchTrainOptions& options);
// `nmt bench train --nproc N`: measures one rank training alone (a plain process of this program,
// with a rank's threads), then starts N local ranks that run the benchmark against that baseline;
// rank 0 prints the report. Returns the exit status for the command (as launch_local_ranks).
int bench_train_local_ranks(int ranks, const Config& config);
// The result as a JSON object with the fields' names (the phases as ms_per_step_phases {data,
// forward, backward, optimizer}; the job's fields beside the others, tgt_tokens_per_s then being
// the job's); `nmt bench train --json` and the records write it.
nlohmann::json to_json(const BenchTrainResult& result);
// The same as lines for a person; `title` names the configuration.
std::string bench_train_text(const BenchTrainResult& result, const std::string& title);

// Sentences `nmt bench translate --profile` translates again under LibTorch's profiler.
inline constexpr int64_t kProfiledSentences = 256;

struct BenchTranslateOptions {
  std::string split = "test";  // the run's split whose sources are translated
  int64_t sentences = 1000;    // the split is repeated when it is shorter
  // Non-empty: after the timed translation, the first kProfiledSentences (or all, when fewer) are
  // translated again under LibTorch's profiler, which writes every operator into this file as a
  // Chrome trace (scripts/profile-ops.py sums it per operator).
  std::string profile_path;
};

// What `nmt bench translate` measured: the timed translation of the split's sentences after 16
// untimed ones.
struct BenchTranslateResult {
  std::string device;    // "cpu (2 threads)", "cuda:0 (NVIDIA H100 ...)"
  int64_t threads = 0;   // CPU threads
  std::string strategy;  // "greedy", "sample" or "beam"
  int64_t beam_size = 0;
  int64_t batch_size = 0;
  std::string precision;  // the weights' form: "fp32", "bf16", "int8" or "int8w7"
  std::string auto_row;   // where auto chose the precision on a CPU, the CPU's row of its
                          // table (nmt::precision_auto_row()); else ""
  int64_t sentences = 0;
  double seconds = 0.0;
  double sentences_per_s = 0.0;
  double output_tokens_per_s = 0.0;
  double peak_rss_mib = 0.0;
  double gemm_peak_gflops = 0.0;  // measured on the device, in the precision
  double mfu = 0.0;               // model FLOPs / peak
  std::string profile;            // the Chrome trace written, if any
  int64_t profiled_sentences = 0;
};

// `nmt bench translate`.
BenchTranslateResult bench_translate(OpenedRun& run, const BenchTranslateOptions& options);
// The result as a JSON object with the fields' names (auto_row, profile and profiled_sentences
// only when there are); `nmt bench translate --json` and the records write it.
nlohmann::json to_json(const BenchTranslateResult& result);
// The same as lines for a person.
std::string bench_translate_text(const BenchTranslateResult& result,
                                 const OpenedRun& run,
                                 const BenchTranslateOptions& options);

}  // namespace nmt::run
