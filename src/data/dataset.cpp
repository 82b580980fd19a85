#include "nmt/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <ostream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"

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

// Pairs that survive cleaning and filtering, each with the rank of its group: the seeded hash of
// its key (the notebook-cleaned source with group_by_source, else its input index).
struct KeptPairs {
  std::vector<SentencePair> pairs;
  std::vector<uint64_t> group_ranks;
  std::vector<std::size_t> corpora;  // the training corpus each pair came from
};

// Notebook-cleaned sources of the named dev and test sets: with group_by_source no training pair
// may share one.
std::unordered_set<std::string> held_out_sources(const CorpusSet& corpora,
                                                 const CorpusOptions& options) {
  std::unordered_set<std::string> sources;
  if (!options.group_by_source) return sources;
  for (const auto* held_out : {&corpora.valid, &corpora.test}) {
    for (const SentencePair& pair : *held_out) sources.insert(text::clean_notebook(pair.source));
  }
  return sources;
}

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
// does not depend on the number of threads.
template <class Clean>
std::vector<CleanedPair> clean_in_parallel(std::size_t first,
                                           std::size_t last,
                                           std::size_t threads,
                                           const Clean& clean) {
  std::vector<CleanedPair> cleaned(last - first);
  if (cleaned.empty()) return cleaned;
  if (threads == 0) threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
  const std::size_t share = (cleaned.size() + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::size_t begin = 0; begin < cleaned.size(); begin += share) {
    const std::size_t end = std::min(cleaned.size(), begin + share);
    workers.emplace_back([&, begin, end] {
      for (std::size_t i = begin; i < end; ++i) cleaned[i] = clean(first + i);
    });
  }
  for (std::thread& worker : workers) worker.join();
  return cleaned;
}

// Cleans the training corpora a chunk at a time on every core and keeps what the filters let
// through, in input order. Duplicates are recognised by a 64-bit hash of the cleaned pair (FNV-1a):
// a set of hashes, not of strings, whatever the corpus size; two different pairs share one with
// odds of about n^2 / 2^65 (1 in 40,000 for 30M pairs), and then one of them is dropped.
KeptPairs filter_pairs(const CorpusSet& corpora,
                       const CorpusOptions& options,
                       text::CleanMode clean_mode,
                       std::size_t threads,
                       FilterReport& report) {
  using Verdict = CleanedPair::Verdict;
  constexpr std::size_t kChunk = 1 << 16;
  KeptPairs kept;
  const std::unordered_set<std::string> held_out = held_out_sources(corpora, options);
  std::unordered_set<uint64_t> seen;
  std::size_t input_start = 0;
  for (std::size_t corpus = 0; corpus < corpora.train.size(); ++corpus) {
    const std::vector<SentencePair>& raw = corpora.train[corpus];
    for (std::size_t first = 0; first < raw.size(); first += kChunk) {
      const std::size_t last = std::min(raw.size(), first + kChunk);
      std::vector<CleanedPair> chunk = clean_in_parallel(first, last, threads, [&](std::size_t i) {
        return clean_pair(raw[i], input_start + i, options, clean_mode, held_out);
      });
      for (CleanedPair& cleaned : chunk) {
        switch (cleaned.verdict) {
          case Verdict::kEmpty: ++report.empty; continue;
          case Verdict::kTooLong: ++report.too_long; continue;
          case Verdict::kIdentical: ++report.identical; continue;
          case Verdict::kHeldOutSource: ++report.held_out_source; continue;
          case Verdict::kKept: break;
        }
        if (options.dedupe && !seen.insert(cleaned.pair_hash).second) {
          ++report.duplicates;
          continue;
        }
        kept.group_ranks.push_back(cleaned.group_rank);
        kept.pairs.push_back(std::move(cleaned.pair));
        kept.corpora.push_back(corpus);
      }
    }
    input_start += raw.size();
  }
  report.input = input_start;
  report.kept = kept.pairs.size();
  return kept;
}

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

// Groups of pairs with equal ranks (one source sentence each, unless two keys' 64-bit hashes
// meet), in rank order, fill the test split, then the validation split, each until it holds its
// fraction of the pairs; the rest train. Only the ranks are held, never the keys.
std::vector<Destination> assign_splits(const std::vector<uint64_t>& ranks,
                                       double valid_fraction,
                                       double test_fraction) {
  std::unordered_map<uint64_t, std::size_t> group_of_rank;
  std::vector<std::size_t> group_of_pair(ranks.size());
  std::vector<std::size_t> group_sizes;
  std::vector<uint64_t> group_ranks;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto [it, inserted] = group_of_rank.try_emplace(ranks[i], group_sizes.size());
    if (inserted) {
      group_sizes.push_back(0);
      group_ranks.push_back(ranks[i]);
    }
    group_of_pair[i] = it->second;
    ++group_sizes[it->second];
  }
  std::vector<std::size_t> order(group_sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&group_ranks](std::size_t a, std::size_t b) { return group_ranks[a] < group_ranks[b]; });
  const double total = static_cast<double>(ranks.size());
  const auto want_test = static_cast<std::size_t>(std::llround(test_fraction * total));
  const auto want_valid = static_cast<std::size_t>(std::llround(valid_fraction * total));
  std::vector<Destination> group_destination(group_sizes.size(), Destination::kTrain);
  std::size_t n_test = 0;
  std::size_t n_valid = 0;
  for (const std::size_t group : order) {
    if (n_test < want_test) {
      group_destination[group] = Destination::kTest;
      n_test += group_sizes[group];
    } else if (n_valid < want_valid) {
      group_destination[group] = Destination::kValid;
      n_valid += group_sizes[group];
    }
  }
  std::vector<Destination> destinations(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    destinations[i] = group_destination[group_of_pair[i]];
  }
  return destinations;
}

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
  const bool has_named_valid = !options.valid.empty();
  const bool has_named_test = !options.test.empty();
  KeptPairs kept = filter_pairs(corpora, options, clean_mode, threads, splits.report);
  const std::vector<Destination> destinations =
      assign_splits(kept.group_ranks, has_named_valid ? 0.0 : options.valid_fraction,
                    has_named_test ? 0.0 : options.test_fraction);
  for (std::size_t i = 0; i < kept.pairs.size(); ++i) {
    if (destinations[i] == Destination::kTrain) {
      splits.train.push_back(std::move(kept.pairs[i]));
      splits.train_corpus.push_back(kept.corpora[i]);
    } else {
      auto& split = destinations[i] == Destination::kTest ? splits.test : splits.valid;
      split.push_back(std::move(kept.pairs[i]));
    }
  }
  if (has_named_valid) splits.valid = clean_held_out(corpora.valid, clean_mode, splits.report);
  if (has_named_test) splits.test = clean_held_out(corpora.test, clean_mode, splits.report);
  return splits;
}

std::vector<std::size_t> filter_by_length(Splits& splits,
                                          const CorpusOptions& options,
                                          const PairLengths& lengths) {
  std::vector<std::size_t> kept;
  if (options.max_length == 0 && options.max_length_ratio == 0.0) {
    kept.resize(splits.train.size());
    std::iota(kept.begin(), kept.end(), 0);
    return kept;
  }
  kept.reserve(splits.train.size());
  const auto max_length = static_cast<std::size_t>(options.max_length);
  std::size_t out = 0;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const auto [source, target] = lengths(i);
    const std::size_t longer = std::max(source, target);
    const std::size_t shorter = std::max<std::size_t>(1, std::min(source, target));
    if (max_length > 0 && longer > max_length) {
      ++splits.report.too_many_tokens;
      continue;
    }
    if (options.max_length_ratio > 0.0 &&
        static_cast<double>(longer) > options.max_length_ratio * static_cast<double>(shorter)) {
      ++splits.report.length_ratio;
      continue;
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

std::vector<std::size_t> apply_weights(Splits& splits, const CorpusOptions& options) {
  const std::vector<CorpusFile> corpora = options.training_corpora();
  const bool is_weighted = std::any_of(corpora.begin(), corpora.end(),
                                       [](const CorpusFile& file) { return file.weight != 1.0; });
  std::vector<std::size_t> origins;
  if (!is_weighted) {
    origins.resize(splits.train.size());
    std::iota(origins.begin(), origins.end(), 0);
    return origins;
  }
  std::vector<SentencePair> weighted;
  std::vector<std::size_t> weighted_corpus;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const std::size_t corpus = splits.train_corpus[i];
    const double weight = corpora.at(corpus).weight;
    auto copies = static_cast<std::size_t>(std::floor(weight));
    const double fraction = weight - std::floor(weight);
    // A seeded uniform draw in [0, 1) per pair: the sampled pairs do not depend on the platform.
    const double draw =
        static_cast<double>(splitmix64(options.seed ^ splitmix64(i)) >> 11) * 0x1.0p-53;
    if (draw < fraction) ++copies;
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
  write_file_atomically(path, [&pairs](std::ostream& out) {
    for (const SentencePair& pair : pairs) out << pair.source << '\t' << pair.target << '\n';
  });
}

std::vector<SentencePair> read_pairs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot open split file");
  std::vector<SentencePair> pairs;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || line.find('\t', tab + 1) != std::string::npos) {
      throw DataError(path, line_number, "expected source<TAB>target");
    }
    pairs.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return pairs;
}

}  // namespace nmt::data
