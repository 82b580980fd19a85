#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "example_pictures.h"
#include "nmt/viz/report_page.h"

namespace nmt::viz {
namespace {

const Curve* find(const std::vector<Curve>& curves, const std::string& name) {
  for (const Curve& curve : curves) {
    if (curve.name == name) return &curve;
  }
  return nullptr;
}

TEST(TrainingCurvesTest, OnePointPerTrainRecordAndPerEpochWithValidLossInOrder) {
  const std::vector<nlohmann::json> records = {
      {{"event", "start"}, {"step", 0}},
      {{"event", "train"}, {"step", 10}, {"loss", 5.0}, {"train_seconds", 1.0}},
      {{"event", "train"}, {"step", 20}, {"loss", 4.0}, {"train_seconds", 2.0}},
      {{"event", "epoch"}, {"step", 20}, {"train_loss", 4.5}, {"valid_loss", 4.2}, {"train_seconds", 2.5}},
      {{"event", "average"}, {"valid_loss", 4.1}},
      // Resumed from the checkpoint at step 20: step 30 is logged twice.
      {{"event", "train"}, {"step", 30}, {"loss", 3.5}, {"train_seconds", 3.0}},
      {{"event", "start"}, {"step", 20}},
      {{"event", "train"}, {"step", 30}, {"loss", 3.4}, {"train_seconds", 3.1}},
      {{"event", "epoch"}, {"step", 40}, {"train_loss", 3.2}, {"train_seconds", 4.0}},  // no validation
      {{"event", "end"}, {"step", 40}},
  };
  const std::vector<Curve> curves = training_curves(records);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].name, "train loss");
  EXPECT_EQ(curves[0].steps, (std::vector<double>{10, 20, 30, 30}));
  EXPECT_EQ(curves[0].values, (std::vector<double>{5.0, 4.0, 3.5, 3.4}));
  EXPECT_EQ(curves[0].seconds, (std::vector<double>{1.0, 2.0, 3.0, 3.1}));
  EXPECT_EQ(curves[1].name, "valid loss");
  EXPECT_EQ(curves[1].steps, (std::vector<double>{20}));
  EXPECT_EQ(curves[1].values, (std::vector<double>{4.2}));
  EXPECT_EQ(curves[1].seconds, (std::vector<double>{2.5}));
}

TEST(TrainingCurvesTest, BleuTakesTheStepOfTheRecordsBeforeIt) {
  const std::vector<Curve> curves = training_curves(nmt::testing::example_records());
  ASSERT_EQ(curves.size(), 3u);
  EXPECT_EQ(curves[0].values.size(), 20u);
  EXPECT_EQ(curves[1].values.size(), 2u);
  const Curve* bleu = find(curves, "BLEU");
  ASSERT_NE(bleu, nullptr);
  EXPECT_EQ(bleu->values, (std::vector<double>{21.5}));
  EXPECT_EQ(bleu->steps, (std::vector<double>{200}));
  EXPECT_EQ(bleu->seconds, (std::vector<double>{180}));
}

TEST(TrainingCurvesTest, SkipsRecordsWithoutUsableValues) {
  const std::vector<nlohmann::json> records = {
      nlohmann::json::array(),
      {{"event", "train"}, {"step", 1}},                     // no loss
      {{"event", "train"}, {"step", 2}, {"loss", nullptr}},  // a NaN loss is written as null
      {{"event", "train"}, {"step", 3}, {"loss", "high"}},
      {{"event", 7}, {"loss", 1.0}},
  };
  EXPECT_TRUE(training_curves(records).empty());
  EXPECT_TRUE(training_curves({}).empty());
}

}  // namespace
}  // namespace nmt::viz
