// Reference handling shared by BLEU and chrF, as sacreBLEU's Metric base class does it: every
// reference set must have one line per hypothesis; on each line the empty references are dropped
// (a set may leave a line blank to give it fewer references), and a line left with none is an
// error. The signature's "nrefs" is the number of references per line, or "var" when it varies.
// Throws nmt::Error; never logs. Private to the eval module.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::eval {

// The sacreBLEU release whose figures this module reproduces, for the signatures.
inline constexpr std::string_view kSacrebleuVersion = "2.6.0";

struct LineReferences {
  std::vector<std::vector<std::string_view>>
      lines;          // per hypothesis line, its non-empty references
  std::string nrefs;  // signature value: "1", "2", ... or "var"
};

// Checks the reference sets against the hypothesis count and gathers each line's references
// (views into references). Throws nmt::Error when there is no reference set, when a set's line
// count differs from hypothesis_count ("hypotheses have 500 lines, reference set 2 has 499"), or
// when every reference of a line is empty. With no lines, nrefs is the number of reference sets.
LineReferences collect_references(std::size_t hypothesis_count,
                                  const std::vector<std::vector<std::string>>& references);

// Wraps one line's references as one-line reference sets, as sacreBLEU's sentence_score does.
std::vector<std::vector<std::string>> as_reference_sets(const std::vector<std::string>& references);

}  // namespace nmt::eval
