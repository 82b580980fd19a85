#include "nmt/viz/translate_page.h"

#include <nlohmann/json.hpp>

#include "viz/attention_assets.h"
#include "viz/html.h"
#include "viz/translate_assets.h"

namespace nmt::viz {

std::string render_translate_page(const TranslatePageSettings& settings) {
  const nlohmann::json page_settings = {{"api_key", settings.is_api_key_required},
                                        {"max_sentences", settings.max_sentences},
                                        {"max_chars", settings.max_chars},
                                        {"max_beam_size", settings.max_beam_size}};
  std::string out =
      page_begin("nmt: translate", std::string(attention_style()) + std::string(translate_style()));
  out += translate_markup();
  out += "<div id=\"attention-card\" hidden>\n<h2>Attention of the first line's translation</h2>\n";
  out += attention_controls();
  out += "</div>\n";
  out += "<script type=\"application/json\" id=\"page-settings\">" + script_json(page_settings) +
         "</script>\n<script>\n";
  out += attention_script();
  out += translate_script();
  out += "</script>\n";
  out += page_end();
  return out;
}

}  // namespace nmt::viz
