#include "nmt/data/corpus.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "gzip_utils.h"
#include "nmt/error.h"
#include "test_utils.h"

namespace nmt::data {
namespace {

Corpus read(const std::string& content, TsvFormat format = TsvFormat::kAuto) {
  std::istringstream in(content);
  return read_tsv(in, "pairs.tsv", format);
}

TEST(CorpusTest, ReadsBothLayoutsWithAuto) {
  const Corpus corpus = read("1\tGo.\t2\tVe.\nHi.\tHola.\nRun!\t¡Corre!\tCC-BY 2.0 (France)\n");
  ASSERT_EQ(corpus.pairs.size(), 3u);
  EXPECT_EQ(corpus.pairs[0], (SentencePair{"Go.", "Ve."}));
  EXPECT_EQ(corpus.pairs[1], (SentencePair{"Hi.", "Hola."}));
  EXPECT_EQ(corpus.pairs[2], (SentencePair{"Run!", "¡Corre!"}));
  EXPECT_EQ(corpus.report.skipped(), 0u);
}

TEST(CorpusTest, HandlesCrlfBomAndBlankLines) {
  const Corpus corpus = read("\xEF\xBB\xBFHi.\tHola.\r\n\r\n   \nBye.\tAdiós.\r\n");
  ASSERT_EQ(corpus.pairs.size(), 2u);
  EXPECT_EQ(corpus.pairs[0], (SentencePair{"Hi.", "Hola."}));
  EXPECT_EQ(corpus.pairs[1], (SentencePair{"Bye.", "Adiós."}));
  EXPECT_EQ(corpus.report.blank, 2u);
  EXPECT_EQ(corpus.report.lines, 4u);
}

TEST(CorpusTest, SkipsAndReportsMalformedLinesWithFileAndLine) {
  const Corpus corpus = read(
      "Hi.\tHola.\nonly one column\nbad\xff utf8\tx\na\tb\tc\td\te\n\tempty source\nOk.\tVale.\n");
  ASSERT_EQ(corpus.pairs.size(), 2u);
  EXPECT_EQ(corpus.report.bad_columns, 2u);
  EXPECT_EQ(corpus.report.bad_utf8, 1u);
  EXPECT_EQ(corpus.report.empty_side, 1u);
  ASSERT_EQ(corpus.report.first_problems.size(), 4u);
  EXPECT_EQ(corpus.report.first_problems[0],
            "pairs.tsv:2: expected 2, 3 or 4 tab-separated columns, got 1");
  EXPECT_EQ(corpus.report.first_problems[1], "pairs.tsv:3: invalid UTF-8");
  EXPECT_EQ(corpus.report.first_problems[2],
            "pairs.tsv:4: expected 2, 3 or 4 tab-separated columns, got 5");
  EXPECT_EQ(corpus.report.first_problems[3], "pairs.tsv:5: empty source");
}

TEST(CorpusTest, ExplicitFormatRejectsTheOtherLayout) {
  const Corpus tatoeba = read("1\tGo.\t2\tVe.\nHi.\tHola.\n", TsvFormat::kTatoeba);
  EXPECT_EQ(tatoeba.pairs.size(), 1u);
  EXPECT_EQ(tatoeba.report.bad_columns, 1u);
  const Corpus anki = read("1\tGo.\t2\tVe.\nHi.\tHola.\n", TsvFormat::kAnki);
  EXPECT_EQ(anki.pairs.size(), 1u);
  EXPECT_EQ(anki.pairs[0].source, "Hi.");
}

TEST(CorpusTest, KeepsOnlyTheFirstFewProblems) {
  std::string content;
  for (int i = 0; i < 20; ++i) content += "broken\n";
  const Corpus corpus = read(content + "a\tb\n");
  EXPECT_EQ(corpus.report.bad_columns, 20u);
  EXPECT_EQ(corpus.report.first_problems.size(), ReadReport::kMaxReportedProblems);
}

TEST(CorpusTest, FileErrorsAreClear) {
  testing::ScratchDir dir;
  try {
    read_tsv_file(dir.file("missing.tsv"), TsvFormat::kAuto);
    FAIL();
  } catch (const DataError& error) {
    EXPECT_NE(std::string(error.what()).find("missing.tsv: no such file"), std::string::npos);
  }
  EXPECT_THROW(read_tsv_file(dir.write("empty.tsv", ""), TsvFormat::kAuto), DataError);
  EXPECT_THROW(read_tsv_file(dir.write("blank.tsv", "\n \n"), TsvFormat::kAuto), DataError);
  try {
    read_tsv_file(dir.write("junk.tsv", "no tabs here\nnor here\n"), TsvFormat::kAuto);
    FAIL();
  } catch (const DataError& error) {
    EXPECT_NE(std::string(error.what()).find("no usable sentence pair in 2 lines"),
              std::string::npos);
  }
  EXPECT_THROW(read_tsv_file(dir.path(), TsvFormat::kAuto), DataError);
  EXPECT_EQ(read_tsv_file(dir.write("ok.tsv", "a\tb"), TsvFormat::kAuto).pairs.size(), 1u);
}

using testing::gzip;

TEST(CorpusTest, GzipCompressedFilesReadLikeTheirContent) {
  testing::ScratchDir dir;
  const std::string content = "I am hungry.\tTengo hambre.\nGo!\t¡Vete!\r\n";
  const Corpus plain = read_tsv_file(dir.write("pairs.tsv", content), TsvFormat::kAuto);
  const Corpus compressed =
      read_tsv_file(dir.write("pairs.tsv.gz", gzip(content)), TsvFormat::kAuto);
  EXPECT_EQ(compressed.pairs, plain.pairs);
  ASSERT_EQ(compressed.pairs.size(), 2u);
  // Concatenated members (cat a.gz b.gz) read as one file.
  const Corpus joined =
      read_tsv_file(dir.write("joined.gz", gzip("a\tb\n") + gzip("c\td\n")), TsvFormat::kAuto);
  EXPECT_EQ(joined.pairs.size(), 2u);
  const std::string whole = gzip(content);
  const std::string truncated = dir.write("cut.tsv.gz", whole.substr(0, whole.size() / 2));
  try {
    read_tsv_file(truncated, TsvFormat::kAuto);
    FAIL();
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()), truncated + ": damaged or truncated gzip data");
  }
}

TEST(CorpusTest, LargeCompressedFilesStreamAcrossChunksAndMembersLikeTheirContent) {
  testing::ScratchDir dir;
  // Lines longer than the reader's 64 KiB chunks, and many short ones, in two gzip members.
  std::string content;
  for (int i = 0; i < 20000; ++i) content += "line " + std::to_string(i) + "\tlínea\r\n";
  content += std::string(100000, 'a') + "\t" + std::string(100000, 'b') + "\n";
  const Corpus plain = read_tsv_file(dir.write("big.tsv", content), TsvFormat::kAuto);
  const std::string half = content.substr(0, content.size() / 2);
  const Corpus compressed = read_tsv_file(
      dir.write("big.tsv.gz", gzip(half) + gzip(content.substr(half.size()))), TsvFormat::kAuto);
  EXPECT_EQ(compressed.pairs, plain.pairs);
  EXPECT_EQ(plain.pairs.size(), 20001u);
  EXPECT_EQ(plain.pairs.back().source.size(), 100000u);
  EXPECT_EQ(compressed.report.lines, 20001u);
}

TEST(CorpusTest, AnOverlongLineIsSkippedAndNamedWithoutBeingHeld) {
  testing::ScratchDir dir;
  const std::string long_line = std::string(kMaxLineBytes, 'x') + "\ty";
  const std::string content = "Hi.\tHola.\n" + long_line + "\nBye.\tAdiós.\n";
  for (const std::string& path :
       {dir.write("long.tsv", content), dir.write("long.tsv.gz", gzip(content))}) {
    const Corpus corpus = read_tsv_file(path, TsvFormat::kAuto);
    EXPECT_EQ(corpus.pairs, (std::vector<SentencePair>{{"Hi.", "Hola."}, {"Bye.", "Adiós."}}));
    EXPECT_EQ(corpus.report.too_long, 1u);
    EXPECT_EQ(corpus.report.skipped(), 1u);
    ASSERT_EQ(corpus.report.first_problems.size(), 1u);
    EXPECT_EQ(corpus.report.first_problems[0],
              path + ":2: a line of 1048578 bytes, longer than the 1048576 bytes a line may have");
  }
  std::istringstream in(content);
  EXPECT_EQ(read_tsv(in, "stream", TsvFormat::kAuto).report.too_long, 1u);
}

CorpusFile aligned(const std::string& source, const std::string& target) {
  CorpusFile file;
  file.source = source;
  file.target = target;
  return file;
}

TEST(CorpusTest, ReadsAlignedPlainTextFilesLineByLine) {
  testing::ScratchDir dir;
  // The target file is compressed; CRLF, a BOM, a blank line pair, a one-sided line and a tab.
  const std::string source = dir.write("train.en", "\xEF\xBB\xBFHi.\r\n\nGo\tnow!\nAlone.\nBye.");
  const std::string target = dir.write("train.es.gz", gzip("Hola.\r\n\n¡Vete ya!\n   \nAdiós.\n"));
  const Corpus corpus = read_corpus(aligned(source, target), TsvFormat::kAuto);
  ASSERT_EQ(corpus.pairs.size(), 3u);
  EXPECT_EQ(corpus.pairs[0], (SentencePair{"Hi.", "Hola."}));
  EXPECT_EQ(corpus.pairs[1], (SentencePair{"Go now!", "¡Vete ya!"}));
  EXPECT_EQ(corpus.pairs[2], (SentencePair{"Bye.", "Adiós."}));
  EXPECT_EQ(corpus.report.file, source + " + " + target);
  EXPECT_EQ(corpus.report.lines, 5u);
  EXPECT_EQ(corpus.report.blank, 1u);
  EXPECT_EQ(corpus.report.empty_side, 1u);
  ASSERT_EQ(corpus.report.first_problems.size(), 1u);
  EXPECT_EQ(corpus.report.first_problems[0], target + ":4: empty line opposite \"Alone.\"");
}

TEST(CorpusTest, AnOverlongAlignedLineSkipsItsPairAndIsNamedInItsFile) {
  testing::ScratchDir dir;
  const std::string source = dir.write("a.en", "Hi.\nBye.\n");
  const std::string target =
      dir.write("a.es.gz", gzip("Hola.\n" + std::string(kMaxLineBytes + 1, 'z') + "\n"));
  const Corpus corpus = read_corpus(aligned(source, target), TsvFormat::kAuto);
  EXPECT_EQ(corpus.pairs, (std::vector<SentencePair>{{"Hi.", "Hola."}}));
  ASSERT_EQ(corpus.report.first_problems.size(), 1u);
  EXPECT_EQ(corpus.report.first_problems[0],
            target + ":2: a line of 1048577 bytes, longer than the 1048576 bytes a line may have");
}

// Found by the fuzzing campaign of 2026-11-24 (tests/fuzz/corpus/aligned/regression-edge-tab.txt):
// a tab at the edge of a line became a space at the edge of the side.
TEST(CorpusTest, TabsAtTheEdgesOfAlignedLinesAreTrimmedLikeSpaces) {
  testing::ScratchDir dir;
  const std::string source = dir.write("t.en", "\xEF\xBB\xBF\tHi.\t\nGo\tnow!\n\t\n");
  const std::string target = dir.write("t.es", "Hola. \t\n\t¡Vete\tya!\n \n");
  const Corpus corpus = read_corpus(aligned(source, target), TsvFormat::kAuto);
  EXPECT_EQ(corpus.pairs, (std::vector<SentencePair>{{"Hi.", "Hola."}, {"Go now!", "¡Vete ya!"}}));
  EXPECT_EQ(corpus.report.blank, 1u);
}

TEST(CorpusTest, MisalignedFilesAreAnErrorNamingBothFilesAndCounts) {
  testing::ScratchDir dir;
  const std::string source = dir.write("dev.en", "a\nb\nc\n");
  const std::string target = dir.write("dev.es", "x\ny\n");
  try {
    read_corpus(aligned(source, target), TsvFormat::kAuto);
    FAIL() << "misaligned files were read";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              source + ": has 3 lines but " + target +
                  " has 2: aligned files need one sentence per line on both sides");
  }
  try {
    read_corpus(aligned(source, dir.file("missing.es")), TsvFormat::kAuto);
    FAIL() << "a missing target file was read";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("missing.es") + ": no such file");
  }
}

// Every pair of file read by a CorpusReader at_most pairs at a time, checking the chunk sizes.
std::vector<SentencePair> read_in_chunks(const CorpusFile& file, std::size_t at_most,
                                         ReadReport& report) {
  CorpusReader reader(file, TsvFormat::kAuto);
  std::vector<SentencePair> pairs;
  std::vector<SentencePair> chunk;
  while (chunk.clear(), reader.read(chunk, at_most)) {
    EXPECT_LE(chunk.size(), at_most);
    pairs.insert(pairs.end(), chunk.begin(), chunk.end());
  }
  EXPECT_FALSE(reader.read(chunk, at_most)) << "a finished reader stays finished";
  report = reader.report();
  return pairs;
}

TEST(CorpusReaderTest, ChunksOfAnySizeJoinUpToTheCorpusReadCorpusReads) {
  testing::ScratchDir dir;
  CorpusFile tsv;
  tsv.path = dir.write("p.tsv", "Hi.\tHola.\nbad line\n\n1\tGo.\t2\tVe.\nA.\t\nB.\tBe.\nC.\tCe.\n");
  const CorpusFile pair = aligned(dir.write("p.en", "Hi.\n\nGo.\nA.\nB.\n"),
                                  dir.write("p.es.gz", gzip("Hola.\n\nVe.\n \nBe.\n")));
  for (const CorpusFile& file : {tsv, pair}) {
    const Corpus whole = read_corpus(file, TsvFormat::kAuto);
    for (const std::size_t at_most : {std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
      ReadReport report;
      EXPECT_EQ(read_in_chunks(file, at_most, report), whole.pairs)
          << file.name() << " " << at_most;
      EXPECT_EQ(report.pairs, whole.report.pairs);
      EXPECT_EQ(report.lines, whole.report.lines);
      EXPECT_EQ(report.blank, whole.report.blank);
      EXPECT_EQ(report.skipped(), whole.report.skipped());
      EXPECT_EQ(report.first_problems, whole.report.first_problems);
    }
  }
}

TEST(CorpusReaderTest, ACorpusWithoutAUsablePairIsRefusedWhenItsEndIsReached) {
  testing::ScratchDir dir;
  CorpusFile file;
  file.path = dir.write("junk.tsv", "no tabs here\nnor here\n");
  CorpusReader reader(file, TsvFormat::kAuto);
  std::vector<SentencePair> chunk;
  try {
    reader.read(chunk, 1);
    FAIL() << "a corpus without pairs was read";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              file.path + ": no usable sentence pair in 2 lines (first problem: " + file.path +
                  ":1: expected 2, 3 or 4 tab-separated columns, got 1)");
  }
}

TEST(CorpusTest, ReadCorpusReadsTsvFilesByPath) {
  testing::ScratchDir dir;
  CorpusFile file;
  file.path = dir.write("pairs.tsv", "1\tGo.\t2\tVe.\nHi.\tHola.\n");
  EXPECT_EQ(read_corpus(file, TsvFormat::kAuto).pairs,
            (std::vector<SentencePair>{{"Go.", "Ve."}, {"Hi.", "Hola."}}));
  EXPECT_EQ(file.name(), file.path);
}

// Fuzz-style: random bytes (biased towards tabs, newlines and UTF-8 lead bytes) never crash the
// reader, every pair it returns is valid UTF-8 with both sides non-empty, and the counts add up.
TEST(CorpusTest, RandomBytesNeverCrashAndCountsAddUp) {
  std::mt19937 random(1234);
  const std::string alphabet = "ab \t\t\n\r\xEF\xBB\xBF\xC3\xA9\xFF\xE2\x82";
  for (int round = 0; round < 2000; ++round) {
    std::string content;
    const int length = static_cast<int>(random() % 300);
    for (int i = 0; i < length; ++i) {
      content.push_back(random() % 4 == 0 ? static_cast<char>(random() % 256)
                                          : alphabet[random() % alphabet.size()]);
    }
    const Corpus corpus = read(content);
    const ReadReport& report = corpus.report;
    EXPECT_EQ(report.lines, report.blank + report.skipped() + report.pairs);
    for (const SentencePair& pair : corpus.pairs) {
      EXPECT_FALSE(pair.source.empty());
      EXPECT_FALSE(pair.target.empty());
      EXPECT_EQ(pair.source.find('\t'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace nmt::data
