#include "nmt/serve/api.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>

#include "nmt/check.h"
#include "serve/api_fields.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

bool is_json_content(const std::string& content_type) {
  const std::string type = lower(content_type.substr(0, content_type.find(';')));
  const auto begin = type.find_first_not_of(' ');
  const auto end = type.find_last_not_of(' ');
  if (begin == std::string::npos) return false;
  const std::string mime = type.substr(begin, end - begin + 1);
  return mime == "application/json" || (mime.rfind("application/", 0) == 0 && mime.size() > 5 &&
                                        mime.compare(mime.size() - 5, 5, "+json") == 0);
}

// field: the top-level field whose value is too deep ("" when the body itself is).
ApiError too_deep(const std::string& field) {
  return ApiError(400, "Failed to decode JSON object: " +
                           (field.empty() ? "" : check::shorten(field) + ": ") +
                           "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

// Reads a body without ever holding a value nested deeper than kMaxJsonDepth: nlohmann's parser
// keeps its own stack on the heap, and the callback stops it at the first array or object that
// would be too deep, so the part built so far (destroyed on the way out) is shallow too.
json parse_object(const std::string& body, std::size_t max_bytes) {
  if (body.size() > max_bytes) throw ApiError(413, body_too_large(max_bytes));
  std::string field;  // the top-level field being read
  const json::parser_callback_t within_depth = [&field](int depth, json::parse_event_t event,
                                                        json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) field = parsed.get<std::string>();
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth) throw too_deep(field);
    return true;
  };
  json value;
  try {
    value = json::parse(body, within_depth);
  } catch (const json::exception& error) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    const std::string message = error.what();
    const std::size_t detail = message.find("] ");
    throw ApiError(400, "Failed to decode JSON object: " +
                            (detail == std::string::npos ? message : message.substr(detail + 2)));
  }
  if (!value.is_object()) throw ApiError(400, "Invalid JSON format");
  return value;
}

// Appends value as JSON text to out, stopping once out holds more than `limit` bytes. Each level
// adds a byte before it descends, so the recursion is no deeper than limit + 1 levels.
void append_bounded(const json& value, std::size_t limit, std::string& out) {
  if (out.size() > limit) return;
  if (value.is_array()) {
    out += '[';
    for (auto it = value.begin(); it != value.end() && out.size() <= limit; ++it) {
      if (it != value.begin()) out += ',';
      append_bounded(*it, limit, out);
    }
    out += ']';
  } else if (value.is_object()) {
    out += '{';
    for (auto it = value.begin(); it != value.end() && out.size() <= limit; ++it) {
      if (it != value.begin()) out += ',';
      append_bounded(json(it.key().substr(0, limit + 1)), limit, out);
      out += ':';
      append_bounded(it.value(), limit, out);
    }
    out += '}';
  } else if (value.is_string()) {
    out += dump(json(value.get_ref<const std::string&>().substr(0, limit + 1)));
  } else {
    out += dump(value);
  }
}

// Equal keys take the same time to compare whatever their common prefix.
bool same_key(const std::string& given, const std::string& expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i) {
    difference |= static_cast<unsigned char>(given[i] ^ expected[i % expected.size()]);
  }
  return difference == 0;
}

}  // namespace

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

int64_t count_characters(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

const nlohmann::json* find_field(const nlohmann::json& fields, const char* key) {
  const auto it = fields.find(key);
  return it == fields.end() || it->is_null() ? nullptr : &*it;
}

std::string describe(const json& value, std::size_t max_bytes) {
  std::string text;
  append_bounded(value, max_bytes, text);
  if (text.size() <= max_bytes) return text;
  const std::size_t room = max_bytes > 3 ? max_bytes - 3 : 0;
  // Backslashes only start escapes in JSON text (\" \n \u00e9 ...): never cut inside one.
  std::size_t cut = 0;
  while (cut < text.size()) {
    const std::size_t length = text[cut] != '\\' ? 1 : text.compare(cut + 1, 1, "u") == 0 ? 6 : 2;
    if (cut + length > room) break;
    cut += length;
  }
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string body_too_large(std::size_t max_body_bytes) {
  return "request body larger than serve.max_body_bytes (" + std::to_string(max_body_bytes) +
         " bytes)";
}

std::string dump(const json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

json request_fields(const RequestParts& parts, Api api, const ServeOptions& limits) {
  if (api == Api::kV1 || is_json_content(parts.content_type)) {
    return parse_object(parts.body, static_cast<std::size_t>(limits.max_body_bytes));
  }
  json fields = json::object();
  for (const auto& [name, value] : parts.form) {
    if (!fields.contains(name)) fields[name] = value;
  }
  return fields;
}

void check_api_key(const std::string& expected,
                   const json& fields,
                   const std::string& authorization,
                   Api api) {
  if (expected.empty()) return;
  std::string given;
  constexpr const char* kBearer = "Bearer ";
  if (authorization.rfind(kBearer, 0) == 0) {
    given = authorization.substr(std::string(kBearer).size());
  } else if (const json* field = find_field(fields, "api_key"); field && field->is_string()) {
    given = field->get<std::string>();
  }
  if (given.empty()) {
    if (api == Api::kLibre) {
      throw ApiError(400, "Please contact the server operator to get an API key");
    }
    throw ApiError(401, "missing API key: send it as \"Authorization: Bearer KEY\" or as api_key");
  }
  if (!same_key(given, expected)) throw ApiError(403, "Invalid API key");
}

json model_json(const ModelInfo& model) {
  const auto code = [](const std::string& value) { return value.empty() ? json() : json(value); };
  return {{"source_lang", code(model.source_lang)},
          {"target_lang", code(model.target_lang)},
          {"run", model.run},
          {"checkpoint", model.checkpoint},
          {"version", model.version}};
}

std::string target_language_problem(const std::string& language, const ModelInfo& model) {
  const auto& known = model.target_languages;
  if (known.empty())
    return "this model has no target-language tags: it translates into one language";
  if (std::find(known.begin(), known.end(), language) != known.end()) return "";
  std::string listed;
  for (const std::string& code : known) listed += (listed.empty() ? "" : ", ") + code;
  return check::shorten(language) + " is not one of this model's target languages (" + listed + ")";
}

RequestTexts split_texts(const std::vector<std::string>& texts,
                         const ModelInfo& model,
                         bool split,
                         bool is_html) {
  RequestTexts request;
  request.cut = text::CutTexts(split ? model.splitter.get() : nullptr,
                               text::CaseLanguages{model.source_lang, model.target_lang});
  const auto add = [&request](const std::string& text) { request.cut.add(text); };
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!is_html) {
      add(texts[i]);
      continue;
    }
    try {
      request.documents.push_back(std::make_shared<const text::HtmlText>(texts[i]));
    } catch (const Error& error) {
      throw ApiError(400, "q[" + std::to_string(i) + "]: " + error.what());
    }
    for (const std::string& text : request.documents.back()->texts()) add(text);
  }
  return request;
}

namespace {

using Results = std::vector<SentenceResult>::iterator;

// The results of [first, last) put together as one: its hypothesis k is `compose` of their
// hypotheses k (a result's last when it has fewer; "" for one without any), scored by the sum of
// their scores; at least one hypothesis, also for no results. The first's attention comes along.
template <class Compose>
SentenceResult join_ranks(Results first, Results last, Compose&& compose) {
  SentenceResult joined;
  std::size_t ranks = 1;
  for (auto part = first; part != last; ++part) ranks = std::max(ranks, part->hypotheses.size());
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    std::vector<std::string> texts;
    Hypothesis hypothesis;
    for (auto part = first; part != last; ++part) {
      const auto& own = part->hypotheses;
      const Hypothesis* chosen = own.empty() ? nullptr : &own[std::min(rank, own.size() - 1)];
      texts.push_back(chosen ? chosen->text : "");
      hypothesis.score += chosen ? chosen->score : 0.0f;
    }
    hypothesis.text = compose(texts);
    joined.hypotheses.push_back(std::move(hypothesis));
  }
  if (first != last) joined.attention = std::move(first->attention);
  return joined;
}

}  // namespace

std::vector<SentenceResult> join_texts(const RequestTexts& texts,
                                       std::vector<SentenceResult> sentences) {
  if (sentences.size() != texts.sentences().size()) {
    throw Error("serve: " + std::to_string(sentences.size()) + " results for " +
                std::to_string(texts.sentences().size()) + " sentences");
  }
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    for (Hypothesis& hypothesis : sentences[i].hypotheses) {
      hypothesis.text = texts.cut.in_source_case(i, std::move(hypothesis.text));
    }
  }
  std::vector<SentenceResult> joined;
  auto first = sentences.begin();
  for (const text::SplitText& text : texts.cut.texts()) {
    const auto last = first + static_cast<std::ptrdiff_t>(text.sentences.size());
    joined.push_back(join_ranks(first, last, [&text](const std::vector<std::string>& translations) {
      return text::join_sentences(text, translations);
    }));
    first = last;
  }
  if (texts.documents.empty()) return joined;
  std::vector<SentenceResult> documents;
  auto node = joined.begin();
  for (const auto& document : texts.documents) {
    const auto end = node + static_cast<std::ptrdiff_t>(document->texts().size());
    documents.push_back(join_ranks(node, end, [&document](const std::vector<std::string>& nodes) {
      return document->render(nodes);
    }));
    node = end;
  }
  return documents;
}

}  // namespace nmt::serve
