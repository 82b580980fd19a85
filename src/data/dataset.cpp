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
  std::vector<std::string> keys;  // notebook-cleaned source, or the input index
};

KeptPairs filter_pairs(const std::vector<SentencePair>& raw,
                       const CorpusOptions& options,
                       text::CleanMode clean_mode,
                       FilterReport& report) {
  KeptPairs kept;
  report.input = raw.size();
  std::unordered_set<std::string> seen;
  const auto max_words = static_cast<std::size_t>(options.max_words);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::string source_words = text::clean_notebook(raw[i].source);
    const std::string target_words = text::clean_notebook(raw[i].target);
    SentencePair pair{text::clean(raw[i].source, clean_mode),
                      text::clean(raw[i].target, clean_mode)};
    if (pair.source.empty() || pair.target.empty() || source_words.empty() ||
        target_words.empty()) {
      ++report.empty;
      continue;
    }
    if (text::count_words(source_words) > max_words ||
        text::count_words(target_words) > max_words) {
      ++report.too_long;
      continue;
    }
    if (options.dedupe && !seen.insert(pair.source + '\t' + pair.target).second) {
      ++report.duplicates;
      continue;
    }
    kept.keys.push_back(options.group_by_source ? source_words : std::to_string(i));
    kept.pairs.push_back(std::move(pair));
  }
  report.kept = kept.pairs.size();
  return kept;
}

enum class Destination : char { kTrain, kValid, kTest };

// Groups of equal keys, in the seeded hash order, fill the test split, then the validation split,
// each until it holds its fraction of the pairs; the rest train.
std::vector<Destination> assign_splits(const std::vector<std::string>& keys,
                                       const CorpusOptions& options) {
  std::unordered_map<std::string, std::size_t> group_of_key;
  std::vector<Group> groups;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = group_of_key.try_emplace(keys[i], groups.size());
    if (inserted) groups.push_back({group_rank(options.seed, keys[i]), keys[i], {}});
    groups[it->second].members.push_back(i);
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.key < b.key;
  });
  const double total = static_cast<double>(keys.size());
  const auto want_test = static_cast<std::size_t>(std::llround(options.test_fraction * total));
  const auto want_valid = static_cast<std::size_t>(std::llround(options.valid_fraction * total));
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

}  // namespace

void CorpusOptions::validate() const {
  if (path.empty()) throw ConfigError("path: expected a file name, got \"\"");
  check::positive("max_words", max_words);
  check::fraction("valid_fraction", valid_fraction);
  check::fraction("test_fraction", test_fraction);
  if (valid_fraction + test_fraction >= 1.0) {
    throw ConfigError("valid_fraction: valid_fraction + test_fraction must stay below 1, got " +
                      format_number(valid_fraction + test_fraction));
  }
  for (const auto& [key, code] :
       {std::pair{"source_lang", &source_lang}, std::pair{"target_lang", &target_lang}}) {
    const bool is_code =
        code->size() <= 16 &&
        code->find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") ==
            std::string::npos;
    if (!is_code) {
      throw ConfigError(std::string(key) +
                        ": expected a language code such as \"en\" or \"pt-BR\", got \"" + *code +
                        "\"");
    }
  }
}

void reverse_pairs(std::vector<SentencePair>& pairs) {
  for (SentencePair& pair : pairs) std::swap(pair.source, pair.target);
}

Splits make_splits(const std::vector<SentencePair>& raw,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode) {
  Splits splits;
  KeptPairs kept = filter_pairs(raw, options, clean_mode, splits.report);
  const std::vector<Destination> destinations = assign_splits(kept.keys, options);
  for (std::size_t i = 0; i < kept.pairs.size(); ++i) {
    auto& split = destinations[i] == Destination::kTest    ? splits.test
                  : destinations[i] == Destination::kValid ? splits.valid
                                                           : splits.train;
    split.push_back(std::move(kept.pairs[i]));
  }
  return splits;
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
