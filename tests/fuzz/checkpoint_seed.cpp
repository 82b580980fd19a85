// Writes the valid checkpoint of tests/fuzz/corpus/checkpoint/, for the model the checkpoint
// targets load into. Run it again after that model or the checkpoint format changes:
//   cmake --build build-fuzz --target checkpoint_seed
//   build-fuzz/tests/fuzz/checkpoint_seed tests/fuzz/corpus/checkpoint/valid.pt
#include <cstdio>

#include "checkpoint_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pt\n", argv[0]);
    return 2;
  }
  nmt::fuzz::use_one_thread();
  nmt::fuzz::CheckpointModel().save(argv[1]);
  return 0;
}
