// Fuzzes checkpoint loading (nmt/train/checkpoint.h) on arbitrary file content, as a damaged or
// truncated checkpoint.pt would be: checkpoint_config, then load_checkpoint with the optimiser and
// the random generator state. Only CheckpointError may escape; a c10::Error is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint_model.h"
#include "fuzz_support.h"
#include "nmt/error.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nmt::fuzz::use_one_thread();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const nmt::fuzz::ScratchFile file("checkpoint.pt");
  static nmt::fuzz::CheckpointModel target;
  const std::string& path = file.write(nmt::fuzz::as_text(data, size));
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
