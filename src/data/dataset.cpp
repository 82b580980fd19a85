#include "nmt/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
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

struct Group {
  uint64_t rank = 0;
  std::string key;
  std::vector<std::size_t> members;  // indices into the kept pairs
};

// Pairs that survive cleaning and filtering, each with the key its split is chosen by.
struct KeptPairs {
  std::vector<SentencePair> pairs;
  std::vector<std::string> keys;     // notebook-cleaned source, or the input index
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

KeptPairs filter_pairs(const CorpusSet& corpora,
                       const CorpusOptions& options,
                       text::CleanMode clean_mode,
                       FilterReport& report) {
  KeptPairs kept;
  const std::unordered_set<std::string> held_out = held_out_sources(corpora, options);
  std::unordered_set<std::string> seen;
  const auto max_words = static_cast<std::size_t>(options.max_words);
  std::size_t index = 0;
  for (std::size_t corpus = 0; corpus < corpora.train.size(); ++corpus) {
    for (const SentencePair& raw : corpora.train[corpus]) {
      const std::size_t input_index = index++;
      const std::string source_words = text::clean_notebook(raw.source);
      const std::string target_words = text::clean_notebook(raw.target);
      SentencePair pair{text::clean(raw.source, clean_mode), text::clean(raw.target, clean_mode)};
      if (pair.source.empty() || pair.target.empty() || source_words.empty() ||
          target_words.empty()) {
        ++report.empty;
        continue;
      }
      if (max_words > 0 && (text::count_words(source_words) > max_words ||
                            text::count_words(target_words) > max_words)) {
        ++report.too_long;
        continue;
      }
      if (options.drop_identical && pair.source == pair.target) {
        ++report.identical;
        continue;
      }
      if (held_out.count(source_words) > 0) {
        ++report.held_out_source;
        continue;
      }
      if (options.dedupe && !seen.insert(pair.source + '\t' + pair.target).second) {
        ++report.duplicates;
        continue;
      }
      kept.keys.push_back(options.group_by_source ? source_words : std::to_string(input_index));
      kept.pairs.push_back(std::move(pair));
      kept.corpora.push_back(corpus);
    }
  }
  report.input = index;
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

// Groups of equal keys, in the seeded hash order, fill the test split, then the validation split,
// each until it holds its fraction of the pairs; the rest train.
std::vector<Destination> assign_splits(const std::vector<std::string>& keys,
                                       double valid_fraction,
                                       double test_fraction,
                                       uint64_t seed) {
  std::unordered_map<std::string, std::size_t> group_of_key;
  std::vector<Group> groups;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = group_of_key.try_emplace(keys[i], groups.size());
    if (inserted) groups.push_back({group_rank(seed, keys[i]), keys[i], {}});
    groups[it->second].members.push_back(i);
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.key < b.key;
  });
  const double total = static_cast<double>(keys.size());
  const auto want_test = static_cast<std::size_t>(std::llround(test_fraction * total));
  const auto want_valid = static_cast<std::size_t>(std::llround(valid_fraction * total));
  std::vector<Destination> destinations(keys.size(), Destination::kTrain);
  std::size_t n_test = 0;
  std::size_t n_valid = 0;
  for (const Group& group : groups) {
    Destination destination = Destination::kTrain;
    if (n_test < want_test) {
      destination = Destination::kTest;
      n_test += group.members.size();
    } else if (n_valid < want_valid) {
      destination = Destination::kValid;
      n_valid += group.members.size();
    }
    for (const std::size_t member : group.members) destinations[member] = destination;
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
                   text::CleanMode clean_mode) {
  Splits splits;
  const bool has_named_valid = !options.valid.empty();
  const bool has_named_test = !options.test.empty();
  KeptPairs kept = filter_pairs(corpora, options, clean_mode, splits.report);
  const std::vector<Destination> destinations =
      assign_splits(kept.keys, has_named_valid ? 0.0 : options.valid_fraction,
                    has_named_test ? 0.0 : options.test_fraction, options.seed);
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

void filter_by_length(Splits& splits, const CorpusOptions& options, const PairLengths& lengths) {
  if (options.max_length == 0 && options.max_length_ratio == 0.0) return;
  const auto max_length = static_cast<std::size_t>(options.max_length);
  std::size_t out = 0;
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const auto [source, target] = lengths(splits.train[i]);
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
    ++out;
  }
  splits.train.resize(out);
  splits.train_corpus.resize(out);
}

void apply_weights(Splits& splits, const CorpusOptions& options) {
  const std::vector<CorpusFile> corpora = options.training_corpora();
  const bool is_weighted = std::any_of(corpora.begin(), corpora.end(),
                                       [](const CorpusFile& file) { return file.weight != 1.0; });
  if (!is_weighted) return;
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
    }
  }
  splits.train = std::move(weighted);
  splits.train_corpus = std::move(weighted_corpus);
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
