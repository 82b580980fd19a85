// Helpers the API's request readers share (private to src/serve): a field of a request object, a
// value as a message quotes it, a text's length as LibreTranslate counts it, lower case.
// Torch-free; never throws except std::bad_alloc; never logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace nmt::serve {

// The field `key` of a request object; nullptr when it is absent or null.
const nlohmann::json* find_field(const nlohmann::json& fields, const char* key);

// value as JSON text for a message: whole when it fits into max_bytes, else its first
// max_bytes - 3 bytes (cut at a UTF-8 character boundary) and "...". Strings are escaped as JSON
// writes them (invalid UTF-8 replaced). Only the part quoted is serialised, so a 1 MB array or
// string costs no more than a short one.
std::string describe(const nlohmann::json& value, std::size_t max_bytes);

// The refusal of a body over serve.max_body_bytes: "request body larger than
// serve.max_body_bytes (1048576 bytes)".
std::string body_too_large(std::size_t max_body_bytes);

// Code points, as Python's len() counts them (LibreTranslate's character limit).
int64_t count_characters(const std::string& text);

// ASCII letters in lower case (language codes, media types).
std::string lower(std::string text);

}  // namespace nmt::serve
