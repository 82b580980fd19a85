#include "viz/html.h"

#include <gtest/gtest.h>

namespace nmt::viz {
namespace {

TEST(EscapeHtmlTest, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_html("<SOS>"), "&lt;SOS&gt;");
  EXPECT_EQ(escape_html("a & b"), "a &amp; b");
  EXPECT_EQ(escape_html("\"quoted\" 'single'"), "&quot;quoted&quot; &#39;single&#39;");
  EXPECT_EQ(escape_html("&amp;"), "&amp;amp;");
  EXPECT_EQ(escape_html("</script><script>alert(1)</script>"),
            "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
}

TEST(EscapeHtmlTest, KeepsOtherTextUnchanged) {
  EXPECT_EQ(escape_html(""), "");
  EXPECT_EQ(escape_html("¿Dónde está? ▁gato"), "¿Dónde está? ▁gato");
}

TEST(ScriptJsonTest, CannotCloseTheScriptElement) {
  const std::string json = script_json({{"token", "</script><!-- & <EOS>"}});
  EXPECT_EQ(json.find('<'), std::string::npos) << json;
  EXPECT_EQ(json.find('>'), std::string::npos) << json;
  EXPECT_EQ(json.find('&'), std::string::npos) << json;
  EXPECT_EQ(nlohmann::json::parse(json)["token"], "</script><!-- & <EOS>");
}

TEST(ScriptJsonTest, KeepsUnicodeAndReplacesInvalidUtf8) {
  EXPECT_EQ(script_json(nlohmann::json("ñ«»")), "\"ñ«»\"");
  EXPECT_NO_THROW(script_json(nlohmann::json(std::string("bad \xff byte"))));
}

TEST(FormatNumberTest, IsShortAndLocaleFree) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(2.0), "2");
  EXPECT_EQ(format_number(1234.0), "1234");
  EXPECT_EQ(format_number(3.14159), "3.142");
  EXPECT_EQ(format_number(0.30000000000000004), "0.3");
  EXPECT_EQ(format_number(-1.25), "-1.25");
  EXPECT_EQ(format_number(0.000123), "0.000123");
  EXPECT_EQ(format_number(123456.0, 3), "123456");
  EXPECT_EQ(format_number(2.5e-7), "2.5e-07");
  EXPECT_EQ(format_number(std::nan("")), "n/a");
}

TEST(PageTest, BeginsAndEndsADocumentWithAnEscapedTitle) {
  const std::string page = page_begin("a <b> & c", "p { color: red; }") + page_end();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<title>a &lt;b&gt; &amp; c</title>"), std::string::npos);
  EXPECT_NE(page.find("p { color: red; }"), std::string::npos);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace nmt::viz
