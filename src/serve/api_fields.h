// Helpers the API's request readers share (private to src/serve): a field of a request object, a
// text's length as LibreTranslate counts it, lower case. Torch-free; never throws except
// std::bad_alloc; never logs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace nmt::serve {

// The field `key` of a request object; nullptr when it is absent or null.
const nlohmann::json* find_field(const nlohmann::json& fields, const char* key);

// Code points, as Python's len() counts them (LibreTranslate's character limit).
int64_t count_characters(const std::string& text);

// ASCII letters in lower case (language codes, media types).
std::string lower(std::string text);

}  // namespace nmt::serve
