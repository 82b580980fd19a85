// The generation settings of a Marian directory: config.json's generation keys, or
// generation_config.json, as transformers' generate() reads them.
#include "marian_generation.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nmt::import {
namespace {

using json = nlohmann::json;
using detail::Fields, detail::parse_object;

// Far above any Marian model's settings.
constexpr int64_t kMaxBeams = 1024;
constexpr int64_t kMaxLength = int64_t{1} << 20;

// bad_words_ids: token sequences generate() never completes; null or absent: none.
std::vector<std::vector<int64_t>> read_bad_words(const Fields& fields, int64_t limit) {
  const char* key = "bad_words_ids";
  const json* value = fields.present(key);
  if (value == nullptr) return {};
  const char* shape = "a list of non-empty lists of token ids";
  if (!value->is_array()) fields.expected(key, shape, *value);
  std::vector<std::vector<int64_t>> sequences;
  for (const json& sequence : *value) {
    if (!sequence.is_array() || sequence.empty()) fields.expected(key, shape, sequence);
    sequences.emplace_back();
    for (const json& id : sequence) {
      sequences.back().push_back(fields.id(key, id, limit, "decoder_vocab_size"));
    }
  }
  return sequences;
}

// forced_eos_token_id: one id or a list of them; null or absent: none.
std::vector<int64_t> read_forced_eos(const Fields& fields, int64_t limit) {
  const char* key = "forced_eos_token_id";
  const json* value = fields.present(key);
  if (value == nullptr) return {};
  if (!value->is_array()) return {fields.id(key, *value, limit, "decoder_vocab_size")};
  std::vector<int64_t> ids;
  for (const json& id : *value) ids.push_back(fields.id(key, id, limit, "decoder_vocab_size"));
  return ids;
}

// early_stopping: true, false or "never", transformers' three rules for ending a beam search.
bool read_early_stopping(const Fields& fields, std::vector<std::string>& notes) {
  const json* value = fields.present("early_stopping");
  if (value != nullptr && value->is_string() && value->get<std::string>() == "never") {
    notes.push_back(fields.source() +
                    ": early_stopping is \"never\"; nmt's beam search stops as generate() does "
                    "with false (decode.beam_stop \"best\")");
    return false;
  }
  return fields.boolean_or("early_stopping", false);
}

}  // namespace

MarianGeneration detail::read_marian_generation(const Fields& fields, const MarianIds& ids) {
  MarianGeneration generation;
  generation.source = fields.source();
  generation.num_beams = fields.integer_or("num_beams", 1, 1, kMaxBeams);
  generation.max_length = fields.integer_or("max_length", 20, 1, kMaxLength);
  generation.length_penalty = fields.number_or("length_penalty", 1.0);
  generation.early_stopping = read_early_stopping(fields, generation.notes);
  generation.bad_words_ids = read_bad_words(fields, ids.decoder_vocab_size);
  generation.forced_eos_token_ids = read_forced_eos(fields, ids.decoder_vocab_size);
  return generation;
}

MarianGeneration parse_marian_generation_config(const std::string& text,
                                                const std::string& source,
                                                const MarianIds& ids) {
  const json document = parse_object(text, source);
  return detail::read_marian_generation(Fields(document, source), ids);
}

}  // namespace nmt::import
