// From raw pairs to the cleaned train/valid/test splits a run trains and is scored on.
//
// Each side is cleaned (text/clean.h); pairs with an empty side after cleaning or with more than
// max_words words on either side are dropped (words are counted on the notebook-cleaned text in
// every clean mode, so word and subword runs select the same pairs); optional exact-duplicate
// removal; then a deterministic split. With group_by_source, every pair whose source sentence
// matches another's after notebook cleaning lands in the same split, so no test source is seen in
// training. Groups are ordered by a hash of (seed, key), so a sentence's split does not depend on
// the platform. Torch-free; throws ConfigError for invalid options; never logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/data/corpus.h"
#include "nmt/text/clean.h"

namespace nmt::data {

// The "data" section of the configuration.
struct CorpusOptions {
  std::string path = "data/sample/en-es.tsv";  // TSV file of sentence pairs
  TsvFormat format = TsvFormat::kAuto;         // tatoeba (4 columns), anki (2-3) or auto
  int64_t max_words = 15;                      // drop pairs longer than this on either side
  double valid_fraction = 0.1;                 // share of pairs held out for validation
  double test_fraction = 0.05;                 // share of pairs held out for the test score
  uint64_t seed = 23;                          // split seed
  bool group_by_source = true;                 // keep pairs sharing a source sentence in one split
  bool dedupe = false;                         // drop exact duplicate pairs (after cleaning)
  bool reverse = false;     // swap the sides: translate the file's second column into its first
  std::string source_lang;  // optional language codes ("en", "es"), recorded with the run
  std::string target_lang;

  // Throws ConfigError naming the field.
  void validate() const;
};

struct FilterReport {
  std::size_t input = 0;       // pairs read
  std::size_t empty = 0;       // dropped: a side is empty after cleaning
  std::size_t too_long = 0;    // dropped: more than max_words on a side
  std::size_t duplicates = 0;  // dropped by dedupe
  std::size_t kept = 0;        // pairs in the three splits together
};

struct Splits {
  std::vector<SentencePair> train;
  std::vector<SentencePair> valid;
  std::vector<SentencePair> test;
  FilterReport report;
};

// Swaps source and target of every pair (data.reverse: the same file trains the other direction).
void reverse_pairs(std::vector<SentencePair>& pairs);

// Cleans, filters and splits raw pairs. Pairs keep their input order inside each split.
Splits make_splits(const std::vector<SentencePair>& raw,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode);

// Writes pairs as "source<TAB>target" lines, atomically.
void write_pairs(const std::string& path, const std::vector<SentencePair>& pairs);

// Reads what write_pairs wrote; throws DataError (file:line) on a malformed line.
std::vector<SentencePair> read_pairs(const std::string& path);

}  // namespace nmt::data
