#include "nmt/run/data_phase.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "nmt/data/corpus.h"
#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::run {
namespace {

void log_read_report(const data::ReadReport& report) {
  spdlog::info("read {}: {} lines, {} pairs, {} blank", report.file, report.lines, report.pairs,
               report.blank);
  if (report.skipped() == 0) return;
  spdlog::warn(
      "skipped {} malformed lines ({} wrong column count, {} invalid UTF-8, {} empty side)",
      report.skipped(), report.bad_columns, report.bad_utf8, report.empty_side);
  for (const std::string& problem : report.first_problems) spdlog::warn("  {}", problem);
}

nlohmann::json report_json(const data::ReadReport& read,
                           const data::Splits& splits,
                           const text::TokenizerPair& tokenizers) {
  const data::FilterReport& filter = splits.report;
  return {
      {"file", read.file},
      {"lines", read.lines},
      {"pairs_read", read.pairs},
      {"blank_lines", read.blank},
      {"malformed_lines",
       {{"columns", read.bad_columns}, {"utf8", read.bad_utf8}, {"empty_side", read.empty_side}}},
      {"dropped",
       {{"empty_after_cleaning", filter.empty},
        {"too_long", filter.too_long},
        {"duplicates", filter.duplicates}}},
      {"split",
       {{"train", splits.train.size()},
        {"valid", splits.valid.size()},
        {"test", splits.test.size()}}},
      {"vocab", {{"source", tokenizers.source->size()}, {"target", tokenizers.target->size()}}}};
}

// " en -> es" when the language codes are set.
std::string describe_direction(const data::CorpusOptions& options) {
  if (options.source_lang.empty() && options.target_lang.empty()) return "";
  return " " + (options.source_lang.empty() ? std::string("?") : options.source_lang) + " -> " +
         (options.target_lang.empty() ? std::string("?") : options.target_lang);
}

enum class Side { kSource, kTarget };

std::vector<std::string> side(const std::vector<data::SentencePair>& pairs, Side which) {
  std::vector<std::string> out;
  out.reserve(pairs.size());
  for (const auto& pair : pairs) out.push_back(which == Side::kSource ? pair.source : pair.target);
  return out;
}

void log_splits(const Config& config, const data::Splits& splits) {
  spdlog::info(
      "kept {} pairs ({} dropped empty after cleaning, {} longer than {} words, {} duplicates)",
      splits.report.kept, splits.report.empty, splits.report.too_long, config.data.max_words,
      splits.report.duplicates);
  spdlog::info("split: {} train, {} valid, {} test{}", splits.train.size(), splits.valid.size(),
               splits.test.size(),
               config.data.group_by_source ? " (grouped by source sentence)" : "");
  if (splits.valid.empty()) {
    spdlog::warn("the validation split is empty: no validation loss, no best.pt");
  }
}

}  // namespace

PreparedData prepare_data(const Config& config,
                          const RunDir& dir,
                          const RunDir* vocabulary_source) {
  std::filesystem::create_directories(dir.path());
  const auto start = std::chrono::steady_clock::now();
  data::Corpus corpus = data::read_tsv_file(config.data.path, config.data.format);
  log_read_report(corpus.report);
  if (config.data.reverse) {
    data::reverse_pairs(corpus.pairs);
    spdlog::info("direction: the file's second column is the source (data.reverse){}",
                 describe_direction(config.data));
  } else if (!config.data.source_lang.empty() || !config.data.target_lang.empty()) {
    spdlog::info("direction:{}", describe_direction(config.data));
  }

  PreparedData prepared;
  prepared.splits = data::make_splits(corpus.pairs, config.data, config.text.clean);
  const data::Splits& splits = prepared.splits;
  if (splits.train.empty()) {
    throw DataError(config.data.path,
                    "no training pair left after cleaning, filtering and splitting");
  }
  log_splits(config, splits);
  data::write_pairs(dir.split(Split::kTrain), splits.train);
  data::write_pairs(dir.split(Split::kValid), splits.valid);
  data::write_pairs(dir.split(Split::kTest), splits.test);

  prepared.tokenizers =
      vocabulary_source
          ? text::load_tokenizers(config.text, vocabulary_source->path())
          : text::train_tokenizers(config.text, side(splits.train, Side::kSource),
                                   side(splits.train, Side::kTarget), config.data.seed);
  const auto files = text::save_tokenizers(config.text, prepared.tokenizers, dir.path());
  spdlog::info("vocabulary: {} source, {} target tokens -> {}", prepared.tokenizers.source->size(),
               prepared.tokenizers.target->size(), fmt::join(files, ", "));

  save_config(dir.config(), config);
  write_text_atomically(dir.prepare_report(),
                        report_json(corpus.report, splits, prepared.tokenizers).dump(2) + "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("data ready in {} ({:.1f} s)", dir.path(), seconds);
  return prepared;
}

PreparedData load_prepared_data(const Config& config, const RunDir& dir) {
  PreparedData prepared;
  prepared.splits.train = data::read_pairs(dir.split(Split::kTrain));
  prepared.splits.valid = data::read_pairs(dir.split(Split::kValid));
  prepared.splits.test = data::read_pairs(dir.split(Split::kTest));
  prepared.tokenizers = text::load_tokenizers(config.text, dir.path());
  return prepared;
}

std::string default_data_dir(const std::string& config_path) {
  return "runs/" + std::filesystem::path(config_path).stem().string() + "-data";
}

PreparedData prepare_run_data(const Config& config, const RunDir& dir) {
  const RunLock lock(dir);
  return prepare_data(config, dir);
}

}  // namespace nmt::run
