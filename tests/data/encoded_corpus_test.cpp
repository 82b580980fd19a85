#include "nmt/data/encoded_corpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt::data {
namespace {

using ::testing::HasSubstr;

// Two pairs, 9 ids: with vocabularies of 20, 18 bytes of ids padded to 24 from byte 24, five
// offsets from byte 48, the counts from byte 88; 104 bytes in all.
const std::vector<EncodedPair> kPairs = {{{4, 5, 6}, {7, 8}}, {{9}, {10, 11, 12}}};

std::string written(const testing::ScratchDir& dir,
                    const std::vector<EncodedPair>& pairs,
                    std::size_t vocabulary = 20) {
  const std::string path = dir.file("train.ids");
  write_token_file(path, EncodedCorpus(pairs), vocabulary, vocabulary);
  return path;
}

void overwrite(const std::string& path, std::size_t offset, const void* bytes, std::size_t size) {
  std::string content = testing::read_file(path);
  std::memcpy(content.data() + offset, bytes, size);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

std::string refusal(const std::string& path) {
  try {
    const EncodedCorpus corpus = EncodedCorpus::map(path);
    return "mapped " + std::to_string(corpus.size()) + " pairs";
  } catch (const DataError& error) {
    return error.what();
  }
}

TEST(EncodedCorpusTest, AFileMapsBackThePairsWrittenInTwoByteIds) {
  testing::ScratchDir dir;
  const std::string path = written(dir, kPairs);
  EXPECT_EQ(std::filesystem::file_size(path), 104u);
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  ASSERT_EQ(mapped.size(), 2u);
  EXPECT_EQ(mapped.id_bytes(), 2);
  EXPECT_EQ(mapped.source_vocabulary(), 20u);
  EXPECT_EQ(mapped.origin(), path);
  EXPECT_EQ(mapped.pair(0), kPairs[0]);
  EXPECT_EQ(mapped.pair(1), kPairs[1]);
  EXPECT_EQ(mapped.source_length(1), 1u);
  EXPECT_EQ(mapped.target_length(1), 3u);
}

TEST(EncodedCorpusTest, VocabulariesOverSixtyFiveThousandTakeFourBytesAnId) {
  testing::ScratchDir dir;
  const std::vector<EncodedPair> pairs = {{{69999, 65536}, {0}}, {{}, {}}};
  const EncodedCorpus mapped = EncodedCorpus::map(written(dir, pairs, 70000));
  EXPECT_EQ(mapped.id_bytes(), 4);
  EXPECT_EQ(mapped.pair(0), pairs[0]);
  EXPECT_EQ(mapped.pair(1), pairs[1]);
}

TEST(EncodedCorpusTest, AnEmptyCorpusRoundTrips) {
  testing::ScratchDir dir;
  EXPECT_TRUE(EncodedCorpus::map(written(dir, {})).empty());
  EXPECT_TRUE(EncodedCorpus().empty());
}

std::vector<std::string> file_names(const testing::ScratchDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// More pairs than the writer keeps offsets for in memory: they pass through its scratch file,
// which no directory lists.
TEST(EncodedCorpusTest, AFileOfManyPairsRoundTripsAndItsWriterLeavesNoOtherFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("train.ids");
  const auto pair_at = [](int64_t i) {
    return EncodedPair{{i % 1000, (i / 1000) % 1000}, std::vector<int64_t>(i % 5, i % 7)};
  };
  TokenFileWriter writer(path, 1000, 1000);
  for (int64_t i = 0; i < 200000; ++i) {
    const EncodedPair pair = pair_at(i);
    writer.add(pair.source, pair.target);
  }
  EXPECT_EQ(file_names(dir), std::vector<std::string>{"train.ids.tmp"});
  writer.commit();
  EXPECT_EQ(file_names(dir), std::vector<std::string>{"train.ids"});
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  ASSERT_EQ(mapped.size(), 200000u);
  for (const int64_t i : {0, 1, 65535, 65536, 123457, 199999}) {
    EXPECT_EQ(mapped.pair(static_cast<std::size_t>(i)), pair_at(i)) << "pair " << i;
  }
}

// A token file written in parts is the file written in one go, byte for byte.
TEST(EncodedCorpusTest, TokenFilesJoinedAreTheFileOfAllTheirPairs) {
  testing::ScratchDir dir;
  std::vector<EncodedPair> all;
  for (int64_t i = 0; i < 300000; ++i) {  // parts of more than one buffer of ids and of offsets
    all.push_back({{i % 1000, (i / 1000) % 1000}, std::vector<int64_t>(i % 5, i % 7)});
  }
  const std::vector<std::size_t> ends = {0, 100000, 100000, 300000};  // an empty part too
  std::vector<std::string> parts;
  for (std::size_t part = 1; part < ends.size(); ++part) {
    parts.push_back(dir.file("part-" + std::to_string(part)));
    write_token_file(parts.back(),
                     EncodedCorpus(std::vector<EncodedPair>(
                         all.begin() + static_cast<std::ptrdiff_t>(ends[part - 1]),
                         all.begin() + static_cast<std::ptrdiff_t>(ends[part]))),
                     1000, 1000);
  }
  join_token_files(parts, dir.file("joined.ids"), 1000, 1000);
  write_token_file(dir.file("whole.ids"), EncodedCorpus(all), 1000, 1000);
  EXPECT_EQ(testing::read_file(dir.file("joined.ids")), testing::read_file(dir.file("whole.ids")));
  EXPECT_EQ(EncodedCorpus::map(dir.file("joined.ids")).pair(299999), all.back());
}

TEST(EncodedCorpusTest, APartOfOtherVocabulariesOrDamagedIsNotJoined) {
  testing::ScratchDir dir;
  const std::string part = written(dir, kPairs, 20);
  try {
    join_token_files({part}, dir.file("joined.ids"), 20, 30);
    FAIL();
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              part + ": written for vocabularies of 20 and 20 entries, not the 20 and 30 of " +
                  dir.file("joined.ids"));
  }
  std::filesystem::resize_file(part, 100);
  EXPECT_THAT(refusal(part), HasSubstr("truncated or damaged"));
  EXPECT_THROW(join_token_files({part}, dir.file("joined.ids"), 20, 20), DataError);
  EXPECT_FALSE(std::filesystem::exists(dir.file("joined.ids")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("joined.ids.tmp")));
}

// Ids are written on another thread a megabyte at a time; a write that fails there fails commit.
TEST(EncodedCorpusTest, AFullDiskFailsTheCommitAndLeavesNoFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("train.ids");
  if (!testing::link_to_full_device(path + ".tmp")) GTEST_SKIP() << "no /dev/full";
  TokenFileWriter writer(path, 1000, 1000);
  const std::vector<int64_t> side(500, 7);
  for (int pair = 0; pair < 3000; ++pair) writer.add(side, side);  // 6 MB of ids
  try {
    writer.commit();
    FAIL() << "the commit succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot write " + path + ": No space left on device");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(EncodedCorpusTest, AnIdBeyondTheVocabularyIsNotWrittenAndLeavesNoFile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("train.ids");
  try {
    TokenFileWriter writer(path, 20, 30);
    writer.add({4}, {29});
    writer.add({20}, {5});
    FAIL() << "an id of 20 was written";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot write " + path +
                  ": source id 20 of pair 2 is not below the vocabulary's 20 entries");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(EncodedCorpusTest, ATruncatedFileIsRefusedWithItsSize) {
  testing::ScratchDir dir;
  const std::string path = written(dir, kPairs);
  std::filesystem::resize_file(path, 10);
  EXPECT_EQ(refusal(path), path + ": truncated: 10 bytes, fewer than the 40 of a token file's "
                                  "header and counts");
  const std::string cut = written(dir, kPairs);
  std::filesystem::resize_file(cut, 100);
  EXPECT_THAT(refusal(cut), HasSubstr(": 100 bytes, but the counts at byte 84"));
  EXPECT_THAT(refusal(cut), HasSubstr("the file is truncated or damaged"));
}

TEST(EncodedCorpusTest, AnotherFileIsNotATokenFile) {
  testing::ScratchDir dir;
  const std::string path = dir.write("train.ids", std::string(64, 'x'));
  EXPECT_EQ(refusal(path), path + ": not a token file of nmt (bytes 0-7 are not \"nmt-ids\\n\")");
}

TEST(EncodedCorpusTest, OffsetsOutOfOrderAreRefusedAtTheirByte) {
  testing::ScratchDir dir;
  const std::string path = written(dir, kPairs);
  const uint64_t before_its_predecessor = 1;
  overwrite(path, 64, &before_its_predecessor, 8);
  EXPECT_EQ(refusal(path),
            path + ": offset 2 at byte 64 is 1: below the one before it (3); the file is damaged");
}

// Pairs are read from the file when a batch needs them: a run directory changed under a training
// fails the read with a message, not with a crash or with other pairs.
TEST(EncodedCorpusTest, AFileChangedAfterItWasOpenedFailsTheReadNamingIt) {
  testing::ScratchDir dir;
  const std::string path = written(dir, kPairs);
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  // Offsets 0 3 5 6 9 at bytes 48-87; pair 1's are 5 6 9 from byte 64.
  const uint64_t beyond_the_next = 10;
  overwrite(path, 72, &beyond_the_next, 8);
  EXPECT_EQ(mapped.pair(0), kPairs[0]);
  try {
    mapped.pair(1);
    ADD_FAILURE() << "read offsets out of order";
  } catch (const DataError& error) {
    EXPECT_STREQ(
        error.what(),
        (path + ": the offsets of pair 1 at byte 64 changed after the file was opened").c_str());
  }
  std::filesystem::resize_file(path, 60);
  try {
    mapped.pair(1);
    ADD_FAILURE() << "read beyond the end of the file";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), ("cannot read " + path +
                                ": it ends before byte 88; it was changed after it was opened")
                                   .c_str());
  }
}

TEST(EncodedCorpusTest, AnIdBeyondTheVocabularyIsRefusedWhenRead) {
  testing::ScratchDir dir;
  const std::string path = written(dir, kPairs);
  const uint16_t beyond = 25;
  overwrite(path, 30, &beyond, 2);  // pair 0's first target id
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  EXPECT_EQ(mapped.pair(1), kPairs[1]);
  try {
    mapped.pair(0);
    FAIL() << "id 25 was read";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ": id 25 at byte 30 is not below its vocabulary's size, 20: the file is "
                     "damaged");
  }
}

// The file-backed part of this process's resident memory (/proc/self/status, RssFile), in bytes.
std::size_t resident_file_bytes() {
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    if (field == "RssFile:") {
      std::size_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

// pairs pairs of `ids` ids a side, id i of pair p being (p + i) % 1000: 4 * pairs * ids bytes of
// ids (2 bytes each).
std::string large_token_file(const testing::ScratchDir& dir, std::size_t pairs, std::size_t ids) {
  const std::string path = dir.file("large.ids");
  TokenFileWriter writer(path, 1000, 1000);
  std::vector<int64_t> side(ids);
  for (std::size_t p = 0; p < pairs; ++p) {
    for (std::size_t i = 0; i < ids; ++i) side[i] = static_cast<int64_t>((p + i) % 1000);
    writer.add(side, side);
  }
  writer.commit();
  return path;
}

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(EncodedCorpusTest, PairsReadFromAllOverAFileLeaveNoneOfItResident) {
  testing::ScratchDir dir;
  const std::string path = large_token_file(dir, 100, 65536);  // 25 MiB of ids
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  const std::size_t before = resident_file_bytes();
  for (std::size_t i = 0; i < mapped.size(); ++i) {
    const std::size_t p = i * 37 % mapped.size();
    const EncodedPair pair = mapped.pair(p);
    ASSERT_EQ(pair.source.size(), 65536u);
    EXPECT_EQ(pair.source[0], static_cast<int64_t>(p % 1000));
    EXPECT_EQ(pair.target[65535], static_cast<int64_t>((p + 65535) % 1000));
  }
  EXPECT_LT(resident_file_bytes(), before + 2 * kMiB);
}

TEST(EncodedCorpusTest, ReleasingPagesDropsTheLengthsReadFromResidentMemory) {
  testing::ScratchDir dir;
  const std::string path = large_token_file(dir, std::size_t{1} << 20, 1);  // 16 MiB of offsets
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  const std::size_t before = resident_file_bytes();
  std::size_t lengths = 0;
  for (std::size_t p = 0; p < mapped.size(); ++p) {
    lengths += mapped.source_length(p) + mapped.target_length(p);
  }
  EXPECT_EQ(lengths, 2 * mapped.size());
  EXPECT_GT(resident_file_bytes(), before + 12 * kMiB);
  mapped.release_pages();
  EXPECT_LT(resident_file_bytes(), before + 2 * kMiB);
  EXPECT_EQ(mapped.target_length(12345), 1u);  // read again after the release
}

TEST(EncodedCorpusTest, ReadingEveryPairOfALargeFileKeepsLittleOfItResident) {
  testing::ScratchDir dir;
  const std::string path = large_token_file(dir, 40000, 400);  // 61 MiB of ids
  const EncodedCorpus mapped = EncodedCorpus::map(path);
  const std::size_t before = resident_file_bytes();
  std::size_t peak = before;
  int64_t sum = 0;
  for (std::size_t p = 0; p < mapped.size(); ++p) {
    const EncodedPair pair = mapped.pair(p);
    sum += pair.source[399] + pair.target[0];
    if (p % 500 == 0) peak = std::max(peak, resident_file_bytes());
  }
  int64_t expected = 0;
  for (std::size_t p = 0; p < mapped.size(); ++p) {
    expected += static_cast<int64_t>((p + 399) % 1000 + p % 1000);
  }
  EXPECT_EQ(sum, expected);
  EXPECT_LT(peak, before + 24 * kMiB);
}

}  // namespace
}  // namespace nmt::data
