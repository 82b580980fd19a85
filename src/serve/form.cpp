#include "serve/form.h"

#include "nmt/serve/api.h"
#include "serve/api_fields.h"

namespace nmt::serve {
namespace {

int hex_value(char digit) {
  if (digit >= '0' && digit <= '9') return digit - '0';
  if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
  if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
  return -1;
}

std::string url_decoded(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      decoded += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
               hex_value(text[i + 2]) >= 0) {
      decoded += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      decoded += text[i];
    }
  }
  return decoded;
}

[[noreturn]] void malformed(const std::string& what) {
  throw ApiError(400, "Invalid multipart/form-data body: " + what);
}

// The value of parameter `name` in a header such as `form-data; name="q"` or
// `multipart/form-data; boundary=xyz`; "" when absent.
std::string header_parameter(std::string_view header, std::string_view name) {
  std::size_t at = 0;
  while ((at = header.find(';', at)) != std::string_view::npos) {
    ++at;
    while (at < header.size() && (header[at] == ' ' || header[at] == '\t')) ++at;
    const std::size_t equals = header.find('=', at);
    if (equals == std::string_view::npos) return "";
    if (lower(std::string(header.substr(at, equals - at))) != name) continue;
    std::string_view value = header.substr(equals + 1);
    if (!value.empty() && value.front() == '"') {
      const std::size_t close = value.find('"', 1);
      return std::string(value.substr(1, close == std::string_view::npos ? close : close - 1));
    }
    return std::string(value.substr(0, value.find(';')));
  }
  return "";
}

// The Content-Disposition name of one part's head ("" when it has none).
std::string part_name(std::string_view head) {
  std::size_t line_start = 0;
  while (line_start < head.size()) {
    std::size_t line_end = head.find("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = head.size();
    const std::string_view line = head.substr(line_start, line_end - line_start);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos &&
        lower(std::string(line.substr(0, colon))) == "content-disposition") {
      return header_parameter(line.substr(colon + 1), "name");
    }
    line_start = line_end + 2;
  }
  return "";
}

}  // namespace

FormFields url_encoded_fields(std::string_view text) {
  FormFields fields;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('&', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view pair = text.substr(start, end - start);
    if (!pair.empty()) {
      const std::size_t equals = pair.find('=');
      fields.emplace_back(
          url_decoded(pair.substr(0, equals)),
          equals == std::string_view::npos ? "" : url_decoded(pair.substr(equals + 1)));
    }
    start = end + 1;
  }
  return fields;
}

FormFields multipart_fields(std::string_view body, std::string_view content_type) {
  const std::string boundary = header_parameter(content_type, "boundary");
  if (boundary.empty()) malformed("the Content-Type names no boundary");
  const std::string delimiter = "--" + boundary;
  if (body.substr(0, delimiter.size()) != delimiter)
    malformed("it does not start with its boundary");
  FormFields fields;
  std::size_t at = delimiter.size();
  while (true) {
    if (body.substr(at, 2) == "--") return fields;  // the closing delimiter
    if (body.substr(at, 2) != "\r\n") malformed("a boundary is not followed by a line break");
    at += 2;
    const std::size_t head_end = body.find("\r\n\r\n", at);
    if (head_end == std::string_view::npos) malformed("a part has no end to its headers");
    const std::size_t next = body.find("\r\n" + delimiter, head_end + 4);
    if (next == std::string_view::npos) malformed("a part is not closed by the boundary");
    const std::string name = part_name(body.substr(at, head_end - at));
    if (name.empty()) malformed("a part has no Content-Disposition name");
    fields.emplace_back(name, std::string(body.substr(head_end + 4, next - head_end - 4)));
    at = next + 2 + delimiter.size();
  }
}

}  // namespace nmt::serve
