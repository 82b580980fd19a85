#include "nmt/viz/matrix.h"

#include <gtest/gtest.h>

#include "nmt/error.h"

namespace nmt::viz {
namespace {

TEST(MatrixTest, AtReadsRowMajor) {
  const Matrix m{2, 3, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(m.at(0, 0), 1.0f);
  EXPECT_EQ(m.at(0, 2), 3.0f);
  EXPECT_EQ(m.at(1, 0), 4.0f);
  EXPECT_EQ(m.at(1, 2), 6.0f);
  EXPECT_THROW(m.at(2, 0), Error);
  EXPECT_THROW(m.at(0, 3), Error);
  EXPECT_THROW(m.at(-1, 0), Error);
}

TEST(AverageTest, IsTheElementWiseMean) {
  const Matrix mean =
      average({Matrix{2, 2, {1, 2, 3, 4}}, Matrix{2, 2, {3, 2, 1, 0}}, Matrix{2, 2, {2, 5, 2, 5}}});
  EXPECT_EQ(mean.rows, 2);
  EXPECT_EQ(mean.cols, 2);
  ASSERT_EQ(mean.values.size(), 4u);
  EXPECT_FLOAT_EQ(mean.values[0], 2.0f);
  EXPECT_FLOAT_EQ(mean.values[1], 3.0f);
  EXPECT_FLOAT_EQ(mean.values[2], 2.0f);
  EXPECT_FLOAT_EQ(mean.values[3], 3.0f);
}

TEST(AverageTest, OfOneMatrixIsThatMatrix) {
  const Matrix one{1, 3, {0.25f, 0.5f, 0.25f}};
  EXPECT_EQ(average({one}).values, one.values);
}

TEST(AverageTest, RejectsEmptyInput) {
  try {
    average({});
    FAIL() << "expected nmt::Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("at least one"), std::string::npos) << error.what();
  }
}

TEST(AverageTest, RejectsShapeMismatchNamingTheShapes) {
  try {
    average({Matrix{2, 3, std::vector<float>(6)}, Matrix{3, 2, std::vector<float>(6)}});
    FAIL() << "expected nmt::Error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("2 x 3"), std::string::npos) << message;
    EXPECT_NE(message.find("3 x 2"), std::string::npos) << message;
  }
}

TEST(AverageTest, RejectsValuesThatDoNotFillTheShape) {
  EXPECT_THROW(average({Matrix{2, 2, {1, 2, 3}}}), Error);
  EXPECT_THROW(average({Matrix{1, 2, {1, 2}}, Matrix{1, 2, {1}}}), Error);
}

}  // namespace
}  // namespace nmt::viz
