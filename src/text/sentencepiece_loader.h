// Loads libnmt_sentencepiece.so (see sentencepiece_backend.h) and creates backends from it.
#pragma once

#include <memory>

#include "text/sentencepiece_backend.h"

namespace nmt::text {

// A new backend; the module stays loaded while any backend from it lives. Looks for the module in
// $NMT_SENTENCEPIECE_MODULE, next to the running executable, then where the build put it.
// Throws nmt::Error listing the places tried when it cannot be loaded.
std::shared_ptr<SentencePieceBackend> make_sentencepiece_backend();

}  // namespace nmt::text
