#include "nmt/viz/attention_page.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "example_pictures.h"
#include "nmt/error.h"
#include "test_utils.h"
#include "viz/html.h"

namespace nmt::viz {
namespace {

using nmt::testing::contains;
using nmt::testing::example_picture;

std::string shape_error(const AttentionPicture& picture) {
  try {
    check_shapes(picture);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The JSON the page's script reads.
nlohmann::json embedded_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"attention-data\">";
  const std::size_t begin = page.find(open);
  if (begin == std::string::npos) return nullptr;
  const std::size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(CheckShapesTest, AcceptsMatchingShapes) {
  EXPECT_NO_THROW(check_shapes(example_picture()));
  EXPECT_NO_THROW(check_shapes(AttentionPicture{}));
}

TEST(CheckShapesTest, RejectsCrossAttentionOfTheWrongShape) {
  AttentionPicture picture = example_picture();
  picture.cross[1][0] = nmt::testing::peaked_matrix(7, 5, 1.0);
  const std::string message = shape_error(picture);
  EXPECT_TRUE(contains(message, "cross")) << message;
  EXPECT_TRUE(contains(message, "layer 2, head 1")) << message;
  EXPECT_TRUE(contains(message, "7 x 6")) << message;
  EXPECT_TRUE(contains(message, "7 x 5")) << message;
}

TEST(CheckShapesTest, RejectsSelfAttentionOfTheWrongShape) {
  AttentionPicture encoder = example_picture();
  encoder.encoder_self[0][1] = nmt::testing::peaked_matrix(7, 7, 1.0);
  EXPECT_TRUE(contains(shape_error(encoder), "encoder")) << shape_error(encoder);
  EXPECT_TRUE(contains(shape_error(encoder), "6 x 6")) << shape_error(encoder);
  AttentionPicture decoder = example_picture();
  decoder.decoder_self[0][0] = nmt::testing::peaked_matrix(6, 6, 1.0);
  EXPECT_TRUE(contains(shape_error(decoder), "decoder")) << shape_error(decoder);
  EXPECT_TRUE(contains(shape_error(decoder), "7 x 7")) << shape_error(decoder);
}

TEST(CheckShapesTest, RejectsTokenListsThatDoNotMatchTheMatrices) {
  AttentionPicture picture = example_picture();
  picture.source_tokens.pop_back();
  EXPECT_THROW(check_shapes(picture), Error);
  EXPECT_THROW(render_attention_html(picture), Error);
  EXPECT_THROW(render_attention_text(picture), Error);
}

TEST(CheckShapesTest, RejectsMissingValuesAndEmptyLayers) {
  AttentionPicture short_values = example_picture();
  short_values.cross[0][0].values.pop_back();
  EXPECT_TRUE(contains(shape_error(short_values), "values")) << shape_error(short_values);
  AttentionPicture no_heads = example_picture();
  no_heads.decoder_self[1].clear();
  EXPECT_TRUE(contains(shape_error(no_heads), "no")) << shape_error(no_heads);
}

TEST(AttentionHtmlTest, ContainsEveryTokenEscaped) {
  const AttentionPicture picture = example_picture();
  const std::string page = render_attention_html(picture);
  for (const auto* tokens : {&picture.source_tokens, &picture.target_tokens}) {
    for (const std::string& token : *tokens) {
      EXPECT_TRUE(contains(page, ">" + escape_html(token) + "<")) << token;
    }
  }
  EXPECT_TRUE(contains(page, escape_html(picture.source_text)));
  EXPECT_TRUE(contains(page, escape_html(picture.translation)));
  // No unescaped token anywhere, not even in the embedded data.
  EXPECT_FALSE(contains(page, "<SOS>"));
  EXPECT_FALSE(contains(page, "<EOS>"));
  EXPECT_FALSE(contains(page, "<3"));
  EXPECT_FALSE(contains(page, "\"dog\""));
}

TEST(AttentionHtmlTest, LoadsNothingFromOutside) {
  const std::string page = render_attention_html(example_picture());
  for (const char* forbidden :
       {"http://", "https://", "src=", "href=", "@import", "<link", "<img", "<iframe"}) {
    EXPECT_FALSE(contains(page, forbidden)) << forbidden;
  }
  for (std::size_t at = page.find("url("); at != std::string::npos;
       at = page.find("url(", at + 1)) {
    EXPECT_EQ(page.substr(at, 5), "url(#") << "url() must point inside the page";
  }
}

TEST(AttentionHtmlTest, EmbedsEveryLayerHeadAndTheHeadAverage) {
  const AttentionPicture picture = example_picture();
  const nlohmann::json data = embedded_data(render_attention_html(picture));
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["source"], picture.source_tokens);
  EXPECT_EQ(data["target"], picture.target_tokens);
  ASSERT_EQ(data["kinds"].size(), 3u);
  const nlohmann::json& cross = data["kinds"][0];
  EXPECT_EQ(cross["id"], "cross");
  ASSERT_EQ(cross["layers"].size(), 2u);
  ASSERT_EQ(cross["layers"][1]["heads"].size(), 2u);
  const Matrix& head = picture.cross[1][1];
  EXPECT_NEAR(cross["layers"][1]["heads"][1][3][2].get<double>(), head.at(3, 2), 1e-4);
  const Matrix mean = average(picture.cross[1]);
  EXPECT_NEAR(cross["layers"][1]["mean"][4][5].get<double>(), mean.at(4, 5), 1e-4);
  EXPECT_EQ(cross["layers"][1]["mean"].size(), 7u);
  EXPECT_EQ(cross["layers"][1]["mean"][0].size(), 6u);
  EXPECT_EQ(data["kinds"][1]["id"], "encoder");
  EXPECT_EQ(data["kinds"][2]["id"], "decoder");
}

TEST(AttentionHtmlTest, HasTheControlsAndTheScript) {
  const std::string page = render_attention_html(example_picture());
  for (const char* id : {"id=\"kind\"", "id=\"layer\"", "id=\"head\"", "id=\"map\"",
                         "id=\"legend\"", "id=\"info\""}) {
    EXPECT_TRUE(contains(page, id)) << id;
  }
  EXPECT_TRUE(contains(page, "average over"));
  EXPECT_TRUE(contains(page, "<script>"));
}

}  // namespace
}  // namespace nmt::viz
