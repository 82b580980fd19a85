// LibreTranslate's API, as `nmt serve` answers it:
//
//   POST /translate   {"q": "text" | ["text", ...], "source": "en", "target": "es",
//                     "format": "text" | "html", "alternatives": 0, "api_key": "...",
//                     "split": true} as
//                     JSON or as form fields -> {"translatedText": "..." | [...]} plus
//                     "alternatives" when asked for and "detectedLanguage" for source "auto".
//   GET  /languages   [{"code": "en", "name": "English", "targets": ["es"]}, ...]
//
// Each text is cut into sentences (the model knows sentences: ModelInfo::splitter; "split": false,
// nmt's own field, cuts at line breaks alone), and their translations joined back in its layout;
// in "html" each text is a fragment or document whose text nodes are translated (text::HtmlText).
// Refusals use LibreTranslate's wording ("Invalid request: missing q parameter") so that its
// clients show what they know. Torch-free; throws ApiError; never logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/decode/options.h"
#include "nmt/serve/api.h"
#include "nmt/serve/batcher.h"
#include "nmt/serve/options.h"

namespace nmt::serve {

// A /translate request, checked.
struct LibreRequest {
  RequestTexts texts;    // the texts and the sentences queued for them
  bool is_list = false;  // q was a list: the answer's fields are lists too
  std::string source;
  std::string target;
  int64_t alternatives = 0;  // further translations per text
  decode::SearchOptions options;
};

// Checks the fields in LibreTranslate's order (q, source, target, alternatives, sizes, languages,
// format), then cuts the texts and counts their sentences; throws ApiError 400 naming what is
// wrong, the limit or the pair the model serves.
LibreRequest libre_request(const nlohmann::json& fields,
                           const ServeOptions& limits,
                           const ModelInfo& model);

// The answer to a /translate request from the results of its texts (join_texts).
nlohmann::json libre_answer(const LibreRequest& request,
                            const std::vector<SentenceResult>& texts,
                            const ModelInfo& model);

// GET /languages: the model's source language with its target, and the target language.
nlohmann::json libre_languages(const ModelInfo& model);

}  // namespace nmt::serve
