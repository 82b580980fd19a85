// The main of every test executable: GoogleTest's own, except that a run in which every selected
// test skipped itself exits with kAllSkippedStatus, which ctest then reports as "Skipped"
// (SKIP_RETURN_CODE in tests/CMakeLists.txt) instead of "Passed". A run with some tests skipped and
// others passed still passes; GoogleTest names the skipped ones ("[  SKIPPED ]") and
// scripts/test.sh lists them in its summary.
#include <gtest/gtest.h>

namespace {
constexpr int kAllSkippedStatus = 77;  // the automake convention ctest is told about
}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& tests = *testing::UnitTest::GetInstance();
  const bool has_only_skipped =
      tests.test_to_run_count() > 0 && tests.skipped_test_count() == tests.test_to_run_count();
  return status == 0 && has_only_skipped ? kAllSkippedStatus : status;
}
