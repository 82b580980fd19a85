#include "nmt/text/casing.h"

#include <gtest/gtest.h>

namespace nmt::text {
namespace {

TEST(CasingTest, UpperUsesFullMappings) {
  EXPECT_EQ(to_upper("Perhaps it's too late.", "en"), "PERHAPS IT'S TOO LATE.");
  EXPECT_EQ(to_upper("¿Dónde está la calle?", "es"), "¿DÓNDE ESTÁ LA CALLE?");
  // One letter becomes two: the full mapping, not the simple one.
  EXPECT_EQ(to_upper("Straße", "de"), "STRASSE");
}

TEST(CasingTest, LanguageRulesApply) {
  EXPECT_EQ(to_upper("istanbul", "tr"), "İSTANBUL");
  EXPECT_EQ(to_upper("istanbul", "en"), "ISTANBUL");
  EXPECT_EQ(to_lower("İSTANBUL", "tr"), "istanbul");
  EXPECT_EQ(to_lower("ΟΔΟΣ", "el"), "οδος");
}

TEST(CasingTest, LowerAndRootLocale) {
  EXPECT_EQ(to_lower("I Am HUNGRY, Tom!", ""), "i am hungry, tom!");
  EXPECT_EQ(to_upper("", "en"), "");
}

TEST(CasingTest, InvalidUtf8ComesBackUnchanged) {
  const std::string broken = "abc\xff" "def";
  EXPECT_EQ(to_upper(broken, "en"), broken);
  EXPECT_EQ(to_lower(broken, "en"), broken);
  EXPECT_FALSE(is_all_caps("ABC\xff"));
}

TEST(CasingTest, AllCapsNeedsCapitalsAndNoLowerCase) {
  EXPECT_TRUE(is_all_caps("I'M HUNGRY!"));
  EXPECT_TRUE(is_all_caps("¿DÓNDE ESTÁ?"));
  EXPECT_FALSE(is_all_caps("I"));                  // one letter: not evidence of capitals
  EXPECT_FALSE(is_all_caps("NASA is here"));
  EXPECT_FALSE(is_all_caps("123 456"));
  EXPECT_FALSE(is_all_caps(""));
  EXPECT_TRUE(is_all_caps("OK", 2));
  EXPECT_FALSE(is_all_caps("OK", 3));
}

TEST(CaseAdaptTest, CapitalsAreReadInSentenceCaseAndAnsweredInCapitals) {
  const CaseAdapted adapted = adapt_case("PERHAPS IT'S TOO LATE, I THINK.", "en");
  EXPECT_EQ(adapted.model_input, "Perhaps it's too late, I think.");
  EXPECT_EQ(adapted.source_case, SourceCase::kAllCaps);
  EXPECT_EQ(restore_case("Quizás es demasiado tarde, creo.", adapted.source_case, "es"),
            "QUIZÁS ES DEMASIADO TARDE, CREO.");
  EXPECT_EQ(adapt_case("¿DÓNDE ESTÁ TOM?", "es").model_input, "¿Dónde está tom?");
}

TEST(CaseAdaptTest, LowerCaseGetsItsFirstLetterAndEnglishI) {
  const CaseAdapted adapted = adapt_case("i'm sure i can, said i.", "en");
  EXPECT_EQ(adapted.model_input, "I'm sure I can, said I.");
  EXPECT_EQ(adapted.source_case, SourceCase::kAllLower);
  EXPECT_EQ(restore_case("Estoy seguro.", adapted.source_case, "es"), "Estoy seguro.");
  // Only English writes its pronoun in capitals; "iris" and "xi" are no pronouns.
  EXPECT_EQ(adapt_case("i see iris and xi", "en").model_input, "I see iris and xi");
  EXPECT_EQ(adapt_case("i vini", "it").model_input, "I vini");
  EXPECT_EQ(adapt_case("e i vini", "it").model_input, "E i vini");
  // Addresses keep their case; the sentence then starts as written.
  EXPECT_EQ(adapt_case("https://example.org is down.", "en").model_input,
            "https://example.org is down.");
  EXPECT_EQ(adapt_case("ana@example.org wrote.", "en").model_input, "ana@example.org wrote.");
  EXPECT_EQ(adapt_case("\"www.example.org\" is down.", "en").model_input,
            "\"www.example.org\" is down.");
}

TEST(CaseAdaptTest, MixedCaseAndCaselessTextStayAsWritten) {
  for (const char* sentence : {"I am hungry.", "NASA is here.", "Tom.", "123 456", "", "I"}) {
    const CaseAdapted adapted = adapt_case(sentence, "en");
    EXPECT_EQ(adapted.model_input, sentence);
    EXPECT_EQ(adapted.source_case, SourceCase::kAsWritten) << sentence;
    EXPECT_EQ(restore_case("Hola.", adapted.source_case, "es"), "Hola.");
  }
}

}  // namespace
}  // namespace nmt::text
