// Pictures of a Transformer's attention for one translated sentence.
//
// The caller copies the attention weights of every layer and head into an AttentionPicture:
// encoder self-attention [S, S], decoder self-attention [T, T] and cross-attention [T, S], where S
// is the number of source tokens and T the number of decoder input positions (<SOS> and the output
// tokens). Rows are the attending positions (queries), columns the attended ones (keys).
//
//  - render_attention_html: one self-contained HTML page (inline CSS, JavaScript and SVG; it loads
//    nothing, from the network or from disk) with a heat map per kind, layer and head, controls to
//    pick them, an "average over heads" choice, a colour legend and the value of a cell on hover.
//  - render_attention_text: a compact plain-text heat map of the cross-attention for a terminal.
//
// Torch-free. Both renderers and check_shapes throw nmt::Error when a matrix does not match the
// token counts; none of them logs or prints.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/viz/matrix.h"

namespace nmt::viz {

// Everything the attention pictures show about one sentence.
struct AttentionPicture {
  std::string source_text;                 // what the user typed
  std::string translation;                 // the model's output text
  std::vector<std::string> source_tokens;  // S tokens (subword pieces or words)
  std::vector<std::string>
      target_tokens;  // T tokens: the decoder's input positions (<SOS> and the output)
  std::vector<std::vector<Matrix>> encoder_self;  // [layer][head], S x S
  std::vector<std::vector<Matrix>> decoder_self;  // [layer][head], T x T
  std::vector<std::vector<Matrix>> cross;         // [layer][head], T x S (rows: target positions)
};

// Throws nmt::Error naming the kind, layer and head when a matrix's shape does not match the token
// counts, when its values do not hold rows * cols floats, or when a layer has no heads.
void check_shapes(const AttentionPicture& picture);

// The picture as the pages' script reads it: {"source": [tokens], "target": [tokens], "kinds":
// [{"id", "name", "rows", "cols", "layers": [{"mean": rows, "heads": [rows, ...]}]}]}, values
// rounded to 4 decimals. Calls check_shapes first.
nlohmann::json attention_data(const AttentionPicture& picture);

// The self-contained HTML page described above (UTF-8). All text from the picture is escaped. Calls
// check_shapes first.
std::string render_attention_html(const AttentionPicture& picture);

// Plain-text heat map (UTF-8, no ANSI colours) of the cross-attention averaged over the heads of
// `layer` (0-based; -1 is the last layer). Lines, each ending in "\n":
//   1. a title naming the layer and the number of heads;
//   2. the source tokens, one per column;
//   3. one line per target token: its label, then one cell per source token drawn with the shades
//      " .:-=+*#%@" from 0 to the largest weight of the map;
//   4. a legend giving the weight of the darkest shade.
// Tokens longer than 8 (columns) or 12 (row labels) characters are cut and end in "…". Throws
// nmt::Error when the picture has no cross-attention or `layer` is out of range.
std::string render_attention_text(const AttentionPicture& picture, int layer = -1);

}  // namespace nmt::viz
