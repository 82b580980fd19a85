#include "nmt/serve/v1_api.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "nmt/check.h"
#include "nmt/viz/attention_page.h"
#include "serve/api_fields.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

const std::pair<const char*, decode::Strategy> kStrategies[] = {
    {"greedy", decode::Strategy::kGreedy},
    {"sample", decode::Strategy::kSample},
    {"beam", decode::Strategy::kBeam}};

constexpr const char* kV1Keys[] = {
    "q",           "strategy",    "beam_size", "n_best", "length_penalty", "max_len",
    "temperature", "top_k",       "top_p",     "seed",   "scores",         "attention",
    "api_key",     "target_lang", "split",     "format"};

// The smallest temperature and top_p: the decoder divides float logits by the temperature and
// compares float probability mass with top_p, so a value whose float is 0 (1e-300) gives NaN
// probabilities; below this bound sampling is greedy search anyway.
constexpr double kMinSamplingValue = 1e-6;
constexpr const char* kMinSamplingText = "0.000001";

// How much of an offending value a message quotes.
constexpr std::size_t kMaxQuotedValueBytes = 60;

// "key: expected ..., got <the value as JSON>", the value cut to kMaxQuotedValueBytes.
[[noreturn]] void refuse(const std::string& key, const std::string& expected, const json& got) {
  throw ApiError(400,
                 key + ": expected " + expected + ", got " + describe(got, kMaxQuotedValueBytes));
}

// An integer field's accepted values, and how a message describes them.
struct IntRange {
  int64_t low;
  int64_t high;
  std::string expected;
};

int64_t integer(const json& fields, const char* key, int64_t fallback, const IntRange& range) {
  const json* value = find_field(fields, key);
  if (!value) return fallback;
  // nlohmann reads non-negative literals as unsigned; those above int64_t are out of range anyway.
  const bool fits =
      value->is_number_integer() &&
      (!value->is_number_unsigned() || value->get<uint64_t>() <= static_cast<uint64_t>(range.high));
  if (fits && value->get<int64_t>() >= range.low && value->get<int64_t>() <= range.high) {
    return value->get<int64_t>();
  }
  refuse(key, range.expected, *value);
}

double real(const json& fields,
            const char* key,
            double fallback,
            bool (*is_valid)(double),
            const std::string& expected) {
  const json* value = find_field(fields, key);
  if (!value) return fallback;
  if (!value->is_number() || !is_valid(value->get<double>())) refuse(key, expected, *value);
  return value->get<double>();
}

bool flag(const json& fields, const char* key, bool fallback = false) {
  const json* value = find_field(fields, key);
  if (!value) return fallback;
  if (!value->is_boolean()) refuse(key, "true or false", *value);
  return value->get<bool>();
}

void check_sentence_count(std::size_t count, const ServeOptions& limits) {
  if (static_cast<int64_t>(count) > limits.max_sentences) {
    throw ApiError(400, "q: " + std::to_string(count) +
                            " sentences, more than serve.max_sentences (" +
                            std::to_string(limits.max_sentences) + ")");
  }
}

std::vector<std::string> v1_texts(const json& fields, const ServeOptions& limits) {
  const json* q = find_field(fields, "q");
  if (!q) throw ApiError(400, "q: missing (a text or a list of texts)");
  std::vector<std::string> sentences;
  if (q->is_string()) {
    sentences.push_back(q->get<std::string>());
  } else if (q->is_array()) {
    for (std::size_t i = 0; i < q->size(); ++i) {
      if (!(*q)[i].is_string()) refuse("q[" + std::to_string(i) + "]", "a string", (*q)[i]);
      sentences.push_back((*q)[i].get<std::string>());
    }
  } else {
    refuse("q", "a string or a list of strings", *q);
  }
  check_sentence_count(sentences.size(), limits);
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    const int64_t count = count_characters(sentences[i]);
    if (count > limits.max_chars) {
      throw ApiError(400, "q[" + std::to_string(i) + "]: " + std::to_string(count) +
                              " characters, more than serve.max_chars (" +
                              std::to_string(limits.max_chars) + ")");
    }
  }
  return sentences;
}

decode::Strategy strategy_of(const json& fields, decode::Strategy fallback) {
  const json* value = find_field(fields, "strategy");
  if (!value) return fallback;
  for (const auto& [name, strategy] : kStrategies) {
    if (*value == name) return strategy;
  }
  refuse("strategy", "one of \"greedy\", \"sample\", \"beam\"", *value);
}

const char* strategy_name(decode::Strategy strategy) {
  for (const auto& [name, known] : kStrategies) {
    if (known == strategy) return name;
  }
  return "?";
}

json options_json(const decode::SearchOptions& options) {
  return {{"strategy", strategy_name(options.strategy)},
          {"beam_size", options.beam_size},
          {"n_best", options.n_best},
          {"length_penalty", options.length_penalty},
          {"max_len", options.max_len},
          {"temperature", options.temperature},
          {"top_k", options.top_k},
          {"top_p", options.top_p},
          {"seed", options.seed}};
}

json hypothesis_json(const Hypothesis& hypothesis, bool wants_scores) {
  json out = {{"text", hypothesis.text}};
  if (wants_scores) out["score"] = hypothesis.score;
  return out;
}

}  // namespace

V1Request v1_request(const json& fields, const ServeOptions& limits, const ModelInfo& model) {
  const decode::SearchOptions& defaults = model.defaults;
  for (const auto& item : fields.items()) {
    if (std::find_if(std::begin(kV1Keys), std::end(kV1Keys),
                     [&item](const char* key) { return item.key() == key; }) != std::end(kV1Keys)) {
      continue;
    }
    std::string known;
    for (const char* key : kV1Keys) known += std::string(known.empty() ? "" : ", ") + key;
    throw ApiError(400, check::shorten(item.key()) + ": unknown key (known keys: " + known + ")");
  }
  V1Request request;
  // Cut only after the sizes passed, so that splitting never works on more than they allow.
  bool is_html = false;
  if (const json* format = find_field(fields, "format")) {
    if (*format != "text" && *format != "html") refuse("format", "\"text\" or \"html\"", *format);
    is_html = *format == "html";
  }
  request.texts =
      split_texts(v1_texts(fields, limits), model, flag(fields, "split", true), is_html);
  check_sentence_count(request.texts.sentences().size(), limits);
  decode::SearchOptions& options = request.options;
  options = defaults;
  options.strategy = strategy_of(fields, defaults.strategy);
  const std::string up_to_beam =
      "an integer from 1 to serve.max_beam_size (" + std::to_string(limits.max_beam_size) + ")";
  options.beam_size =
      integer(fields, "beam_size", defaults.beam_size, {1, limits.max_beam_size, up_to_beam});
  options.n_best = integer(fields, "n_best", 1, {1, limits.max_beam_size, up_to_beam});
  options.length_penalty = real(
      fields, "length_penalty", defaults.length_penalty,
      [](double v) { return v >= 0.0 && v <= 1e3; }, "a number from 0 to 1000");
  options.max_len =
      integer(fields, "max_len", defaults.max_len,
              {0, kMaxOutputTokens,
               "an integer from 0 (automatic) to " + std::to_string(kMaxOutputTokens)});
  options.temperature = real(
      fields, "temperature", defaults.temperature,
      [](double v) { return v >= kMinSamplingValue && v <= 1e3; },
      std::string("a number from ") + kMinSamplingText + " to 1000");
  options.top_k = integer(fields, "top_k", defaults.top_k,
                          {0, std::numeric_limits<int64_t>::max(), "a non-negative integer"});
  options.top_p = real(
      fields, "top_p", defaults.top_p, [](double v) { return v >= kMinSamplingValue && v <= 1.0; },
      std::string("a number from ") + kMinSamplingText + " to 1");
  if (const json* seed = find_field(fields, "seed")) {
    if (!seed->is_number_unsigned()) refuse("seed", "a non-negative integer", *seed);
    options.seed = seed->get<uint64_t>();
  }
  if (const json* language = find_field(fields, "target_lang")) {
    if (!language->is_string()) refuse("target_lang", "a string", *language);
    const std::string problem = target_language_problem(language->get<std::string>(), model);
    if (!problem.empty()) throw ApiError(400, "target_lang: " + problem);
    options.target_lang = language->get<std::string>();
  }
  request.wants_scores = flag(fields, "scores");
  request.wants_attention = flag(fields, "attention");
  return request;
}

json v1_answer(const V1Request& request,
               const std::vector<SentenceResult>& texts,
               const ModelInfo& model) {
  json translations = json::array();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& hypotheses = texts[i].hypotheses;
    json item = hypotheses.empty() ? json{{"text", ""}}
                                   : hypothesis_json(hypotheses.front(), request.wants_scores);
    if (request.options.n_best > 1) {
      item["hypotheses"] = json::array();
      for (const Hypothesis& hypothesis : hypotheses) {
        item["hypotheses"].push_back(hypothesis_json(hypothesis, request.wants_scores));
      }
    }
    if (request.wants_attention && i == 0) {
      item["attention"] = texts[i].attention ? viz::attention_data(*texts[i].attention) : json();
    }
    translations.push_back(std::move(item));
  }
  return {{"translations", std::move(translations)},
          {"model", model_json(model)},
          {"options", options_json(request.options)}};
}
}  // namespace nmt::serve
