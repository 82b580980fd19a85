#include "viz/html.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "nmt/format.h"

namespace nmt::viz {
namespace {

constexpr std::string_view kBaseStyle =
    R"css(:root { --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa; --accent: #1f6feb; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; color: var(--fg); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
h1 { font-size: 24px; margin: 0 0 2px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 16px 0 6px; color: var(--muted); }
.sub, .note { color: var(--muted); }
.note { font-size: 13px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; background: #fff; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 4px 12px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .tok { font-family: "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace; }
.tok { display: inline-block; margin: 2px 3px 2px 0; padding: 0 6px; border: 1px solid var(--line);
  border-radius: 4px; background: var(--soft); font-size: 13px; white-space: pre; }
.empty { padding: 16px; border: 1px dashed var(--line); border-radius: 8px; color: var(--muted); }
)css";

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string script_json(const nlohmann::json& value) {
  const std::string dumped =
      value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  // Outside strings JSON has none of these characters, and inside strings the escapes mean the
  // same.
  std::string out;
  out.reserve(dumped.size());
  for (const char c : dumped) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string format_number(double value, int significant) {
  return std::isfinite(value) ? nmt::format_number(value, significant) : "n/a";
}

std::string page_begin(std::string_view title, std::string_view style) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  out += escape_html(title);
  out += "</title>\n<style>\n";
  out += base_style();
  out += style;
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string page_end() { return "</body>\n</html>\n"; }

std::string_view base_style() { return kBaseStyle; }

}  // namespace nmt::viz
