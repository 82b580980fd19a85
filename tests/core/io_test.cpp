#include "nmt/io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt {
namespace {

TEST(AtomicWriteTest, ReplacesTheFileAndLeavesNoTemporary) {
  testing::ScratchDir dir;
  const std::string path = dir.file("a.txt");
  write_text_atomically(path, "first");
  write_text_atomically(path, "second");
  EXPECT_EQ(read_text_file(path), "second");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(AtomicWriteTest, AFailedWriteKeepsThePreviousContent) {
  testing::ScratchDir dir;
  const std::string path = dir.file("a.txt");
  write_text_atomically(path, "good");
  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << "half";
                                       throw std::runtime_error("crash while writing");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read_text_file(path), "good");
  EXPECT_THROW(write_text_atomically(dir.file("missing/dir/a.txt"), "x"), Error);
}

TEST(AtomicWriteTest, ADiskFullIsOneErrorAndKeepsThePreviousContent) {
  testing::ScratchDir dir;
  const std::string path = dir.write("a.txt", "good");
  if (!testing::link_to_full_device(path + ".tmp")) GTEST_SKIP() << "no /dev/full";
  try {
    write_text_atomically(path, "new content");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot write " + path + ": No space left on device");
  }
  EXPECT_EQ(read_text_file(path), "good");
  EXPECT_FALSE(std::filesystem::is_symlink(path + ".tmp"));
}

TEST(AtomicFileTest, DestroyedWithoutCommitLeavesNothing) {
  testing::ScratchDir dir;
  const std::string path = dir.file("b.bin");
  {
    AtomicFile file(path);
    file.append("abc", 3);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  AtomicFile file(path);
  file.append("abc", 3);
  file.commit();
  EXPECT_EQ(read_text_file(path), "abc");
}

TEST(RemoveTreeTest, RemovesNestedDirectoriesAndAcceptsMissingPaths) {
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir.file("a/b/c"));
  dir.write("a/b/c/file.txt", "x");
  dir.write("a/top.txt", "y");
  EXPECT_TRUE(remove_tree(dir.file("a")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("a")));
  EXPECT_TRUE(remove_tree(dir.file("never-existed")));
}

TEST(ReadLinesTest, StripsLineEnds) {
  testing::ScratchDir dir;
  EXPECT_EQ(read_lines(dir.write("l.txt", "a\r\nb\n\nc")),
            (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_THROW(read_lines(dir.file("none.txt")), Error);
}

}  // namespace
}  // namespace nmt
