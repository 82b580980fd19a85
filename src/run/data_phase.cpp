#include "nmt/run/data_phase.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "nmt/data/augment.h"
#include "nmt/data/batch_plan.h"
#include "nmt/data/corpus.h"
#include "nmt/data/read_ahead.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"
#include "nmt/run/open_run.h"
#include "nmt/run/stop_signal.h"
#include "nmt/text/placeholders.h"
#include "nmt/text/vocab.h"
#include "run/split_checkpoint.h"

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

  // Counts pair's pieces `copies` times.
  void add(const data::EncodedPair& pair, std::size_t copies) {
    const auto count = [copies](const std::vector<int64_t>& ids, int64_t& unknown, int64_t& total) {
      unknown += static_cast<int64_t>(copies) * std::count(ids.begin(), ids.end(), text::kUnkId);
      total += static_cast<int64_t>(copies * ids.size());
    };
    count(pair.source, source, source_total);
    count(pair.target, target, target_total);
  }

  static double share(int64_t unknown, int64_t total) {
    return total == 0 ? 0.0 : static_cast<double>(unknown) / static_cast<double>(total);
  }
  nlohmann::json to_json() const {
    return {{"source", share(source, source_total)}, {"target", share(target, target_total)}};
  }
  // The counts, as a tokenizing pass stopped half-way keeps them.
  nlohmann::json counts() const { return {source, source_total, target, target_total}; }
  static UnknownPieces from_counts(const nlohmann::json& counts) {
    return {counts.at(0).get<int64_t>(), counts.at(1).get<int64_t>(), counts.at(2).get<int64_t>(),
            counts.at(3).get<int64_t>()};
  }
};

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

// The sizes of the three splits.
struct SplitSizes {
  std::size_t train = 0;
  std::size_t valid = 0;
  std::size_t test = 0;
};

nlohmann::json report_json(const nlohmann::json& reads,
                           const data::FilterReport& filter,
                           const SplitSizes& sizes,
                           const data::AugmentReport& augmented,
                           const text::TokenizerPair& tokenizers,
                           const std::optional<UnknownPieces>& unknown) {
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
      {"split", {{"train", sizes.train}, {"valid", sizes.valid}, {"test", sizes.test}}},
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

void log_splits(const Config& config, const SplitSizes& sizes) {
  const auto origin = [](const std::vector<data::CorpusFile>& named) {
    return named.empty() ? std::string("") : " (named files)";
  };
  spdlog::info("split: {} train, {} valid{}, {} test{}{}", sizes.train, sizes.valid,
               origin(config.data.valid), sizes.test, origin(config.data.test),
               config.data.group_by_source ? " (grouped by source sentence)" : "");
  if (sizes.valid == 0) {
    spdlog::warn("the validation split is empty: no validation loss, no best.pt");
  }
}

// Logs how a long step advances, at most every kInterval: the pairs done, their rate and, with a
// known total, the share done and the time left. A step that goes on from an earlier one's work
// starts at `first` pairs done.
class ProgressLog {
 public:
  explicit ProgressLog(std::string what, std::size_t total = 0, std::size_t first = 0)
      : what_(std::move(what)), total_(total), first_(first), start_(Clock::now()), last_(start_) {}

  void update(std::size_t done) {
    const Clock::time_point now = Clock::now();
    if (now - last_ < kInterval) return;
    last_ = now;
    const double rate = static_cast<double>(done - std::min(done, first_)) / seconds();
    if (total_ == 0 || done >= total_) {
      spdlog::info("{}: {} pairs, {:.0f} a second", what_, done, rate);
      return;
    }
    spdlog::info("{}: {} of {} pairs ({:.0f}%), {:.0f} a second, about {} left", what_, done,
                 total_, 100.0 * static_cast<double>(done) / static_cast<double>(total_), rate,
                 format_duration(static_cast<double>(total_ - done) / rate));
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kInterval{15};

  std::string what_;
  std::size_t total_;
  std::size_t first_;
  Clock::time_point start_;
  Clock::time_point last_;
};

// Files the data phase writes into the run directory and removes when it ends, however it ends.
class ScratchFiles {
 public:
  explicit ScratchFiles(const RunDir& dir) : dir_(dir.path()) {}
  ~ScratchFiles() {
    for (const std::string& path : paths_) remove_tree(path);
  }
  ScratchFiles(const ScratchFiles&) = delete;
  ScratchFiles& operator=(const ScratchFiles&) = delete;

  std::string add(const std::string& name) {
    paths_.push_back((std::filesystem::path(dir_) / name).string());
    return paths_.back();
  }

 private:
  std::string dir_;
  std::vector<std::string> paths_;
};

constexpr std::size_t kChunkPairs = std::size_t{1} << 16;

// The training split before tokenization, on disk: the pairs the splitting kept, then those that
// augmentation added; with the training corpus of each.
struct TrainingText {
  std::vector<std::string> files;
  std::size_t size = 0;
  std::vector<uint32_t> corpus;
};

// Calls visit(chunk, index of its first pair) for the training text, a chunk at a time.
template <class Visit>
void for_each_chunk(const TrainingText& text, const Visit& visit) {
  std::size_t first = 0;
  for (const std::string& file : text.files) {
    data::PairFileReader reader(file);
    data::visit_chunks(reader, kChunkPairs, [&](const std::vector<data::SentencePair>& chunk) {
      visit(chunk, first);
      first += chunk.size();
    });
  }
}

// The pairs of the training text at `indices` (increasing), the others passed over unread: on 30M
// pairs reading every chunk to pick a vocabulary's sample took 23 s of one core.
std::vector<data::SentencePair> pairs_at(const TrainingText& text,
                                         const std::vector<std::size_t>& indices) {
  std::vector<data::SentencePair> pairs;
  pairs.reserve(indices.size());
  std::size_t position = 0;  // the training-text index of the pair the reader reads next
  auto next = indices.begin();
  for (const std::string& file : text.files) {
    if (next == indices.end()) break;
    data::PairFileReader reader(file);
    for (; next != indices.end(); ++next) {
      position += reader.skip(*next - position);
      if (position < *next || !reader.read(pairs, 1)) break;  // *next is in a later file
      ++position;
    }
  }
  return pairs;
}

// Augments the training text (data/augment.h) into added_path, in two passes over it: the first
// collects the pairs that others are joined with, the second adds pairs.
data::AugmentReport augment_training_text(const data::CorpusOptions& options,
                                          TrainingText& text,
                                          const std::string& added_path) {
  data::AugmentReport report;
  if (!data::augments(options)) return report;
  const std::size_t originals = text.size;
  std::unordered_map<std::size_t, data::SentencePair> partners;
  for (std::size_t i = 0; i < originals && options.augment_concat > 0; ++i) {
    if (const auto partner = data::concat_partner(i, originals, options)) partners[*partner];
  }
  if (!partners.empty()) {
    for_each_chunk(text,
                   [&partners](const std::vector<data::SentencePair>& chunk, std::size_t first) {
                     for (std::size_t j = 0; j < chunk.size(); ++j) {
                       if (const auto it = partners.find(first + j); it != partners.end())
                         it->second = chunk[j];
                     }
                   });
  }
  data::PairFileWriter added(added_path);
  ProgressLog progress("augmenting", originals);
  for_each_chunk(text, [&](const std::vector<data::SentencePair>& chunk, std::size_t first) {
    progress.update(first);
    for (std::size_t j = 0; j < chunk.size(); ++j) {
      const std::size_t index = first + j;
      const uint32_t corpus = text.corpus[index];
      const std::optional<std::size_t> partner = data::concat_partner(index, originals, options);
      data::augment_pair(index, chunk[j], partner ? &partners.at(*partner) : nullptr, options,
                         report, [&](const data::SentencePair& pair) {
                           added.add(pair);
                           text.corpus.push_back(corpus);
                         });
    }
  });
  added.commit();
  text.files.push_back(added_path);
  text.size += added.pairs();
  return report;
}

// The run's tokenizers: those of vocabulary_source, or trained on a seeded sample of the training
// text (text.vocab_max_pairs): SentencePiece's time and memory grow with its input, and a
// sample of hundreds of thousands of pairs shows it every piece a vocabulary of thousands keeps.
text::TokenizerPair build_tokenizers(const Config& config,
                                     const TrainingText& training,
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
  const std::vector<std::size_t> sample = data::sample_indices(
      training.size, static_cast<std::size_t>(config.text.vocab_max_pairs), config.data.seed);
  if (sample.size() < training.size) {
    spdlog::info(
        "vocabulary: trained on a seeded sample of {} of the {} training pairs "
        "(text.vocab_max_pairs)",
        sample.size(), training.size);
  }
  std::vector<std::string> sources;
  std::vector<std::string> targets;
  sources.reserve(sample.size());
  targets.reserve(sample.size());
  for (data::SentencePair& pair : pairs_at(training, sample)) {
    sources.push_back(std::move(pair.source));
    targets.push_back(std::move(pair.target));
  }
  spdlog::info("vocabulary: training on {} pairs", sources.size());
  const auto start = std::chrono::steady_clock::now();
  text::TokenizerPair tokenizers = text::train_tokenizers(
      config.text, sources, targets, config.data.seed,
      placeholders ? text::placeholder_symbols() : std::vector<std::string>{});
  spdlog::info(
      "vocabulary: trained in {}",
      format_duration(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  return tokenizers;
}

// build_tokenizers' vocabularies, or those an unfinished data phase of the same split and text
// settings trained and kept.
text::TokenizerPair checkpointed_tokenizers(const Config& config,
                                            const RunDir& dir,
                                            const TrainingText& training,
                                            const SplitCheckpoint& checkpoint,
                                            const RunDir* vocabulary_source) {
  if (vocabulary_source) return build_tokenizers(config, training, vocabulary_source);
  if (std::optional<text::TokenizerPair> kept = checkpoint.take_vocabularies(config.text)) {
    spdlog::info(
        "{} holds the vocabularies of an unfinished data phase of this split and these text "
        "settings: not trained again",
        dir.path());
    return std::move(*kept);
  }
  text::TokenizerPair tokenizers = build_tokenizers(config, training, nullptr);
  checkpoint.save_vocabularies(config.text, tokenizers);
  return tokenizers;
}

// How many pairs of the training text one part of the tokenizing pass covers: a 32nd of it (what
// a stopped pass loses at most), but no fewer than 128 pairs, whose files and marker would cost
// more than tokenizing them again.
std::size_t pairs_per_part(std::size_t training_pairs) {
  constexpr std::size_t kParts = 32;
  constexpr std::size_t kFewestPairs = 128;
  return std::max(kFewestPairs, (training_pairs + kParts - 1) / kParts);
}

// The pass that encodes the training text a chunk at a time on all cores, drops its pairs too
// long in tokens (counted in report), applies the corpus weights and writes what is left in parts
// that the checkpoint keeps as each is finished (split_checkpoint.h); then joins them into dir's
// train.tsv and train.ids. A pass stopped half-way goes on after its last finished part.
class TokenizingPass {
 public:
  TokenizingPass(const Config& config,
                 const RunDir& dir,
                 const TrainingText& training,
                 const text::TokenizerPair& tokenizers,
                 const SplitCheckpoint& checkpoint,
                 std::vector<std::string> vocabulary_files,
                 data::FilterReport& report)
      : config_(config),
        dir_(dir),
        training_(training),
        tokenizers_(tokenizers),
        checkpoint_(checkpoint),
        vocabulary_files_(std::move(vocabulary_files)),
        corpora_(config.data.training_corpora()),
        is_weighted_(data::is_weighted(config.data)),
        pairs_per_part_(pairs_per_part(training.size)),
        report_(report) {
    if (std::optional<TokenizedParts> kept =
            checkpoint.take_parts(config.text, vocabulary_files_)) {
      parts_ = std::move(*kept);
      kept_ = parts_.counts.at("kept").get<std::size_t>();
      written_ = parts_.counts.at("written").get<std::size_t>();
      report_.too_many_tokens = parts_.counts.at("too_many_tokens").get<std::size_t>();
      report_.length_ratio = parts_.counts.at("length_ratio").get<std::size_t>();
      unknown_ = UnknownPieces::from_counts(parts_.counts.at("unknown"));
      spdlog::info(
          "{} holds the first {} of {} training pairs tokenized by an unfinished data phase of "
          "this split and these vocabularies: not tokenized again",
          dir.path(), parts_.input_pairs, training.size);
    }
  }

  // Tokenizes the pairs after the kept parts and joins every part into the run directory's
  // training split. Returns the pairs written.
  std::size_t run() {
    const std::size_t first_pair = parts_.input_pairs;
    ProgressLog progress("tokenizing the training split", training_.size, first_pair);
    for_each_chunk(training_, [&](const std::vector<data::SentencePair>& chunk, std::size_t first) {
      if (first + chunk.size() <= parts_.input_pairs) return;
      progress.update(first);
      add_chunk(chunk, first);
    });
    spdlog::info("tokenized {} training pairs in {}", training_.size - first_pair,
                 format_duration(progress.seconds()));
    log_filters(config_, report_);
    if (is_weighted_) {
      spdlog::info("corpus weights: {} training pairs become {}", kept_, written_);
    }
    if (written_ == 0) {
      throw DataError(corpora_.front().name(),
                      "no training pair left after cleaning, filtering and splitting");
    }
    std::vector<std::string> texts;
    std::vector<std::string> ids;
    for (std::size_t part = 0; part < parts_.count; ++part) {
      texts.push_back(checkpoint_.part_text(part));
      ids.push_back(checkpoint_.part_ids(part));
    }
    join_files(texts, dir_.split(Split::kTrain));
    data::join_token_files(ids, dir_.token_file(Split::kTrain), tokenizers_.source->size(),
                           tokenizers_.target->size());
    return written_;
  }

  // The <UNK> pieces of what run() wrote.
  const UnknownPieces& unknown_pieces() const { return unknown_; }

 private:
  // The part being written.
  struct Part {
    Part(const std::string& text_path,
         const std::string& ids_path,
         const text::TokenizerPair& tokenizers)
        : pairs(text_path), ids(ids_path, tokenizers.source->size(), tokenizers.target->size()) {}

    data::PairFileWriter pairs;
    data::TokenFileWriter ids;
  };

  // Tokenizes the pairs of chunk (whose first pair is the training text's pair `first`) that no
  // kept part covers.
  void add_chunk(const std::vector<data::SentencePair>& chunk, std::size_t first) {
    const std::size_t skipped = parts_.input_pairs > first ? parts_.input_pairs - first : 0;
    const data::EncodedCorpus encoded =
        skipped == 0 ? data::encode_pairs(chunk, tokenizers_)
                     : data::encode_pairs(
                           std::vector<data::SentencePair>(
                               chunk.begin() + static_cast<std::ptrdiff_t>(skipped), chunk.end()),
                           tokenizers_);
    for (std::size_t j = skipped; j < chunk.size(); ++j) {
      if (!part_) {
        part_.emplace(checkpoint_.part_text(parts_.count), checkpoint_.part_ids(parts_.count),
                      tokenizers_);
      }
      add_pair(chunk[j], encoded, j - skipped, first + j);
      const std::size_t done = first + j + 1;
      if (done % pairs_per_part_ == 0 || done == training_.size) finish_part(done);
    }
  }

  // Writes the pair at `index` of the training text (encoded at `encoded_index` of encoded) to
  // the part, as many times as its corpus weight says, unless it is too long in tokens.
  void add_pair(const data::SentencePair& pair,
                const data::EncodedCorpus& encoded,
                std::size_t encoded_index,
                std::size_t index) {
    switch (data::length_verdict(encoded.source_length(encoded_index),
                                 encoded.target_length(encoded_index), config_.data)) {
      case data::LengthVerdict::kTooManyTokens:
        ++report_.too_many_tokens;
        return;
      case data::LengthVerdict::kLengthRatio:
        ++report_.length_ratio;
        return;
      case data::LengthVerdict::kKept:
        break;
    }
    const std::size_t copies =
        is_weighted_ ? data::weighted_copies(kept_, corpora_.at(training_.corpus[index]).weight,
                                             config_.data.seed)
                     : 1;
    ++kept_;
    if (copies == 0) return;
    const data::EncodedPair ids = encoded.pair(encoded_index);
    unknown_.add(ids, copies);
    for (std::size_t copy = 0; copy < copies; ++copy) {
      part_->pairs.add(pair);
      part_->ids.add(ids.source, ids.target);
    }
    written_ += copies;
  }

  // Puts the part's files in place and keeps them, covering the training text's first
  // input_pairs pairs.
  void finish_part(std::size_t input_pairs) {
    part_->pairs.commit();
    part_->ids.commit();
    part_.reset();
    ++parts_.count;
    parts_.input_pairs = input_pairs;
    parts_.counts = {{"kept", kept_},
                     {"written", written_},
                     {"too_many_tokens", report_.too_many_tokens},
                     {"length_ratio", report_.length_ratio},
                     {"unknown", unknown_.counts()}};
    checkpoint_.save_parts(config_.text, vocabulary_files_, parts_);
  }

  const Config& config_;
  const RunDir& dir_;
  const TrainingText& training_;
  const text::TokenizerPair& tokenizers_;
  const SplitCheckpoint& checkpoint_;
  const std::vector<std::string> vocabulary_files_;
  const std::vector<data::CorpusFile> corpora_;
  const bool is_weighted_;
  const std::size_t pairs_per_part_;
  data::FilterReport& report_;
  UnknownPieces unknown_;  // what a kept vocabulary (fine-tuning) is judged by
  TokenizedParts parts_;
  std::size_t kept_ = 0;     // pairs the length filter kept: the corpus weights' counter
  std::size_t written_ = 0;  // pairs written, copies included
  std::optional<Part> part_;
};

// The corpora cleaned and split (the training text at checkpoint.train_text()), kept until the
// data phase ends; or the split an unfinished data phase of the same inputs kept.
CheckpointedSplit split_corpora(const Config& config,
                                const RunDir& dir,
                                const SplitCheckpoint& checkpoint,
                                ScratchFiles& scratch) {
  if (std::optional<CheckpointedSplit> kept = checkpoint.take()) {
    spdlog::info(
        "{} holds the split of an unfinished data phase of these corpora and data settings: "
        "{} training pairs, not read and split again",
        dir.path(), kept->splits.train_size);
    return std::move(*kept);
  }
  CheckpointedSplit split;
  split.reads = nlohmann::json::array();
  // prepare.json lists the training corpora first, as the configuration does; the named dev and
  // test sets are read before them.
  nlohmann::json held_out_reads = nlohmann::json::array();
  ProgressLog reading("cleaning and splitting");
  const data::ReadObserver observer{
      [&](const char* role, const data::ReadReport& report) {
        log_read_report(report);
        (std::string(role) == "train" ? split.reads : held_out_reads)
            .push_back(read_json(role, report));
      },
      [&reading](std::size_t pairs) { reading.update(pairs); }};
  split.splits = data::stream_splits(config.data, config.text.clean, checkpoint.train_text(),
                                     scratch.add("train.kept.tmp"), observer);
  spdlog::info("cleaned and split {} training-corpus pairs in {}", split.splits.report.input,
               format_duration(reading.seconds()));
  for (nlohmann::json& read : held_out_reads) split.reads.push_back(std::move(read));
  checkpoint.save(split);
  return split;
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
  // Every core tokenizes (at::parallel_for) while the data phase runs, whatever number of threads
  // the process had before and has after: LibTorch's own default here is one.
  const ThreadCountScope all_cores(0);
  if (config.data.reverse) {
    spdlog::info(
        "direction: the files' second column (or target file) is the source "
        "(data.reverse){}",
        describe_direction(config.data));
  } else if (!config.data.source_lang.empty() || !config.data.target_lang.empty()) {
    spdlog::info("direction:{}", describe_direction(config.data));
  }
  const SplitCheckpoint checkpoint(dir, config);
  ScratchFiles scratch(dir);
  CheckpointedSplit split = split_corpora(config, dir, checkpoint, scratch);
  data::StreamedSplits& splits = split.splits;
  const nlohmann::json& reads = split.reads;
  TrainingText training{{checkpoint.train_text()}, splits.train_size,
                        std::move(splits.train_corpus)};
  const data::AugmentReport augmented =
      augment_training_text(config.data, training, scratch.add("train.added.tmp"));
  log_augmentation(augmented);

  PreparedData prepared;
  prepared.tokenizers =
      checkpointed_tokenizers(config, dir, training, checkpoint, vocabulary_source);
  // Saved first: the tokenizing pass's kept parts name the vocabulary files they were made with.
  const std::vector<std::string> files =
      text::save_tokenizers(config.text, prepared.tokenizers, dir.path());
  spdlog::info("vocabulary: {} source, {} target tokens -> {}", prepared.tokenizers.source->size(),
               prepared.tokenizers.target->size(), fmt::join(files, ", "));
  TokenizingPass tokenizing(config, dir, training, prepared.tokenizers, checkpoint, files,
                            splits.report);
  const SplitSizes sizes{tokenizing.run(), splits.valid.size(), splits.test.size()};
  log_splits(config, sizes);
  std::optional<UnknownPieces> unknown;
  if (vocabulary_source) {
    unknown = tokenizing.unknown_pieces();
    log_unknown_pieces(*unknown, *vocabulary_source);
  }
  data::write_pairs(dir.split(Split::kValid), splits.valid);
  data::write_pairs(dir.split(Split::kTest), splits.test);

  data::write_token_file(dir.token_file(Split::kValid),
                         data::encode_pairs(splits.valid, prepared.tokenizers),
                         prepared.tokenizers.source->size(), prepared.tokenizers.target->size());
  prepared.train_ids = map_token_file(dir, Split::kTrain, prepared.tokenizers);
  prepared.valid_ids = map_token_file(dir, Split::kValid, prepared.tokenizers);
  spdlog::info("token ids ({} bytes each) -> {}, {}", prepared.train_ids.id_bytes(),
               dir.token_file(Split::kTrain), dir.token_file(Split::kValid));

  save_config(dir.config(), config);
  write_text_atomically(
      dir.prepare_report(),
      report_json(reads, splits.report, sizes, augmented, prepared.tokenizers, unknown).dump(2) +
          "\n");
  checkpoint.remove();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("data ready in {} ({:.1f} s)", dir.path(), seconds);
  prepared.splits.valid = std::move(splits.valid);
  prepared.splits.test = std::move(splits.test);
  prepared.splits.report = splits.report;
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
  if (has_token_files) {
    prepared.train_ids = map_token_file(dir, Split::kTrain, prepared.tokenizers);
    prepared.valid_ids = map_token_file(dir, Split::kValid, prepared.tokenizers);
  } else {
    spdlog::info("{} has no token files (prepared by an earlier nmt): encoding its splits",
                 dir.path());
    prepared.train_ids =
        data::encode_pairs(data::read_pairs(dir.split(Split::kTrain)), prepared.tokenizers);
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
  // A signal ends the process at once: every file is written atomically and prepare.json last,
  // and what the phase finished stays for the next prepare into dir (run/split_checkpoint.h).
  StopOnSignal stop;
  stop.exit_at_once("interrupted while preparing " + dir.path() +
                    "; the same `nmt prepare` into it goes on from what it finished");
  if (config.text.vocab_from.empty()) return prepare_data(config, dir);
  const RunDir vocabulary = resolve_run_dir(config.text.vocab_from, "text.vocab_from");
  return prepare_data(with_vocabulary_run(config, config_path), dir, &vocabulary);
}

}  // namespace nmt::run
