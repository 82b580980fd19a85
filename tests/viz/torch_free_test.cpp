#include "torch_free.h"

#include <gtest/gtest.h>

TEST(TorchFreeTest, VizModuleDoesNotLoadTorch) {
  EXPECT_EQ(nmt::testing::loaded_torch_library(), "");
}
