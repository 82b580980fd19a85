// render_attention_text: the terminal heat map of nmt/viz/attention_page.h.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "nmt/error.h"
#include "nmt/viz/attention_page.h"
#include "viz/html.h"

namespace nmt::viz {
namespace {

constexpr std::string_view kShades = " .:-=+*#%@";
constexpr std::size_t kMaxColumnWidth = 8;
constexpr std::size_t kMaxLabelWidth = 12;
constexpr std::size_t kMinColumnWidth = 2;

// Terminal width of UTF-8 text, counted in code points (continuation bytes are not counted).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// text cut to at most `width` code points (the last one then "…") and padded with spaces to
// `width`.
std::string fit(std::string_view text, std::size_t width) {
  std::string out;
  if (display_width(text) <= width) {
    out = std::string(text);
  } else {
    std::size_t kept = 0;
    std::size_t end = 0;
    for (; end < text.size(); ++end) {
      const bool is_start = (static_cast<unsigned char>(text[end]) & 0xC0) != 0x80;
      if (is_start && kept++ == width - 1) break;
    }
    out = std::string(text.substr(0, end)) + "…";
  }
  out.append(width - std::min(width, display_width(out)), ' ');
  return out;
}

char shade(float value, float largest) {
  if (!(largest > 0.0f) || !(value > 0.0f)) return kShades.front();
  const float fraction = std::min(1.0f, value / largest);
  const auto index =
      static_cast<std::size_t>(fraction * static_cast<float>(kShades.size() - 1) + 0.5f);
  return kShades[std::min(index, kShades.size() - 1)];
}

std::vector<std::size_t> column_widths(const std::vector<std::string>& tokens) {
  std::vector<std::size_t> widths;
  for (const std::string& token : tokens) {
    widths.push_back(std::clamp(display_width(token), kMinColumnWidth, kMaxColumnWidth));
  }
  return widths;
}

std::size_t label_width(const std::vector<std::string>& tokens) {
  std::size_t width = 1;
  for (const std::string& token : tokens) width = std::max(width, display_width(token));
  return std::min(width, kMaxLabelWidth);
}

}  // namespace

std::string render_attention_text(const AttentionPicture& picture, int layer) {
  check_shapes(picture);
  const auto layers = static_cast<int>(picture.cross.size());
  if (layers == 0) throw Error("attention text: the picture has no cross-attention layers");
  if (layer < -1 || layer >= layers) {
    throw Error("attention text: layer " + std::to_string(layer) +
                " is out of range: expected -1 (the last) or 0.." + std::to_string(layers - 1));
  }
  const int shown = layer < 0 ? layers - 1 : layer;
  const auto& heads = picture.cross[static_cast<std::size_t>(shown)];
  const Matrix mean = average(heads);
  const float largest =
      mean.values.empty() ? 0.0f : *std::max_element(mean.values.begin(), mean.values.end());

  const std::vector<std::size_t> widths = column_widths(picture.source_tokens);
  const std::size_t labels = label_width(picture.target_tokens);
  std::string out = "cross-attention, layer " + std::to_string(shown + 1) + " of " +
                    std::to_string(layers) + ", mean of " + std::to_string(heads.size()) +
                    (heads.size() == 1 ? " head" : " heads") + " (rows: target, columns: source)\n";
  out += std::string(labels, ' ');
  for (std::size_t col = 0; col < widths.size(); ++col)
    out += " " + fit(picture.source_tokens[col], widths[col]);
  out += "\n";
  for (int64_t row = 0; row < mean.rows; ++row) {
    out += fit(picture.target_tokens[static_cast<std::size_t>(row)], labels);
    for (int64_t col = 0; col < mean.cols; ++col) {
      out += " " +
             std::string(widths[static_cast<std::size_t>(col)], shade(mean.at(row, col), largest));
    }
    out += "\n";
  }
  out += "shades \"" + std::string(kShades) + "\" from 0 to " + format_number(largest, 3) +
         " (darkest)\n";
  return out;
}

}  // namespace nmt::viz
