// Fuzzes what checkpoint loading (nmt/train/checkpoint.h) does with the entries of a well-formed
// archive, which mutating a file's bytes (checkpoint_fuzz) seldom produces: most changes break the
// zip or the pickle before load_checkpoint sees an entry. The input decides, entry by entry of a
// genuine checkpoint of the fuzzing model, whether to keep it, drop it, or replace it with a
// tensor of another shape or type (NaN and infinities included) or with a string or number; an
// empty input keeps everything. The archive is then saved and loaded like a checkpoint.pt. Only
// CheckpointError may escape.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint_model.h"
#include "fuzz_support.h"
#include "nmt/error.h"

namespace {

enum EntryChange { kKeep, kDrop, kReplace };

struct Entry {
  std::string key;
  c10::IValue value;
};

std::vector<Entry> read_entries(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  std::vector<Entry> entries;
  for (const std::string& key : archive.keys()) {
    c10::IValue value;
    archive.read(key, value);
    entries.push_back({key, value});
  }
  return entries;
}

double fuzzed_value(FuzzedDataProvider& input) {
  const double kSpecial[] = {0.0,
                             1.0,
                             -1.0,
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             1e300,
                             9.3e18};
  const auto pick = input.ConsumeIntegralInRange<std::size_t>(0, std::size(kSpecial));
  return pick < std::size(kSpecial) ? kSpecial[pick] : input.ConsumeFloatingPoint<double>();
}

at::Tensor fuzzed_tensor(FuzzedDataProvider& input, const c10::IValue& original) {
  const c10::ScalarType kTypes[] = {torch::kFloat, torch::kDouble,   torch::kLong,
                                    torch::kInt,   torch::kBool,     torch::kByte,
                                    torch::kHalf,  torch::kBFloat16, torch::kComplexFloat};
  std::vector<int64_t> sizes;
  if (original.isTensor() && input.ConsumeBool()) {
    sizes = original.toTensor().sizes().vec();  // the expected shape, in another type
  } else {
    const auto rank = input.ConsumeIntegralInRange<int>(0, 3);
    for (int d = 0; d < rank; ++d) sizes.push_back(input.ConsumeIntegralInRange<int64_t>(0, 5));
  }
  at::Tensor values = torch::empty(sizes, torch::kDouble);
  auto flat = values.view({-1});
  const int64_t filled = std::min<int64_t>(flat.numel(), 8);
  for (int64_t i = 0; i < filled; ++i) flat[i] = fuzzed_value(input);
  if (filled < flat.numel()) flat.slice(0, filled).fill_(fuzzed_value(input));
  return values.to(input.PickValueInArray(kTypes));
}

c10::IValue fuzzed_entry(FuzzedDataProvider& input, const c10::IValue& original) {
  switch (input.ConsumeIntegralInRange(0, 3)) {
    case 0:
      return fuzzed_tensor(input, original);
    case 1:
      return c10::IValue(input.ConsumeRandomLengthString(32));
    case 2:
      return c10::IValue(input.ConsumeIntegral<int64_t>());
    default:
      return c10::IValue(fuzzed_value(input));
  }
}

void write_entry(torch::serialize::OutputArchive& archive, const Entry& entry) {
  if (entry.value.isTensor()) {
    archive.write(entry.key, entry.value.toTensor());
  } else {
    archive.write(entry.key, entry.value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nmt::fuzz::use_one_thread();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const nmt::fuzz::ScratchFile file("entries.pt");
  static nmt::fuzz::CheckpointModel target;
  static const std::vector<Entry> genuine = [] {
    target.save(file.path());
    return read_entries(file.path());
  }();

  FuzzedDataProvider input(data, size);
  torch::serialize::OutputArchive archive;
  for (const Entry& entry : genuine) {
    switch (input.ConsumeIntegralInRange<int>(kKeep, kReplace)) {
      case kKeep:
        write_entry(archive, entry);
        break;
      case kDrop:
        break;
      case kReplace:
        write_entry(archive, {entry.key, fuzzed_entry(input, entry.value)});
        break;
    }
  }
  std::ostringstream bytes;
  archive.save_to(bytes);
  const std::string& path = file.write(bytes.str());

  try {
    nmt::train::checkpoint_config(path);
  } catch (const nmt::CheckpointError&) {
  }
  try {
    nmt::train::load_checkpoint(path, target.model, &target.adam, torch::kCPU,
                                /*restore_rng=*/true);
  } catch (const nmt::CheckpointError&) {
  }
  return 0;
}
