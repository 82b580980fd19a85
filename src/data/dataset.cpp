#include "nmt/data/dataset.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
#include <unordered_map>
#include <unordered_set>

#include "nmt/check.h"
#include "nmt/error.h"
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

}  // namespace

void CorpusOptions::validate() const {
  if (path.empty()) throw ConfigError("path: expected a file name, got \"\"");
  check::positive("max_words", max_words);
  check::fraction("valid_fraction", valid_fraction);
  check::fraction("test_fraction", test_fraction);
  if (valid_fraction + test_fraction >= 1.0) {
    throw ConfigError("valid_fraction: valid_fraction + test_fraction must stay below 1, got " +
                      check::format_number(valid_fraction + test_fraction));
  }
}

Splits make_splits(const std::vector<SentencePair>& raw, const CorpusOptions& options,
                   text::CleanMode clean_mode) {
  Splits splits;
  FilterReport& report = splits.report;
  report.input = raw.size();

  std::vector<SentencePair> kept;
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  const auto max_words = static_cast<std::size_t>(options.max_words);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::string source_words = text::clean_notebook(raw[i].source);
    const std::string target_words = text::clean_notebook(raw[i].target);
    SentencePair pair{text::clean(raw[i].source, clean_mode), text::clean(raw[i].target, clean_mode)};
    if (pair.source.empty() || pair.target.empty() || source_words.empty() || target_words.empty()) {
      ++report.empty;
      continue;
    }
    if (text::count_words(source_words) > max_words || text::count_words(target_words) > max_words) {
      ++report.too_long;
      continue;
    }
    if (options.dedupe && !seen.insert(pair.source + '\t' + pair.target).second) {
      ++report.duplicates;
      continue;
    }
    keys.push_back(options.group_by_source ? source_words : std::to_string(i));
    kept.push_back(std::move(pair));
  }
  report.kept = kept.size();

  std::unordered_map<std::string, std::size_t> group_of_key;
  std::vector<Group> groups;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    auto [it, inserted] = group_of_key.try_emplace(keys[i], groups.size());
    if (inserted) groups.push_back({group_rank(options.seed, keys[i]), keys[i], {}});
    groups[it->second].members.push_back(i);
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.key < b.key;
  });

  const auto want_test = static_cast<std::size_t>(std::llround(options.test_fraction * kept.size()));
  const auto want_valid = static_cast<std::size_t>(std::llround(options.valid_fraction * kept.size()));
  enum Split : char { kTrain, kValid, kTest };
  std::vector<char> split_of(kept.size(), kTrain);
  std::size_t n_test = 0;
  std::size_t n_valid = 0;
  for (const Group& group : groups) {
    Split split = kTrain;
    if (n_test < want_test) {
      split = kTest;
      n_test += group.members.size();
    } else if (n_valid < want_valid) {
      split = kValid;
      n_valid += group.members.size();
    }
    for (const std::size_t member : group.members) split_of[member] = split;
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    auto& destination = split_of[i] == kTest ? splits.test : split_of[i] == kValid ? splits.valid : splits.train;
    destination.push_back(std::move(kept[i]));
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
