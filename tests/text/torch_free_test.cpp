#include "torch_free.h"

#include <gtest/gtest.h>

TEST(TorchFreeTest, TextModuleDoesNotLoadTorch) {
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}
