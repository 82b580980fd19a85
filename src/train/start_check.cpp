#include "nmt/train/start_check.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "nmt/error.h"

namespace nmt::train {
namespace {

// FNV-1a over 64-bit values: equal inputs give equal fingerprints on every rank.
class Fingerprint {
 public:
  void add(uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash_ = (hash_ ^ ((value >> (8 * byte)) & 0xff)) * 1099511628211ull;
    }
  }
  int64_t value() const { return static_cast<int64_t>(hash_); }

 private:
  uint64_t hash_ = 14695981039346656037ull;
};

// The ids of every pair of a small corpus, or of 4,096 pairs spread over a large one and its last:
// reading every id would bring all of a prepared corpus of tens of millions of pairs into each
// rank's memory at start. The batch plan's fingerprint covers every pair's lengths.
int64_t data_fingerprint(const data::EncodedCorpus& pairs) {
  constexpr std::size_t kSampledPairs = 4096;
  Fingerprint fingerprint;
  const auto add_pair = [&](std::size_t index) {
    const data::EncodedPair pair = pairs.pair(index);
    for (const std::vector<int64_t>* side : {&pair.source, &pair.target}) {
      fingerprint.add(side->size());
      for (const int64_t id : *side) fingerprint.add(static_cast<uint64_t>(id));
    }
  };
  const std::size_t step = std::max<std::size_t>(1, pairs.size() / kSampledPairs);
  for (std::size_t index = 0; index < pairs.size(); index += step) add_pair(index);
  if (!pairs.empty()) add_pair(pairs.size() - 1);
  return fingerprint.value();
}

int64_t plan_fingerprint(const data::BatchPlan& plan) {
  Fingerprint fingerprint;
  for (std::size_t b = 0; b < plan.size(); ++b) {
    const std::vector<std::size_t> batch = plan.batch(b);
    fingerprint.add(batch.size());
    for (const std::size_t index : batch) fingerprint.add(index);
  }
  return fingerprint.value();
}

struct Compared {
  const char* name;
  int64_t value;
  bool is_fingerprint;
};

}  // namespace

void check_ranks_start_alike(Communicator& communicator, Trainer& trainer) {
  const TrainingState& progress = trainer.progress();
  const std::vector<Compared> compared = {
      {"epoch", progress.epoch + 1, false},
      {"batch of the epoch", progress.batch, false},
      {"step", progress.step, false},
      {"training pairs", static_cast<int64_t>(trainer.train_pairs().size()), false},
      {"training data", data_fingerprint(trainer.train_pairs()), true},
      {"the epoch's batch plan", plan_fingerprint(trainer.epoch_plan(progress.epoch)), true}};
  std::vector<int64_t> values;
  for (const Compared& item : compared) values.push_back(item.value);
  const std::vector<at::Tensor> parameters = trainer.model()->parameters();
  const at::Tensor local = at::tensor(values, at::kLong).to(parameters.front().device());
  const auto [lowest, highest] =
      communicator.range_over_ranks(local, "comparison of the ranks' starting state");
  const at::Tensor low = lowest.cpu();
  const at::Tensor high = highest.cpu();
  std::string differences;
  for (std::size_t i = 0; i < compared.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    if (low[index].item<int64_t>() == high[index].item<int64_t>()) continue;
    differences += differences.empty() ? "" : "; ";
    differences += compared[i].name;
    differences += compared[i].is_fingerprint
                       ? std::string(" differs")
                       : " from " + std::to_string(low[index].item<int64_t>()) + " to " +
                             std::to_string(high[index].item<int64_t>()) + " over the ranks (" +
                             std::to_string(compared[i].value) + " here)";
  }
  if (differences.empty() && !communicator.identical_on_all_ranks(parameters)) {
    differences = "the model's parameters differ";
  }
  if (differences.empty()) return;
  throw Error("distributed: rank " + std::to_string(communicator.rank()) + " of " +
              std::to_string(communicator.world_size()) +
              ": the ranks do not start from the same state: " + differences +
              ". Every rank must read the same checkpoint.pt and prepared data: one run directory "
              "on a file system all ranks share");
}

}  // namespace nmt::train
