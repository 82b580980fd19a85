// The token ids of a split, in the form training reads them: two flat arrays (ids, offsets) held
// in memory (encode_pairs, sample_pairs) or mapped from a token file that the data phase writes
// once, so that training on a prepared run neither tokenizes the text again nor holds the corpus:
// its pairs are read from the page cache as batches need them (pread), and the lengths that a
// pass over the whole corpus reads through the mapping are dropped again as it goes
// (release_pages), so that however large the file, little of it stays resident.
//
// Token file (`<split>.ids` in a run directory), little-endian, written by TokenFileWriter:
//   bytes 0-7    "nmt-ids\n"
//   8-11         format version (1)
//   12-15        bytes per id: 2 when both vocabularies have at most 65,536 entries, else 4
//   16-19, 20-23 source and target vocabulary sizes; every id of a side is below its size
//   24 ...       the ids of every pair, source then target, zero-padded to a multiple of 8 bytes
//   then         2P+1 offsets (uint64, in ids): pair i's source is [o[2i], o[2i+1]), its target
//                [o[2i+1], o[2i+2])
//   last 16      the pair count P and the id count (uint64 each)
// The counts come last so that a writer streams the ids without knowing how many pairs follow.
// fairseq's .bin/.idx pair keeps ids and offsets in two files; one file is one thing to write
// atomically and to check.
// Torch-free. A damaged file is refused with a DataError naming it and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/io.h"
#include "nmt/write_behind.h"

namespace nmt::data {

// Token ids of one pair; target without <SOS>/<EOS>.
struct EncodedPair {
  std::vector<int64_t> source;
  std::vector<int64_t> target;

  bool operator==(const EncodedPair& other) const {
    return source == other.source && target == other.target;
  }
};

class EncodedCorpus {
 public:
  // No pairs.
  EncodedCorpus();
  // The pairs in memory, 4 bytes per id (EncodedCorpusBuilder). Throws nmt::Error for an id
  // outside [0, 2^32).
  explicit EncodedCorpus(const std::vector<EncodedPair>& pairs);

  // Maps a token file after checking its header, size and offsets. Throws DataError naming path
  // (and the byte offset of the first problem) when it is no token file, is truncated or damaged.
  static EncodedCorpus map(const std::string& path);

  std::size_t size() const { return pairs_; }
  bool empty() const { return pairs_ == 0; }
  std::size_t source_length(std::size_t pair) const { return offset(2 * pair + 1) - offset(2 * pair); }
  std::size_t target_length(std::size_t pair) const {
    return offset(2 * pair + 2) - offset(2 * pair + 1);
  }
  // Reads a mapped pair with pread, so that reading pairs from all over a file leaves none of it
  // resident. Throws DataError naming the file and the id's byte offset when a mapped id is not
  // below its vocabulary's size, nmt::Error when the file cannot be read.
  EncodedPair pair(std::size_t index) const;

  // 2 or 4.
  int id_bytes() const { return id_bytes_; }
  // The vocabulary sizes a token file was written for; 0 in memory.
  std::size_t source_vocabulary() const { return source_vocabulary_; }
  std::size_t target_vocabulary() const { return target_vocabulary_; }
  // The mapped file, or "memory".
  const std::string& origin() const;

  // Drops the pages of a mapped file read so far from resident memory (MappedFile::release); they
  // read the same again. The lengths are read through the mapping: a caller that reads them over
  // the whole corpus calls it as it goes. Nothing in memory.
  void release_pages() const;

 private:
  friend class EncodedCorpusBuilder;
  friend class TokenFileWriter;
  struct Storage;

  EncodedCorpus(std::vector<uint64_t> offsets, std::vector<uint32_t> ids);

  std::size_t offset(std::size_t index) const { return static_cast<std::size_t>(offsets_[index]); }
  // Ids [begin, end) of the file, whose bytes start at `bytes`, converted and checked.
  void decode_ids(const unsigned char* bytes,
                  std::size_t begin,
                  std::size_t end,
                  uint32_t vocabulary,
                  int64_t* out) const;

  std::shared_ptr<const Storage> storage_;
  const uint64_t* offsets_ = nullptr;
  const unsigned char* ids_ = nullptr;
  std::size_t pairs_ = 0;
  int id_bytes_ = 4;
  uint32_t source_vocabulary_ = 0;  // 0: not checked (in memory)
  uint32_t target_vocabulary_ = 0;
};

// Collects pairs into an in-memory corpus, 4 bytes an id, without a vector per pair.
class EncodedCorpusBuilder {
 public:
  // Throws nmt::Error for an id outside [0, 2^32).
  void add(const std::vector<int64_t>& source, const std::vector<int64_t>& target);
  EncodedCorpus finish() &&;

 private:
  void append_side(const std::vector<int64_t>& ids);

  std::vector<uint64_t> offsets_{0};
  std::vector<uint32_t> ids_;
};

// Writes a token file pair by pair in memory that does not grow with it: the ids go to the
// temporary file as they come (a buffer of 1 MiB written on another thread while the next fills), the offsets to an unnamed scratch file beside it (nothing is left
// behind however the process ends), and commit() appends them and puts the finished file in place
// atomically.
class TokenFileWriter {
 public:
  // Throws nmt::Error naming the file when it cannot be created.
  TokenFileWriter(std::string path, std::size_t source_vocabulary, std::size_t target_vocabulary);
  ~TokenFileWriter();
  TokenFileWriter(const TokenFileWriter&) = delete;
  TokenFileWriter& operator=(const TokenFileWriter&) = delete;

  // Throws nmt::Error naming the file when an id is not below its side's vocabulary size.
  void add(const std::vector<int64_t>& source, const std::vector<int64_t>& target);
  // Appends every pair of a mapped token file written for the same vocabularies, its ids copied
  // as they are. Throws DataError naming that file when it was written for others.
  void add_all(const EncodedCorpus& corpus);
  // Throws nmt::Error naming the file when it cannot be written (disk full, I/O error).
  void commit();

  std::size_t pairs() const { return pairs_; }

 private:
  void append_side(const std::vector<int64_t>& ids, uint32_t vocabulary, const char* side);
  void flush_offsets();

  AtomicFile file_;
  uint32_t source_vocabulary_;
  uint32_t target_vocabulary_;
  int id_bytes_;
  int offsets_fd_ = -1;                // the offsets written so far
  std::vector<uint64_t> offsets_{0};   // offsets not yet written to offsets_fd_
  uint64_t ids_ = 0;                   // ids so far: the last offset
  std::size_t pairs_ = 0;
  std::vector<unsigned char> buffer_;  // ids not yet appended to file_
  WriteBehind<std::vector<unsigned char>> behind_{file_};  // destroyed first: waits for its write
};

// The pairs of the token files at parts, one after the other, into a token file at path: a token
// file written in parts that were each kept as they were finished. Throws DataError naming a part
// that is damaged or was written for other vocabularies.
void join_token_files(const std::vector<std::string>& parts,
                      const std::string& path,
                      std::size_t source_vocabulary,
                      std::size_t target_vocabulary);

// Every pair of corpus into a token file at path.
void write_token_file(const std::string& path,
                      const EncodedCorpus& corpus,
                      std::size_t source_vocabulary,
                      std::size_t target_vocabulary);

}  // namespace nmt::data
