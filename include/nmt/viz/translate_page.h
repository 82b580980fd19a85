// The page `nmt serve` shows at "/": type or paste text and its translation appears as you type
// (requests to the server's POST /v1/translate, a moment after the last key), each line of the text
// translated as a sentence; the decoding strategy, beam size and n-best list with scores; and the
// attention heat maps of the first line's translation, drawn by the attention page's viewer
// (attention_page.h). It asks GET /health for the model's languages and version.
//
// Self-contained: inline CSS and JavaScript, no file or network access beyond the server's own
// API, laid out for widths down to a phone's. The text can be given in the address as
// ?q=TEXT (with strategy=, beam_size=, n_best=), which the page keeps up to date, so that a
// translation can be linked to. Torch-free; never throws except std::bad_alloc; never logs.
#pragma once

#include <cstdint>
#include <string>

namespace nmt::viz {

// What the page needs to know of the server it is served by.
struct TranslatePageSettings {
  bool is_api_key_required = false;  // show a field for the key, sent as Authorization: Bearer
  int64_t max_sentences = 128;       // lines per request (serve.max_sentences)
  int64_t max_chars = 5000;          // characters per line (serve.max_chars)
  int64_t max_beam_size = 16;        // largest beam size and n-best (serve.max_beam_size)
};

std::string render_translate_page(const TranslatePageSettings& settings);

}  // namespace nmt::viz
