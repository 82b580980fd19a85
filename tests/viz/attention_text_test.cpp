#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "example_pictures.h"
#include "nmt/error.h"
#include "nmt/viz/attention_page.h"

namespace nmt::viz {
namespace {

using nmt::testing::example_picture;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t code_points(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

const std::string kShades = " .:-=+*#%@";

TEST(AttentionTextTest, HasOneLinePerTargetTokenOfTheRightWidth) {
  const AttentionPicture picture = example_picture();
  const std::string text = render_attention_text(picture);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const std::vector<std::string> lines = lines_of(text);
  const std::size_t t = picture.target_tokens.size();
  ASSERT_EQ(lines.size(), t + 3) << text;
  // Label width 7 ("«perro»"), then per source token a space and max(2, min(8, length)) cells:
  // the(3) cat(3) &(2) "dog"(5) <3(2) <EOS>(5).
  const std::size_t width = 7 + (1 + 3) + (1 + 3) + (1 + 2) + (1 + 5) + (1 + 2) + (1 + 5);
  EXPECT_EQ(code_points(lines[1]), width) << lines[1];
  for (std::size_t row = 0; row < t; ++row) {
    const std::string& line = lines[2 + row];
    EXPECT_EQ(code_points(line), width) << line;
    EXPECT_EQ(line.rfind(picture.target_tokens[row], 0), 0u) << line;
  }
  for (const std::string& token : picture.source_tokens)
    EXPECT_NE(lines[1].find(token), std::string::npos) << token;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no ANSI escapes";
}

TEST(AttentionTextTest, DarkestShadeOfARowIsWhereItsWeightPeaks) {
  const AttentionPicture picture = example_picture();
  const Matrix mean = average(picture.cross.back());
  const std::vector<std::string> lines = lines_of(render_attention_text(picture));
  const std::vector<std::size_t> starts = {8, 12, 16, 19, 25, 28};  // first cell of each column
  for (int64_t row = 0; row < mean.rows; ++row) {
    int64_t peak = 0;
    for (int64_t col = 1; col < mean.cols; ++col) {
      if (mean.at(row, col) > mean.at(row, peak)) peak = col;
    }
    // Row labels are ASCII except "«perro»" (2 bytes more); cells are ASCII.
    const std::string& line = lines[static_cast<std::size_t>(2 + row)];
    const std::size_t offset = line.size() - code_points(line);
    std::size_t darkest = 0;
    for (std::size_t col = 0; col < starts.size(); ++col) {
      darkest = std::max(darkest, kShades.find(line[starts[col] + offset]));
    }
    EXPECT_EQ(kShades.find(line[starts[static_cast<std::size_t>(peak)] + offset]), darkest) << line;
  }
  const std::string grid =
      lines[2] + lines[3] + lines[4] + lines[5] + lines[6] + lines[7] + lines[8];
  EXPECT_NE(grid.find('@'), std::string::npos) << "the largest weight of the map is drawn with '@'";
}

TEST(AttentionTextTest, PicksTheLayer) {
  const AttentionPicture picture = example_picture();
  EXPECT_NE(render_attention_text(picture).find("layer 2 of 2"), std::string::npos);
  EXPECT_NE(render_attention_text(picture, 0).find("layer 1 of 2"), std::string::npos);
  EXPECT_NE(render_attention_text(picture, 0), render_attention_text(picture, 1));
  EXPECT_THROW(render_attention_text(picture, 2), Error);
  EXPECT_THROW(render_attention_text(picture, -2), Error);
  AttentionPicture no_cross = picture;
  no_cross.cross.clear();
  EXPECT_THROW(render_attention_text(no_cross), Error);
}

TEST(AttentionTextTest, CutsLongTokens) {
  AttentionPicture picture = example_picture();
  picture.source_tokens[0] = "extraordinarily";
  picture.target_tokens[1] = "extraordinariamente";
  const std::vector<std::string> lines = lines_of(render_attention_text(picture));
  EXPECT_NE(lines[1].find("extraor…"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[3].rfind("extraordina…", 0), 0u) << lines[3];
}

}  // namespace
}  // namespace nmt::viz
