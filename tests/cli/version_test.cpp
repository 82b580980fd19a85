// `nmt --version` names what was built: nmt's version, the LibTorch it was compiled against and a
// line per feature, each matching what CMake found for this build.
#include <gtest/gtest.h>

#include <string>

#include "test_utils.h"

namespace nmt {
namespace {

std::string line_starting(const std::string& text, const std::string& prefix) {
  const auto start = text.find(prefix);
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

TEST(VersionTest, NamesNmtLibTorchAndEveryFeatureOfThisBuild) {
  const auto result = testing::run_nmt("--version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.rfind(std::string("nmt ") + NMT_VERSION + "\n", 0), 0u) << result.output;
  EXPECT_EQ(line_starting(result.output, "LibTorch"),
            std::string("LibTorch ") + NMT_EXPECTED_TORCH_VERSION);
  EXPECT_EQ(line_starting(result.output, "  CUDA")
                .rfind(NMT_EXPECTED_CUDA ? "  CUDA          yes" : "  CUDA          no", 0),
            0u)
      << result.output;
  EXPECT_EQ(line_starting(result.output, "  NCCL")
                .rfind(NMT_EXPECTED_NCCL ? "  NCCL          yes" : "  NCCL          no", 0),
            0u)
      << result.output;
  EXPECT_EQ(line_starting(result.output, "  Gloo")
                .rfind(NMT_EXPECTED_GLOO ? "  Gloo          yes" : "  Gloo          no", 0),
            0u)
      << result.output;
  for (const char* feature : {"  int8          ", "  bf16 on CPU   "}) {
    EXPECT_FALSE(line_starting(result.output, feature).empty()) << feature << result.output;
  }
}

}  // namespace
}  // namespace nmt
