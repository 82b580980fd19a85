#include "nmt/text/html_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "nmt/error.h"

namespace nmt::text {
namespace {

using Strings = std::vector<std::string>;

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// The HTML with every text upper-cased: a translation anyone can check.
std::string shout(const HtmlText& html) {
  Strings translations;
  for (const std::string& text : html.texts()) translations.push_back(upper(text));
  return html.render(translations);
}

TEST(HtmlTextTest, TranslatesTextNodesAndKeepsTagsAttributesAndEntities) {
  const HtmlText html(
      R"(<p class="intro" title="a &amp; b">Hello <b>world</b> &amp; caf&eacute; &lt;3</p>)"
      R"(<!-- a comment --><a href="x?a=1&amp;b=2">link</a>)");
  EXPECT_EQ(html.texts(), (Strings{"Hello ", "world", " & café <3", "link"}));
  EXPECT_EQ(shout(html),
            R"(<p class="intro" title="a &amp; b">HELLO <b>WORLD</b> &amp; CAFé &lt;3</p>)"
            R"(<!-- a comment --><a href="x?a=1&amp;b=2">LINK</a>)");
}

TEST(HtmlTextTest, CodeScriptsStylesAndTranslateNoStayAsTheyWere) {
  const HtmlText html(
      "<div>Run <code>ls -l</code> now.<pre>keep\n  this</pre><script>var s = '<b>';</script>"
      "<style>p { color: red }</style><p translate=\"no\">Brand <i>Name</i>"
      "<span translate=\"yes\">but this</span></p></div>");
  EXPECT_EQ(html.texts(), (Strings{"Run ", " now.", "but this"}));
  EXPECT_EQ(shout(html),
            "<div>RUN <code>ls -l</code> NOW.<pre>keep\n  this</pre><script>var s = '<b>';"
            "</script><style>p { color: red }</style><p translate=\"no\">Brand <i>Name</i>"
            "<span translate=\"yes\">BUT THIS</span></p></div>");
}

TEST(HtmlTextTest, AFragmentKeepsItsOuterTextAndWhitespace) {
  const HtmlText html("  Plain text, <em>then</em> more.\n");
  EXPECT_EQ(html.texts(), (Strings{"  Plain text, ", "then", " more.\n"}));
  EXPECT_EQ(html.render({"  Texto, ", "luego", " más.\n"}), "  Texto, <em>luego</em> más.\n");
}

TEST(HtmlTextTest, ADocumentIsWrittenBackAsADocument) {
  const HtmlText html(
      "<!DOCTYPE html><html><head><title>Title</title></head><body><p>Hi</p></body></html>");
  EXPECT_EQ(html.texts(), (Strings{"Title", "Hi"}));
  const std::string out = shout(html);
  EXPECT_NE(out.find("<head><title>TITLE</title></head>"), std::string::npos) << out;
  EXPECT_NE(out.find("<body><p>HI</p></body>"), std::string::npos) << out;
}

TEST(HtmlTextTest, RepairsUnclosedAndStrayTagsWithoutLosingText) {
  const HtmlText html("<p>one<p>two</div><b>three</i> <unknown>four");
  EXPECT_EQ(html.texts(), (Strings{"one", "two", "three ", "four"}));
  EXPECT_EQ(shout(html), "<p>ONE</p><p>TWO<b>THREE <unknown>FOUR</unknown></b></p>");
}

TEST(HtmlTextTest, MalformedEntitiesAreText) {
  const HtmlText html("AT&T &bogus; &#xZZ; &#99999999; fish & chips");
  ASSERT_EQ(html.texts().size(), 1u);
  const std::string out = shout(html);
  EXPECT_NE(out.find("AT&amp;T"), std::string::npos) << out;
  EXPECT_NE(out.find("FISH &amp; CHIPS"), std::string::npos) << out;
}

TEST(HtmlTextTest, NestingBeyondLibxml2sDepthIsRefusedNotCut) {
  std::string nested;
  for (int i = 0; i < 250; ++i) nested += "<span>";
  EXPECT_EQ(HtmlText(nested + "bottom").texts(), Strings{"bottom"});
  for (int i = 0; i < 100000; ++i) nested += "<div>";
  try {
    const HtmlText deep(nested + "bottom");
    FAIL() << "100,250 levels parsed";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot parse the HTML text: Excessive depth in document: 256 use "
                 "XML_PARSE_HUGE option");
  }
}

TEST(HtmlTextTest, BytesThatAreNotUtf8DoNotStopTheParser) {
  const HtmlText html("<p>caf\xe9 ok</p><p>next</p>");
  EXPECT_EQ(html.texts().size(), 2u);
}

TEST(HtmlTextTest, HugeAttributesAreKept) {
  const std::string value(1 << 20, 'x');
  const HtmlText attribute("<a title=\"" + value + "\">text</a>");
  EXPECT_EQ(attribute.texts(), Strings{"text"});
  EXPECT_EQ(shout(attribute), "<a title=\"" + value + "\">TEXT</a>");
}

TEST(HtmlTextTest, TextWithoutMarkupAndEmptyInput) {
  EXPECT_EQ(HtmlText("just words").texts(), Strings{"just words"});
  const HtmlText empty("");
  EXPECT_TRUE(empty.texts().empty());
  EXPECT_EQ(empty.render({}), "");
  EXPECT_TRUE(HtmlText("<br>  <img src=a.png>").texts().empty());
}

TEST(HtmlTextTest, RenderRefusesAWrongNumberOfTranslations) {
  const HtmlText html("<p>a</p><p>b</p>");
  try {
    (void)html.render({"x"});
    FAIL() << "render accepted 1 translation for 2 texts";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "HtmlText::render: 1 translations for 2 texts");
  }
}

}  // namespace
}  // namespace nmt::text
