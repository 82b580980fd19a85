#include <gtest/gtest.h>

#include "torch_free.h"

TEST(TorchFreeTest, TextModuleDoesNotLoadTorch) {
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}
