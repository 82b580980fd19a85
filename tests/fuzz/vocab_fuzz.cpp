// Fuzzes the vocabulary reader (nmt/text/vocab.h) on arbitrary file content. Only DataError may
// escape; an accepted vocabulary has the four specials first, maps every token back to its own id,
// and reads back identical from what Vocab::save writes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include "fuzz_support.h"
#include "nmt/error.h"
#include "nmt/text/vocab.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using nmt::text::Vocab;
  std::istringstream in(std::string(nmt::fuzz::as_text(data, size)));
  std::optional<Vocab> vocab;
  try {
    vocab = Vocab::from_stream(in, "fuzz.vocab");
  } catch (const nmt::DataError&) {
    return 0;
  }
  NMT_FUZZ_CHECK(vocab->size() >= nmt::text::kNumSpecials, "the specials are present");
  for (int64_t id = 0; id < vocab->size(); ++id) {
    if (id < nmt::text::kNumSpecials) {
      NMT_FUZZ_CHECK(vocab->token(id) == nmt::text::kSpecialTokens[id], "specials come first");
    }
    NMT_FUZZ_CHECK(vocab->id(vocab->token(id)) == id, "each token maps back to its id");
  }
  std::stringstream saved;
  vocab->save(saved);
  std::optional<Vocab> reloaded;
  try {
    reloaded = Vocab::from_stream(saved, "saved.vocab");
  } catch (const nmt::DataError& error) {
    std::fprintf(stderr, "saved vocabulary refused: %s\n", error.what());
    NMT_FUZZ_CHECK(false, "a saved vocabulary reads back");
  }
  NMT_FUZZ_CHECK(*reloaded == *vocab, "a vocabulary round-trips through save");
  return 0;
}
