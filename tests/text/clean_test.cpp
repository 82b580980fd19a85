#include "nmt/text/clean.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test_utils.h"

namespace nmt::text {
namespace {

// Expected values printed by the reference script's clean_text (Python 3.11).
TEST(CleanNotebookTest, MatchesNotebookGoldenValues) {
  EXPECT_EQ(clean_notebook("I'm sad"), "i m sad");
  EXPECT_EQ(clean_notebook("Do you speak Italian?"), "do you speak italian ?");
  EXPECT_EQ(clean_notebook("¿Dónde está el BAÑO?"), "¿ dónde está el baño ?");
  EXPECT_EQ(clean_notebook("ÉL ESTÁ AQUÍ, ¡Ñandú!"), "él está aquí , ¡ ñandú !");
  EXPECT_EQ(clean_notebook("Façade çà"), "fa ade");
  EXPECT_EQ(clean_notebook("I have 3 cats and 12 dogs."), "i have 3 cats and 12 dogs");
  EXPECT_EQ(clean_notebook("ÁÉÍÓÚÜÑ"), "áéíóúüñ");
  EXPECT_EQ(clean_notebook("naïve café"), "na ve café");
  EXPECT_EQ(clean_notebook("Über"), "über");
  EXPECT_EQ(clean_notebook("  multiple   spaces\there "), "multiple spaces here");
  EXPECT_EQ(clean_notebook("\u00a0x\u00a0y"), "x y");
  EXPECT_EQ(clean_notebook("Σίσυφος"), "");
  EXPECT_EQ(clean_notebook(""), "");
}

TEST(CleanNotebookTest, FollowsPythonFullLowercaseMapping) {
  // U+0130 lowercases to "i" + U+0307 in Python; the combining dot is then a non-kept character.
  EXPECT_EQ(clean_notebook("İstanbul"), "i stanbul");
  // KELVIN SIGN lowercases to ASCII k.
  EXPECT_EQ(clean_notebook("\u212A"), "k");
  // A decomposed accent is not in the kept class: "e" + U+0301 -> "e".
  EXPECT_EQ(clean_notebook("e\u0301"), "e");
}

TEST(CleanNotebookTest, SeparatesEveryPunctuationMark) {
  EXPECT_EQ(clean_notebook("¿?¡!,"), "¿ ? ¡ ! ,");
  EXPECT_EQ(clean_notebook("a,b"), "a , b");
}

TEST(CleanNotebookTest, InvalidBytesBecomeSpaces) {
  EXPECT_EQ(clean_notebook("ab\xff"
                           "cd"),
            "ab cd");
}

TEST(NormalizeTest, AppliesNfkcAndSqueezesWhitespaceKeepingCase) {
  EXPECT_EQ(normalize("  ¿Cómo   estás?\t"), "¿Cómo estás?");
  EXPECT_EQ(normalize("e\u0301"), "é");              // composed
  EXPECT_EQ(normalize("ﬁne"), "fine");               // compatibility ligature
  EXPECT_EQ(normalize("a\u00a0b\u2003c"), "a b c");  // no-break and em spaces
  EXPECT_EQ(normalize("Tom's \"book\"."), "Tom's \"book\".");
}

TEST(Utf8Test, DetectsInvalidSequences) {
  EXPECT_TRUE(is_valid_utf8("¿Qué tal? 日本"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));  // UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8(std::string("a\0b", 3)));
}

TEST(CountWordsTest, CountsRunsOfNonSpace) {
  EXPECT_EQ(count_words(""), 0u);
  EXPECT_EQ(count_words("  a  bb c "), 3u);
}

TEST(JoinPunctuationTest, AttachesMarksToTheirWords) {
  EXPECT_EQ(join_punctuation("¿ cómo estás ?"), "¿cómo estás?");
  EXPECT_EQ(join_punctuation("hola , amigo ¡ qué bien !"), "hola, amigo ¡qué bien!");
  EXPECT_EQ(join_punctuation(""), "");
}

// Cleans the whole shared Tatoeba file with the reference script's own clean_text (taken from its
// source with Python's ast module, so torch is not needed) and with ours.
TEST(CleanNotebookSlowTest, MatchesReferenceScriptOnSharedTatoeba) {
  const std::string tsv = testing::shared_tatoeba_path();
  const std::string script = testing::shared_dir() + "/reference/seed_transformer.py";
  if (tsv.empty() || !std::filesystem::exists(script))
    GTEST_SKIP() << "shared Tatoeba data not found";
  if (std::system("python3 -c 'import re, ast' > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 not found";
  testing::ScratchDir scratch;
  const std::string program = scratch.write("clean.py", R"(
import ast, re, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "clean_text")
scope = {"re": re}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "clean_text", "exec"), scope)
with open(sys.argv[3], "w", encoding="utf-8", newline="\n") as out:
    for line in open(sys.argv[2], encoding="utf-8"):
        for column in line.rstrip("\n").split("\t"):
            out.write(scope["clean_text"](column) + "\n")
)");
  const std::string expected_path = scratch.file("expected.txt");
  const auto result = testing::run_command("python3 '" + program + "' '" + script + "' '" + tsv +
                                           "' '" + expected_path + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;

  std::ifstream data(tsv, std::ios::binary);
  std::ifstream expected(expected_path, std::ios::binary);
  std::string line;
  std::string want;
  std::size_t compared = 0;
  std::size_t line_number = 0;
  while (std::getline(data, line)) {
    ++line_number;
    std::size_t start = 0;
    while (true) {
      const std::size_t tab = line.find('\t', start);
      const std::string column =
          line.substr(start, tab == std::string::npos ? std::string::npos : tab - start);
      ASSERT_TRUE(std::getline(expected, want));
      ASSERT_EQ(clean_notebook(column), want) << "line " << line_number << ": " << column;
      ++compared;
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
  }
  EXPECT_GT(compared, 200000u);
}

}  // namespace
}  // namespace nmt::text
