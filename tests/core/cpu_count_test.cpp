#include "nmt/cpu_count.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <string>
#include <thread>

#include "cgroup_mount.h"

namespace nmt {
namespace {

TEST(CpuCountTest, AQuotaBoundsTheAffinityRoundedUp) {
  EXPECT_EQ(usable_cpus(8, std::nullopt), 8);
  EXPECT_EQ(usable_cpus(8, 1.5), 2);
  EXPECT_EQ(usable_cpus(8, 2.0), 2);
  EXPECT_EQ(usable_cpus(8, 0.5), 1);
  EXPECT_EQ(usable_cpus(2, 16.0), 2);
  EXPECT_EQ(usable_cpus(0, std::nullopt), 1);
}

TEST(CpuCountTest, QuotasAreReadFromBothCgroupVersionsFormats) {
  EXPECT_EQ(cpu_quota_from_cpu_max("150000 100000\n"), 1.5);
  EXPECT_EQ(cpu_quota_from_cpu_max("max 100000\n"), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cpu_max("200000"), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cpu_max(""), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cpu_max("1.5 1"), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cfs("50000\n", "100000\n"), 0.5);
  EXPECT_EQ(cpu_quota_from_cfs("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cfs("50000", "0"), std::nullopt);
  EXPECT_EQ(cpu_quota_from_cfs("fifty", "100000"), std::nullopt);
}

class CgroupTreeTest : public ::testing::Test {
 protected:
  void write(const std::string& group, const std::string& file, const std::string& text) const {
    mount_.write(group, file, text);
  }
  std::optional<double> quota(const std::string& proc_self_cgroup) const {
    return cgroup_cpu_quota(proc_self_cgroup, mount_.path());
  }

  testing::CgroupMount mount_;
};

TEST_F(CgroupTreeTest, AV2QuotaSetAboveTheProcesssGroupCounts) {
  write("a/b", "cpu.max", "max 100000\n");
  write("a", "cpu.max", "300000 100000\n");
  EXPECT_EQ(quota("0::/a/b\n"), 3.0);
  write("a/b", "cpu.max", "150000 100000\n");
  EXPECT_EQ(quota("0::/a/b\n"), 1.5) << "the smallest on the way up";
}

TEST_F(CgroupTreeTest, AV1QuotaIsReadFromTheCpuControllersHierarchy) {
  write("cpu,cpuacct/docker/x", "cpu.cfs_quota_us", "150000\n");
  write("cpu,cpuacct/docker/x", "cpu.cfs_period_us", "100000\n");
  write("memory/docker/x", "cpu.max", "50000 100000\n");  // not the cpu controller's
  EXPECT_EQ(quota("5:memory:/docker/x\n4:cpu,cpuacct:/docker/x\n0::/\n"), 1.5);
  EXPECT_EQ(quota("5:memory:/docker/x\n"), std::nullopt);
}

TEST_F(CgroupTreeTest, NoQuotaAndMalformedLinesGiveNone) {
  write("a", "cpu.max", "max 100000\n");
  write("cpu/a", "cpu.cfs_quota_us", "-1\n");
  write("cpu/a", "cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(quota("0::/a\n1:cpu:/a\n"), std::nullopt);
  EXPECT_EQ(quota("garbage\n0::relative\n0:\n::\n"), std::nullopt);
  EXPECT_EQ(quota(""), std::nullopt);
  EXPECT_EQ(quota("0::/not/there\n"), std::nullopt);
}

// This process's own count follows its affinity, as under `taskset -c N`.
TEST(CpuCountTest, ThisProcessCountsTheCpusItMayRunOn) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_GE(usable_cpu_count(), 1);
  EXPECT_LE(usable_cpu_count(), CPU_COUNT(&allowed));
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const int pinned = usable_cpu_count();
  ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(pinned, 1);
  EXPECT_LE(usable_cpu_count(), static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace nmt
