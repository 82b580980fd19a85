#include "torch_free.h"

#include <gtest/gtest.h>

#include "nmt/eval/bleu.h"

TEST(TorchFreeTest, EvalModuleDoesNotLoadTorch) {
  // Use the library so that it is really linked in.
  EXPECT_NEAR(nmt::eval::sentence_bleu("a b", {"a b"}).score, 100.0, 1e-9);
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}
