#include "torch_free.h"

#include <gtest/gtest.h>

TEST(TorchFreeTest, ServeModuleDoesNotLoadTorch) {
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}
