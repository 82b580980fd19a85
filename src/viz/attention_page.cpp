#include "nmt/viz/attention_page.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "nmt/error.h"
#include "viz/attention_assets.h"
#include "viz/html.h"

namespace nmt::viz {
namespace {

// One of the three attention kinds, with the shape its matrices must have.
struct Kind {
  const char* id;
  const char* name;
  const std::vector<std::vector<Matrix>>& layers;
  std::size_t rows;
  std::size_t cols;
  const char* rows_are;  // the tokens on the rows (queries)
  const char* cols_are;  // the tokens on the columns (keys)
};

std::vector<Kind> kinds_of(const AttentionPicture& picture) {
  const std::size_t s = picture.source_tokens.size();
  const std::size_t t = picture.target_tokens.size();
  return {{"cross", "Cross-attention", picture.cross, t, s, "target", "source"},
          {"encoder", "Encoder self-attention", picture.encoder_self, s, s, "source", "source"},
          {"decoder", "Decoder self-attention", picture.decoder_self, t, t, "target", "target"}};
}

std::string where(const Kind& kind, std::size_t layer) {
  return std::string(kind.id) + " attention, layer " + std::to_string(layer + 1);
}

void check_kind(const Kind& kind) {
  for (std::size_t layer = 0; layer < kind.layers.size(); ++layer) {
    const std::vector<Matrix>& heads = kind.layers[layer];
    if (heads.empty()) throw Error(where(kind, layer) + ": expected at least one head, got none");
    for (std::size_t head = 0; head < heads.size(); ++head) {
      const Matrix& m = heads[head];
      const std::string name = where(kind, layer) + ", head " + std::to_string(head + 1);
      if (m.rows != static_cast<int64_t>(kind.rows) || m.cols != static_cast<int64_t>(kind.cols)) {
        throw Error(name + ": expected a " + std::to_string(kind.rows) + " x " +
                    std::to_string(kind.cols) + " (" + kind.rows_are + " tokens x " +
                    kind.cols_are + " tokens) matrix, got " + std::to_string(m.rows) + " x " +
                    std::to_string(m.cols));
      }
      if (m.values.size() != kind.rows * kind.cols) {
        throw Error(name + ": a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                    " matrix should hold " + std::to_string(kind.rows * kind.cols) +
                    " values, got " + std::to_string(m.values.size()));
      }
    }
  }
}

// Rows of values rounded to 4 decimals (enough for the hover text, and it keeps the page small);
// values that are not finite become 0.
nlohmann::json matrix_json(const Matrix& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t row = 0; row < matrix.rows; ++row) {
    nlohmann::json values = nlohmann::json::array();
    for (int64_t col = 0; col < matrix.cols; ++col) {
      const double value = matrix.values[static_cast<std::size_t>(row * matrix.cols + col)];
      values.push_back(std::isfinite(value) ? std::round(value * 1e4) / 1e4 : 0.0);
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

nlohmann::json kind_json(const Kind& kind) {
  nlohmann::json layers = nlohmann::json::array();
  for (const std::vector<Matrix>& heads : kind.layers) {
    nlohmann::json layer = {{"mean", matrix_json(average(heads))},
                            {"heads", nlohmann::json::array()}};
    for (const Matrix& head : heads) layer["heads"].push_back(matrix_json(head));
    layers.push_back(std::move(layer));
  }
  return {{"id", kind.id},
          {"name", kind.name},
          {"rows", kind.rows_are},
          {"cols", kind.cols_are},
          {"layers", layers}};
}

std::string token_chips(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& token : tokens)
    out += "<span class=\"tok\">" + escape_html(token) + "</span>";
  return out;
}

std::string sentence_card(const AttentionPicture& picture) {
  std::string out = "<div class=\"card sentence\">\n";
  out += "<div><span class=\"label\">Source</span> <span class=\"text\">" +
         escape_html(picture.source_text) + "</span></div>\n";
  out += "<div><span class=\"label\">Translation</span> <span class=\"text\">" +
         escape_html(picture.translation) + "</span></div>\n";
  out += "<div class=\"tokens\"><span class=\"label\">Source tokens (" +
         std::to_string(picture.source_tokens.size()) + ")</span> " +
         token_chips(picture.source_tokens) + "</div>\n";
  out += "<div class=\"tokens\"><span class=\"label\">Decoder positions (" +
         std::to_string(picture.target_tokens.size()) + ")</span> " +
         token_chips(picture.target_tokens) + "</div>\n";
  return out + "</div>\n";
}

}  // namespace

void check_shapes(const AttentionPicture& picture) {
  for (const Kind& kind : kinds_of(picture)) check_kind(kind);
}

nlohmann::json attention_data(const AttentionPicture& picture) {
  check_shapes(picture);
  nlohmann::json kinds = nlohmann::json::array();
  for (const Kind& kind : kinds_of(picture)) kinds.push_back(kind_json(kind));
  return {{"source", picture.source_tokens}, {"target", picture.target_tokens}, {"kinds", kinds}};
}

std::string render_attention_html(const AttentionPicture& picture) {
  check_shapes(picture);
  std::string out = page_begin("Attention: " + picture.source_text, attention_style());
  out +=
      "<h1>Attention maps</h1>\n<div class=\"sub\">How the Transformer attended while translating "
      "one sentence</div>\n";
  out += sentence_card(picture);
  out += attention_controls();
  out += "<script type=\"application/json\" id=\"attention-data\">" +
         script_json(attention_data(picture)) + "</script>\n<script>\n";
  out += attention_script();
  out += "nmtAttention.show(JSON.parse(document.getElementById('attention-data').textContent));\n";
  out += "</script>\n";
  out += page_end();
  return out;
}

}  // namespace nmt::viz
