#include "nmt/serve/api.h"

#include <algorithm>
#include <cctype>

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

json parse_object(const std::string& body) {
  json value;
  try {
    value = json::parse(body);
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

std::string dump(const json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

json request_fields(const RequestParts& parts, Api api) {
  if (api == Api::kV1 || is_json_content(parts.content_type)) return parse_object(parts.body);
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

}  // namespace nmt::serve
