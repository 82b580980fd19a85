// bench_train of nmt/run/bench.h.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/utils.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "nmt/cpu_features.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/bench.h"
#include "nmt/run/data_phase.h"
#include "nmt/run/launch.h"
#include "nmt/run/open_run.h"
#include "nmt/run/training.h"
#include "nmt/stopwatch.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/update_step.h"

namespace nmt::run {
namespace {

struct Totals {
  double seconds = 0.0;
  double collective_seconds = 0.0;  // in all-reduces and the other collectives (ranks only)
  train::StepTimes phases;
  int64_t sentences = 0;
  int64_t source_tokens = 0;
  int64_t target_tokens = 0;
  int64_t padded_target_tokens = 0;
  double model_flops = 0.0;
  double computed_flops = 0.0;
};

// A scratch directory for the prepared data, removed when the benchmark ends.
class ScratchDirectory {
 public:
  ScratchDirectory()
      : path_((std::filesystem::temp_directory_path() / ("nmt-bench-" + std::to_string(getpid())))
                  .string()) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() { remove_tree(path_); }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

enum class MeasurePhases : bool { kNo, kYes };

// What the benchmark trains: the update step training uses, on epoch 0's plan of the training
// pairs.
struct BenchTraining {
  const Config& config;
  c10::Device device;
  int64_t target_vocab = 0;
  data::EncodedCorpus pairs;
  data::BatchPlan plan;
  train::UpdateStep step;
  train::Communicator* communicator = nullptr;
};

// Trains `count` updates starting at update `first` of epoch 0's plan (from its start again when
// it runs out), through training's own update step: this rank's micro-batches (ranks x
// train.update_freq per update), the agreement on the update's tokens, the summed gradients.
Totals run_steps(BenchTraining& bench, int64_t first, int64_t count, MeasurePhases measure) {
  Totals totals;
  const int64_t per_update = bench.step.batches_per_update();
  const int64_t updates_in_plan =
      std::max<int64_t>(1, static_cast<int64_t>(bench.plan.size()) / per_update);
  const double collectives_before =
      bench.communicator ? bench.communicator->collective_seconds() : 0.0;
  const auto start = SteadyClock::now();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t batch = ((first + i) % updates_in_plan) * per_update;
    const train::UpdateBatches update = bench.step.gather(bench.pairs, bench.plan, batch, false,
                                                          /*is_out_of_time=*/false);
    const train::StepResult step =
        bench.step.run(update.mine, update.tokens, measure == MeasurePhases::kYes);
    totals.phases.data += update.collate_seconds + step.times.data;
    totals.phases.forward += step.times.forward;
    totals.phases.backward += step.times.backward;
    totals.phases.optimizer += step.times.optimizer;
    for (const data::Batch& micro_batch : update.mine) {
      totals.sentences += micro_batch.source.size(0);
      totals.source_tokens += micro_batch.source_tokens;
      totals.target_tokens += micro_batch.target_tokens;
      totals.padded_target_tokens += micro_batch.padded_target_tokens;
      const StepShape shape{micro_batch.source.size(0), micro_batch.source.size(1),
                            micro_batch.target_in.size(1), micro_batch.source_tokens,
                            micro_batch.target_tokens};
      totals.model_flops +=
          training_flops(bench.config.model, bench.target_vocab, shape, /*padded=*/false);
      totals.computed_flops +=
          training_flops(bench.config.model, bench.target_vocab, shape, /*padded=*/true);
    }
  }
  const c10::Device device = bench.device;
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
  totals.seconds = seconds_since(start);
  if (bench.communicator) {
    totals.collective_seconds = bench.communicator->collective_seconds() - collectives_before;
  }
  return totals;
}

// CUDA phases need a synchronisation each, which slows the steps: they are timed in a separate
// pass of at most 50 steps and scaled to the timed ones.
train::StepTimes cuda_phases(BenchTraining& bench, const BenchTrainOptions& options) {
  const int64_t count = std::min<int64_t>(options.steps, 50);
  const Totals phased =
      run_steps(bench, options.warmup + options.steps, count, MeasurePhases::kYes);
  const double scale = static_cast<double>(options.steps) / static_cast<double>(count);
  return {phased.phases.data * scale, phased.phases.forward * scale, phased.phases.backward * scale,
          phased.phases.optimizer * scale};
}

// Runs up to kProfiledSteps more updates under LibTorch's profiler, which writes every operator's
// start and duration on the calling thread (autograd's backward included) as a Chrome trace.
// Returns the number of updates profiled.
int64_t write_profile(BenchTraining& bench, const BenchTrainOptions& options, std::ofstream& out) {
  const int64_t count = std::min(options.steps, kProfiledSteps);
  spdlog::info("profiling {} steps into {}", count, options.profile_path);
  write_profile_of(
      [&] { run_steps(bench, options.warmup + options.steps, count, MeasurePhases::kNo); }, out,
      options.profile_path);
  return count;
}

BenchTrainResult measured(const Config& config,
                          const c10::Device& device,
                          int64_t threads,
                          bool uses_bf16,
                          const Totals& totals,
                          int64_t steps,
                          double peak) {
  const double per_step_ms = 1000.0 / static_cast<double>(steps);
  const double per_second = 1.0 / totals.seconds;
  BenchTrainResult result;
  result.device = describe_device(device);
  result.threads = threads;
  result.precision = uses_bf16 ? "bf16" : "fp32";
  result.batching = config.train.max_tokens > 0
                        ? fmt::format("max_tokens {}", config.train.max_tokens)
                        : fmt::format("batch_size {}", config.train.batch_size);
  result.steps = steps;
  result.tgt_tokens_per_s = static_cast<double>(totals.target_tokens) * per_second;
  result.src_tokens_per_s = static_cast<double>(totals.source_tokens) * per_second;
  result.sentences_per_s = static_cast<double>(totals.sentences) * per_second;
  result.tgt_tokens_per_step =
      static_cast<double>(totals.target_tokens) / static_cast<double>(steps);
  result.ms_per_step = totals.seconds * per_step_ms;
  result.ms_data = totals.phases.data * per_step_ms;
  result.ms_forward = totals.phases.forward * per_step_ms;
  result.ms_backward = totals.phases.backward * per_step_ms;
  result.ms_optimizer = totals.phases.optimizer * per_step_ms;
  result.padding_fraction = 1.0 - static_cast<double>(totals.target_tokens) /
                                      static_cast<double>(totals.padded_target_tokens);
  result.peak_rss_mib = peak_rss_mib();
  result.gemm_peak_gflops = peak / 1e9;
  result.model_tflops_per_step = totals.model_flops / static_cast<double>(steps) / 1e12;
  result.mfu = totals.model_flops * per_second / peak;
  result.hardware_utilisation = totals.computed_flops * per_second / peak;
  return result;
}

// What ranks measure, added to a rank's result: the job's total tokens/s, this rank's, the share
// of the step spent in collectives and, given one rank's speed alone, the scaling efficiency.
void add_job(BenchTrainResult& result,
             train::Communicator& communicator,
             const c10::Device& device,
             const Totals& totals,
             int64_t steps,
             double baseline_tokens_per_s) {
  // On the ranks' device: NCCL takes only CUDA tensors.
  at::Tensor all = at::full({1}, totals.target_tokens, at::TensorOptions(at::kLong).device(device));
  communicator.sum({all}, "the ranks' token counts");
  all = all.cpu();
  const double total_per_s = static_cast<double>(all.item<int64_t>()) / totals.seconds;
  BenchTrainResult::Ranks job;
  job.rank = communicator.rank();
  job.ranks = communicator.world_size();
  job.backend = communicator.backend_name();
  job.tgt_tokens_per_s_per_rank = result.tgt_tokens_per_s;
  job.collective_ms_per_step = 1000.0 * totals.collective_seconds / static_cast<double>(steps);
  job.collective_share = totals.collective_seconds / totals.seconds;
  if (baseline_tokens_per_s > 0.0) {
    job.baseline_tgt_tokens_per_s = baseline_tokens_per_s;
    job.scaling_efficiency = total_per_s / (job.ranks * baseline_tokens_per_s);
  }
  result.tgt_tokens_per_s = total_per_s;
  result.job = job;
}

// The training data every rank measures on: rank 0 prepares it into its scratch directory, the
// others read it from there.
// A fine-tuning configuration (train.init_from), or one with text.vocab_from, measures on that
// run's vocabularies.
PreparedData bench_data(const Config& config,
                        const std::string& prepared_path,
                        const ScratchDirectory& scratch,
                        train::Communicator* communicator) {
  if (!prepared_path.empty()) {
    const RunDir dir(prepared_path);
    const std::vector<std::string> changed = data_settings_changed(config, dir);
    if (!changed.empty()) {
      std::string settings;
      for (const std::string& setting : changed) settings += (settings.empty() ? "" : ", ") + setting;
      throw ConfigError("--prepared", prepared_path + " holds no data prepared with this "
                                      "configuration (it differs in " + settings +
                                      "); prepare it with `nmt prepare --config ... --out " +
                                      prepared_path + "`");
    }
    return load_prepared_data(config, dir);
  }
  const std::optional<RunDir> vocabulary = vocabulary_run(config);
  const RunDir* vocabulary_source = vocabulary ? &*vocabulary : nullptr;
  if (!communicator) return prepare_data(config, RunDir(scratch.path()), vocabulary_source);
  std::optional<PreparedData> prepared;
  const std::string directory = directory_from_leader(*communicator, "prepare the data", [&] {
    prepared = prepare_data(config, RunDir(scratch.path()), vocabulary_source);
    return scratch.path();
  });
  if (prepared) return std::move(*prepared);
  return load_prepared_data(config, RunDir(directory));
}

// The step's speed and breakdown: the lines of every benchmark, distributed or not.
std::string bench_step_text(const BenchTrainResult& result, const std::string& title) {
  return fmt::format(
      "{} on {} ({}{}), {}\n"
      "  target tokens/s  {:10.1f}   (real tokens, {:.0f} per step)\n"
      "  source tokens/s  {:10.1f}\n"
      "  sentences/s      {:10.1f}\n"
      "  ms/step          {:10.1f}   data {:.1f} | forward {:.1f} | backward {:.1f} | optimizer "
      "{:.1f}\n"
      "  padding          {:9.1f}%   of target positions\n"
      "  peak RSS         {:8.0f} MiB\n"
      "  MFU              {:9.1f}%   of a measured {:.0f} GFLOP/s GEMM ({:.1f}% counting padded "
      "positions)\n",
      title, result.device, result.precision,
      result.auto_row.empty() ? "" : ": auto on a CPU of the row " + result.auto_row,
      result.batching, result.tgt_tokens_per_s,
      result.tgt_tokens_per_step, result.src_tokens_per_s, result.sentences_per_s,
      result.ms_per_step, result.ms_data, result.ms_forward, result.ms_backward,
      result.ms_optimizer, 100.0 * result.padding_fraction, result.peak_rss_mib, 100.0 * result.mfu,
      result.gemm_peak_gflops, 100.0 * result.hardware_utilisation);
}

// arguments without `flag` and its value (both as "--flag value" and "--flag=value").
std::vector<std::string> without_flag(const std::vector<std::string>& arguments,
                                      const std::string& flag,
                                      bool has_value) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == flag) {
      i += has_value ? 1 : 0;
    } else if (!has_value || arguments[i].rfind(flag + "=", 0) != 0) {
      kept.push_back(arguments[i]);
    }
  }
  return kept;
}

}  // namespace

BenchTrainResult bench_train(const Config& requested, const BenchTrainOptions& options) {
  const std::optional<RunDir> parent = parent_run(requested);
  Config config = parent ? with_parent_model(requested, *parent, "--config") : requested;
  if (!config.text.vocab_from.empty()) config = with_vocabulary_run(config, "--config");
  if (options.steps < 1) {
    throw ConfigError("--steps: expected a positive integer, got " + std::to_string(options.steps));
  }
  const std::shared_ptr<train::Communicator> communicator = join_job(config);
  std::ofstream profile_file;
  if (!options.profile_path.empty()) {
    if (communicator) throw ConfigError("--profile records one process; run it without ranks");
    profile_file = open_profile(options.profile_path);
  }
  ScratchDirectory scratch;
  if (communicator && !options.prepared_path.empty()) {
    throw ConfigError("--prepared measures one process; run it without ranks");
  }
  const PreparedData prepared =
      bench_data(config, options.prepared_path, scratch, communicator.get());
  TrainingStart start = start_training(config, prepared.tokenizers, communicator.get(),
                                       parent ? pick_checkpoint(*parent, "") : "");
  const c10::Device device = start.device;
  data::BatchPlan plan = train::plan_epoch(prepared.train_ids, config.train, 0);
  BenchTraining bench{config,
                      device,
                      prepared.tokenizers.target->size(),
                      prepared.train_ids,
                      std::move(plan),
                      train::UpdateStep(start.model, config.train, device, communicator),
                      communicator.get()};
  const bool uses_bf16 = train::uses_bf16(config.train.precision, device.is_cuda());

  spdlog::info("warm-up: {} steps", options.warmup);
  run_steps(bench, 0, options.warmup, MeasurePhases::kNo);
  spdlog::info("timing {} steps", options.steps);
  Totals totals = run_steps(bench, options.warmup, options.steps,
                            device.is_cpu() ? MeasurePhases::kYes : MeasurePhases::kNo);
  if (device.is_cuda()) totals.phases = cuda_phases(bench, options);
  const int64_t profiled =
      options.profile_path.empty() ? 0 : write_profile(bench, options, profile_file);
  const double peak =
      measure_gemm_peak(device, uses_bf16 ? model::WeightForm::kBf16 : model::WeightForm::kFp32);
  BenchTrainResult result =
      measured(config, device, start.threads, uses_bf16, totals, options.steps, peak);
  if (config.train.precision == train::Precision::kAuto && device.is_cpu()) {
    result.auto_row = precision_auto_row();
  }
  if (device.is_cpu() && !uses_bf16) {
    result.fma_peak = measure_fma_peak(static_cast<int>(start.threads));
  }
  if (profiled > 0) {
    result.profile = options.profile_path;
    result.profiled_steps = profiled;
  }
  if (communicator) {
    add_job(result, *communicator, device, totals, options.steps, options.baseline_tokens_per_s);
  }
  return result;
}

nlohmann::json to_json(const BenchTrainResult& result) {
  nlohmann::json json = {{"device", result.device},
                         {"threads", result.threads},
                         {"precision", result.precision},
                         {"steps", result.steps},
                         {"tgt_tokens_per_s", result.tgt_tokens_per_s},
                         {"src_tokens_per_s", result.src_tokens_per_s},
                         {"sentences_per_s", result.sentences_per_s},
                         {"tgt_tokens_per_step", result.tgt_tokens_per_step},
                         {"ms_per_step", result.ms_per_step},
                         {"ms_per_step_phases",
                          {{"data", result.ms_data},
                           {"forward", result.ms_forward},
                           {"backward", result.ms_backward},
                           {"optimizer", result.ms_optimizer}}},
                         {"padding_fraction", result.padding_fraction},
                         {"peak_rss_mib", result.peak_rss_mib},
                         {"gemm_peak_gflops", result.gemm_peak_gflops},
                         {"model_tflops_per_step", result.model_tflops_per_step},
                         {"mfu", result.mfu},
                         {"hardware_utilisation", result.hardware_utilisation},
                         {"batching", result.batching}};
  if (!result.auto_row.empty()) json["auto_row"] = result.auto_row;
  if (const auto& fma = result.fma_peak) {
    json["fma_peak_gflops"] = fma->flops_per_s / 1e9;
    json["fma_tier"] = fma->tier;
  }
  if (!result.profile.empty()) {
    json["profile"] = result.profile;
    json["profiled_steps"] = result.profiled_steps;
  }
  if (const auto& job = result.job) {
    json["rank"] = job->rank;
    json["ranks"] = job->ranks;
    json["backend"] = job->backend;
    json["tgt_tokens_per_s_per_rank"] = job->tgt_tokens_per_s_per_rank;
    json["collective_ms_per_step"] = job->collective_ms_per_step;
    json["collective_share"] = job->collective_share;
    if (job->baseline_tgt_tokens_per_s) {
      json["baseline_tgt_tokens_per_s"] = *job->baseline_tgt_tokens_per_s;
      json["scaling_efficiency"] = *job->scaling_efficiency;
    }
  }
  return json;
}

std::string bench_train_text(const BenchTrainResult& result, const std::string& title) {
  std::string ranks;
  if (const auto& job = result.job) {
    ranks = fmt::format(
        "  ranks            {:10}   ({}, {} threads each), {:.1f} target tokens/s per rank\n"
        "  collectives      {:10.1f}   ms/step ({:.1f}% of the step: gradient all-reduce and "
        "token counts)\n",
        job->ranks, job->backend, result.threads, job->tgt_tokens_per_s_per_rank,
        job->collective_ms_per_step, 100.0 * job->collective_share);
    if (job->scaling_efficiency) {
      ranks += fmt::format(
          "  scaling          {:9.1f}%   of {} x one rank alone ({:.1f} target tokens/s)\n",
          100.0 * *job->scaling_efficiency, job->ranks, *job->baseline_tgt_tokens_per_s);
    }
  }
  std::string ceiling;
  if (const auto& fma = result.fma_peak) {
    const double gflops = fma->flops_per_s / 1e9;
    ceiling = fmt::format(
        "  FMA ceiling      {:10.0f}   GFLOP/s of fp32 {} multiply-adds on {} threads: the GEMM "
        "runs at {:.1f}% of it, the model arithmetic at {:.1f}%\n",
        gflops, fma->tier, fma->threads, 100.0 * result.gemm_peak_gflops / gflops,
        100.0 * result.mfu * result.gemm_peak_gflops / gflops);
  }
  const std::string profile =
      result.profile.empty()
          ? ""
          : fmt::format("  profile          {:10}   steps more, every operator, in {}\n",
                        result.profiled_steps, result.profile);
  return bench_step_text(result, title) + ceiling + ranks + profile;
}

int bench_train_local_ranks(int ranks, const Config& config) {
  const std::vector<std::string> arguments = arguments_without_nproc();
  train::RankPlacement rank;  // the threads each of the ranks will have
  rank.world_size = ranks;
  rank.local_world_size = ranks;
  const int64_t threads = rank_threads(config.train.threads, rank);
  std::vector<std::string> alone =
      without_flag(without_flag(without_flag(arguments, "--json", false), "--threads", true),
                   "--baseline", true);
  for (const char* extra : {"--json", "--threads"}) alone.emplace_back(extra);
  alone.push_back(std::to_string(threads));
  const ScratchDirectory scratch;  // holds the lone rank's JSON until this function returns
  const std::string path = scratch.path() + "/baseline.json";
  spdlog::info("one rank alone first ({} threads), then {} ranks", threads, ranks);
  const int status = run_plain_process(alone, path);
  if (status != 0) return status;
  const std::string output = read_text_file(path);
  const double baseline = nlohmann::json::parse(output)["tgt_tokens_per_s"].get<double>();
  spdlog::info("one rank alone: {:.1f} target tokens/s", baseline);
  std::vector<std::string> together = without_flag(arguments, "--baseline", true);
  together.emplace_back("--baseline");
  together.push_back(std::to_string(baseline));
  return launch_local_ranks(ranks, together);
}

}  // namespace nmt::run
