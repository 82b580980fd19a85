// nmt bench translate: translation throughput on a run's held-out sentences.
#include <iostream>
#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/run/bench.h"

namespace nmt::cli {
namespace {

struct BenchTranslateArgs {
  run::RunRequest model;
  run::BenchTranslateOptions options;
  bool is_json = false;
};

}  // namespace

Command add_bench_translate(CLI::App& bench) {
  auto* command = bench.add_subcommand(
      "translate",
      "Translate N held-out sentences of a run (repeating the split when it is shorter) in "
      "batches\n"
      "and report sentences/s, output tokens/s and peak memory.");
  auto args = std::make_shared<BenchTranslateArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_model_options(*command, args->model);
  command->add_option("--split", args->options.split, "test or valid")->capture_default_str();
  command->add_option("-n,--n", args->options.sentences, "Sentences to translate")
      ->capture_default_str();
  command->add_flag("--json", args->is_json, "Print one JSON object");
  command
      ->add_option(
          "--profile", args->options.profile_path,
          "Then translate the first " + std::to_string(run::kProfiledSentences) +
              " sentences again, one batch at a time, under\n"
              "LibTorch's profiler and write every operator's time into FILE as a Chrome\n"
              "trace (chrome://tracing, Perfetto); scripts/profile-ops.py FILE sums it per\n"
              "operator. On a GPU, CUDA_LAUNCH_BLOCKING=1 makes each operator's time\n"
              "include its kernels'")
      ->type_name("FILE");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Example: nmt bench translate --model runs/seed --strategy beam --beam-size 5 --n 1000 "
      "--threads 2");
  return {command, [args, flags] {
            run::OpenedRun opened = run::open_run(args->model, flags->overrides());
            const run::BenchTranslateResult result = run::bench_translate(opened, args->options);
            std::cout << (args->is_json ? run::to_json(result).dump() + "\n"
                                        : run::bench_translate_text(result, opened, args->options));
            return 0;
          }};
}

}  // namespace nmt::cli
