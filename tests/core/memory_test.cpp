#include "nmt/memory.h"

#include <gtest/gtest.h>

#include <string>

#include "cgroup_mount.h"

namespace nmt {
namespace {

TEST(MemoryTest, AvailableHostMemoryIsPositiveWhereProcIsMounted) {
  const auto available = available_host_memory();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0);
}

class CgroupMemoryTest : public ::testing::Test {
 protected:
  void write(const std::string& group, const std::string& file, const std::string& text) const {
    mount_.write(group, file, text);
  }
  std::optional<int64_t> headroom(const std::string& proc_self_cgroup) const {
    return cgroup_memory_headroom(proc_self_cgroup, mount_.path());
  }

  testing::CgroupMount mount_;
};

TEST_F(CgroupMemoryTest, AV2LimitSetAboveTheProcesssGroupCounts) {
  write("user.slice/job", "memory.max", "max\n");
  write("user.slice/job", "memory.current", "1000\n");
  write("user.slice", "memory.max", "5000\n");
  write("user.slice", "memory.current", "3000\n");
  EXPECT_EQ(headroom("0::/user.slice/job\n"), 2000) << "the parent's limit less its usage";
  write("user.slice/job", "memory.max", "1500\n");
  EXPECT_EQ(headroom("0::/user.slice/job\n"), 500) << "the least on the way up";
}

TEST_F(CgroupMemoryTest, AV1LimitIsReadFromTheMemoryControllersHierarchy) {
  write("memory/docker/x", "memory.limit_in_bytes", "8000\n");
  write("memory/docker/x", "memory.usage_in_bytes", "6500\n");
  write("memory", "memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  write("memory", "memory.usage_in_bytes", "7000\n");
  write("cpu/docker/x", "memory.max", "10\n");  // not the memory controller's
  write("cpu/docker/x", "memory.current", "0\n");
  EXPECT_EQ(headroom("6:cpu:/docker/x\n5:memory:/docker/x\n0::/\n"), 1500);
  EXPECT_EQ(headroom("6:cpu:/docker/x\n"), std::nullopt);
}

TEST_F(CgroupMemoryTest, UsageOverTheLimitLeavesNothingAndUnreadableFilesNoLimit) {
  write("a", "memory.max", "100\n");
  write("a", "memory.current", "250\n");
  EXPECT_EQ(headroom("0::/a\n"), 0);
  write("b", "memory.max", "max\n");
  write("b", "memory.current", "250\n");
  write("c", "memory.max", "12 MiB\n");
  write("c", "memory.current", "250\n");
  EXPECT_EQ(headroom("0::/b\n"), std::nullopt);
  EXPECT_EQ(headroom("0::/c\n"), std::nullopt);
  EXPECT_EQ(headroom("0::/not/there\n"), std::nullopt);
  EXPECT_EQ(headroom("garbage\n"), std::nullopt);
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
