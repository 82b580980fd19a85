#include "nmt/viz/translate_page.h"

#include <gtest/gtest.h>

namespace nmt::viz {
namespace {

TEST(TranslatePageTest, IsSelfContainedAndCarriesItsSettings) {
  const std::string page = render_translate_page({/*is_api_key_required=*/true, 7, 99, 4});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find(R"("api_key":true)"), std::string::npos);
  EXPECT_NE(page.find(R"("max_sentences":7)"), std::string::npos);
  EXPECT_NE(page.find(R"("max_chars":99)"), std::string::npos);
  EXPECT_NE(page.find(R"("max_beam_size":4)"), std::string::npos);
  // It asks its own server, by relative addresses, and loads nothing else.
  EXPECT_NE(page.find("fetch('v1/translate'"), std::string::npos);
  EXPECT_NE(page.find("fetch('health')"), std::string::npos);
  for (const char* outside : {"http://", "https://", "<link", "src=", "@import"}) {
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  }
  // The attention viewer of the attention page, drawn by the page's script.
  EXPECT_NE(page.find("const nmtAttention = "), std::string::npos);
  EXPECT_NE(page.find("nmtAttention.show(picture)"), std::string::npos);
  EXPECT_NE(page.find("id=\"kind\""), std::string::npos);
  EXPECT_NE(page.find("@media (max-width: 700px)"), std::string::npos) << "a phone layout";
}

}  // namespace
}  // namespace nmt::viz
