// nmt bench train: training throughput on a configuration's data, with a breakdown of the step.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include "cli/app.h"
#include "cli/bench_common.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "cli/pipeline.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/train/trainer.h"

namespace nmt::cli {
namespace {

struct BenchTrainArgs {
  std::string config_path;
  int64_t steps = 100;
  int64_t warmup = 10;
  bool is_json = false;
};

struct Totals {
  double seconds = 0.0;
  train::StepTimes phases;
  int64_t sentences = 0;
  int64_t source_tokens = 0;
  int64_t target_tokens = 0;
  int64_t padded_target_tokens = 0;
  double model_flops = 0.0;
  double computed_flops = 0.0;
};

// A scratch directory for the prepared data, removed when the benchmark ends.
class TemporaryDirectory {
 public:
  TemporaryDirectory()
      : path_((std::filesystem::temp_directory_path() / ("nmt-bench-" + std::to_string(getpid()))).string()) {
    std::filesystem::create_directories(path_);
  }
  ~TemporaryDirectory() { remove_tree(path_); }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Totals run_steps(train::Trainer& trainer, const Config& config, int64_t target_vocab, int64_t first, int64_t count,
                 bool measure_phases) {
  Totals totals;
  const bool is_cuda = trainer.model()->parameters().front().is_cuda();
  data::BatchPlan plan = trainer.epoch_plan(0);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < count; ++i) {
    const auto& indices = plan[static_cast<std::size_t>((first + i) % static_cast<int64_t>(plan.size()))];
    const auto collate_start = std::chrono::steady_clock::now();
    const data::Batch batch = data::collate(trainer.train_pairs(), indices);
    const double collate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - collate_start).count();
    const train::StepResult step = trainer.train_step(batch, measure_phases);
    totals.phases.data += collate_seconds + step.times.data;
    totals.phases.forward += step.times.forward;
    totals.phases.backward += step.times.backward;
    totals.phases.optimizer += step.times.optimizer;
    totals.sentences += batch.source.size(0);
    totals.source_tokens += batch.source_tokens;
    totals.target_tokens += batch.target_tokens;
    totals.padded_target_tokens += batch.padded_target_tokens;
    const StepShape shape{batch.source.size(0), batch.source.size(1), batch.target_in.size(1), batch.source_tokens,
                          batch.target_tokens};
    totals.model_flops += training_flops(config.model, target_vocab, shape, false);
    totals.computed_flops += training_flops(config.model, target_vocab, shape, true);
  }
  if (is_cuda) torch::cuda::synchronize();
  totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return totals;
}

int run_bench_train(const BenchTrainArgs& args, const ConfigFlags& flags) {
  if (args.steps < 1) throw ConfigError("--steps: expected a positive integer, got " + std::to_string(args.steps));
  const Config config = flags.resolve(read_config_json(args.config_path));
  const int64_t threads = set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  TemporaryDirectory scratch;
  const PreparedData prepared = prepare_data(config, scratch.path());
  torch::manual_seed(config.train.seed);
  const int64_t target_vocab = prepared.tokenizers.target->size();
  model::Transformer model(config.model, prepared.tokenizers.source->size(), target_vocab);
  model->to(device);
  train::Trainer trainer(model, train::TrainerSetup{config.train, scratch.path(), "{}", device, false},
                         data::encode_pairs(prepared.splits.train, prepared.tokenizers), {});
  const bool uses_bf16 = train::uses_bf16(config.train.precision, device.is_cuda());

  spdlog::info("warm-up: {} steps", args.warmup);
  run_steps(trainer, config, target_vocab, 0, args.warmup, false);
  spdlog::info("timing {} steps", args.steps);
  Totals totals = run_steps(trainer, config, target_vocab, args.warmup, args.steps, device.is_cpu());
  if (device.is_cuda()) {  // the breakdown needs a synchronisation per phase: measured apart
    const Totals phased = run_steps(trainer, config, target_vocab, args.warmup + args.steps, std::min<int64_t>(args.steps, 50), true);
    const double scale = static_cast<double>(args.steps) / static_cast<double>(std::min<int64_t>(args.steps, 50));
    totals.phases = {phased.phases.data * scale, phased.phases.forward * scale, phased.phases.backward * scale,
                     phased.phases.optimizer * scale};
  }
  const double peak = measure_gemm_peak(device, uses_bf16);
  const double per_step_ms = 1000.0 / static_cast<double>(args.steps);
  const nlohmann::json result = {
      {"device", describe_device(device)},
      {"threads", threads},
      {"precision", uses_bf16 ? "bf16" : "fp32"},
      {"steps", args.steps},
      {"tgt_tokens_per_s", static_cast<double>(totals.target_tokens) / totals.seconds},
      {"src_tokens_per_s", static_cast<double>(totals.source_tokens) / totals.seconds},
      {"sentences_per_s", static_cast<double>(totals.sentences) / totals.seconds},
      {"tgt_tokens_per_step", static_cast<double>(totals.target_tokens) / static_cast<double>(args.steps)},
      {"ms_per_step", totals.seconds * per_step_ms},
      {"ms_per_step_phases",
       {{"data", totals.phases.data * per_step_ms},
        {"forward", totals.phases.forward * per_step_ms},
        {"backward", totals.phases.backward * per_step_ms},
        {"optimizer", totals.phases.optimizer * per_step_ms}}},
      {"padding_fraction",
       1.0 - static_cast<double>(totals.target_tokens) / static_cast<double>(totals.padded_target_tokens)},
      {"peak_rss_mib", peak_rss_mib()},
      {"gemm_peak_gflops", peak / 1e9},
      {"model_tflops_per_step", totals.model_flops / static_cast<double>(args.steps) / 1e12},
      {"mfu", totals.model_flops / totals.seconds / peak},
      {"hardware_utilisation", totals.computed_flops / totals.seconds / peak},
      {"batching", config.train.max_tokens > 0 ? fmt::format("max_tokens {}", config.train.max_tokens)
                                               : fmt::format("batch_size {}", config.train.batch_size)}};
  if (args.is_json) {
    std::cout << result.dump() << '\n';
    return 0;
  }
  std::cout << fmt::format(
      "{} on {} ({}), {}\n"
      "  target tokens/s  {:10.1f}   (real tokens, {:.0f} per step)\n"
      "  source tokens/s  {:10.1f}\n"
      "  sentences/s      {:10.1f}\n"
      "  ms/step          {:10.1f}   data {:.1f} | forward {:.1f} | backward {:.1f} | optimizer {:.1f}\n"
      "  padding          {:9.1f}%   of target positions\n"
      "  peak RSS         {:8.0f} MiB\n"
      "  MFU              {:9.1f}%   of a measured {:.0f} GFLOP/s GEMM ({:.1f}% counting padded positions)\n",
      args.config_path, result["device"].get<std::string>(), result["precision"].get<std::string>(),
      result["batching"].get<std::string>(), result["tgt_tokens_per_s"].get<double>(),
      result["tgt_tokens_per_step"].get<double>(), result["src_tokens_per_s"].get<double>(),
      result["sentences_per_s"].get<double>(), result["ms_per_step"].get<double>(), totals.phases.data * per_step_ms,
      totals.phases.forward * per_step_ms, totals.phases.backward * per_step_ms, totals.phases.optimizer * per_step_ms,
      100.0 * result["padding_fraction"].get<double>(), result["peak_rss_mib"].get<double>(),
      100.0 * result["mfu"].get<double>(), peak / 1e9, 100.0 * result["hardware_utilisation"].get<double>());
  return 0;
}

}  // namespace

Command add_bench_train(CLI::App& bench) {
  auto* command = bench.add_subcommand(
      "train",
      "Train N steps (after W untimed warm-up steps) on the configuration's training split and report\n"
      "real target and source tokens/s, sentences/s, ms per step by phase, padding, peak memory and\n"
      "model FLOPs utilisation against a GEMM peak measured on the same device. Writes nothing.");
  auto args = std::make_shared<BenchTrainArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  command->add_option("-c,--config", args->config_path, "JSON configuration file")->required()->check(CLI::ExistingFile);
  command->add_option("--steps", args->steps, "Timed steps")->capture_default_str();
  command->add_option("--warmup", args->warmup, "Untimed steps first")->capture_default_str();
  command->add_flag("--json", args->is_json, "Print one JSON object (tgt_tokens_per_s, ...)");
  flags->add<std::string>("--data", "data.path", "Sentence-pair TSV file");
  flags->add<int64_t>("--batch-size", "train.batch_size", "Sentences per batch");
  flags->add<int64_t>("--max-tokens", "train.max_tokens", "Padded target tokens per batch, 0 = use --batch-size");
  flags->add<std::string>("--precision", "train.precision", "CUDA arithmetic: auto, fp32 or bf16");
  add_runtime_flags(*flags);
  command->footer(
      "Example: nmt bench train --config configs/seed.json --data ../shared/data/tatoeba-en-es/eng-spa.tsv \\\n"
      "           --steps 100 --threads 2 --max-tokens 1000");
  return {command, [args, flags] { return run_bench_train(*args, *flags); }};
}

}  // namespace nmt::cli
