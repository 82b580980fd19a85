// Form fields as LibreTranslate's clients send them (private to src/serve): a URL query or an
// application/x-www-form-urlencoded body ("q=I+am&target=es", percent escapes, '+' for a space),
// and multipart/form-data (RFC 7578). Torch-free; throws ApiError(400) for a multipart body it
// cannot split, naming what is wrong. A stray '%' stays as it is, as browsers and Python read it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nmt::serve {

using FormFields = std::vector<std::pair<std::string, std::string>>;

// "a=1&b=x+y" -> {a: "1", b: "x y"}; a name without '=' has the value "".
FormFields url_encoded_fields(std::string_view text);

// The named parts of a multipart/form-data body; content_type carries its boundary.
FormFields multipart_fields(std::string_view body, std::string_view content_type);

}  // namespace nmt::serve
