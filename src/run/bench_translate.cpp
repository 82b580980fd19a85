// bench_translate of nmt/run/bench.h.
#include <fmt/format.h>
#include <torch/cuda.h>

#include <chrono>
#include <fstream>

#include "nmt/cpu_features.h"
#include "nmt/data/dataset.h"
#include "nmt/decode/config_fields.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/run/bench.h"

namespace nmt::run {
namespace {

// Translates the first kProfiledSentences of `sources` under LibTorch's profiler into `out`, on
// the calling thread alone (one translator: the profiler sees the thread that enabled it, and
// operators' own parallel regions inside their time). Returns the number translated.
int64_t write_profile(decode::Translator& translator,
                      const std::vector<std::string>& sources,
                      decode::SearchOptions decoding,
                      const c10::Device& device,
                      const std::string& path,
                      std::ofstream& out) {
  const auto count = std::min<int64_t>(kProfiledSentences, static_cast<int64_t>(sources.size()));
  decoding.translators = 1;
  write_profile_of(
      [&] {
        translator.translate_cleaned({sources.begin(), sources.begin() + count}, decoding);
        if (device.is_cuda()) torch::cuda::synchronize(device.index());
      },
      out, path);
  return count;
}

}  // namespace

BenchTranslateResult bench_translate(OpenedRun& run, const BenchTranslateOptions& options) {
  std::ofstream profile_file;
  if (!options.profile_path.empty()) profile_file = open_profile(options.profile_path);
  const std::string path = run.dir.file(options.split + ".tsv");
  const auto pairs = data::read_pairs(path);
  if (pairs.empty()) throw DataError(path, "no sentences to translate");
  std::vector<std::string> sources;
  for (int64_t i = 0; i < options.sentences; ++i) {
    sources.push_back(pairs[static_cast<std::size_t>(i) % pairs.size()].source);
  }
  const decode::SearchOptions& decoding = run.config.decode;
  decode::Translator translator(run.models(), run.tokenizers, run.config.text.clean, run.device);
  const std::size_t warmup = std::min<std::size_t>(16, sources.size());
  translator.translate_cleaned(
      {sources.begin(), sources.begin() + static_cast<std::ptrdiff_t>(warmup)}, decoding);
  const auto start = std::chrono::steady_clock::now();
  const decode::TranslationReport report = translator.translate_cleaned(sources, decoding);
  if (run.device.is_cuda()) torch::cuda::synchronize(run.device.index());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const model::WeightForm form = decode::decoding_form(decoding.precision, run.device);
  const double peak = measure_gemm_peak(run.device, form);
  const double flops = translation_flops(run.config.model, run.tokenizers.target->size(),
                                         report.source_positions, report.step_rows);
  static constexpr const char* kFormNames[] = {"fp32", "bf16", "int8", "int8w7"};
  BenchTranslateResult result;
  result.device = describe_device(run.device);
  result.threads = run.threads;
  result.strategy = config::name_of(decode::kStrategies, decoding.strategy);
  result.beam_size = decoding.beam_size;
  result.batch_size = decoding.batch_size;
  result.precision = kFormNames[static_cast<int>(form)];
  if (decoding.precision == decode::Precision::kAuto && run.device.is_cpu()) {
    result.auto_row = precision_auto_row();
  }
  result.sentences = options.sentences;
  result.seconds = seconds;
  result.sentences_per_s = static_cast<double>(options.sentences) / seconds;
  result.output_tokens_per_s = static_cast<double>(report.output_tokens) / seconds;
  result.peak_rss_mib = peak_rss_mib();
  result.gemm_peak_gflops = peak / 1e9;
  result.mfu = flops / seconds / peak;
  if (profile_file.is_open()) {
    result.profiled_sentences = write_profile(translator, sources, decoding, run.device,
                                              options.profile_path, profile_file);
    result.profile = options.profile_path;
  }
  return result;
}

nlohmann::json to_json(const BenchTranslateResult& result) {
  nlohmann::json json = {{"device", result.device},
                         {"threads", result.threads},
                         {"strategy", result.strategy},
                         {"beam_size", result.beam_size},
                         {"batch_size", result.batch_size},
                         {"sentences", result.sentences},
                         {"seconds", result.seconds},
                         {"sentences_per_s", result.sentences_per_s},
                         {"output_tokens_per_s", result.output_tokens_per_s},
                         {"precision", result.precision},
                         {"peak_rss_mib", result.peak_rss_mib},
                         {"gemm_peak_gflops", result.gemm_peak_gflops},
                         {"mfu", result.mfu}};
  if (!result.auto_row.empty()) json["auto_row"] = result.auto_row;
  if (!result.profile.empty()) {
    json["profiled_sentences"] = result.profiled_sentences;
    json["profile"] = result.profile;
  }
  return json;
}

std::string bench_translate_text(const BenchTranslateResult& result,
                                 const OpenedRun& run,
                                 const BenchTranslateOptions& options) {
  return fmt::format(
      "{} sentences of {}/{}.tsv, {} (beam {}), batches of {}, on {}\n"
      "  sentences/s      {:10.1f}\n"
      "  output tokens/s  {:10.1f}\n"
      "  peak RSS         {:8.0f} MiB\n"
      "  MFU              {:9.1f}%   of a measured {:.0f} GFLOP/s {} GEMM\n"
      "{}",
      options.sentences, run.dir.path(), options.split, result.strategy, result.beam_size,
      result.batch_size, result.device, result.sentences_per_s, result.output_tokens_per_s,
      result.peak_rss_mib, 100.0 * result.mfu, result.gemm_peak_gflops, result.precision,
      result.auto_row.empty() ? ""
                              : fmt::format("  precision        {} (auto on a CPU of the row {})\n",
                                            result.precision, result.auto_row));
}

}  // namespace nmt::run
