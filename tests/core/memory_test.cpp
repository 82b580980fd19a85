#include "nmt/memory.h"

#include <gtest/gtest.h>

namespace nmt {
namespace {

TEST(MemoryTest, AvailableHostMemoryIsPositiveWhereProcIsMounted) {
  const auto available = available_host_memory();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0);
}

TEST(MemoryTest, AllocatorFailuresBecomeOneLineOfAdvice) {
  EXPECT_EQ(describe_out_of_memory(
                "[enforce fail at alloc_cpu.cpp:75] data. DefaultCPUAllocator: can't allocate "
                "memory: you tried to allocate 3221225472 bytes. Error code 12 (Cannot allocate "
                "memory)\nframe #0: c10::ThrowEnforceNotMet"),
            "out of host memory (an allocation of 3.0 GiB failed): lower train.max_tokens or "
            "train.batch_size (decode.batch_size when translating), or use a smaller model "
            "(model.d_model, model.layers, text.vocab_size)");
  EXPECT_EQ(describe_out_of_memory("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.1 "
                                   "GiB total capacity)")
                .value()
                .rfind("out of GPU memory (an allocation of 2.00 GiB failed): lower", 0),
            0u);
  EXPECT_FALSE(describe_out_of_memory("shape '[2, 3]' is invalid for input of size 5"));
}

}  // namespace
}  // namespace nmt
