// Fuzzes the readers of nmt serve's HTTP API (nmt/serve/*_api.h) on arbitrary request bodies, as
// both APIs and as a form (URL-encoded and multipart, serve/form.h): request_fields,
// check_api_key, libre_request and v1_request (texts cut into sentences, or read as HTML), and the
// answers built for what they accept. Only ApiError may escape, with a 4xx status; an accepted
// request stays within the limits, its texts' sentences add up, each text gets one result, and
// its answer serialises (invalid UTF-8 included). The body is
// also tried as the innermost value of 100,000 nested arrays, which must be refused for its depth
// (without recursing per level) whatever the body holds.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.h"
#include "nmt/serve/api.h"
#include "nmt/serve/libre_api.h"
#include "nmt/serve/v1_api.h"
#include "serve/form.h"

namespace {

using nmt::serve::Api;
using nmt::serve::ApiError;

std::vector<nmt::serve::SentenceResult> echo(const std::vector<std::string>& sentences,
                                             int64_t n_best) {
  std::vector<nmt::serve::SentenceResult> results(sentences.size());
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    for (int64_t rank = 0; rank < n_best; ++rank) {
      results[i].hypotheses.push_back({sentences[i], -static_cast<float>(rank)});
    }
  }
  return results;
}

// The request's texts, answered by echoing each sentence: one result per text.
std::vector<nmt::serve::SentenceResult> check_texts(const nmt::serve::RequestTexts& texts,
                                                    const nmt::serve::ServeOptions& limits,
                                                    int64_t n_best) {
  std::size_t sentences = 0;
  for (const auto& text : texts.cut.texts()) sentences += text.sentences.size();
  NMT_FUZZ_CHECK(sentences == texts.sentences().size(), "the texts' sentences add up");
  NMT_FUZZ_CHECK(static_cast<int64_t>(sentences) <= limits.max_sentences, "within max_sentences");
  auto results = nmt::serve::join_texts(texts, echo(texts.sentences(), n_best));
  const std::size_t inputs =
      texts.documents.empty() ? texts.cut.texts().size() : texts.documents.size();
  NMT_FUZZ_CHECK(results.size() == inputs, "one result per text");
  return results;
}

void check_libre(const nlohmann::json& fields,
                 const nmt::serve::ServeOptions& limits,
                 const nmt::serve::ModelInfo& model) {
  const nmt::serve::LibreRequest request = nmt::serve::libre_request(fields, limits, model);
  NMT_FUZZ_CHECK(request.alternatives < limits.max_beam_size, "alternatives within the beam");
  const auto results = check_texts(request.texts, limits, request.options.n_best);
  (void)nmt::serve::dump(nmt::serve::libre_answer(request, results, model));
}

void check_v1(const nlohmann::json& fields,
              const nmt::serve::ServeOptions& limits,
              const nmt::serve::ModelInfo& model) {
  const nmt::serve::V1Request request = nmt::serve::v1_request(fields, limits, model);
  NMT_FUZZ_CHECK(request.options.beam_size <= limits.max_beam_size, "within max_beam_size");
  NMT_FUZZ_CHECK(request.options.max_len <= nmt::serve::kMaxOutputTokens, "within max_len");
  const auto results = check_texts(request.texts, limits, request.options.n_best);
  (void)nmt::serve::dump(nmt::serve::v1_answer(request, results, model));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string body(nmt::fuzz::as_text(data, size));
  nmt::serve::ServeOptions limits;
  limits.max_sentences = 16;
  limits.max_chars = 200;
  nmt::serve::ModelInfo model;
  model.source_lang = "en";
  model.target_lang = "es";
  static const auto english = std::make_shared<const nmt::text::SentenceSplitter>("en");
  model.splitter = english;
  // The body as JSON for each API, and as a form body of both kinds.
  std::vector<nmt::serve::RequestParts> parts = {
      {"application/json", body, {}, ""},
      {"application/x-www-form-urlencoded", "", nmt::serve::url_encoded_fields(body), ""}};
  constexpr const char* kMultipart = "multipart/form-data; boundary=b";
  try {
    parts.push_back({kMultipart, "", nmt::serve::multipart_fields(body, kMultipart), ""});
  } catch (const ApiError& error) {
    NMT_FUZZ_CHECK(error.status() == 400, "a multipart body that cannot be split is 400");
  }
  for (const Api api : {Api::kLibre, Api::kV1}) {
    for (const nmt::serve::RequestParts& request : parts) {
      try {
        const nlohmann::json fields = nmt::serve::request_fields(request, api, limits);
        nmt::serve::check_api_key("key", fields, "", api);
        if (api == Api::kLibre) {
          check_libre(fields, limits, model);
        } else {
          check_v1(fields, limits, model);
        }
      } catch (const ApiError& error) {
        NMT_FUZZ_CHECK(error.status() >= 400 && error.status() < 500, "refusals are 4xx");
      }
    }
  }
  constexpr std::size_t kLevels = 100000;
  const std::string deep = R"({"q": "x", "beam_size": )" + std::string(kLevels, '[') + body +
                           std::string(kLevels, ']') + "}";
  nmt::serve::ServeOptions roomy = limits;
  roomy.max_body_bytes = static_cast<int64_t>(deep.size());
  for (const Api api : {Api::kLibre, Api::kV1}) {
    try {
      (void)nmt::serve::request_fields({"application/json", deep, {}, ""}, api, roomy);
      NMT_FUZZ_CHECK(false, "a body nested 100,000 levels deep is refused");
    } catch (const ApiError& error) {
      NMT_FUZZ_CHECK(
          std::string(error.what()) ==
              "Failed to decode JSON object: beam_size: nested deeper than 32 levels",
          "it is refused for its depth");
    }
  }
  return 0;
}
