#include "nmt/run/data_phase.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "nmt/data/augment.h"
#include "nmt/data/batcher.h"
#include "nmt/data/corpus.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/open_run.h"
#include "nmt/text/placeholders.h"
#include "nmt/text/vocab.h"

namespace nmt::run {
namespace {

void log_read_report(const data::ReadReport& report) {
  spdlog::info("read {}: {} lines, {} pairs, {} blank", report.file, report.lines, report.pairs,
               report.blank);
  if (report.skipped() == 0) return;
  spdlog::warn(
      "skipped {} malformed lines ({} wrong column count, {} invalid UTF-8, {} empty side, {} "
      "too long)",
      report.skipped(), report.bad_columns, report.bad_utf8, report.empty_side, report.too_long);
  for (const std::string& problem : report.first_problems) spdlog::warn("  {}", problem);
}

nlohmann::json read_json(const char* role, const data::ReadReport& read) {
  return {{"role", role},
          {"file", read.file},
          {"lines", read.lines},
          {"pairs_read", read.pairs},
          {"blank_lines", read.blank},
          {"malformed_lines",
           {{"columns", read.bad_columns},
            {"utf8", read.bad_utf8},
            {"empty_side", read.empty_side},
            {"too_long", read.too_long}}}};
}

// Pieces of the training split a kept vocabulary (fine-tuning) spells as <UNK>, per side.
struct UnknownPieces {
  int64_t source = 0, source_total = 0, target = 0, target_total = 0;

  static double share(int64_t unknown, int64_t total) {
    return total == 0 ? 0.0 : static_cast<double>(unknown) / static_cast<double>(total);
  }
  nlohmann::json to_json() const {
    return {{"source", share(source, source_total)}, {"target", share(target, target_total)}};
  }
};

UnknownPieces count_unknown_pieces(const data::EncodedCorpus& encoded,
                                   const std::vector<std::size_t>& pairs) {
  UnknownPieces counts;
  const auto count = [](const std::vector<int64_t>& ids, int64_t& unknown, int64_t& total) {
    unknown += std::count(ids.begin(), ids.end(), text::kUnkId);
    total += static_cast<int64_t>(ids.size());
  };
  for (const std::size_t index : pairs) {
    const data::EncodedPair pair = encoded.pair(index);
    count(pair.source, counts.source, counts.source_total);
    count(pair.target, counts.target, counts.target_total);
  }
  return counts;
}

// A share of <UNK> pieces above which a kept vocabulary is said to fit the corpus badly.
constexpr double kUnknownShareWarning = 0.01;

void log_unknown_pieces(const UnknownPieces& counts, const RunDir& vocabulary_source) {
  const double source = UnknownPieces::share(counts.source, counts.source_total);
  const double target = UnknownPieces::share(counts.target, counts.target_total);
  const std::string text = fmt::format(
      "the vocabularies of {} spell {:.2f}% of the training split's source pieces and {:.2f}% of "
      "its target pieces as <UNK>",
      vocabulary_source.path(), 100.0 * source, 100.0 * target);
  if (std::max(source, target) > kUnknownShareWarning) {
    spdlog::warn("{}: the model cannot read or write what they stand for", text);
  } else {
    spdlog::info("{}", text);
  }
}

nlohmann::json report_json(const nlohmann::json& reads,
                           const data::Splits& splits,
                           const data::AugmentReport& augmented,
                           const text::TokenizerPair& tokenizers,
                           const std::optional<UnknownPieces>& unknown) {
  const data::FilterReport& filter = splits.report;
  nlohmann::json report = {
      {"corpora", reads},
      {"dropped",
       {{"empty_after_cleaning", filter.empty},
        {"too_many_words", filter.too_long},
        {"identical_sides", filter.identical},
        {"duplicates", filter.duplicates},
        {"source_in_dev_or_test", filter.held_out_source},
        {"too_many_tokens", filter.too_many_tokens},
        {"length_ratio", filter.length_ratio},
        {"dev_test_empty_after_cleaning", filter.held_out_empty}}},
      {"augmented",
       {{"upper", augmented.upper},
        {"lower", augmented.lower},
        {"joined", augmented.joined},
        {"placeholders", augmented.placeholders}}},
      {"split",
       {{"train", splits.train.size()},
        {"valid", splits.valid.size()},
        {"test", splits.test.size()}}},
      {"vocab", {{"source", tokenizers.source->size()}, {"target", tokenizers.target->size()}}}};
  if (unknown) report["unknown_piece_share"] = unknown->to_json();
  return report;
}

// " en -> es" when the language codes are set.
std::string describe_direction(const data::CorpusOptions& options) {
  if (options.source_lang.empty() && options.target_lang.empty()) return "";
  return " " + (options.source_lang.empty() ? std::string("?") : options.source_lang) + " -> " +
         (options.target_lang.empty() ? std::string("?") : options.target_lang);
}

enum class Side { kSource, kTarget };

std::vector<std::string> side(const std::vector<data::SentencePair>& pairs,
                              const std::vector<std::size_t>& indices,
                              Side which) {
  std::vector<std::string> out;
  out.reserve(indices.size());
  for (const std::size_t index : indices) {
    out.push_back(which == Side::kSource ? pairs[index].source : pairs[index].target);
  }
  return out;
}

void log_filters(const Config& config, const data::FilterReport& report) {
  std::vector<std::string> drops;
  const auto add = [&drops](std::size_t count, const std::string& why) {
    if (count > 0) drops.push_back(fmt::format("{} {}", count, why));
  };
  add(report.empty, "empty after cleaning");
  add(report.too_long, fmt::format("longer than {} words (data.max_words)", config.data.max_words));
  add(report.identical, "with identical sides (data.drop_identical)");
  add(report.duplicates, "duplicates (data.dedupe)");
  add(report.held_out_source, "sharing a source with the dev/test sets (data.group_by_source)");
  add(report.too_many_tokens,
      fmt::format("longer than {} tokens (data.max_length)", config.data.max_length));
  add(report.length_ratio, fmt::format("with a length ratio above {} (data.max_length_ratio)",
                                       config.data.max_length_ratio));
  spdlog::info("kept {} of {} training-corpus pairs{}{}",
               report.kept - report.too_many_tokens - report.length_ratio, report.input,
               drops.empty() ? "" : "; dropped ", fmt::join(drops, ", "));
  if (report.held_out_empty > 0) {
    spdlog::warn("dropped {} dev/test pairs with a side empty after cleaning",
                 report.held_out_empty);
  }
}

void log_augmentation(const data::AugmentReport& report) {
  if (report.total() == 0) return;
  spdlog::info(
      "augmentation: {} training pairs added ({} in capitals, {} in lower case, {} joined "
      "pairs, {} with placeholders; data.augment_*)",
      report.total(), report.upper, report.lower, report.joined, report.placeholders);
}

void log_splits(const Config& config, const data::Splits& splits) {
  const auto origin = [](const std::vector<data::CorpusFile>& named) {
    return named.empty() ? std::string("") : " (named files)";
  };
  spdlog::info("split: {} train, {} valid{}, {} test{}{}", splits.train.size(), splits.valid.size(),
               origin(config.data.valid), splits.test.size(), origin(config.data.test),
               config.data.group_by_source ? " (grouped by source sentence)" : "");
  if (splits.valid.empty()) {
    spdlog::warn("the validation split is empty: no validation loss, no best.pt");
  }
}

// Every corpus the configuration names, read (and reversed with data.reverse).
data::CorpusSet read_corpora(const data::CorpusOptions& options, nlohmann::json& reads) {
  data::CorpusSet corpora;
  const auto read = [&](const char* role, const data::CorpusFile& file) {
    data::Corpus corpus = data::read_corpus(file, options.format);
    log_read_report(corpus.report);
    reads.push_back(read_json(role, corpus.report));
    if (options.reverse) data::reverse_pairs(corpus.pairs);
    return std::move(corpus.pairs);
  };
  for (const data::CorpusFile& file : options.training_corpora()) {
    corpora.train.push_back(read("train", file));
  }
  for (const data::CorpusFile& file : options.valid) {
    std::vector<data::SentencePair> pairs = read("valid", file);
    corpora.valid.insert(corpora.valid.end(), pairs.begin(), pairs.end());
  }
  for (const data::CorpusFile& file : options.test) {
    std::vector<data::SentencePair> pairs = read("test", file);
    corpora.test.insert(corpora.test.end(), pairs.begin(), pairs.end());
  }
  return corpora;
}

// Writes the given pairs of encoded, in that order, into dir's token file of split, and maps it.
data::EncodedCorpus write_token_file(const RunDir& dir,
                                     Split split,
                                     const data::EncodedCorpus& encoded,
                                     const std::vector<std::size_t>& pairs,
                                     const text::TokenizerPair& tokenizers) {
  data::TokenFileWriter writer(dir.token_file(split), tokenizers.source->size(),
                               tokenizers.target->size());
  for (const std::size_t index : pairs) {
    const data::EncodedPair pair = encoded.pair(index);
    writer.add(pair.source, pair.target);
  }
  writer.commit();
  return data::EncodedCorpus::map(dir.token_file(split));
}

std::vector<std::size_t> all_of(const data::EncodedCorpus& encoded) {
  std::vector<std::size_t> indices(encoded.size());
  std::iota(indices.begin(), indices.end(), 0);
  return indices;
}

// The run's tokenizers: those of vocabulary_source, or trained on a seeded sample of the training
// split (text.vocab_max_pairs): SentencePiece's time and memory grow with its input, and a
// million pairs show it every piece a vocabulary of thousands keeps.
text::TokenizerPair build_tokenizers(const Config& config,
                                     const data::Splits& splits,
                                     const RunDir* vocabulary_source) {
  const bool placeholders = config.data.augment_placeholders > 0;
  if (vocabulary_source) {
    text::TokenizerPair tokenizers = text::load_tokenizers(config.text, vocabulary_source->path());
    if (placeholders && !text::keeps_placeholders(tokenizers)) {
      throw ConfigError("data.augment_placeholders",
                        "the vocabulary of " + vocabulary_source->path() +
                            " splits the placeholders ⦅1⦆ … ⦅9⦆; it was trained without "
                            "data.augment_placeholders");
    }
    return tokenizers;
  }
  const std::vector<std::size_t> sample =
      data::sample_indices(splits.train.size(), static_cast<std::size_t>(config.text.vocab_max_pairs),
                           config.data.seed);
  if (sample.size() < splits.train.size()) {
    spdlog::info("vocabulary: trained on a seeded sample of {} of the {} training pairs "
                 "(text.vocab_max_pairs)",
                 sample.size(), splits.train.size());
  }
  return text::train_tokenizers(
      config.text, side(splits.train, sample, Side::kSource),
      side(splits.train, sample, Side::kTarget), config.data.seed,
      placeholders ? text::placeholder_symbols() : std::vector<std::string>{});
}

// The training split encoded once, on all cores; its pairs too long in tokens dropped and the
// corpus weights applied, to splits.train and to `pairs`: the index in `encoded` of each training
// pair's ids.
struct EncodedTraining {
  data::EncodedCorpus encoded;
  std::vector<std::size_t> pairs;
};

EncodedTraining encode_training_split(const Config& config,
                                      data::Splits& splits,
                                      const text::TokenizerPair& tokenizers) {
  EncodedTraining training{data::encode_pairs(splits.train, tokenizers), {}};
  const std::vector<std::size_t> kept = data::filter_by_length(
      splits, config.data, [&encoded = training.encoded](std::size_t index) {
        return std::pair{encoded.source_length(index), encoded.target_length(index)};
      });
  log_filters(config, splits.report);
  const std::size_t unweighted = splits.train.size();
  for (const std::size_t origin : data::apply_weights(splits, config.data)) {
    training.pairs.push_back(kept[origin]);
  }
  if (splits.train.size() != unweighted) {
    spdlog::info("corpus weights: {} training pairs become {}", unweighted, splits.train.size());
  }
  return training;
}

// Maps dir's token file of split, refusing one written for other vocabularies.
data::EncodedCorpus map_token_file(const RunDir& dir,
                                   Split split,
                                   const text::TokenizerPair& tokenizers) {
  data::EncodedCorpus corpus = data::EncodedCorpus::map(dir.token_file(split));
  if (static_cast<int64_t>(corpus.source_vocabulary()) != tokenizers.source->size() ||
      static_cast<int64_t>(corpus.target_vocabulary()) != tokenizers.target->size()) {
    throw DataError(dir.token_file(split),
                    fmt::format("written for vocabularies of {} and {} entries, but the run's "
                                "have {} and {}; prepare the data again",
                                corpus.source_vocabulary(), corpus.target_vocabulary(),
                                tokenizers.source->size(), tokenizers.target->size()));
  }
  return corpus;
}

}  // namespace

PreparedData prepare_data(const Config& config,
                          const RunDir& dir,
                          const RunDir* vocabulary_source) {
  std::filesystem::create_directories(dir.path());
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json reads = nlohmann::json::array();
  const data::CorpusSet corpora = read_corpora(config.data, reads);
  if (config.data.reverse) {
    spdlog::info(
        "direction: the files' second column (or target file) is the source "
        "(data.reverse){}",
        describe_direction(config.data));
  } else if (!config.data.source_lang.empty() || !config.data.target_lang.empty()) {
    spdlog::info("direction:{}", describe_direction(config.data));
  }

  PreparedData prepared;
  prepared.splits = data::make_splits(corpora, config.data, config.text.clean);
  data::Splits& splits = prepared.splits;
  const data::AugmentReport augmented = data::augment_training_split(splits, config.data);
  log_augmentation(augmented);
  prepared.tokenizers = build_tokenizers(config, splits, vocabulary_source);
  const EncodedTraining training = encode_training_split(config, splits, prepared.tokenizers);
  if (splits.train.empty()) {
    throw DataError(config.data.training_corpora().front().name(),
                    "no training pair left after cleaning, filtering and splitting");
  }
  log_splits(config, splits);
  std::optional<UnknownPieces> unknown;
  if (vocabulary_source) {
    unknown = count_unknown_pieces(training.encoded, training.pairs);
    log_unknown_pieces(*unknown, *vocabulary_source);
  }
  data::write_pairs(dir.split(Split::kTrain), splits.train);
  data::write_pairs(dir.split(Split::kValid), splits.valid);
  data::write_pairs(dir.split(Split::kTest), splits.test);

  const auto files = text::save_tokenizers(config.text, prepared.tokenizers, dir.path());
  spdlog::info("vocabulary: {} source, {} target tokens -> {}", prepared.tokenizers.source->size(),
               prepared.tokenizers.target->size(), fmt::join(files, ", "));
  prepared.train_ids = write_token_file(dir, Split::kTrain, training.encoded, training.pairs,
                                        prepared.tokenizers);
  const data::EncodedCorpus valid = data::encode_pairs(splits.valid, prepared.tokenizers);
  prepared.valid_ids =
      write_token_file(dir, Split::kValid, valid, all_of(valid), prepared.tokenizers);
  spdlog::info("token ids ({} bytes each) -> {}, {}", prepared.train_ids.id_bytes(),
               dir.token_file(Split::kTrain), dir.token_file(Split::kValid));

  save_config(dir.config(), config);
  write_text_atomically(dir.prepare_report(),
                        report_json(reads, splits, augmented, prepared.tokenizers, unknown).dump(2) + "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("data ready in {} ({:.1f} s)", dir.path(), seconds);
  return prepared;
}

std::optional<RunDir> parent_run(const Config& config) {
  if (config.train.init_from.empty()) return std::nullopt;
  return resolve_run_dir(config.train.init_from, "--init-from");
}

std::optional<RunDir> vocabulary_run(const Config& config) {
  if (!config.text.vocab_from.empty()) {
    return resolve_run_dir(config.text.vocab_from, "text.vocab_from");
  }
  return parent_run(config);
}

namespace {

// config with the text section of `source` but for the settings that say how this run trains
// (subword sampling) or where its vocabulary comes from; validated, a ConfigError naming
// config_path and `source_key`, the key that names source.
Config with_text_of(const Config& config,
                    const Config& source,
                    const RunDir& source_dir,
                    const std::string& config_path,
                    const std::string& source_key) {
  Config combined = config;
  combined.text = source.text;
  combined.text.sampling_nbest = config.text.sampling_nbest;
  combined.text.sampling_alpha = config.text.sampling_alpha;
  combined.text.bpe_dropout = config.text.bpe_dropout;
  combined.text.vocab_from = config.text.vocab_from;
  // The languages stay the source run's unless the configuration names its own.
  if (combined.data.source_lang.empty()) combined.data.source_lang = source.data.source_lang;
  if (combined.data.target_lang.empty()) combined.data.target_lang = source.data.target_lang;
  try {
    combined.validate();
  } catch (const ConfigError& error) {
    throw ConfigError(error.key(), error.detail() + " (text settings of " + source_dir.path() +
                                       ", the run " + source_key + " names)")
        .from(config_path);
  }
  return combined;
}

}  // namespace

Config with_parent_model(const Config& config,
                         const RunDir& parent,
                         const std::string& config_path) {
  const Config parent_config = load_config(parent.config());
  Config with_model = config;
  with_model.model = parent_config.model;
  return with_text_of(with_model, parent_config, parent, config_path, "--init-from");
}

Config with_vocabulary_run(const Config& config, const std::string& config_path) {
  const RunDir source = resolve_run_dir(config.text.vocab_from, "text.vocab_from");
  return with_text_of(config, load_config(source.config()), source, config_path, "text.vocab_from");
}

PreparedData load_prepared_data(const Config& config, const RunDir& dir) {
  PreparedData prepared;
  prepared.splits.valid = data::read_pairs(dir.split(Split::kValid));
  prepared.splits.test = data::read_pairs(dir.split(Split::kTest));
  prepared.tokenizers = text::load_tokenizers(config.text, dir.path());
  const bool has_token_files = std::filesystem::exists(dir.token_file(Split::kTrain)) &&
                               std::filesystem::exists(dir.token_file(Split::kValid));
  if (!has_token_files || text::subword_sampling(config.text)) {
    prepared.splits.train = data::read_pairs(dir.split(Split::kTrain));
  }
  if (has_token_files) {
    prepared.train_ids = map_token_file(dir, Split::kTrain, prepared.tokenizers);
    prepared.valid_ids = map_token_file(dir, Split::kValid, prepared.tokenizers);
  } else {
    spdlog::info("{} has no token files (prepared by an earlier nmt): encoding its splits",
                 dir.path());
    prepared.train_ids = data::encode_pairs(prepared.splits.train, prepared.tokenizers);
    prepared.valid_ids = data::encode_pairs(prepared.splits.valid, prepared.tokenizers);
  }
  return prepared;
}

std::vector<std::string> data_settings_changed(const Config& config, const RunDir& dir) {
  if (!std::filesystem::exists(dir.prepare_report()) || !std::filesystem::exists(dir.config())) {
    return {"prepare.json"};
  }
  const nlohmann::json before = config_to_json(load_config(dir.config()));
  const nlohmann::json now = config_to_json(config);
  // How training samples segmentations changes nothing that was prepared.
  const auto prepared_by = [](const std::string& key) {
    return key != "sampling_nbest" && key != "sampling_alpha" && key != "bpe_dropout";
  };
  std::vector<std::string> changed;
  for (const char* section : {"data", "text"}) {
    for (const auto& [key, value] : now[section].items()) {
      if (!prepared_by(key)) continue;
      if (!before[section].contains(key) || before[section][key] != value) {
        changed.push_back(std::string(section) + "." + key);
      }
    }
  }
  if (before["train"]["init_from"] != now["train"]["init_from"]) {
    changed.emplace_back("train.init_from");
  }
  return changed;
}

std::string default_data_dir(const std::string& config_path) {
  return "runs/" + std::filesystem::path(config_path).stem().string() + "-data";
}

PreparedData prepare_run_data(const Config& config,
                              const std::string& config_path,
                              const RunDir& dir) {
  const RunLock lock(dir);
  if (config.text.vocab_from.empty()) return prepare_data(config, dir);
  const RunDir vocabulary = resolve_run_dir(config.text.vocab_from, "text.vocab_from");
  return prepare_data(with_vocabulary_run(config, config_path), dir, &vocabulary);
}

}  // namespace nmt::run
