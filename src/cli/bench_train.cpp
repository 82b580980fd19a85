// nmt bench train: training throughput on a configuration's data, with a breakdown of the step.
#include <iostream>
#include <memory>
#include <string>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/run/bench.h"

namespace nmt::cli {
namespace {

struct BenchTrainArgs {
  std::string config_path;
  run::BenchTrainOptions options;
  bool is_json = false;
};

}  // namespace

Command add_bench_train(CLI::App& bench) {
  auto* command = bench.add_subcommand(
      "train",
      "Train N steps (after W untimed warm-up steps) on the configuration's training split and "
      "report\n"
      "real target and source tokens/s, sentences/s, ms per step by phase, padding, peak memory "
      "and\n"
      "model FLOPs utilisation against a GEMM peak measured on the same device; in fp32 on the\n"
      "CPU, the FMA ceiling too (the vector unit's multiply-adds per second, which no product\n"
      "beats). Writes nothing.\n"
      "A configuration with train.init_from measures fine-tuning that run: its vocabularies,\n"
      "model settings and weights, as `nmt train --init-from` would train them.");
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
  auto* nproc_option = command->add_option(
      "--nproc", *nproc,
      "Measure N local ranks training together (as `nmt train --nproc N`): one rank\n"
      "alone first, then the ranks; adds total and per-rank tokens/s, the time in\n"
      "collectives per step and the scaling efficiency");
  nproc_option->check(CLI::Range(1, 1024));
  command
      ->add_option("--profile", args->options.profile_path,
                   "Also run up to " + std::to_string(run::kProfiledSteps) +
                       " more steps under LibTorch's profiler and write every\n"
                       "operator's time into FILE as a Chrome trace (chrome://tracing, Perfetto);\n"
                       "scripts/profile-ops.py FILE sums it per operator, forward and backward")
      ->excludes(nproc_option)
      ->type_name("FILE");
  command
      ->add_option("--prepared", args->options.prepared_path,
                   "Train on the data prepared in DIR (by `nmt prepare` or a training run with\n"
                   "the same data and text settings) instead of preparing it first: a corpus of\n"
                   "millions of pairs is prepared once and mapped")
      ->excludes(nproc_option)
      ->type_name("DIR");
  command->add_option("--baseline", args->options.baseline_tokens_per_s,
                      "Target tokens/s of one rank alone, for the scaling efficiency of ranks\n"
                      "started by torchrun or srun (--nproc measures it itself)");
  flags->add<std::string>("--data", "data.path", "Sentence-pair TSV file");
  flags->add<int64_t>("--batch-size", "train.batch_size", "Sentences per batch");
  flags->add<int64_t>("--max-tokens", "train.max_tokens",
                      "Padded target tokens per batch, 0 = use --batch-size");
  flags->add<std::string>("--precision", "train.precision",
                          "Arithmetic: auto, fp32 or bf16 autocast");
  add_training_runtime_flags(*flags);
  command->footer(
      "Example: nmt bench train --config configs/seed.json --data "
      "data/tatoeba-en-es/eng-spa.tsv.gz \\\n"
      "           --steps 100 --threads 2 --max-tokens 1000\n"
      "         nmt bench train --config configs/tatoeba-en-es.json --nproc 2 --steps 40\n"
      "         nmt bench train --config big.json --prepared runs/big-data --steps 50");
  return {command, [args, flags, nproc] {
            const Config config = load_config(args->config_path, flags->overrides());
            if (*nproc > 0) return run::bench_train_local_ranks(*nproc, config);
            const run::BenchTrainResult result = run::bench_train(config, args->options);
            if (!result.is_reporter()) return 0;
            std::cout << (args->is_json ? run::to_json(result).dump() + "\n"
                                        : run::bench_train_text(result, args->config_path));
            return 0;
          }};
}

}  // namespace nmt::cli
