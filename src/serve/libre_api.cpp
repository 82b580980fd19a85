#include "nmt/serve/libre_api.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nmt/check.h"
#include "nmt/language_names.h"
#include "serve/api_fields.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

std::string libre_string(const json& fields, const char* key) {
  const json* value = find_field(fields, key);
  if (!value) return "";
  if (!value->is_string()) {
    throw ApiError(400, std::string("Invalid request: ") + key + " parameter is not a string");
  }
  return value->get<std::string>();
}

std::vector<std::string> libre_texts(const json& fields, bool& is_list) {
  const json* q = find_field(fields, "q");
  const bool is_missing =
      !q || (q->is_string() && q->get<std::string>().empty()) || (q->is_array() && q->empty());
  if (is_missing) throw ApiError(400, "Invalid request: missing q parameter");
  is_list = q->is_array();
  if (q->is_string()) return {q->get<std::string>()};
  if (!q->is_array())
    throw ApiError(400, "Invalid request: q must be a string or a list of strings");
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < q->size(); ++i) {
    if (!(*q)[i].is_string()) {
      throw ApiError(400, "Invalid request: q[" + std::to_string(i) + "] is not a string");
    }
    texts.push_back((*q)[i].get<std::string>());
  }
  return texts;
}

int64_t libre_alternatives(const json& fields) {
  const json* value = find_field(fields, "alternatives");
  if (!value) return 0;
  int64_t count = 0;
  if (value->is_number_unsigned()) {
    count = static_cast<int64_t>(
        std::min<uint64_t>(value->get<uint64_t>(), std::numeric_limits<int64_t>::max()));
  } else if (value->is_number_integer()) {
    count = value->get<int64_t>();
  } else if (value->is_number_float() && std::isfinite(value->get<double>())) {
    // Python's int() truncates; anything this large is over the limit anyway.
    count = static_cast<int64_t>(std::clamp(value->get<double>(), -1e18, 1e18));
  } else if (value->is_string() && !value->get<std::string>().empty()) {
    const std::string text = value->get<std::string>();
    std::size_t used = 0;
    try {
      count = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size()) {
      throw ApiError(400, "Invalid request: alternatives parameter is not a number");
    }
  } else {
    throw ApiError(400, "Invalid request: alternatives parameter is not a number");
  }
  return std::max<int64_t>(0, count);
}

std::string describe_pair(const ModelInfo& model) {
  const auto side = [](const std::string& code) { return code.empty() ? "any language" : code; };
  return "this model translates " + std::string(side(model.source_lang)) + " to " +
         side(model.target_lang);
}

void check_languages(const std::string& source, const std::string& target, const ModelInfo& model) {
  if (source != "auto" && !model.source_lang.empty() && lower(source) != lower(model.source_lang)) {
    throw ApiError(400,
                   check::shorten(source) + " is not supported (" + describe_pair(model) + ")");
  }
  if (!model.target_languages.empty()) {
    const std::string problem = target_language_problem(target, model);
    if (!problem.empty()) throw ApiError(400, problem);
  } else if (!model.target_lang.empty() && lower(target) != lower(model.target_lang)) {
    throw ApiError(400,
                   check::shorten(target) + " is not supported (" + describe_pair(model) + ")");
  }
}

// The nmt field "split": true (the default) or false, as JSON or as a form's text.
bool libre_split(const json& fields) {
  const json* value = find_field(fields, "split");
  if (!value) return true;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_string()) {
    const std::string text = lower(value->get<std::string>());
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
  }
  throw ApiError(400, "Invalid request: split parameter must be true or false");
}

std::string hypothesis_text(const SentenceResult& text, std::size_t rank) {
  const auto& hypotheses = text.hypotheses;
  return hypotheses.empty() ? "" : hypotheses[std::min(rank, hypotheses.size() - 1)].text;
}

}  // namespace

LibreRequest libre_request(const json& fields, const ServeOptions& limits, const ModelInfo& model) {
  LibreRequest request;
  const std::vector<std::string> texts = libre_texts(fields, request.is_list);
  request.source = libre_string(fields, "source");
  if (request.source.empty()) throw ApiError(400, "Invalid request: missing source parameter");
  request.target = libre_string(fields, "target");
  if (request.target.empty()) throw ApiError(400, "Invalid request: missing target parameter");
  request.alternatives = libre_alternatives(fields);
  if (request.alternatives > limits.max_beam_size - 1) {
    throw ApiError(400, "Invalid request: alternatives parameter must be <= " +
                            std::to_string(limits.max_beam_size - 1));
  }
  // LibreTranslate's wording for both limits; here a text counts its sentences.
  const auto limit_error = [](int64_t size, int64_t limit) {
    return ApiError(400, "Invalid request: request (" + std::to_string(size) +
                             ") exceeds text limit (" + std::to_string(limit) + ")");
  };
  if (static_cast<int64_t>(texts.size()) > limits.max_sentences) {
    throw limit_error(static_cast<int64_t>(texts.size()), limits.max_sentences);
  }
  for (const std::string& text : texts) {
    if (count_characters(text) > limits.max_chars)
      throw limit_error(count_characters(text), limits.max_chars);
  }
  check_languages(request.source, request.target, model);
  const std::string format = libre_string(fields, "format");
  if (!format.empty() && format != "text" && format != "html") {
    throw ApiError(400, check::shorten(format) + " format is not supported");
  }
  // Cut only after the sizes passed, so that splitting never works on more than they allow.
  request.texts = split_texts(texts, model, libre_split(fields), format == "html");
  if (static_cast<int64_t>(request.texts.sentences().size()) > limits.max_sentences) {
    throw limit_error(static_cast<int64_t>(request.texts.sentences().size()), limits.max_sentences);
  }
  request.options = model.defaults;
  if (!model.target_languages.empty()) request.options.target_lang = request.target;
  if (request.alternatives > 0) {
    request.options.strategy = decode::Strategy::kBeam;
    request.options.n_best = request.alternatives + 1;
    request.options.beam_size = std::max(request.options.beam_size, request.options.n_best);
  }
  return request;
}

json libre_answer(const LibreRequest& request,
                  const std::vector<SentenceResult>& texts,
                  const ModelInfo& model) {
  json translated = json::array();
  json alternatives = json::array();
  for (const SentenceResult& text : texts) {
    const std::string best = hypothesis_text(text, 0);
    json others = json::array();
    for (int64_t rank = 1; rank <= request.alternatives; ++rank) {
      const std::string other = hypothesis_text(text, static_cast<std::size_t>(rank));
      if (other != best && std::find(others.begin(), others.end(), other) == others.end()) {
        others.push_back(other);
      }
    }
    translated.push_back(best);
    alternatives.push_back(std::move(others));
  }
  json answer = {{"translatedText", request.is_list ? translated : translated.front()}};
  if (request.alternatives > 0) {
    answer["alternatives"] = request.is_list ? alternatives : alternatives.front();
  }
  if (request.source == "auto") {
    // nmt does not detect languages: a model reads one source language, so that is the one.
    const json detected = model.source_lang.empty()
                              ? json{{"confidence", 0.0}, {"language", "und"}}
                              : json{{"confidence", 100.0}, {"language", model.source_lang}};
    answer["detectedLanguage"] =
        request.is_list ? json(std::vector<json>(texts.size(), detected)) : detected;
  }
  return answer;
}

json libre_languages(const ModelInfo& model) {
  json languages = json::array();
  if (!model.source_lang.empty()) {
    languages.push_back(
        {{"code", model.source_lang},
         {"name", language_name(model.source_lang)},
         {"targets",
          model.target_lang.empty() ? json::array() : json::array({model.target_lang})}});
  }
  if (!model.target_lang.empty() && model.target_lang != model.source_lang) {
    languages.push_back({{"code", model.target_lang},
                         {"name", language_name(model.target_lang)},
                         {"targets", json::array()}});
  }
  return languages;
}

}  // namespace nmt::serve
