// The fixed parts of the translation page (private to src/viz): its style sheet, its markup and
// its script. The script reads the settings from <script type="application/json"
// id="page-settings"> ({"api_key": bool, "max_sentences", "max_chars", "max_beam_size"}) and
// draws attention with the attention page's nmtAttention.show, whose script and controls the page
// also holds. Torch-free; never throws.
#pragma once

#include <string_view>

namespace nmt::viz {

// CSS added after base_style() and attention_style().
std::string_view translate_style();

// The body up to the attention viewer: header, text areas, controls, n-best list.
std::string_view translate_markup();

// The script (without the <script> tags).
std::string_view translate_script();

}  // namespace nmt::viz
