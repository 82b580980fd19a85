// nmt's own API, as `nmt serve` answers it:
//
//   POST /v1/translate  {"q": "text" | [...], "strategy": "beam", "beam_size": 5, "n_best": 3,
//                       "length_penalty", "max_len", "temperature", "top_k", "top_p", "seed",
//                       "scores": true, "attention": false, "split": true, "format": "text" |
//                       "html", "api_key"} ->
//                       {"translations": [{"text", "score", "hypotheses", "attention"}],
//                       "model": {...}, "options": {...}}
//
// Each text is cut into sentences ("split": false cuts at line breaks alone) and translated in its
// layout; a text's score is the sum of its sentences'. With "format": "html" each text is an HTML
// fragment or document whose text nodes are translated and markup kept (text::HtmlText).
// Decoding options a request leaves out are the server's defaults (the run's decode section);
// the number format and decode.batch_size are always the server's. Torch-free; throws ApiError
// naming the key; never logs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/decode/options.h"
#include "nmt/serve/api.h"
#include "nmt/serve/batcher.h"
#include "nmt/serve/options.h"

namespace nmt::serve {

// The longest output a request may ask for (max_len); 0 asks for the automatic length.
inline constexpr int64_t kMaxOutputTokens = 1024;

// A /v1/translate request, checked.
struct V1Request {
  RequestTexts texts;
  decode::SearchOptions options;
  bool wants_scores = false;     // "score" in each translation and hypothesis
  bool wants_attention = false;  // the attention picture of the first text's first sentence
};

// Reads the decoding options over `defaults`; throws ApiError 400 naming the key for unknown keys,
// wrong types and values outside the limits.
V1Request v1_request(const nlohmann::json& fields,
                     const ServeOptions& limits,
                     const ModelInfo& model);

// The answer from the results of the texts (join_texts): each text's best translation ("hypotheses"
// when n_best > 1, "score" when asked for), the first one's attention when asked for (null when
// none could be drawn), the model and the decoding options used.
nlohmann::json v1_answer(const V1Request& request,
                         const std::vector<SentenceResult>& texts,
                         const ModelInfo& model);

}  // namespace nmt::serve
