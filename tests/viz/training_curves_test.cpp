#include <gtest/gtest.h>

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
  using nmt::testing::epoch_record;
  using nmt::testing::train_record;
  const std::vector<MetricsRecord> records = {
      StartRecord{},
      train_record(10, 5.0, 1.0),
      train_record(20, 4.0, 2.0),
      epoch_record(1, 20, 4.5, 4.2, 2.5),
      AverageRecord{2, 4.1, 60.3, true},
      // Resumed from the checkpoint at step 20: step 30 is logged twice.
      train_record(30, 3.5, 3.0),
      StartRecord{1, 20, 64, 16, "cpu"},
      train_record(30, 3.4, 3.1),
      epoch_record(2, 40, 3.2, -1, 4.0),  // no validation
      EndRecord{"finished", "", 2, 40, 4.0, std::nullopt},
  };
  const std::vector<Curve> curves = training_curves(records);
  ASSERT_EQ(curves.size(), 4u);  // train loss, valid loss, valid BLEU, valid chrF
  EXPECT_EQ(curves[0].name, "train loss");
  EXPECT_EQ(curves[0].steps, (std::vector<double>{10, 20, 30, 30}));
  EXPECT_EQ(curves[0].values, (std::vector<double>{5.0, 4.0, 3.5, 3.4}));
  EXPECT_EQ(curves[0].seconds, (std::vector<double>{1.0, 2.0, 3.0, 3.1}));
  EXPECT_EQ(curves[1].name, "valid loss");
  EXPECT_EQ(curves[1].steps, (std::vector<double>{20}));
  EXPECT_EQ(curves[1].values, (std::vector<double>{4.2}));
  EXPECT_EQ(curves[1].seconds, (std::vector<double>{2.5}));
  EXPECT_EQ(curves[2].name, "valid BLEU");
  EXPECT_EQ(curves[2].values, (std::vector<double>{18.5}));
  EXPECT_EQ(curves[3].name, "valid chrF");
  EXPECT_EQ(curves[3].steps, (std::vector<double>{20}));
}

TEST(TrainingCurvesTest, ValidationsBetweenEpochsJoinTheValidCurves) {
  ValidRecord between;
  between.step = 15;
  between.train_seconds = 1.5;
  between.valid_loss = 4.4;
  between.valid_bleu = 7.5;
  const std::vector<MetricsRecord> records = {nmt::testing::train_record(10, 5.0, 1.0), between,
                                              nmt::testing::epoch_record(1, 20, 4.5, 4.2, 2.5)};
  const std::vector<Curve> curves = training_curves(records);
  const Curve* valid = find(curves, "valid loss");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ(valid->steps, (std::vector<double>{15, 20}));
  EXPECT_EQ(valid->values, (std::vector<double>{4.4, 4.2}));
  EXPECT_EQ(valid->seconds, (std::vector<double>{1.5, 2.5}));
  const Curve* bleu = find(curves, "valid BLEU");
  ASSERT_NE(bleu, nullptr);
  EXPECT_EQ(bleu->values, (std::vector<double>{7.5, 18.5}));
}

TEST(TrainingCurvesTest, BleuTakesTheStepOfTheRecordsBeforeIt) {
  const std::vector<Curve> curves = training_curves(nmt::testing::example_records());
  ASSERT_EQ(curves.size(), 5u);
  EXPECT_EQ(curves[0].values.size(), 20u);
  EXPECT_EQ(curves[1].values.size(), 2u);
  const Curve* bleu = find(curves, "BLEU");
  ASSERT_NE(bleu, nullptr);
  EXPECT_EQ(bleu->values, (std::vector<double>{21.5}));
  EXPECT_EQ(bleu->steps, (std::vector<double>{200}));
  EXPECT_EQ(bleu->seconds, (std::vector<double>{180}));
}

TEST(TrainingCurvesTest, NoRecordsNoCurves) { EXPECT_TRUE(training_curves({}).empty()); }

}  // namespace
}  // namespace nmt::viz
