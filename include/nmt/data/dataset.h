// From raw pairs to the cleaned train/valid/test splits a run trains and is scored on.
//
// Training corpora: each side is cleaned (text/clean.h); pairs with an empty side after cleaning,
// with more than max_words words on a side (words are counted on the notebook-cleaned text in
// every clean mode, so word and subword runs select the same pairs), with identical sides
// (drop_identical) or repeated exactly (dedupe) are dropped and counted. Without named dev/test
// sets the kept pairs are split deterministically: with group_by_source, every pair whose source
// sentence matches another's after notebook cleaning lands in the same split, so no test source is
// seen in training; groups are ordered by a hash of (seed, key), so a sentence's split does not
// depend on the platform. Cleaning runs on every core, a chunk of pairs at a time, and only
// hashes of the keys and of the pairs (dedupe) are held, never a second copy of their text.
// Named dev/test files replace the random fractions; they are cleaned but
// never length-filtered (they are scored whole), and with group_by_source training pairs whose
// source is one of theirs are dropped. Corpus weights apply last, to the training split only.
// Length limits in tokens (max_length, max_length_ratio) need the tokenizers and are applied by
// filter_by_length once those exist.
// Torch-free; throws ConfigError for invalid options; never logs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nmt/data/corpus.h"
#include "nmt/io.h"
#include "nmt/text/clean.h"
#include "nmt/write_behind.h"

namespace nmt::data {

// The "data" section of the configuration.
struct CorpusOptions {
  std::string path = "data/sample/en-es.tsv";  // one TSV corpus (when `train` is empty)
  std::vector<CorpusFile> train;        // training corpora, each TSV or aligned files, with weights
  std::vector<CorpusFile> valid;        // a named dev set: replaces valid_fraction
  std::vector<CorpusFile> test;         // a named test set: replaces test_fraction
  TsvFormat format = TsvFormat::kAuto;  // tatoeba (4 columns), anki (2-3) or auto
  int64_t max_words = 0;        // drop pairs with more words on a side; 0 = no limit (notebook: 15)
  int64_t max_length = 256;     // drop training pairs with more tokens on a side; 0 = no limit
  double max_length_ratio = 0;  // drop training pairs whose longer side has more than this many
                                // times the tokens of the shorter; 0 = no limit
  double valid_fraction = 0.1;  // share of pairs held out for validation (no named dev set)
  double test_fraction = 0.05;  // share of pairs held out for the test score (no named test set)
  uint64_t seed = 23;           // split and weight-sampling seed
  bool group_by_source = true;  // keep pairs sharing a source sentence in one split
  bool dedupe = false;          // drop exact duplicate pairs (after cleaning)
  bool drop_identical = false;  // drop pairs whose two sides are the same text (after cleaning)
  bool reverse = false;         // swap the sides: translate the file's second column into its first
  double augment_upper = 0;     // share of training pairs added again in capitals (data/augment.h)
  double augment_lower = 0;     // share of training pairs added again in lower case
  double augment_concat = 0;    // share of training pairs added joined with another training pair
  double augment_placeholders = 0;  // share of training pairs with a span found unchanged on both
                                    // sides added again with placeholders (text/placeholders.h)
  std::string source_lang;      // optional language codes ("en", "es"), recorded with the run
  std::string target_lang;

  // `train`, or the one corpus `path` names.
  std::vector<CorpusFile> training_corpora() const;
  // Throws ConfigError naming the field.
  void validate() const;
};

struct FilterReport {
  std::size_t input = 0;            // training pairs read
  std::size_t empty = 0;            // dropped: a side is empty after cleaning
  std::size_t too_long = 0;         // dropped: more than max_words on a side
  std::size_t identical = 0;        // dropped by drop_identical
  std::size_t duplicates = 0;       // dropped by dedupe
  std::size_t held_out_source = 0;  // dropped: source sentence of the named dev or test set
  std::size_t too_many_tokens = 0;  // dropped by filter_by_length: more than max_length tokens
  std::size_t length_ratio = 0;     // dropped by filter_by_length: beyond max_length_ratio
  std::size_t kept = 0;             // training-corpus pairs in the three splits together
  std::size_t held_out_empty = 0;   // named dev/test pairs dropped: a side empty after cleaning
};

struct Splits {
  std::vector<SentencePair> train;
  std::vector<SentencePair> valid;
  std::vector<SentencePair> test;
  // For each train pair, the index of the training corpus it came from (for the weights).
  std::vector<std::size_t> train_corpus;
  FilterReport report;
};

// The corpora as read: one list of pairs per training corpus, and the named dev/test sets (all
// their files together; empty when the configuration names none).
struct CorpusSet {
  std::vector<std::vector<SentencePair>> train;
  std::vector<SentencePair> valid;
  std::vector<SentencePair> test;
};

// Swaps source and target of every pair (data.reverse: the same file trains the other direction).
void reverse_pairs(std::vector<SentencePair>& pairs);

// Cleans, filters and splits raw pairs of one corpus. Pairs keep their input order inside each
// split.
Splits make_splits(const std::vector<SentencePair>& raw,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode);
// The same for several training corpora and the named dev/test sets of options.valid/test,
// cleaning on `threads` threads (0: one per core); the splits are the same for any count.
Splits make_splits(const CorpusSet& corpora,
                   const CorpusOptions& options,
                   text::CleanMode clean_mode,
                   std::size_t threads = 0);

// The splits of make_splits for corpora of any size: the training split is written to a file
// instead of being held.
struct StreamedSplits {
  std::size_t train_size = 0;          // pairs in the train split's file
  std::vector<uint32_t> train_corpus;  // for each of them, its training corpus
  std::vector<SentencePair> valid;
  std::vector<SentencePair> test;
  FilterReport report;
};

// Told how the reading goes: of each corpus file once it is read (role "train", "valid" or "test"),
// and after each chunk of the training corpora of the pairs read so far. Either may be empty.
struct ReadObserver {
  std::function<void(const char* role, const ReadReport& report)> file_read;
  std::function<void(std::size_t pairs)> pairs_read;
};

// make_splits on the corpora options names, read a chunk of pairs at a time (CorpusReader, swapped
// with options.reverse): the same splits, the train split written to train_path as write_pairs
// writes it. The kept pairs pass through kept_path and their groups' hashes (8 bytes a pair)
// through kept_path + ".ranks", scratch files removed at the end; of each pair only the 4 bytes of
// its corpus stay in memory (and, while the corpora are read, 16 to 32 for the hash of the pair
// with dedupe), so a corpus of tens of millions of pairs is split in well under a gigabyte. The
// named dev/test sets are read first, and held. Throws DataError naming the file being read when
// the memory runs out.
StreamedSplits stream_splits(const CorpusOptions& options,
                             text::CleanMode clean_mode,
                             const std::string& train_path,
                             const std::string& kept_path,
                             const ReadObserver& on_read,
                             std::size_t threads = 0);

// Reads a file that write_pairs (or PairFileWriter) wrote, a chunk of pairs at a time. Its lines
// may be longer than a corpus line (kMaxLineBytes): cleaning expands text (NFKC turns one
// character into up to 18) and data.augment_concat joins two pairs.
class PairFileReader {
 public:
  // Throws DataError when path cannot be opened.
  explicit PairFileReader(const std::string& path);
  // Appends up to at_most further pairs; false when none is left. Throws DataError (file:line) on
  // a malformed line.
  bool read(std::vector<SentencePair>& pairs, std::size_t at_most);
  // Passes over up to `count` pairs without reading them (LineReader::skip); returns how many,
  // fewer at the end of the file.
  std::size_t skip(std::size_t count) { return lines_->skip(count); }

 private:
  std::string path_;
  std::unique_ptr<LineReader> lines_;
};

// Writes pairs as write_pairs does, one at a time, a buffer of 1 MiB written on another thread
// while the next fills; commit() puts the file in place atomically.
class PairFileWriter {
 public:
  explicit PairFileWriter(std::string path);
  void add(const SentencePair& pair);
  // Throws nmt::Error naming the file when it cannot be written.
  void commit();
  std::size_t pairs() const { return pairs_; }

 private:
  void flush();

  AtomicFile file_;
  std::string buffer_;
  std::size_t pairs_ = 0;
  WriteBehind<std::string> behind_{file_};  // destroyed first: waits for its write to file_
};

// Token counts of the two sides of training pair `index`, as the run's tokenizers cut them.
using PairLengths = std::function<std::pair<std::size_t, std::size_t>(std::size_t index)>;

enum class LengthVerdict { kKept, kTooManyTokens, kLengthRatio };

// Whether filter_by_length keeps a pair of these token counts.
LengthVerdict length_verdict(std::size_t source_tokens,
                             std::size_t target_tokens,
                             const CorpusOptions& options);

// Drops training pairs beyond max_length or max_length_ratio, counting them in splits.report.
// Returns the index each kept pair had before.
std::vector<std::size_t> filter_by_length(Splits& splits,
                                          const CorpusOptions& options,
                                          const PairLengths& lengths);

// Repeats (weight >= 1) or samples (the fraction, seeded) each training pair by the weight of its
// corpus in options.training_corpora(). Copies of a pair follow it. Returns the index each
// training pair had before.
std::vector<std::size_t> apply_weights(Splits& splits, const CorpusOptions& options);

// Whether any training corpus has a weight other than 1.
bool is_weighted(const CorpusOptions& options);

// How many copies of training pair `index` (counted after filter_by_length) of a corpus of `weight`
// apply_weights puts into the split.
std::size_t weighted_copies(std::size_t index, double weight, uint64_t seed);

// A seeded sample of at_most of `count` indices, ascending; all of them when count <= at_most or
// at_most is 0. Selection sampling (Knuth's Algorithm S) on SplitMix64 draws: the same sample on
// every platform.
std::vector<std::size_t> sample_indices(std::size_t count, std::size_t at_most, uint64_t seed);

// Writes pairs as "source<TAB>target" lines, atomically.
void write_pairs(const std::string& path, const std::vector<SentencePair>& pairs);

// Reads what write_pairs wrote; throws DataError (file:line) on a malformed line.
std::vector<SentencePair> read_pairs(const std::string& path);

}  // namespace nmt::data
