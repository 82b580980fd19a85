// Form fields as LibreTranslate's clients send them: URL-encoded (queries and bodies) and
// multipart/form-data, with the exact refusal of a multipart body that cannot be split.
#include "serve/form.h"

#include <gtest/gtest.h>

#include "nmt/serve/api.h"

namespace nmt::serve {
namespace {

TEST(FormTest, UrlEncodedFieldsAreDecodedInOrder) {
  const FormFields fields = url_encoded_fields("q=I+am%20hungry&target=es&empty=&flag&&q=%C3%B1");
  const FormFields expected = {
      {"q", "I am hungry"}, {"target", "es"}, {"empty", ""}, {"flag", ""}, {"q", "ñ"}};
  EXPECT_EQ(fields, expected);
}

TEST(FormTest, AStrayPercentStaysAsItIs) {
  const FormFields expected = {{"q", "100% sure %zz %4"}};
  EXPECT_EQ(url_encoded_fields("q=100%25+sure+%zz+%4"), FormFields({{"q", "100% sure %zz %4"}}));
  EXPECT_EQ(url_encoded_fields("q=100%+sure+%zz+%4"), expected);
  EXPECT_TRUE(url_encoded_fields("").empty());
}

TEST(FormTest, MultipartPartsAreReadByName) {
  const std::string body =
      "--XyZ\r\n"
      "Content-Disposition: form-data; name=\"q\"\r\n\r\n"
      "line one\r\nline two\r\n"
      "--XyZ\r\n"
      "content-disposition: form-data; name=target\r\n"
      "Content-Type: text/plain\r\n\r\n"
      "es\r\n"
      "--XyZ--\r\n";
  const FormFields expected = {{"q", "line one\r\nline two"}, {"target", "es"}};
  EXPECT_EQ(multipart_fields(body, "multipart/form-data; boundary=XyZ"), expected);
  EXPECT_EQ(multipart_fields(body, "multipart/form-data; charset=utf-8; boundary=\"XyZ\""),
            expected);
}

std::string multipart_refusal(const std::string& body, const std::string& content_type) {
  try {
    multipart_fields(body, content_type);
  } catch (const ApiError& error) {
    return std::to_string(error.status()) + " " + error.what();
  }
  return "accepted";
}

TEST(FormTest, AMultipartBodyThatCannotBeSplitIs400SayingWhy) {
  const std::string type = "multipart/form-data; boundary=b";
  EXPECT_EQ(multipart_refusal("--b--", "multipart/form-data"),
            "400 Invalid multipart/form-data body: the Content-Type names no boundary");
  EXPECT_EQ(multipart_refusal("q=1", type),
            "400 Invalid multipart/form-data body: it does not start with its boundary");
  EXPECT_EQ(multipart_refusal("--b\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nhi", type),
            "400 Invalid multipart/form-data body: a part is not closed by the boundary");
  EXPECT_EQ(multipart_refusal("--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--", type),
            "400 Invalid multipart/form-data body: a part has no Content-Disposition name");
  EXPECT_EQ(multipart_refusal("--b\r\nContent-Disposition: form-data; name=q", type),
            "400 Invalid multipart/form-data body: a part has no end to its headers");
  EXPECT_EQ(multipart_refusal("--bX", type),
            "400 Invalid multipart/form-data body: a boundary is not followed by a line break");
  EXPECT_EQ(multipart_refusal("--b--", type), "accepted");
}

}  // namespace
}  // namespace nmt::serve
