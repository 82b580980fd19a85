#include "nmt/eval/tokenizer_13a.h"

#include <gtest/gtest.h>

namespace nmt::eval {
namespace {

// Expected values worked out by hand from sacreBLEU's Tokenizer13a and TokenizerRegexp patterns.
TEST(Tokenizer13aTest, SplitsOffPunctuation) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("(a)[b]{c} x/y $5 50% @me #tag a+b=c a*b ~ ^ _ ` |"),
            "( a ) [ b ] { c } x / y $ 5 50 % @ me # tag a + b = c a * b ~ ^ _ ` |");
}

TEST(Tokenizer13aTest, KeepsApostrophesAndSplitsQuotes) {
  EXPECT_EQ(tokenize_13a("Tom's \"book\"."), "Tom's \" book \" .");
}

TEST(Tokenizer13aTest, LeavesNonAsciiPunctuationAttached) {
  EXPECT_EQ(tokenize_13a("¿Qué?¡Sí!"), "¿Qué ? ¡Sí !");
  EXPECT_EQ(tokenize_13a("é."), "é .");
}

TEST(Tokenizer13aTest, UnescapesFourEntitiesOnce) {
  EXPECT_EQ(tokenize_13a("a &quot;b&quot; &amp; c &lt;d&gt;"), "a \" b \" & c < d >");
  // &amp; is unescaped after &quot;, so a doubly escaped quote stays an entity, then gets split.
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");
  // Numeric entities are not unescaped.
  EXPECT_EQ(tokenize_13a("&#39;"), "& # 39 ;");
}

TEST(Tokenizer13aTest, SplitsPeriodAndCommaExceptBetweenDigits) {
  EXPECT_EQ(tokenize_13a("3,5 y 1.000 euros."), "3,5 y 1.000 euros .");
  EXPECT_EQ(tokenize_13a("1,000,000."), "1,000,000 .");
  EXPECT_EQ(tokenize_13a("It costs $3.50, right?"), "It costs $ 3.50 , right ?");
  EXPECT_EQ(tokenize_13a("3,5."), "3,5 .");
  EXPECT_EQ(tokenize_13a("es.a"), "es . a");
  EXPECT_EQ(tokenize_13a("e.g."), "e . g .");
  EXPECT_EQ(tokenize_13a("x.,y"), "x . , y");
  // A leading period is split off and, being followed by a digit after that split, stays apart.
  EXPECT_EQ(tokenize_13a(".5"), ". 5");
  // Preceded by a digit but followed by a letter: still split.
  EXPECT_EQ(tokenize_13a("5.é"), "5 . é");
}

TEST(Tokenizer13aTest, SplitsDashOnlyAfterDigit) {
  EXPECT_EQ(tokenize_13a("well-known 1-2 a-1 -5"), "well-known 1 - 2 a-1 -5");
  EXPECT_EQ(tokenize_13a("2-3-4"), "2 - 3 - 4");
}

TEST(Tokenizer13aTest, HandlesSkippedMarkersAndNewlines) {
  EXPECT_EQ(tokenize_13a("foo<skipped> bar"), "foo bar");
  EXPECT_EQ(tokenize_13a("hyph-\nen"), "hyphen");
  EXPECT_EQ(tokenize_13a("a\nb"), "a b");
}

TEST(Tokenizer13aTest, SqueezesPythonWhitespace) {
  EXPECT_EQ(tokenize_13a("  a \t b  "), "a b");
  EXPECT_EQ(tokenize_13a("a\u00a0b\u3000c\u2028d"), "a b c d");
  // U+200B ZERO WIDTH SPACE is not whitespace for Python.
  EXPECT_EQ(tokenize_13a("a\u200bb"), "a\u200bb");
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a(" \n "), "");
}

}  // namespace
}  // namespace nmt::eval
