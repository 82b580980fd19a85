// The HTTP API of `nmt serve` as plain data, shared by its two request formats (libre_api.h:
// LibreTranslate's POST /translate and GET /languages; v1_api.h: nmt's POST /v1/translate): what
// the server knows of its model, the parts of a request the API reads, reading a request's fields,
// checking its API key, and refusals. No HTTP (server.h routes requests here) and no model.
//
// Every refusal is an ApiError: its status and the message the server sends as {"error": ...}.
// A message quotes at most a short, escaped prefix of an offending value. Torch-free; never logs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "nmt/decode/options.h"
#include "nmt/error.h"
#include "nmt/serve/batcher.h"
#include "nmt/serve/options.h"
#include "nmt/text/casing.h"
#include "nmt/text/cut_texts.h"
#include "nmt/text/html_text.h"
#include "nmt/text/sentence_splitter.h"

namespace nmt::serve {

// A request the server answers with `status` and {"error": message}.
class ApiError : public Error {
 public:
  ApiError(int status, const std::string& message, int64_t retry_after_seconds = 0)
      : Error(message), status_(status), retry_after_seconds_(retry_after_seconds) {}
  int status() const { return status_; }
  // > 0: the answer carries Retry-After.
  int64_t retry_after_seconds() const { return retry_after_seconds_; }

 private:
  int status_;
  int64_t retry_after_seconds_;
};

// What the server tells about its model, and the defaults requests start from.
struct ModelInfo {
  std::string source_lang;  // "" when the run records none: any source code is accepted
  std::string target_lang;  // likewise
  std::string run;          // the run directory
  std::string checkpoint;   // the weights' file (an ensemble's joined by " + ")
  std::string version;      // identifies the weights: the CRC-32 of the checkpoint file(s), hex
  decode::SearchOptions defaults;  // the run's decode section with the command's flags
  // A multi-target model's output languages, the codes of its tags (">>spa<<" -> "spa"), sorted;
  // a request picks one (LibreTranslate's target, /v1's target_lang). Empty for other models.
  std::vector<std::string> target_languages;
  // The source language's sentence rules, which cut each text of a request into the sentences
  // queued for the model; null: texts are cut at their line breaks alone.
  std::shared_ptr<const text::SentenceSplitter> splitter;
};

// A request's texts cut into the sentences the batcher queues. In HTML (format "html") each text
// is a fragment or document, and the texts cut into sentences are its text nodes'.
struct RequestTexts {
  // The texts cut (HTML: every document's text nodes) and their sentences as the model reads them.
  text::CutTexts cut{nullptr, std::nullopt};
  std::vector<std::shared_ptr<const text::HtmlText>> documents;  // HTML: one per request text

  const std::vector<std::string>& sentences() const { return cut.sentences(); }
};

// Cuts texts into sentences with model.splitter when `split` and the model has one (the requests'
// default), else at line breaks (one sentence per line); as HTML when is_html. Sentences written
// all in capitals or all in lower case are queued in sentence case (text::adapt_case). ApiError 400
// "q[1]: cannot parse the HTML text: ..." for HTML that libxml2 gives up on.
RequestTexts split_texts(const std::vector<std::string>& texts,
                         const ModelInfo& model,
                         bool split,
                         bool is_html);

// One result per request text from one per sentence: a text's hypothesis k joins hypothesis k of
// each of its sentences (a sentence's last when it has fewer) in the text's layout and sums their
// scores; a text without a sentence is its whitespace. A sentence written in capitals is answered in
// capitals (text::restore_case). In HTML, hypothesis k of a document is the
// document with hypothesis k of each text node. The first sentence's attention stays with its
// text.
std::vector<SentenceResult> join_texts(const RequestTexts& texts,
                                       std::vector<SentenceResult> sentences);

// "" when language is one of model.target_languages, else why it is not (for a 400 answer).
std::string target_language_problem(const std::string& language, const ModelInfo& model);

// The parts of an HTTP request the API reads.
struct RequestParts {
  std::string content_type;  // the Content-Type header
  std::string body;
  std::vector<std::pair<std::string, std::string>> form;  // query and form fields, in order
  std::string authorization;                              // the Authorization header
};

// Which API a request came to: they differ in how they answer a missing key.
enum class Api { kLibre, kV1 };

// The deepest nesting a JSON body may have (as nmt's configuration reader allows): a request needs
// 2 levels ({"q": [...]}), and a value this shallow can be serialised, compared or copied (each of
// which recurses once per level) on any thread's stack. A deeper body is refused while it is read.
inline constexpr int kMaxJsonDepth = 32;

// The request's fields as one JSON object: for /translate the JSON body when the Content-Type is
// JSON (as Flask's is_json) and the form fields otherwise (the first value of each name); for
// /v1/translate always the JSON body. Every JSON body is read here, bounded: ApiError 413 for a
// body over limits.max_body_bytes, 400 for one that is not a JSON object or is nested deeper than
// kMaxJsonDepth ("Failed to decode JSON object: nested deeper than 32 levels").
nlohmann::json request_fields(const RequestParts& parts, Api api, const ServeOptions& limits);

// Nothing when `expected` is empty; otherwise the request must carry it as "Authorization:
// Bearer KEY" or as the api_key field. A wrong key is 403 "Invalid API key"; a missing one is 400
// (LibreTranslate's "Please contact the server operator to get an API key") on /translate and
// 401 on /v1/translate.
void check_api_key(const std::string& expected,
                   const nlohmann::json& fields,
                   const std::string& authorization,
                   Api api);

// The model's description in answers and in GET /health.
nlohmann::json model_json(const ModelInfo& model);

// A JSON value as answer text: invalid UTF-8 in strings is replaced, never an exception.
std::string dump(const nlohmann::json& value);

}  // namespace nmt::serve
