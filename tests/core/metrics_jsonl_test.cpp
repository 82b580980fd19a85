#include "nmt/metrics_jsonl.h"

#include <gtest/gtest.h>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt {
namespace {

EpochRecord example_epoch() {
  EpochRecord epoch;
  epoch.epoch = 3;
  epoch.step = 1200;
  epoch.train_loss = 2.5;
  epoch.lr = 7e-4;
  epoch.train_seconds = 61.5;
  epoch.target_tokens = 123456;
  epoch.is_best = true;
  epoch.validation_seconds = 4.25;
  epoch.valid_loss = 2.75;
  epoch.valid_ppl = 9.5;
  epoch.valid_bleu = 31.5;
  epoch.valid_chrf = 52.25;
  epoch.time = 1.75e9;
  return epoch;
}

// Every kind of record, with every field set to a value other than its default.
std::vector<MetricsRecord> one_of_each() {
  EvalRecord eval{
      "test split of runs/x", "runs/x/best.pt", "greedy", true, 41.5, 60.25, 2.5, 9.75, 1.75e9};
  eval.by_source_length = {{"0-5", 12, 40.5, 60.25}, {"31+", 0, std::nullopt, std::nullopt}};
  return {StartRecord{2, 800, 1000, 50, "cpu", 1.75e9},
          TrainRecord{3, 850, 3.25, 1e-3, 2100.5, 40.5, 1800.25, 1.75e9},
          example_epoch(),
          AverageRecord{4, 2.5, 12.25, true, 1.75e9},
          EndRecord{"early_stopped", "no better loss", 5, 2000, 95.5, 2.25, "loss", 2.25, 1500,
                    1.75e9, 3},
          eval,
          ValidRecord{2, 900, 45.5, true, 3.5, 2.75, 15.5, 30.25, 50.5, 1.75e9}};
}

TEST(MetricsRecordTest, EveryKindRoundTripsThroughJson) {
  for (const MetricsRecord& record : one_of_each()) {
    const nlohmann::json json = to_json(record);
    EXPECT_EQ(json["event"], event_name(record));
    const std::optional<MetricsRecord> back = record_from_json(json);
    ASSERT_TRUE(back.has_value()) << json.dump();
    EXPECT_EQ(to_json(*back), json) << "a field is written under one key and read under another";
  }
}

TEST(MetricsRecordTest, KeysAreTheOnesTheFileHasAlwaysUsed) {
  const nlohmann::json epoch = to_json(example_epoch());
  for (const char* key :
       {"event", "epoch", "step", "train_loss", "lr", "train_seconds", "target_tokens", "is_best",
        "validation_seconds", "valid_loss", "valid_ppl", "valid_bleu", "valid_chrf", "time"}) {
    EXPECT_TRUE(epoch.contains(key)) << key;
  }
  EXPECT_EQ(epoch.size(), 14u);
  EpochRecord without_validation = example_epoch();
  without_validation.valid_loss.reset();
  without_validation.valid_ppl.reset();
  without_validation.valid_bleu.reset();
  EXPECT_FALSE(to_json(without_validation).contains("valid_loss"));
  EXPECT_FALSE(to_json(without_validation).contains("valid_bleu"));
}

TEST(MetricsRecordTest, RejectsRecordsItCannotUse) {
  nlohmann::json missing_loss = to_json(TrainRecord{});
  missing_loss.erase("loss");
  nlohmann::json null_loss = to_json(TrainRecord{});  // a NaN loss is written as null
  null_loss["loss"] = nullptr;
  nlohmann::json text_loss = to_json(TrainRecord{});
  text_loss["loss"] = "high";
  for (const nlohmann::json& bad :
       {missing_loss, null_loss, text_loss, nlohmann::json::array(), nlohmann::json("train"),
        nlohmann::json{{"event", "unknown"}}, nlohmann::json{{"event", 7}}}) {
    EXPECT_FALSE(record_from_json(bad).has_value()) << bad.dump();
  }
  nlohmann::json end = to_json(EndRecord{});
  end["best_valid_loss"] = nullptr;  // how runs without validation wrote it
  EXPECT_TRUE(record_from_json(end).has_value());
  // End records written before best_metric existed lack its three keys.
  const nlohmann::json older = {
      {"event", "end"}, {"reason", "finished"}, {"message", "m"},      {"epoch", 2},
      {"step", 10},     {"train_seconds", 1.5}, {"best_valid_loss", 3}};
  const std::optional<MetricsRecord> read = record_from_json(older);
  ASSERT_TRUE(read.has_value());
  EXPECT_FALSE(std::get<EndRecord>(*read).best_metric.has_value());
  EXPECT_FALSE(std::get<EndRecord>(*read).batch.has_value());
  // Eval records written before scores by source length existed, and ones that spoil them.
  nlohmann::json eval = to_json(EvalRecord{});
  EXPECT_FALSE(eval.contains("by_source_length"));
  ASSERT_TRUE(record_from_json(eval).has_value());
  EXPECT_TRUE(std::get<EvalRecord>(*record_from_json(eval)).by_source_length.empty());
  eval["by_source_length"] = {{{"words", "0-5"}, {"sentences", 3}, {"bleu", "high"}}};
  EXPECT_FALSE(record_from_json(eval).has_value());
  eval["by_source_length"] = 5;
  EXPECT_FALSE(record_from_json(eval).has_value());
}

TEST(MetricsLogTest, AppendsTimedRecordsThatReadBack) {
  testing::ScratchDir dir;
  const std::string path = dir.file("metrics.jsonl");
  MetricsLog(path).write(StartRecord{0, 0, 10, 2, "cpu"});
  MetricsLog(path).write(example_epoch());  // a second writer appends, as a resumed run does
  std::ofstream(path, std::ios::app) << "not json\n{\"event\": \"mystery\"}\n";
  const MetricsFile file = read_metrics(path);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<StartRecord>(file.records[0]));
  const auto& epoch = std::get<EpochRecord>(file.records[1]);
  EXPECT_EQ(epoch.valid_loss, 2.75);
  EXPECT_GT(epoch.time, 1.7e9) << "write() stamps the time";
  EXPECT_EQ(file.skipped_lines, (std::vector<std::size_t>{3, 4}));
  EXPECT_TRUE(read_metrics(dir.file("absent.jsonl")).records.empty());
}

TEST(MetricsLogTest, ADiskFullIsAnErrorNamingTheFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("metrics.jsonl");
  if (!testing::link_to_full_device(path)) GTEST_SKIP() << "no /dev/full";
  MetricsLog log(path);
  try {
    log.write(StartRecord{0, 0, 10, 2, "cpu"});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what())
                  .rfind("cannot append to " + path + ": No space left on device", 0),
              0u)
        << error.what();
  }
}

}  // namespace
}  // namespace nmt
