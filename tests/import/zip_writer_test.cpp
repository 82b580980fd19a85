#include "nmt/import/zip_writer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "import/zip_archive.h"
#include "nmt/error.h"
#include "test_utils.h"

namespace {

using nmt::import::ZipMember;
using nmt::import::detail::ZipEntry;

std::string inflated(const std::string& data, std::size_t size) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, -MAX_WBITS), Z_OK);
  std::string out(size, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(stream.total_out, size);
  inflateEnd(&stream);
  return out;
}

TEST(ZipWriterTest, WhatItWritesReadsBackEntryByEntry) {
  const nmt::testing::ScratchDir scratch;
  std::string repetitive;
  for (int i = 0; i < 1000; ++i) repetitive += "hola mundo ";
  const std::vector<ZipMember> members = {
      {"package/", ""},
      {"package/metadata.json", scratch.write("metadata.json", "{\"from_code\": \"en\"}\n")},
      {"package/model/", ""},
      {"package/model/words.txt", scratch.write("words.txt", repetitive)},
      {"package/empty", scratch.write("empty", "")},
  };
  const std::string archive_path = scratch.file("package.zip");
  nmt::import::write_zip(archive_path, members);

  const std::string archive = nmt::testing::read_file(archive_path);
  const std::vector<ZipEntry> entries = nmt::import::detail::read_zip_entries(archive, "zip");
  ASSERT_EQ(entries.size(), members.size());
  for (std::size_t i = 0; i < members.size(); ++i) EXPECT_EQ(entries[i].name, members[i].name);
  EXPECT_EQ(entries[0].size, 0u);
  // Short or incompressible files are stored as they are; repetitive text is deflated.
  EXPECT_EQ(entries[1].method, 0);
  EXPECT_EQ(archive.substr(entries[1].data_offset, entries[1].size), "{\"from_code\": \"en\"}\n");
  EXPECT_EQ(entries[3].method, 8);
  EXPECT_LT(entries[3].size, repetitive.size() / 20);
  EXPECT_EQ(inflated(archive.substr(entries[3].data_offset, entries[3].size), repetitive.size()),
            repetitive);
  EXPECT_EQ(entries[4].size, 0u);
}

TEST(ZipWriterTest, TheSameFilesMakeTheSameBytes) {
  const nmt::testing::ScratchDir scratch;
  const std::vector<ZipMember> members = {{"a.txt", scratch.write("a.txt", "same\n")}};
  nmt::import::write_zip(scratch.file("first.zip"), members);
  nmt::import::write_zip(scratch.file("second.zip"), members);
  EXPECT_EQ(nmt::testing::read_file(scratch.file("first.zip")),
            nmt::testing::read_file(scratch.file("second.zip")));
}

TEST(ZipWriterTest, ABadMemberLeavesNoArchive) {
  const nmt::testing::ScratchDir scratch;
  const std::string archive = scratch.file("out.zip");
  EXPECT_THROW(nmt::import::write_zip(archive, {{"a.txt", scratch.file("missing.txt")}}),
               nmt::Error);
  try {
    nmt::import::write_zip(archive, {{"dir", ""}});
    FAIL() << "a directory without '/' was written";
  } catch (const nmt::Error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot add \"dir\" to a ZIP archive: a member's name is relative, at most 65535 "
                 "bytes, and ends with '/' exactly when it is a directory");
  }
  EXPECT_FALSE(std::filesystem::exists(archive));
  EXPECT_FALSE(std::filesystem::exists(archive + ".tmp"));
}

}  // namespace
