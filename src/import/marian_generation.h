// Reading a Marian directory's generation settings (marian_generation.cpp) from the keys of an
// object, for config.json and generation_config.json alike. Private to src/import/.
#pragma once

#include "marian_json.h"
#include "nmt/import/marian_directory.h"

namespace nmt::import::detail {

// num_beams, max_length, length_penalty, early_stopping, bad_words_ids and forced_eos_token_id
// with transformers' defaults; ids bound the token ids. Throws ConfigError naming the key.
MarianGeneration read_marian_generation(const Fields& fields, const MarianIds& ids);

}  // namespace nmt::import::detail
