// nmt bench train: training throughput on a configuration's data, with a breakdown of the step.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/bench.h"
#include "nmt/run/launch.h"

namespace nmt::cli {
namespace {

struct BenchTrainArgs {
  std::string config_path;
  run::BenchTrainOptions options;
  bool is_json = false;
};

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

// `--nproc N`: one rank's speed alone (a plain process with a rank's threads), then N local ranks
// that report against it.
int bench_local_ranks(int ranks, const Config& config) {
  const std::vector<std::string> arguments = run::arguments_without_nproc();
  const int64_t threads =
      config.train.threads > 0
          ? config.train.threads
          : std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()) / ranks);
  std::vector<std::string> alone =
      without_flag(without_flag(without_flag(arguments, "--json", false), "--threads", true),
                   "--baseline", true);
  for (const char* extra : {"--json", "--threads"}) alone.emplace_back(extra);
  alone.push_back(std::to_string(threads));
  char path[] = "/tmp/nmt-bench-baseline-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw Error("--nproc: cannot create a temporary file in /tmp");
  ::close(fd);
  spdlog::info("one rank alone first ({} threads), then {} ranks", threads, ranks);
  const int status = run::run_plain_process(alone, path);
  const std::string output = status == 0 ? read_text_file(path) : "";
  std::remove(path);
  if (status != 0) return status;
  const double baseline = nlohmann::json::parse(output)["tgt_tokens_per_s"].get<double>();
  spdlog::info("one rank alone: {:.1f} target tokens/s", baseline);
  std::vector<std::string> together = without_flag(arguments, "--baseline", true);
  together.emplace_back("--baseline");
  together.push_back(std::to_string(baseline));
  return run::launch_local_ranks(ranks, together);
}

}  // namespace

Command add_bench_train(CLI::App& bench) {
  auto* command = bench.add_subcommand(
      "train",
      "Train N steps (after W untimed warm-up steps) on the configuration's training split and "
      "report\n"
      "real target and source tokens/s, sentences/s, ms per step by phase, padding, peak memory "
      "and\n"
      "model FLOPs utilisation against a GEMM peak measured on the same device. Writes nothing.");
  auto args = std::make_shared<BenchTrainArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  command->add_option("-c,--config", args->config_path, "JSON configuration file")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--steps", args->options.steps, "Timed steps")->capture_default_str();
  command->add_option("--warmup", args->options.warmup, "Untimed steps first")
      ->capture_default_str();
  command->add_flag("--json", args->is_json, "Print one JSON object (tgt_tokens_per_s, ...)");
  auto nproc = std::make_shared<int>(0);
  command
      ->add_option("--nproc", *nproc,
                   "Measure N local ranks training together (as `nmt train --nproc N`): one rank\n"
                   "alone first, then the ranks; adds total and per-rank tokens/s, the time in\n"
                   "collectives per step and the scaling efficiency")
      ->check(CLI::Range(1, 1024));
  command->add_option("--baseline", args->options.baseline_tokens_per_s,
                      "Target tokens/s of one rank alone, for the scaling efficiency of ranks\n"
                      "started by torchrun or srun (--nproc measures it itself)");
  flags->add<std::string>("--data", "data.path", "Sentence-pair TSV file");
  flags->add<int64_t>("--batch-size", "train.batch_size", "Sentences per batch");
  flags->add<int64_t>("--max-tokens", "train.max_tokens",
                      "Padded target tokens per batch, 0 = use --batch-size");
  flags->add<std::string>("--precision", "train.precision",
                          "Arithmetic: auto, fp32 or bf16 autocast");
  add_runtime_flags(*flags);
  command->footer(
      "Example: nmt bench train --config configs/seed.json --data "
      "data/tatoeba-en-es/eng-spa.tsv.gz \\\n"
      "           --steps 100 --threads 2 --max-tokens 1000\n"
      "         nmt bench train --config configs/tatoeba-en-es.json --nproc 2 --steps 40");
  return {command, [args, flags, nproc] {
            const Config config =
                resolve_config(read_config_json(args->config_path), flags->overrides());
            if (*nproc > 0) return bench_local_ranks(*nproc, config);
            const nlohmann::json result = run::bench_train(config, args->options);
            if (result.value("rank", 0) != 0) return 0;  // rank 0 reports for the job
            std::cout << (args->is_json ? result.dump() + "\n"
                                        : run::bench_train_text(result, args->config_path));
            return 0;
          }};
}

}  // namespace nmt::cli
