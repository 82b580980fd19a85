#include "nmt/io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gzip_utils.h"
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

TEST(JoinFilesTest, WritesThePartsOneAfterTheOtherAndAMissingPartWritesNothing) {
  testing::ScratchDir dir;
  const std::string large(3 << 20, 'x');  // more than one read's buffer
  const std::vector<std::string> parts = {dir.write("a", "first\n"), dir.write("b", ""),
                                          dir.write("c", large), dir.write("d", "last")};
  join_files(parts, dir.file("joined"));
  EXPECT_EQ(read_text_file(dir.file("joined")), "first\n" + large + "last");

  write_text_atomically(dir.file("kept"), "previous");
  try {
    join_files({parts[0], dir.file("missing")}, dir.file("kept"));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot read " + dir.file("missing") + ": No such file or directory");
  }
  EXPECT_EQ(read_text_file(dir.file("kept")), "previous");
  EXPECT_FALSE(std::filesystem::exists(dir.file("kept.tmp")));
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

// Every line LineReader gives, "<too long: N bytes>" standing for a line it did not keep.
std::vector<std::string> lines_of(const std::string& path, std::size_t max_line_bytes) {
  LineReader reader(path, max_line_bytes);
  std::vector<std::string> lines;
  while (reader.next()) {
    EXPECT_EQ(reader.line_number(), lines.size() + 1);
    lines.push_back(reader.is_too_long()
                        ? "<too long: " + std::to_string(reader.line_bytes()) + " bytes>"
                        : reader.line());
  }
  return lines;
}

// Lines that straddle the reader's 64 KiB chunks, CRLF, an empty line, no final line end; the
// lines in `expected`.
std::string chunk_straddling_text(std::vector<std::string>& expected) {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    expected.push_back(std::string(static_cast<std::size_t>(i % 97), 'a') + std::to_string(i));
    text += expected.back() + (i % 2 ? "\r\n" : "\n");
  }
  text += "\nlast";
  expected.insert(expected.end(), {"", "last"});
  return text;
}

TEST(LineReaderTest, ReadsPlainAndGzipFilesLineByLineAcrossChunks) {
  testing::ScratchDir dir;
  std::vector<std::string> expected;
  const std::string text = chunk_straddling_text(expected);
  EXPECT_EQ(lines_of(dir.write("plain.txt", text), 1 << 20), expected);
  const std::string half = text.substr(0, text.size() / 3);
  EXPECT_EQ(lines_of(dir.write("two-members.gz",
                               testing::gzip(half) + testing::gzip(text.substr(half.size()))),
                     1 << 20),
            expected);
  EXPECT_EQ(lines_of(dir.write("empty.txt", ""), 10), std::vector<std::string>{});
  EXPECT_EQ(lines_of(dir.write("one.txt", "x\n"), 10), std::vector<std::string>{"x"});
}

TEST(LineReaderTest, SkipsLinesAsNextWouldReadThem) {
  testing::ScratchDir dir;
  std::vector<std::string> expected;
  const std::string text = chunk_straddling_text(expected);
  for (const std::string& path :
       {dir.write("plain.txt", text), dir.write("text.gz", testing::gzip(text))}) {
    LineReader reader(path, 1 << 20);
    std::size_t line = 0;
    for (const std::size_t skipped : {0, 1, 7, 1500, 0, 1400}) {
      EXPECT_EQ(reader.skip(skipped), skipped) << path;
      line += skipped;
      ASSERT_TRUE(reader.next()) << path;
      EXPECT_EQ(reader.line(), expected[line]) << path << " line " << line;
      EXPECT_EQ(reader.line_number(), ++line) << path;
    }
    // The unterminated last line counts as one.
    EXPECT_EQ(reader.skip(1000), expected.size() - line) << path;
    EXPECT_EQ(reader.line_number(), expected.size()) << path;
    EXPECT_FALSE(reader.next()) << path;
    EXPECT_EQ(reader.skip(5), 0u) << path;
  }
  LineReader ended(dir.write("ended.txt", "a\nb\n"), 10);
  EXPECT_EQ(ended.skip(3), 2u);
  LineReader empty(dir.write("empty.txt", ""), 10);
  EXPECT_EQ(empty.skip(1), 0u);
}

TEST(LineReaderTest, ALineOverTheLimitIsNotKeptButMeasured) {
  testing::ScratchDir dir;
  const std::string text = "short\n" + std::string(200000, 'z') + "\nafter\n";
  const std::vector<std::string> expected{"short", "<too long: 200000 bytes>", "after"};
  EXPECT_EQ(lines_of(dir.write("long.txt", text), 100), expected);
  EXPECT_EQ(lines_of(dir.write("long.gz", testing::gzip(text)), 100), expected);
}

TEST(LineReaderTest, DamagedGzipDataAndMissingFilesAreErrorsNamingTheFile) {
  testing::ScratchDir dir;
  const std::string whole = testing::gzip(std::string(100000, 'q') + "\n");
  const std::string cut = dir.write("cut.gz", whole.substr(0, whole.size() / 2));
  try {
    lines_of(cut, 1 << 20);
    FAIL() << "truncated gzip data was read";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), cut + ": damaged or truncated gzip data");
  }
  std::string garbled = whole;  // its CRC-32, in the last 8 bytes, no longer matches
  garbled[garbled.size() - 6] = static_cast<char>(garbled[garbled.size() - 6] ^ 0x55);
  const std::string garbled_path = dir.write("garbled.gz", garbled);
  try {
    lines_of(garbled_path, 1 << 20);
    FAIL() << "gzip data with a wrong checksum was read";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              garbled_path + ": damaged or truncated gzip data (incorrect data check)");
  }
  EXPECT_THROW(LineReader(dir.file("none.txt"), 10), Error);
}

}  // namespace
}  // namespace nmt
