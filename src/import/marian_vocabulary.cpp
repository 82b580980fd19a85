#include "nmt/import/marian_vocabulary.h"

#include "nmt/error.h"

namespace nmt::import {

NmtVocabularyOrder nmt_vocabulary_order(const MarianVocabulary& vocabulary, const MarianIds& ids) {
  const auto size = static_cast<int64_t>(vocabulary.pieces.size());
  for (const int64_t id : {ids.pad, ids.decoder_start, ids.eos, vocabulary.unk_id}) {
    if (id < 0 || id >= size) {
      throw ConfigError(vocabulary.path + ": special id " + std::to_string(id) +
                        " is outside the vocabulary's " + std::to_string(size) + " ids");
    }
  }
  NmtVocabularyOrder order;
  order.pieces = {"<PAD>", "<SOS>", "<EOS>", "<UNK>"};
  order.marian_rows = {ids.pad, ids.decoder_start, ids.eos, vocabulary.unk_id};
  for (int64_t id = 0; id < size; ++id) {
    if (id == ids.pad || id == ids.decoder_start || id == ids.eos || id == vocabulary.unk_id) {
      continue;
    }
    order.pieces.push_back(vocabulary.pieces[static_cast<std::size_t>(id)]);
    order.marian_rows.push_back(id);
  }
  return order;
}

std::string vocabulary_file_text(const NmtVocabularyOrder& order) {
  std::string text;
  for (const std::string& piece : order.pieces) text += piece + "\n";
  return text;
}

}  // namespace nmt::import
