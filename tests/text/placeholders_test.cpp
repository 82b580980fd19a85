#include "nmt/text/placeholders.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nmt/text/sentencepiece_tokenizer.h"

namespace nmt::text {
namespace {

std::vector<std::string> span_texts(std::string_view text) {
  std::vector<std::string> texts;
  for (const VerbatimSpan& span : find_verbatim_spans(text)) {
    texts.emplace_back(text.substr(span.begin, span.size));
  }
  return texts;
}

bool keep_all(const VerbatimSpan&, std::string_view) { return true; }

TEST(PlaceholdersTest, SymbolsAreNumberedAndUntouchedByNormalisation) {
  EXPECT_EQ(placeholder(1), "⦅1⦆");
  const std::vector<std::string> symbols = placeholder_symbols();
  ASSERT_EQ(symbols.size(), static_cast<std::size_t>(kMaxPlaceholders));
  EXPECT_EQ(symbols.back(), "⦅9⦆");
  for (const std::string& symbol : symbols) EXPECT_EQ(clean(symbol, CleanMode::kNormalize), symbol);
}

// Capitalised words are found wherever they stand ("Visit"): which names to protect is the
// caller's choice (the translator protects those its vocabulary does not know).
TEST(PlaceholdersTest, FindsUrlsMailNumbersCodesAndCapitalisedWordsWithoutTheirPunctuation) {
  EXPECT_EQ(span_texts("Visit (https://example.org/docs?a=1), then write to ana.lopez@example.com."),
            (std::vector<std::string>{"Visit", "https://example.org/docs?a=1",
                                      "ana.lopez@example.com"}));
  EXPECT_EQ(span_texts("Call 555-0199 at 10:30, or see www.example.net."),
            (std::vector<std::string>{"Call", "555-0199", "10:30", "www.example.net"}));
  EXPECT_EQ(span_texts("«Zbigniew's» flight LH2041 left Jyväskylä; I saw Jean-Luc."),
            (std::vector<std::string>{"Zbigniew", "LH2041", "Jyväskylä", "Jean-Luc"}));
  // Not spans: lower-case words, a lone capital, an address without a domain, bare punctuation.
  EXPECT_TRUE(span_texts("i said a word to A me@home - ¿qué?").empty());
}

TEST(PlaceholdersTest, SpansKeepTheirKind) {
  const std::string text = "Ana paid 20 at https://shop.example.org or ana@example.org";
  const std::vector<VerbatimSpan> spans = find_verbatim_spans(text);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0].kind, SpanKind::kName);
  EXPECT_EQ(spans[1].kind, SpanKind::kNumber);
  EXPECT_EQ(spans[2].kind, SpanKind::kUrl);
  EXPECT_EQ(spans[3].kind, SpanKind::kEmail);
}

TEST(PlaceholdersTest, ProtectsKeptSpansNumberingRepeatsOnce) {
  const ProtectedText result = protect_spans(
      "Tom sold 48 cars in 2023 and 48 vans.",
      [](const VerbatimSpan& span, std::string_view) { return span.kind == SpanKind::kNumber; });
  EXPECT_EQ(result.text, "Tom sold ⦅1⦆ cars in ⦅2⦆ and ⦅1⦆ vans.");
  EXPECT_EQ(result.originals, (std::vector<std::string>{"48", "2023"}));
  EXPECT_EQ(restore_spans("Tom vendió ⦅1⦆ coches en ⦅2⦆ y ⦅1⦆ furgonetas.", result),
            "Tom vendió 48 coches en 2023 y 48 furgonetas.");
}

TEST(PlaceholdersTest, SpansBeyondTheLastPlaceholderStayAsTheyAre) {
  const ProtectedText result = protect_spans("1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2", keep_all);
  EXPECT_EQ(result.text, "⦅1⦆, ⦅2⦆, ⦅3⦆, ⦅4⦆, ⦅5⦆, ⦅6⦆, ⦅7⦆, ⦅8⦆, ⦅9⦆, 10, 11, ⦅2⦆");
  EXPECT_EQ(result.originals.size(), static_cast<std::size_t>(kMaxPlaceholders));
}

TEST(PlaceholdersTest, NamesAndNumbersOneSpaceApartAreOneSpan) {
  const ProtectedText result = protect_spans(
      "Tran Thi Lan met Jiří Dvořák at 10:30, on flight WI 7638 to www.example.org 954 90.",
      [](const VerbatimSpan& span, std::string_view original) {
        return span.kind != SpanKind::kName || original != "Tran";  // joins only what is kept
      });
  EXPECT_EQ(result.text, "Tran ⦅1⦆ met ⦅2⦆ at ⦅3⦆, on flight ⦅4⦆ to ⦅5⦆ ⦅6⦆.");
  EXPECT_EQ(result.originals, (std::vector<std::string>{"Thi Lan", "Jiří Dvořák", "10:30",
                                                        "WI 7638", "www.example.org", "954 90"}));
}

TEST(PlaceholdersTest, TextWithTheUsersOwnPlaceholderIsLeftAlone) {
  const ProtectedText result = protect_spans("Keep ⦅1⦆ and 42 as typed.", keep_all);
  EXPECT_EQ(result.text, "Keep ⦅1⦆ and 42 as typed.");
  EXPECT_TRUE(result.originals.empty());
  EXPECT_EQ(restore_spans("Deja ⦅1⦆ y 42.", result), "Deja ⦅1⦆ y 42.");
}

TEST(PlaceholdersTest, AppliesTheSourcesNumbersToWholeWordsOnTheOtherSideLongestFirst) {
  EXPECT_EQ(apply_placeholders("Tomás y Tom vieron a Lan y a Tran Thi Lan.",
                               {"Tom", "Lan", "Tran Thi Lan"}),
            "Tomás y ⦅1⦆ vieron a ⦅2⦆ y a ⦅3⦆.");
}

TEST(PlaceholdersTest, AppliesTheSourcesNumbersToTheOtherSide) {
  EXPECT_EQ(apply_placeholders("Zbigniew llama al 555-0199, no al 555-0100.",
                               {"", "555-0199", "Zbigniew"}),
            "⦅3⦆ llama al ⦅2⦆, no al 555-0100.");
}

TEST(PlaceholdersTest, ANumberWithoutAnOriginalStandsForOneNotWrittenElseItIsDropped) {
  ProtectedText source;
  source.originals = {"Ana", "LH2041"};
  EXPECT_EQ(restore_spans("⦅7⦆ toma el vuelo ⦅2⦆; ⦅7⦆ llega.", source),
            "Ana toma el vuelo LH2041; Ana llega.");
  EXPECT_EQ(restore_spans("⦅5⦆ toma ⦅3⦆.", source), "Ana toma LH2041.");
}

TEST(PlaceholdersTest, RestoringDropsPlaceholdersWithoutAnOriginalAndKeepsLookalikes) {
  ProtectedText originals;
  originals.originals = {"LH2041"};
  EXPECT_EQ(restore_spans("El vuelo ⦅1⦆ sale ⦅7⦆.", originals), "El vuelo LH2041 sale.");
  EXPECT_EQ(restore_spans("⦅4⦆ vuelo ⦅1⦆", originals), "vuelo LH2041");
  EXPECT_EQ(restore_spans("⦅x⦆ ⦅ ⦅123⦆ ⦅1", originals), "⦅x⦆ ⦅ ⦅123⦆ ⦅1");
  EXPECT_EQ(restore_spans("", originals), "");
}

// The rule that decides which capitalised words a model gets as placeholders (the translator's,
// docs/real-text.md#numbers-and-names), on a vocabulary that has learnt "my", "Tom" and "Japan"
// as words and has never seen a "Z" or an "M".
TEST(ProtectForModelTest, OnlyNamesTheVocabularySpellsInPiecesBecomePlaceholders) {
  const std::vector<std::string> words = {"my",   "friend", "Tom",  "lives", "in",   "Japan",
                                          "went", "to",     "with", "and",   "we",   "love",
                                          "the",  "house",  "city", "sister"};
  std::vector<std::string> sentences;
  for (std::size_t i = 0; i < 600; ++i) {
    std::string sentence;
    for (std::size_t k = 0; k < 6; ++k) {
      sentence += (k == 0 ? "" : " ") + words[(i * (2 * k + 3) + k * k) % words.size()];
    }
    sentences.push_back(sentence + ".");
  }
  TextOptions options;
  options.clean = CleanMode::kNormalize;
  options.tokenizer = TokenizerKind::kSentencePiece;
  options.vocab_size = 400;  // 256 byte pieces among them
  const SentencePieceTokenizer vocabulary = SentencePieceTokenizer::train(sentences, options, 7);
  // What the rule reads: whole words in one piece, unseen spellings in several.
  ASSERT_EQ(vocabulary.encode("Japan").size(), 1u);
  ASSERT_EQ(vocabulary.encode("Tom").size(), 1u);
  ASSERT_EQ(vocabulary.encode("my").size(), 1u);
  ASSERT_GE(vocabulary.encode("My").size(), 2u);
  EXPECT_EQ(protect_for_model("My friend Zbigniew lives in Japan.", vocabulary).text,
            "My friend ⦅1⦆ lives in Japan.")
      << "a first word whose lower case is a word stays";
  EXPECT_EQ(protect_for_model("Zbigniew went to Japan.", vocabulary).text, "⦅1⦆ went to Japan.")
      << "a first word that is a name in any case is protected";
  EXPECT_EQ(protect_for_model("¿Tom? call 555-0199 or tom@example.org.", vocabulary).text,
            "¿Tom? call ⦅1⦆ or ⦅2⦆.")
      << "numbers and addresses always; a known name after punctuation is the first word";
}

}  // namespace
}  // namespace nmt::text
