// The fixed parts of the attention page (private to src/viz): its style sheet, the markup of its
// controls and the script that draws the heat maps of a picture in the JSON form of attention_data
// ({"source": [...], "target": [...], "kinds": [{"id", "name", "rows", "cols", "layers": [{"mean":
// rows, "heads": [rows, ...]}]}]}). It draws SVG through innerHTML, so the page needs no namespace
// URL and loads nothing. Torch-free; never throws.
#pragma once

#include <string_view>

namespace nmt::viz {

// CSS added after base_style().
std::string_view attention_style();

// The viewer card: selects #kind, #layer, #head, checkbox #stretch, and the #map, #legend, #info
// and #thumbs elements the script fills.
std::string_view attention_controls();

// The script (without the <script> tags). It defines nmtAttention.show(picture), which draws a
// picture given in the JSON form above (again for each new picture); it draws nothing by itself.
std::string_view attention_script();

}  // namespace nmt::viz
