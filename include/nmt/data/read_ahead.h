// Reading sentence pairs a chunk ahead: while one chunk is cleaned or tokenized on every core, the
// next is read and parsed on another thread, so that the reading does not wait for the work on
// the pairs nor the work for the reading. Torch-free; never logs.
#pragma once

#include <cstddef>
#include <future>
#include <vector>

#include "nmt/data/corpus.h"

namespace nmt::data {

// Calls visit(chunk) for the pairs of reader (CorpusReader, PairFileReader: anything with
// `bool read(std::vector<SentencePair>&, std::size_t at_most)`), at most chunk_pairs at a time, in
// order, reading the next chunk while visit runs. visit may change the chunk. What either throws
// comes out here, once the other has finished.
template <class Reader, class Visit>
void visit_chunks(Reader& reader, std::size_t chunk_pairs, const Visit& visit) {
  std::vector<SentencePair> chunk;
  std::vector<SentencePair> next;
  bool has_chunk = reader.read(chunk, chunk_pairs);
  while (has_chunk) {
    std::future<bool> reading = std::async(std::launch::async, [&reader, &next, chunk_pairs] {
      next.clear();
      return reader.read(next, chunk_pairs);
    });
    visit(chunk);
    has_chunk = reading.get();
    chunk.swap(next);
  }
}

}  // namespace nmt::data
