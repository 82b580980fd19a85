// Reading sentence pairs: from tab-separated files, or from a pair of aligned plain-text files
// (train.en / train.es, one sentence per line: the convention of Marian, fairseq, OpenNMT,
// Sockeye).
//
// Two layouts are understood (DESIGN.md): the Tatoeba export `id<TAB>english<TAB>id<TAB>spanish`
// and the manythings/Anki layout `english<TAB>spanish[<TAB>attribution]`. With kAuto each line is
// read by its column count (4: Tatoeba, 2 or 3: Anki). CRLF line ends, a UTF-8 byte order mark and
// blank lines are accepted. A line with another column count, invalid UTF-8 or an empty side is
// skipped and counted; the first few are kept as "file:line: reason" in the report.
// Aligned files are read line by line in step; a line pair with one blank side is skipped and
// counted like an empty TSV side, and files of different line counts are an error naming both.
// Any file may be gzip-compressed (recognised by its first bytes). Files are read as streams, in
// memory bounded by the longest line kept (kMaxLineBytes) plus the pairs returned (CorpusReader:
// one chunk of them), whatever the size of the file or of its decompressed content; a longer line
// is skipped and named.
// Torch-free; read_tsv never throws on content; the file readers throw DataError for a missing
// file, an empty file, damaged gzip data, misaligned files, no usable pair, or memory that runs
// out while the pairs are collected (naming the file); never logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace nmt::data {

enum class TsvFormat { kAuto, kTatoeba, kAnki };

struct SentencePair {
  std::string source;
  std::string target;

  bool operator==(const SentencePair& other) const {
    return source == other.source && target == other.target;
  }
};

// What reading a file found.
struct ReadReport {
  std::string file;
  std::size_t lines = 0;                    // lines read, blank ones included
  std::size_t pairs = 0;                    // pairs returned
  std::size_t blank = 0;                    // empty or whitespace-only lines (not errors)
  std::size_t bad_columns = 0;              // lines whose column count fits neither layout
  std::size_t bad_utf8 = 0;                 // lines with invalid UTF-8 or NUL bytes
  std::size_t empty_side = 0;               // lines where one side is empty
  std::size_t too_long = 0;                 // lines longer than kMaxLineBytes
  std::vector<std::string> first_problems;  // "file:line: reason", at most kMaxReportedProblems

  static constexpr std::size_t kMaxReportedProblems = 5;
  std::size_t skipped() const { return bad_columns + bad_utf8 + empty_side + too_long; }
};

// Longer lines are skipped (and named) without being held in memory: no sentence pair is a
// megabyte long, and a file of one endless line (a gzip bomb of zeros) must not fill the memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

struct Corpus {
  std::vector<SentencePair> pairs;
  ReadReport report;
};

// Reads pairs from a stream; `name` stands for the file in the report.
Corpus read_tsv(std::istream& in, const std::string& name, TsvFormat format);

// Reads a file; throws DataError when it is missing, empty or has no usable pair.
Corpus read_tsv_file(const std::string& path, TsvFormat format);

// One corpus of data.train, data.valid or data.test: a TSV file (path), or a pair of aligned
// plain-text files (source and target).
struct CorpusFile {
  std::string path;
  std::string source;
  std::string target;
  // data.train only: how often its pairs are used per epoch; 2 repeats each pair, 0.5 keeps a
  // seeded half of them (up- and down-sampling corpora against each other).
  double weight = 1.0;

  bool is_aligned_pair() const { return path.empty(); }
  // "path", or "source + target".
  std::string name() const;
  bool operator==(const CorpusFile& other) const {
    return path == other.path && source == other.source && target == other.target &&
           weight == other.weight;
  }
};

// Reads one corpus (either form); throws DataError like read_tsv_file.
Corpus read_corpus(const CorpusFile& file, TsvFormat format);

// Reads one corpus (either form) a chunk of pairs at a time: a corpus of any size passes through
// in the memory of one chunk.
class CorpusReader {
 public:
  // Throws DataError when a file is missing or no regular file.
  CorpusReader(const CorpusFile& file, TsvFormat format);
  ~CorpusReader();
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  // Appends up to at_most further pairs to pairs; false when none is left. Throws DataError like
  // read_corpus: damaged gzip data, misaligned files, and at the end an empty corpus or one
  // without a usable pair.
  bool read(std::vector<SentencePair>& pairs, std::size_t at_most);
  // What was read so far; report().pairs counts the pairs returned.
  const ReadReport& report() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace nmt::data
