// nmt bench translate: translation throughput on a run's held-out sentences.
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>

#include "cli/app.h"
#include "cli/bench_common.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "cli/run_dir.h"
#include "nmt/data/dataset.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"

namespace nmt::cli {
namespace {

struct BenchTranslateArgs {
  ModelArgs model;
  std::string split = "test";
  int64_t sentences = 1000;
  bool is_json = false;
};

int run_bench_translate(const BenchTranslateArgs& args, const ConfigFlags& flags) {
  const std::string run_dir = resolve_run_dir(args.model.run_dir);
  const Config config = flags.resolve(read_config_json(run_dir + "/config.json"));
  const int64_t threads = set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  LoadedRun run = load_run(run_dir, args.model.checkpoint, device);
  const auto pairs = data::read_pairs(run_dir + "/" + args.split + ".tsv");
  if (pairs.empty()) throw DataError(run_dir + "/" + args.split + ".tsv", "no sentences to translate");
  std::vector<std::string> sources;
  for (int64_t i = 0; i < args.sentences; ++i) sources.push_back(pairs[static_cast<std::size_t>(i) % pairs.size()].source);

  decode::Translator translator(run.model, run.tokenizers, config.text.clean, device);
  translator.translate_cleaned({sources.begin(), sources.begin() + std::min<std::ptrdiff_t>(16, sources.size())},
                               config.decode);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  const decode::TranslationReport report = translator.translate_cleaned(sources, config.decode);
  if (device.is_cuda()) torch::cuda::synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const nlohmann::json decode_options = config_to_json(config)["decode"];
  const nlohmann::json result = {{"device", describe_device(device)},
                                 {"threads", threads},
                                 {"strategy", decode_options["strategy"]},
                                 {"beam_size", config.decode.beam_size},
                                 {"batch_size", config.decode.batch_size},
                                 {"sentences", args.sentences},
                                 {"seconds", seconds},
                                 {"sentences_per_s", static_cast<double>(args.sentences) / seconds},
                                 {"output_tokens_per_s", static_cast<double>(report.output_tokens) / seconds},
                                 {"peak_rss_mib", peak_rss_mib()}};
  if (args.is_json) {
    std::cout << result.dump() << '\n';
    return 0;
  }
  std::cout << fmt::format(
      "{} sentences of {}/{}.tsv, {} (beam {}), batches of {}, on {}\n"
      "  sentences/s      {:10.1f}\n"
      "  output tokens/s  {:10.1f}\n"
      "  peak RSS         {:8.0f} MiB\n",
      args.sentences, run_dir, args.split, decode_options["strategy"].get<std::string>(), config.decode.beam_size,
      config.decode.batch_size, result["device"].get<std::string>(), result["sentences_per_s"].get<double>(),
      result["output_tokens_per_s"].get<double>(), result["peak_rss_mib"].get<double>());
  return 0;
}

}  // namespace

Command add_bench_translate(CLI::App& bench) {
  auto* command = bench.add_subcommand(
      "translate",
      "Translate N held-out sentences of a run (repeating the split when it is shorter) in batches\n"
      "and report sentences/s, output tokens/s and peak memory.");
  auto args = std::make_shared<BenchTranslateArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_model_options(*command, args->model);
  command->add_option("--split", args->split, "test or valid")->capture_default_str();
  command->add_option("-n,--n", args->sentences, "Sentences to translate")->capture_default_str();
  command->add_flag("--json", args->is_json, "Print one JSON object");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  command->footer("Example: nmt bench translate --model runs/seed --strategy beam --beam-size 5 --n 1000 --threads 2");
  return {command, [args, flags] { return run_bench_translate(*args, *flags); }};
}

}  // namespace nmt::cli
