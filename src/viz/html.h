// HTML building blocks shared by the viz pages (private to src/viz): escaping of text and attribute
// values, JSON that is safe inside a <script> element, locale-independent numbers, and the page
// skeleton with the shared style sheet. The pages these build load nothing from the network.
// Torch-free; never throws (invalid UTF-8 is replaced, not rejected); never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace nmt::viz {

// Escapes & < > " ' so that the text is safe between tags and inside quoted attribute values.
std::string escape_html(std::string_view text);

// value as compact JSON in which <, > and & appear only as \u escapes, so that the text can neither
// end the enclosing <script> element nor open a comment. Invalid UTF-8 in strings becomes U+FFFD.
std::string script_json(const nlohmann::json& value);

// nmt::format_number for a page (4 significant digits unless told), "n/a" when not finite.
std::string format_number(double value, int significant = 4);

// "<!DOCTYPE html>" up to and including "<body>": UTF-8, the escaped title, base_style() and then
// `style`.
std::string page_begin(std::string_view title, std::string_view style);

// "</body></html>" and a final newline.
std::string page_end();

// The style sheet every viz page shares: system fonts, headings, cards, tables, token chips.
std::string_view base_style();

}  // namespace nmt::viz
