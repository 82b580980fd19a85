#include "nmt/data/dataset.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <thread>
#include <unordered_set>

#include "nmt/check.h"
#include "nmt/cpu_count.h"
#include "nmt/data/read_ahead.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"
#include "nmt/mapped_file.h"

namespace nmt::data {
namespace {

// FNV-1a, 64 bit: a fixed, documented hash, unlike std::hash.
uint64_t fnv1a(std::string_view bytes, uint64_t hash = 14695981039346656037ull) {
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// SplitMix64's finaliser (Steele et al. 2014): well-mixed bits from consecutive inputs.
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t group_rank(uint64_t seed, std::string_view key) {
  const std::string seed_text = std::to_string(seed) + "\x1f";
  return fnv1a(key, fnv1a(seed_text));
}

// Notebook-cleaned sources of the named dev and test sets: with group_by_source no training pair
// may share one.
std::unordered_set<std::string> held_out_sources(const std::vector<SentencePair>& valid,
                                                 const std::vector<SentencePair>& test,
                                                 const CorpusOptions& options) {
  std::unordered_set<std::string> sources;
  if (!options.group_by_source) return sources;
  for (const auto* held_out : {&valid, &test}) {
    for (const SentencePair& pair : *held_out) sources.insert(text::clean_notebook(pair.source));
  }
  return sources;
}

// A set of 64-bit hashes in one open-addressed table (linear probing, at most half full): 16 to
// 32 bytes a hash where std::unordered_set takes about 40, for data.dedupe on tens of millions of
// pairs. 0 marks a free slot, so the hash 0 is stored as 1.
class HashSet {
 public:
  // False when hash was in the set already.
  bool insert(uint64_t hash) {
    if (hash == 0) hash = 1;
    if (2 * (size_ + 1) > slots_.size()) grow();
    if (!place(slots_, hash)) return false;
    ++size_;
    return true;
  }

 private:
  static bool place(std::vector<uint64_t>& slots, uint64_t hash) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t slot = splitmix64(hash) & mask;; slot = (slot + 1) & mask) {
      if (slots[slot] == hash) return false;
      if (slots[slot] == 0) {
        slots[slot] = hash;
        return true;
      }
    }
  }

  void grow() {
    std::vector<uint64_t> larger(std::max<std::size_t>(1024, 2 * slots_.size()), 0);
    for (const uint64_t hash : slots_) {
      if (hash != 0) place(larger, hash);
    }
    slots_ = std::move(larger);
  }

  std::vector<uint64_t> slots_;
  std::size_t size_ = 0;
};

// What cleaning makes of one training pair, and what the filters read of it.
struct CleanedPair {
  enum class Verdict : char { kKept, kEmpty, kTooLong, kIdentical, kHeldOutSource };
  SentencePair pair;
  Verdict verdict = Verdict::kKept;
  uint64_t group_rank = 0;
  uint64_t pair_hash = 0;  // for data.dedupe
};

CleanedPair clean_pair(const SentencePair& raw,
                       std::size_t input_index,
                       const CorpusOptions& options,
                       text::CleanMode clean_mode,
                       const std::unordered_set<std::string>& held_out) {
  using Verdict = CleanedPair::Verdict;
  CleanedPair cleaned;
  const std::string source_words = text::clean_notebook(raw.source);
  const std::string target_words = text::clean_notebook(raw.target);
  const bool is_notebook = clean_mode == text::CleanMode::kNotebook;
  cleaned.pair = {is_notebook ? source_words : text::clean(raw.source, clean_mode),
                  is_notebook ? target_words : text::clean(raw.target, clean_mode)};
  const SentencePair& pair = cleaned.pair;
  const auto max_words = static_cast<std::size_t>(options.max_words);
  if (pair.source.empty() || pair.target.empty() || source_words.empty() || target_words.empty()) {
    cleaned.verdict = Verdict::kEmpty;
  } else if (max_words > 0 && (text::count_words(source_words) > max_words ||
                               text::count_words(target_words) > max_words)) {
    cleaned.verdict = Verdict::kTooLong;
  } else if (options.drop_identical && pair.source == pair.target) {
    cleaned.verdict = Verdict::kIdentical;
  } else if (held_out.count(source_words) > 0) {
    cleaned.verdict = Verdict::kHeldOutSource;
  }
  cleaned.group_rank = group_rank(
      options.seed, options.group_by_source ? source_words : std::to_string(input_index));
  if (options.dedupe) cleaned.pair_hash = fnv1a(pair.target, fnv1a("\t", fnv1a(pair.source)));
  return cleaned;
}

// clean(i) for i in [first, last) on `threads` threads (0: one per core), in order: the result
// does not depend on the number of threads. The threads take blocks of pairs as they become free,
// so that one slowed down (by the thread reading the next chunk, on a machine of few cores) is not
// waited for with its share half done.
template <class Clean>
std::vector<CleanedPair> clean_in_parallel(std::size_t first,
                                           std::size_t last,
                                           std::size_t threads,
                                           const Clean& clean) {
  constexpr std::size_t kBlock = 512;
  std::vector<CleanedPair> cleaned(last - first);
  if (cleaned.empty()) return cleaned;
  if (threads == 0) threads = std::clamp<std::size_t>(usable_cpu_count(), 1, 64);
  const std::size_t blocks = (cleaned.size() + kBlock - 1) / kBlock;
  std::atomic<std::size_t> next_block{0};
  const auto work = [&] {
    for (std::size_t block = next_block++; block < blocks; block = next_block++) {
      const std::size_t end = std::min(cleaned.size(), (block + 1) * kBlock);
      for (std::size_t i = block * kBlock; i < end; ++i) cleaned[i] = clean(first + i);
    }
  };
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < std::min(threads, blocks); ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  return cleaned;
}

// Cleans training pairs a chunk at a time on every core and passes those the filters let through
// on, in input order, with the rank of each one's group. Duplicates are recognised by a 64-bit
// hash of the cleaned pair (FNV-1a): a set of hashes, not of strings, whatever the corpus size;
// two different pairs share one with odds of about n^2 / 2^65 (1 in 40,000 for 30M pairs), and
// then one of them is dropped.
class PairFilter {
 public:
  PairFilter(const CorpusOptions& options,
             text::CleanMode clean_mode,
             std::unordered_set<std::string> held_out,
             std::size_t threads,
             FilterReport& report)
      : options_(options),
        clean_mode_(clean_mode),
        held_out_(std::move(held_out)),
        threads_(threads),
        report_(report) {}

  // Filters raw[0, count); keep(pair, its group's rank) for each pair kept.
  template <class Keep>
  void add(const SentencePair* raw, std::size_t count, const Keep& keep) {
    using Verdict = CleanedPair::Verdict;
    std::vector<CleanedPair> chunk = clean_in_parallel(0, count, threads_, [&](std::size_t i) {
      return clean_pair(raw[i], report_.input + i, options_, clean_mode_, held_out_);
    });
    report_.input += count;
    for (CleanedPair& cleaned : chunk) {
      switch (cleaned.verdict) {
        case Verdict::kEmpty: ++report_.empty; continue;
        case Verdict::kTooLong: ++report_.too_long; continue;
        case Verdict::kIdentical: ++report_.identical; continue;
        case Verdict::kHeldOutSource: ++report_.held_out_source; continue;
        case Verdict::kKept: break;
      }
      if (options_.dedupe && !seen_.insert(cleaned.pair_hash)) {
        ++report_.duplicates;
        continue;
      }
      ++report_.kept;
      keep(std::move(cleaned.pair), cleaned.group_rank);
    }
  }

 private:
  const CorpusOptions& options_;
  text::CleanMode clean_mode_;
  std::unordered_set<std::string> held_out_;
  std::size_t threads_;
  FilterReport& report_;
  HashSet seen_;
};

constexpr std::size_t kChunkPairs = std::size_t{1} << 16;

// A named dev or test set: cleaned like the training data, never length-filtered.
std::vector<SentencePair> clean_held_out(const std::vector<SentencePair>& raw,
                                         text::CleanMode clean_mode,
                                         FilterReport& report) {
  std::vector<SentencePair> cleaned;
  for (const SentencePair& pair : raw) {
    SentencePair clean{text::clean(pair.source, clean_mode), text::clean(pair.target, clean_mode)};
    if (clean.source.empty() || clean.target.empty()) {
      ++report.held_out_empty;
      continue;
    }
    cleaned.push_back(std::move(clean));
  }
  return cleaned;
}

enum class Destination : char { kTrain, kValid, kTest };

// The groups that are held out: groups of pairs with equal ranks (one source sentence each,
// unless two keys' 64-bit hashes meet), in rank order, fill the test split, then the validation
// split, each until it holds its fraction of the pairs; the rest train. Only the ranks are held,
// never the keys, and of the groups only the held-out ones.
class HeldOutGroups {
 public:
  // Chooses among `lowest`: the ranks of the kept pairs up to some bound (all of them, or those
  // KeptRanks holds in memory), of `total` pairs kept.
  HeldOutGroups(std::vector<uint64_t> lowest,
                std::size_t total,
                double valid_fraction,
                double test_fraction) {
    const auto want_test = static_cast<std::size_t>(std::llround(test_fraction * total));
    const auto want_valid = static_cast<std::size_t>(std::llround(valid_fraction * total));
    if (want_test == 0 && want_valid == 0) return;  // every pair trains: no ranks to sort
    std::sort(lowest.begin(), lowest.end());
    std::size_t n_test = 0;
    std::size_t n_valid = 0;
    std::size_t first = 0;
    while (first < lowest.size() && (n_test < want_test || n_valid < want_valid)) {
      std::size_t last = first + 1;
      while (last < lowest.size() && lowest[last] == lowest[first]) ++last;
      if (n_test < want_test) {
        test_.push_back(lowest[first]);
        n_test += last - first;
      } else {
        valid_.push_back(lowest[first]);
        n_valid += last - first;
      }
      first = last;
    }
    is_complete_ = lowest.size() == total || (n_test >= want_test && n_valid >= want_valid);
  }

  // False when `lowest` ran out before the splits held their fractions: the groups above its
  // bound are needed too.
  bool is_complete() const { return is_complete_; }

  Destination of(uint64_t rank) const {
    if (std::binary_search(test_.begin(), test_.end(), rank)) return Destination::kTest;
    if (std::binary_search(valid_.begin(), valid_.end(), rank)) return Destination::kValid;
    return Destination::kTrain;
  }

 private:
  std::vector<uint64_t> test_;   // ascending
  std::vector<uint64_t> valid_;  // ascending
  bool is_complete_ = true;
};

// The group ranks of the pairs a streamed split keeps, in order, 8 bytes a pair (240 MB at 30M
// pairs): written to a scratch file that the pass routing the pairs reads back, and not held. In
// memory stay only the lowest ranks, those of the groups that may be held out: every rank below a
// threshold, lowered as pairs come so that four times the held-out share of the pairs seen (and
// a margin) stays below it, whole groups at a time. A threshold fixed in advance would not do:
// ranks are hashes, but not evenly spread ones (FNV-1a of keys that differ only in their last
// bytes lie close together). Should a late run of low ranks leave fewer below the threshold than
// the held-out splits need, HeldOutGroups says so and all ranks are read back.
class KeptRanks {
 public:
  KeptRanks(std::string path, double held_out_fraction)
      : path_(std::move(path)), held_out_fraction_(held_out_fraction) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
  }
  ~KeptRanks() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  KeptRanks(const KeptRanks&) = delete;
  KeptRanks& operator=(const KeptRanks&) = delete;

  void add(uint64_t rank) {
    if (rank < threshold_) {
      lowest_.push_back(rank);
      if (lowest_.size() >= 2 * lowest_wanted()) drop_highest();
    }
    buffer_.push_back(rank);
    ++size_;
    if (buffer_.size() == kBufferRanks) write_buffer();
  }

  // Writes what add() buffered and closes the file for writing; before read().
  void finish() {
    write_buffer();
    buffer_.shrink_to_fit();
    ::close(fd_);
    fd_ = -1;
    written_.emplace(path_);
  }

  std::size_t size() const { return size_; }
  // Every rank below the threshold, unordered.
  const std::vector<uint64_t>& lowest() const { return lowest_; }

  // The ranks of kept pairs [first, first + count).
  std::vector<uint64_t> read(std::size_t first, std::size_t count) const {
    std::vector<uint64_t> ranks(count);
    if (count > 0) written_->read(first * sizeof(uint64_t), count * sizeof(uint64_t), ranks.data());
    return ranks;
  }

 private:
  static constexpr std::size_t kBufferRanks = std::size_t{1} << 17;  // 1 MiB
  static constexpr double kLowestShares = 4.0;
  static constexpr std::size_t kLowestMargin = 64;

  void write_buffer() {
    if (const int error = write_fully(fd_, buffer_.data(), buffer_.size() * sizeof(uint64_t))) {
      throw Error("cannot write " + path_ + ": " + std::strerror(error));
    }
    buffer_.clear();
  }

  std::size_t lowest_wanted() const {
    return static_cast<std::size_t>(kLowestShares * held_out_fraction_ *
                                    static_cast<double>(size_)) +
           kLowestMargin;
  }

  // Lowers the threshold to the lowest_wanted()-th lowest rank, dropping the ranks from it on:
  // equal ranks (one group) go together.
  void drop_highest() {
    const auto kept = static_cast<std::ptrdiff_t>(lowest_wanted());
    std::nth_element(lowest_.begin(), lowest_.begin() + kept, lowest_.end());
    threshold_ = lowest_[static_cast<std::size_t>(kept)];
    lowest_.erase(std::remove_if(lowest_.begin(), lowest_.end(),
                                 [this](uint64_t rank) { return rank >= threshold_; }),
                  lowest_.end());
  }

  std::string path_;
  double held_out_fraction_;
  int fd_ = -1;
  uint64_t threshold_ = std::numeric_limits<uint64_t>::max();  // lowest_ holds every rank below it
  std::vector<uint64_t> lowest_;
  std::vector<uint64_t> buffer_;
  std::size_t size_ = 0;
  std::optional<MappedFile> written_;  // read with pread, so none of it stays resident
};

// Where ConfigError messages for entry i of a corpus list start: "train[1]".
std::string entry_name(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

void validate_corpus_list(const char* list, const std::vector<CorpusFile>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const CorpusFile& file = files[i];
    const std::string name = entry_name(list, i);
    check::file_name(name + ".path", file.path);
    check::file_name(name + ".source", file.source);
    check::file_name(name + ".target", file.target);
    const bool has_path = !file.path.empty();
    const bool has_aligned = !file.source.empty() || !file.target.empty();
    if (has_path == has_aligned) {
      throw ConfigError(name,
                        "expected either a TSV file (\"path\") or aligned files (\"source\" "
                        "and \"target\")");
    }
    if (has_aligned && (file.source.empty() || file.target.empty())) {
      throw ConfigError(name + (file.source.empty() ? ".source" : ".target"),
                        "aligned files need both \"source\" and \"target\"");
    }
    if (!(file.weight > 0.0) || !std::isfinite(file.weight)) {
      throw ConfigError(name + ".weight",
                        "expected a positive number, got " + format_number(file.weight));
    }
    if (file.weight != 1.0 && std::string(list) != "train") {
      throw ConfigError(name + ".weight", "weights apply to training corpora only");
    }
  }
}

}  // namespace

std::vector<CorpusFile> CorpusOptions::training_corpora() const {
  if (!train.empty()) return train;
  CorpusFile file;
  file.path = path;
  return {file};
}

void CorpusOptions::validate() const {
  if (path.empty() && train.empty()) {
    throw ConfigError("path", "expected a file name, got \"\" (or name corpora in data.train)");
  }
  check::file_name("path", path);
  validate_corpus_list("train", train);
  validate_corpus_list("valid", valid);
  validate_corpus_list("test", test);
  check::non_negative("max_words", max_words);
  check::non_negative("max_length", max_length);
  check::non_negative("max_length_ratio", max_length_ratio);
  if (max_length_ratio > 0.0 && max_length_ratio < 1.0) {
    throw ConfigError("max_length_ratio", "expected 0 (no limit) or at least 1, got " +
                                              format_number(max_length_ratio));
  }
  check::fraction("valid_fraction", valid_fraction);
  check::fraction("test_fraction", test_fraction);
  check::fraction("augment_upper", augment_upper);
  check::fraction("augment_lower", augment_lower);
  check::fraction("augment_concat", augment_concat);
  check::fraction("augment_placeholders", augment_placeholders);
  const double held_out =
      (valid.empty() ? valid_fraction : 0.0) + (test.empty() ? test_fraction : 0.0);
  if (held_out >= 1.0) {
    throw ConfigError("valid_fraction", "valid_fraction + test_fraction must stay below 1, got " +
                                            format_number(valid_fraction + test_fraction));
  }
  for (const auto& [key, code] :
       {std::pair{"source_lang", &source_lang}, std::pair{"target_lang", &target_lang}}) {
    const bool is_code =
        code->size() <= 16 &&
        code->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") ==
            std::string::npos;
    if (!is_code) {
      throw ConfigError(
          key, "expected a language code such as \"en\" or \"pt-BR\", got " + check::quote(*code));
    }
  }
}

void reverse_pairs(std::vector<SentencePair>& pairs) {
  for (SentencePair& pair : pairs) std::swap(pair.source, pair.target);
}

Splits make_splits(const std::vector<SentencePair>& raw,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode) {
  CorpusOptions one_corpus = options;
  one_corpus.valid.clear();
  one_corpus.test.clear();
  return make_splits(CorpusSet{{raw}, {}, {}}, one_corpus, clean_mode);
}

Splits make_splits(const CorpusSet& corpora,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode,
                   std::size_t threads) {
  Splits splits;
  PairFilter filter(options, clean_mode, held_out_sources(corpora.valid, corpora.test, options),
                    threads, splits.report);
  std::vector<SentencePair> kept;
  std::vector<std::size_t> kept_corpus;
  std::vector<uint64_t> ranks;
  for (std::size_t corpus = 0; corpus < corpora.train.size(); ++corpus) {
    const std::vector<SentencePair>& raw = corpora.train[corpus];
    for (std::size_t first = 0; first < raw.size(); first += kChunkPairs) {
      filter.add(raw.data() + first, std::min(kChunkPairs, raw.size() - first),
                 [&](SentencePair&& pair, uint64_t rank) {
                   kept.push_back(std::move(pair));
                   kept_corpus.push_back(corpus);
                   ranks.push_back(rank);
                 });
    }
  }
  const bool has_named_valid = !options.valid.empty();
  const bool has_named_test = !options.test.empty();
  const HeldOutGroups held_out(ranks, ranks.size(), has_named_valid ? 0.0 : options.valid_fraction,
                               has_named_test ? 0.0 : options.test_fraction);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    switch (held_out.of(ranks[i])) {
      case Destination::kTrain:
        splits.train.push_back(std::move(kept[i]));
        splits.train_corpus.push_back(kept_corpus[i]);
        break;
      case Destination::kValid: splits.valid.push_back(std::move(kept[i])); break;
      case Destination::kTest: splits.test.push_back(std::move(kept[i])); break;
    }
  }
  if (has_named_valid) splits.valid = clean_held_out(corpora.valid, clean_mode, splits.report);
  if (has_named_test) splits.test = clean_held_out(corpora.test, clean_mode, splits.report);
  return splits;
}

namespace {

// The pairs of a list of named dev or test files, read whole (they are scored whole).
std::vector<SentencePair> read_named_set(const std::vector<CorpusFile>& files,
                                         const char* role,
                                         const CorpusOptions& options,
                                         const ReadObserver& on_read) {
  std::vector<SentencePair> pairs;
  for (const CorpusFile& file : files) {
    Corpus corpus = read_corpus(file, options.format);
    if (on_read.file_read) on_read.file_read(role, corpus.report);
    if (options.reverse) reverse_pairs(corpus.pairs);
    pairs.insert(pairs.end(), std::make_move_iterator(corpus.pairs.begin()),
                 std::make_move_iterator(corpus.pairs.end()));
  }
  return pairs;
}

// Filters the training corpora into kept_path and their groups' ranks into ranks; returns, per
// corpus, the number of kept pairs up to its end.
std::vector<std::size_t> filter_into(const std::string& kept_path,
                                     KeptRanks& ranks,
                                     const CorpusOptions& options,
                                     PairFilter& filter,
                                     const FilterReport& report,
                                     const ReadObserver& on_read) {
  PairFileWriter kept(kept_path);
  std::vector<std::size_t> corpus_ends;
  for (const CorpusFile& file : options.training_corpora()) {
    CorpusReader reader(file, options.format);
    try {
      visit_chunks(reader, kChunkPairs, [&](std::vector<SentencePair>& chunk) {
        if (options.reverse) reverse_pairs(chunk);
        filter.add(chunk.data(), chunk.size(), [&](SentencePair&& pair, uint64_t rank) {
          kept.add(pair);
          ranks.add(rank);
        });
        if (on_read.pairs_read) on_read.pairs_read(report.input);
      });
    } catch (const std::bad_alloc&) {
      throw DataError(file.name(),
                      "out of memory after " + std::to_string(reader.report().lines) +
                          " lines: nmt keeps a hash of each sentence pair while it splits the "
                          "corpus, and this many do not fit in the memory available; use a part "
                          "of the corpus");
    }
    if (on_read.file_read) on_read.file_read("train", reader.report());
    corpus_ends.push_back(kept.pairs());
  }
  kept.commit();
  ranks.finish();
  return corpus_ends;
}

}  // namespace

StreamedSplits stream_splits(const CorpusOptions& options,
                             text::CleanMode clean_mode,
                             const std::string& train_path,
                             const std::string& kept_path,
                             const ReadObserver& on_read,
                             std::size_t threads) {
  StreamedSplits splits;
  // The named sets come first: with group_by_source their sources decide which training pairs go.
  const std::vector<SentencePair> valid = read_named_set(options.valid, "valid", options, on_read);
  const std::vector<SentencePair> test = read_named_set(options.test, "test", options, on_read);
  const double valid_fraction = options.valid.empty() ? options.valid_fraction : 0.0;
  const double test_fraction = options.test.empty() ? options.test_fraction : 0.0;
  KeptRanks ranks(kept_path + ".ranks", valid_fraction + test_fraction);
  std::vector<std::size_t> corpus_ends;
  {
    // Scoped: the hashes of data.dedupe go before the pairs are routed.
    PairFilter filter(options, clean_mode, held_out_sources(valid, test, options), threads,
                      splits.report);
    corpus_ends = filter_into(kept_path, ranks, options, filter, splits.report, on_read);
  }
  std::optional<HeldOutGroups> held_out;
  held_out.emplace(ranks.lowest(), ranks.size(), valid_fraction, test_fraction);
  if (!held_out->is_complete()) {
    held_out.emplace(ranks.read(0, ranks.size()), ranks.size(), valid_fraction, test_fraction);
  }
  PairFileReader kept(kept_path);
  PairFileWriter train(train_path);
  std::size_t index = 0;
  uint32_t corpus = 0;
  visit_chunks(kept, kChunkPairs, [&](std::vector<SentencePair>& chunk) {
    const std::vector<uint64_t> chunk_ranks = ranks.read(index, chunk.size());
    for (std::size_t i = 0; i < chunk.size(); ++i, ++index) {
      while (index >= corpus_ends[corpus]) ++corpus;
      SentencePair& pair = chunk[i];
      switch (held_out->of(chunk_ranks[i])) {
        case Destination::kTrain:
          train.add(pair);
          splits.train_corpus.push_back(corpus);
          break;
        case Destination::kValid:
          splits.valid.push_back(std::move(pair));
          break;
        case Destination::kTest:
          splits.test.push_back(std::move(pair));
          break;
      }
    }
  });
  train.commit();
  remove_tree(kept_path);
  splits.train_size = train.pairs();
  if (!options.valid.empty()) splits.valid = clean_held_out(valid, clean_mode, splits.report);
  if (!options.test.empty()) splits.test = clean_held_out(test, clean_mode, splits.report);
  return splits;
}

LengthVerdict length_verdict(std::size_t source_tokens,
                             std::size_t target_tokens,
                             const CorpusOptions& options) {
  const std::size_t longer = std::max(source_tokens, target_tokens);
  const std::size_t shorter = std::max<std::size_t>(1, std::min(source_tokens, target_tokens));
  if (options.max_length > 0 && longer > static_cast<std::size_t>(options.max_length)) {
    return LengthVerdict::kTooManyTokens;
  }
  if (options.max_length_ratio > 0.0 &&
      static_cast<double>(longer) > options.max_length_ratio * static_cast<double>(shorter)) {
    return LengthVerdict::kLengthRatio;
  }
  return LengthVerdict::kKept;
}

std::vector<std::size_t> filter_by_length(Splits& splits,
                                          const CorpusOptions& options,
                                          const PairLengths& lengths) {
  std::vector<std::size_t> kept;
  kept.reserve(splits.train.size());
  std::size_t out = 0;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const auto [source, target] = lengths(i);
    switch (length_verdict(source, target, options)) {
      case LengthVerdict::kTooManyTokens: ++splits.report.too_many_tokens; continue;
      case LengthVerdict::kLengthRatio: ++splits.report.length_ratio; continue;
      case LengthVerdict::kKept: break;
    }
    if (out != i) {
      splits.train[out] = std::move(splits.train[i]);
      splits.train_corpus[out] = splits.train_corpus[i];
    }
    kept.push_back(i);
    ++out;
  }
  splits.train.resize(out);
  splits.train_corpus.resize(out);
  return kept;
}

bool is_weighted(const CorpusOptions& options) {
  const std::vector<CorpusFile> corpora = options.training_corpora();
  return std::any_of(corpora.begin(), corpora.end(),
                     [](const CorpusFile& file) { return file.weight != 1.0; });
}

std::size_t weighted_copies(std::size_t index, double weight, uint64_t seed) {
  auto copies = static_cast<std::size_t>(std::floor(weight));
  // A seeded uniform draw in [0, 1) per pair: the sampled pairs do not depend on the platform.
  const double draw = static_cast<double>(splitmix64(seed ^ splitmix64(index)) >> 11) * 0x1.0p-53;
  if (draw < weight - std::floor(weight)) ++copies;
  return copies;
}

std::vector<std::size_t> apply_weights(Splits& splits, const CorpusOptions& options) {
  std::vector<std::size_t> origins;
  if (!is_weighted(options)) {
    origins.resize(splits.train.size());
    std::iota(origins.begin(), origins.end(), 0);
    return origins;
  }
  const std::vector<CorpusFile> corpora = options.training_corpora();
  std::vector<SentencePair> weighted;
  std::vector<std::size_t> weighted_corpus;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const std::size_t corpus = splits.train_corpus[i];
    const std::size_t copies = weighted_copies(i, corpora.at(corpus).weight, options.seed);
    for (std::size_t copy = 0; copy < copies; ++copy) {
      weighted.push_back(splits.train[i]);
      weighted_corpus.push_back(corpus);
      origins.push_back(i);
    }
  }
  splits.train = std::move(weighted);
  splits.train_corpus = std::move(weighted_corpus);
  return origins;
}

std::vector<std::size_t> sample_indices(std::size_t count, std::size_t at_most, uint64_t seed) {
  std::vector<std::size_t> sample;
  const std::size_t wanted = at_most == 0 ? count : std::min(count, at_most);
  sample.reserve(wanted);
  for (std::size_t i = 0; i < count && sample.size() < wanted; ++i) {
    const double draw =
        static_cast<double>(splitmix64(seed ^ splitmix64(i ^ 0xA5A5A5A5A5A5A5A5ull)) >> 11) *
        0x1.0p-53;
    // Item i is taken with probability (still wanted) / (still left): exactly `wanted` in all.
    if (static_cast<double>(count - i) * draw < static_cast<double>(wanted - sample.size())) {
      sample.push_back(i);
    }
  }
  return sample;
}

void write_pairs(const std::string& path, const std::vector<SentencePair>& pairs) {
  PairFileWriter writer(path);
  for (const SentencePair& pair : pairs) writer.add(pair);
  writer.commit();
}

std::vector<SentencePair> read_pairs(const std::string& path) {
  std::vector<SentencePair> pairs;
  PairFileReader reader(path);
  while (reader.read(pairs, std::numeric_limits<std::size_t>::max())) {
  }
  return pairs;
}

PairFileReader::PairFileReader(const std::string& path) : path_(path) {
  // A corpus line of kMaxLineBytes expanded 18 times by NFKC and joined with another.
  constexpr std::size_t kMaxSplitLineBytes = 64 * kMaxLineBytes;
  try {
    lines_ = std::make_unique<LineReader>(path, kMaxSplitLineBytes);
  } catch (const Error&) {
    throw DataError(path, "cannot open split file");
  }
}

bool PairFileReader::read(std::vector<SentencePair>& pairs, std::size_t at_most) {
  const std::size_t before = pairs.size();
  while (pairs.size() - before < at_most && lines_->next()) {
    const std::string& line = lines_->line();
    const std::size_t tab = line.find('\t');
    if (lines_->is_too_long() || tab == std::string::npos ||
        line.find('\t', tab + 1) != std::string::npos) {
      throw DataError(path_, lines_->line_number(), "expected source<TAB>target");
    }
    pairs.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return pairs.size() > before;
}

PairFileWriter::PairFileWriter(std::string path) : file_(std::move(path)) {}

void PairFileWriter::add(const SentencePair& pair) {
  buffer_ += pair.source;
  buffer_ += '\t';
  buffer_ += pair.target;
  buffer_ += '\n';
  ++pairs_;
  if (buffer_.size() >= (std::size_t{1} << 20)) flush();
}

void PairFileWriter::flush() { behind_.append(buffer_); }

void PairFileWriter::commit() {
  flush();
  behind_.finish();
  file_.commit();
}

}  // namespace nmt::data
