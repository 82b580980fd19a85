#include "nmt/train/checkpoint.h"

#include <gtest/gtest.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include "nmt/error.h"
#include "test_utils.h"
#include "torch_test_utils.h"

namespace nmt::train {
namespace {

using testing::same_parameters;

TEST(CheckpointTest, RoundTripIsBitIdentical) {
  testing::ScratchDir dir;
  auto saved = testing::tiny_model(model::NormPosition::kPre, 12, 1);
  auto loaded = testing::tiny_model(model::NormPosition::kPre, 12, 2);
  ASSERT_FALSE(same_parameters(saved, loaded));
  std::vector<at::Tensor> parameters = saved->parameters();
  Adam adam(parameters, AdamOptions{});
  for (auto& p : parameters) p.mutable_grad() = torch::ones_like(p);
  adam.step(1e-3);
  TrainingState progress;
  progress.epoch = 3;
  progress.batch = 7;
  progress.step = 42;
  progress.best_score = 1.25;
  progress.best_step = 7;
  save_checkpoint(dir.file("c.pt"), saved, &adam, progress, R"({"x": 1})");

  std::vector<at::Tensor> loaded_parameters = loaded->parameters();
  Adam loaded_adam(loaded_parameters, AdamOptions{});
  const TrainingState restored =
      load_checkpoint(dir.file("c.pt"), loaded, &loaded_adam, torch::kCPU, false);
  EXPECT_TRUE(same_parameters(saved, loaded));
  EXPECT_EQ(restored.epoch, 3);
  EXPECT_EQ(restored.batch, 7);
  EXPECT_EQ(restored.step, 42);
  EXPECT_DOUBLE_EQ(restored.best_score, 1.25);
  EXPECT_EQ(restored.best_step, 7);
  EXPECT_EQ(loaded_adam.steps(), 1);
  EXPECT_TRUE(torch::equal(loaded_adam.second_moments()[0], adam.second_moments()[0]));
  EXPECT_EQ(checkpoint_config(dir.file("c.pt")), R"({"x": 1})");
  EXPECT_FALSE(std::filesystem::exists(dir.file("c.pt.tmp")));
}

TEST(CheckpointTest, RestoresTheRandomGeneratorState) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  torch::manual_seed(11);
  save_checkpoint(dir.file("c.pt"), model, nullptr, {}, "{}");
  const auto expected = torch::rand({4});
  torch::rand({100});
  load_checkpoint(dir.file("c.pt"), model, nullptr, torch::kCPU, /*restore_rng=*/true);
  EXPECT_TRUE(torch::equal(torch::rand({4}), expected));
}

TEST(CheckpointTest, AFailedSaveLeavesThePreviousCheckpointIntact) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  TrainingState progress;
  progress.step = 1;
  save_checkpoint(dir.file("c.pt"), model, nullptr, progress, "{}");
  const std::string before = testing::read_file(dir.file("c.pt"));
  std::filesystem::create_directories(
      dir.file("c.pt.tmp/blocked"));  // the temporary file cannot be written
  progress.step = 2;
  EXPECT_THROW(save_checkpoint(dir.file("c.pt"), model, nullptr, progress, "{}"), Error);
  EXPECT_EQ(testing::read_file(dir.file("c.pt")), before);
}

TEST(CheckpointTest, ADiskFullIsOneErrorAndKeepsThePreviousCheckpoint) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  TrainingState progress;
  save_checkpoint(dir.file("c.pt"), model, nullptr, progress, "{}");
  const std::string before = testing::read_file(dir.file("c.pt"));
  if (!testing::link_to_full_device(dir.file("c.pt.tmp"))) GTEST_SKIP() << "no /dev/full";
  progress.step = 2;
  try {
    save_checkpoint(dir.file("c.pt"), model, nullptr, progress, "{}");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot write " + dir.file("c.pt") + ": No space left on device");
  }
  EXPECT_EQ(testing::read_file(dir.file("c.pt")), before);
  EXPECT_FALSE(std::filesystem::is_symlink(dir.file("c.pt.tmp")));
}

TEST(CheckpointTest, ErrorsNameTheFileAndTheProblem) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  try {
    load_checkpoint(dir.file("none.pt"), model, nullptr, torch::kCPU, false);
    FAIL();
  } catch (const CheckpointError& error) {
    EXPECT_NE(std::string(error.what()).find("none.pt: no such checkpoint"), std::string::npos);
  }
  EXPECT_THROW(load_checkpoint(dir.write("junk.pt", "junk"), model, nullptr, torch::kCPU, false),
               CheckpointError);

  save_checkpoint(dir.file("small.pt"), model, nullptr, {}, "{}");
  auto bigger = testing::tiny_model(model::NormPosition::kPost, 20);
  try {
    load_checkpoint(dir.file("small.pt"), bigger, nullptr, torch::kCPU, false);
    FAIL();
  } catch (const CheckpointError& error) {
    EXPECT_NE(
        std::string(error.what())
            .find("\"source_embedding.weight\" has shape [12, 16], the model expects [20, 16]"),
        std::string::npos)
        << error.what();
  }
}

// Found by tests/fuzz/checkpoint_fuzz.cpp: LibTorch's unpickler threw std::out_of_range ("Argument
// passed to at() was not in the map") for a checkpoint whose pickled entry names repeat one (a
// damaged byte turning "optimizer/m/7" into "optimizer/m/8"), and it escaped load_checkpoint.
TEST(CheckpointTest, ADamagedArchiveIsACheckpointError) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  std::vector<at::Tensor> parameters = model->parameters();
  Adam adam(parameters, AdamOptions{});
  save_checkpoint(dir.file("c.pt"), model, &adam, {}, "{}");
  std::string bytes = testing::read_file(dir.file("c.pt"));
  const std::size_t name = bytes.find("optimizer/m/7");
  ASSERT_NE(name, std::string::npos);
  bytes[name + 12] = '8';
  dir.write("c.pt", bytes);
  EXPECT_THROW(checkpoint_config(dir.file("c.pt")), CheckpointError);
  EXPECT_THROW(load_checkpoint(dir.file("c.pt"), model, &adam, torch::kCPU, true), CheckpointError);
}

// Found by the fuzzing campaign of 2026-11-24 (tests/train/testdata/huge-length-field.pt): a
// damaged length field makes LibTorch's reader ask for 28 GB. Under AddressSanitizer that aborts
// (which is why the input is no fuzzing seed); in a normal build the allocation fails, or the read
// runs out of bytes: either way one CheckpointError naming the file.
TEST(CheckpointTest, ALengthFieldAskingForGigabytesIsACheckpointError) {
  const std::string path = testing::source_dir() + "/tests/train/testdata/huge-length-field.pt";
  try {
    checkpoint_config(path);
    FAIL() << "a damaged checkpoint was read";
  } catch (const CheckpointError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(path + ": not a readable checkpoint (", 0), 0u)
        << error.what();
  }
}

// Rewrites the checkpoint at path with the entry key replaced by value.
void replace_entry(const std::string& path,
                   const std::string& key,
                   const c10::IValue& value,
                   const std::map<std::string, std::string>& renames = {}) {
  torch::serialize::InputArchive in;
  in.load_from(path);
  torch::serialize::OutputArchive out;
  for (std::string name : in.keys()) {
    c10::IValue entry;
    in.read(name, entry);
    if (name == key) entry = value;
    if (const auto rename = renames.find(name); rename != renames.end()) {
      if (rename->second.empty()) continue;
      name = rename->second;
    }
    if (entry.isTensor()) {
      out.write(name, entry.toTensor());
    } else {
      out.write(name, entry);
    }
  }
  out.save_to(path);
}

// Checkpoints saved before best_metric existed named two progress entries after the loss and had
// no best_step: they resume with the same meaning.
TEST(CheckpointTest, CheckpointsFromBeforeBestMetricStillLoad) {
  testing::ScratchDir dir;
  auto model = testing::tiny_model();
  TrainingState progress;
  progress.best_score = 3.5;
  progress.best_step = 40;
  progress.validations_without_improvement = 2;
  save_checkpoint(dir.file("c.pt"), model, nullptr, progress, "{}");
  replace_entry(
      dir.file("c.pt"), "", {},
      {{"progress/best_score", "progress/best_valid_loss"},
       {"progress/validations_without_improvement", "progress/epochs_without_improvement"},
       {"progress/best_step", ""}});
  const TrainingState restored =
      load_checkpoint(dir.file("c.pt"), model, nullptr, torch::kCPU, /*restore_rng=*/false);
  EXPECT_DOUBLE_EQ(restored.best_score, 3.5);
  EXPECT_EQ(restored.validations_without_improvement, 2);
  EXPECT_EQ(restored.best_step, 0);
}

// Found by tests/fuzz/checkpoint_entries_fuzz.cpp: an entry of the wrong size or with a value its
// type cannot hold made LibTorch throw c10::Error or std::runtime_error out of load_checkpoint.
TEST(CheckpointTest, UnusableEntriesAreCheckpointErrorsNamingThem) {
  const std::pair<std::string, torch::Tensor> damaged[] = {
      {"format", torch::tensor({1, 1, 1})},
      {"progress/epoch", torch::tensor(std::numeric_limits<double>::quiet_NaN(), torch::kDouble)},
      {"progress/step", torch::tensor(1e300, torch::kDouble)},
      {"progress/best_score", torch::empty({0})},
      {"optimizer/steps", torch::ones({2, 2})},
      {"rng/cpu", torch::zeros({3}, torch::kByte)},
  };
  for (const auto& [key, value] : damaged) {
    testing::ScratchDir dir;
    auto model = testing::tiny_model();
    std::vector<at::Tensor> parameters = model->parameters();
    Adam adam(parameters, AdamOptions{});
    save_checkpoint(dir.file("c.pt"), model, &adam, {}, "{}");
    replace_entry(dir.file("c.pt"), key, value);
    try {
      load_checkpoint(dir.file("c.pt"), model, &adam, torch::kCPU, /*restore_rng=*/true);
      ADD_FAILURE() << key << ": expected CheckpointError";
    } catch (const CheckpointError& error) {
      EXPECT_NE(std::string(error.what()).find("c.pt: entry \"" + key + "\""), std::string::npos)
          << error.what();
    }
  }
}

TEST(CheckpointTest, AveragingTakesTheMeanOfTheWeights) {
  testing::ScratchDir dir;
  auto a = testing::tiny_model(model::NormPosition::kPost, 12, 1);
  auto b = testing::tiny_model(model::NormPosition::kPost, 12, 2);
  save_checkpoint(dir.file("a.pt"), a, nullptr, {}, "{}");
  save_checkpoint(dir.file("b.pt"), b, nullptr, {}, "{}");
  auto averaged = testing::tiny_model(model::NormPosition::kPost, 12, 3);
  load_averaged_weights({dir.file("a.pt"), dir.file("b.pt")}, averaged, torch::kCPU);
  const auto key = "decoder.0.feed_forward.expand.weight";
  EXPECT_TRUE(testing::all_close(averaged->named_parameters()[key],
                                 (a->named_parameters()[key] + b->named_parameters()[key]) / 2));
}

}  // namespace
}  // namespace nmt::train
