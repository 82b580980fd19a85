#include "nmt/text/sentence_splitter.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nmt::text {
namespace {

using Strings = std::vector<std::string>;

std::string rejoin(const SplitText& split) { return join_sentences(split, split.sentences); }

TEST(SentenceSplitterTest, CutsAParagraphIntoItsSentencesKeepingTheSpacesBetween) {
  const SentenceSplitter splitter("en");
  const std::string text =
      "I'll give it back. The population of Australia is much smaller than that of Japan.  "
      "I love learning other languages!";
  const SplitText split = splitter.split(text);
  EXPECT_EQ(split.sentences,
            (Strings{"I'll give it back.",
                     "The population of Australia is much smaller than that of Japan.",
                     "I love learning other languages!"}));
  EXPECT_EQ(split.gaps, (Strings{"", " ", "  ", ""}));
  EXPECT_EQ(rejoin(split), text);
}

TEST(SentenceSplitterTest, AbbreviationsOfTheLanguageDoNotEndASentence) {
  EXPECT_EQ(SentenceSplitter("en").split("Mr. Smith paid $3.50, e.g. for tea. He left.").sentences,
            (Strings{"Mr. Smith paid $3.50, e.g. for tea.", "He left."}));
  EXPECT_EQ(SentenceSplitter("es").split("El Sr. García llegó. ¿Cómo estás? Bien.").sentences,
            (Strings{"El Sr. García llegó.", "¿Cómo estás?", "Bien."}));
  // Without the language's list "Mr." is a sentence of its own.
  EXPECT_EQ(SentenceSplitter("").split("Mr. Smith left.").sentences,
            (Strings{"Mr.", "Smith left."}));
}

TEST(SentenceSplitterTest, LineBreaksEndSentencesAndStayInTheGaps) {
  const SentenceSplitter splitter("en");
  const std::string text = "  A title\r\n\r\nFirst line. Second line\nlast one \n";
  const SplitText split = splitter.split(text);
  EXPECT_EQ(split.sentences, (Strings{"A title", "First line.", "Second line", "last one"}));
  EXPECT_EQ(split.gaps, (Strings{"  ", "\r\n\r\n", " ", "\n", " \n"}));
  EXPECT_EQ(join_sentences(split, {"Un título", "Primera línea.", "Segunda línea", "última"}),
            "  Un título\r\n\r\nPrimera línea. Segunda línea\núltima \n");
}

TEST(SentenceSplitterTest, ANumberURLOrDecimalPointIsNotASentenceEnd) {
  EXPECT_EQ(
      SentenceSplitter("en")
          .split("Visit https://example.org/docs.html or call 555-0199. It costs 4.5 euros.")
          .sentences,
      (Strings{"Visit https://example.org/docs.html or call 555-0199.", "It costs 4.5 euros."}));
  // ICU alone ends a sentence after the "?" and the "!" inside these tokens.
  EXPECT_EQ(SentenceSplitter("en")
                .split("Open https://example.org/a?b=1 now! Code X!7 works? Yes.")
                .sentences,
            (Strings{"Open https://example.org/a?b=1 now!", "Code X!7 works?", "Yes."}));
  EXPECT_EQ(SentenceSplitter("zh").split("你好。再见。").sentences, (Strings{"你好。", "再见。"}));
}

TEST(SentenceSplitterTest, WhitespaceAloneHasNoSentence) {
  const SentenceSplitter splitter("en");
  for (const std::string text : {"", " ", "\n\n", "\t \u00a0"}) {
    const SplitText split = splitter.split(text);
    EXPECT_TRUE(split.sentences.empty()) << text;
    EXPECT_EQ(split.gaps, Strings{text});
    EXPECT_EQ(rejoin(split), text);
  }
}

TEST(SentenceSplitterTest, BytesThatAreNotUtf8ComeBackAsTheyWere) {
  const std::string text = "Bad \xff\xfe byte. Next \xc3 one. \xe2\x82";
  const SplitText split = SentenceSplitter("en").split(text);
  EXPECT_EQ(split.sentences.size(), 3u);
  EXPECT_EQ(rejoin(split), text);
}

TEST(SentenceSplitterTest, SplitLinesCutsAtLineBreaksAlone) {
  const std::string text = " \tOne. Two.\r\n\rThree \nfour";
  const SplitText split = split_lines(text);
  EXPECT_EQ(split.sentences, (Strings{"One. Two.", "Three", "four"}));
  EXPECT_EQ(split.gaps, (Strings{" \t", "\r\n\r", " \n", ""}));
  EXPECT_EQ(rejoin(split), text);
  EXPECT_TRUE(split_lines("  \n").sentences.empty());
  EXPECT_EQ(split_lines("").gaps, Strings{""});
}

TEST(SentenceSplitterTest, JoinRefusesAWrongNumberOfTranslations) {
  const SplitText split = SentenceSplitter("en").split("One. Two.");
  try {
    join_sentences(split, {"Uno."});
    FAIL() << "join_sentences accepted 1 translation for 2 sentences";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "join_sentences: 1 translations for 2 sentences");
  }
}

TEST(SentenceSplitterTest, ThreadsShareOneSplitter) {
  const SentenceSplitter splitter("en");
  const std::string text = "One sentence here. Another one there? A third!";
  std::vector<std::thread> threads;
  std::vector<std::size_t> counts(8);
  for (std::size_t t = 0; t < counts.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) counts[t] += splitter.split(text).sentences.size();
    });
  }
  for (auto& thread : threads) thread.join();
  for (const std::size_t count : counts) EXPECT_EQ(count, 600u);
}

}  // namespace
}  // namespace nmt::text
