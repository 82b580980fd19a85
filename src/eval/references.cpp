#include "eval/references.h"

#include <set>

#include "nmt/error.h"

namespace nmt::eval {
namespace {

void check_line_counts(std::size_t hypothesis_count,
                       const std::vector<std::vector<std::string>>& references) {
  if (references.empty()) {
    throw Error("expected at least one reference set for " + std::to_string(hypothesis_count) +
                " hypothesis lines, got 0");
  }
  for (std::size_t set = 0; set < references.size(); ++set) {
    if (references[set].size() != hypothesis_count) {
      throw Error("hypotheses have " + std::to_string(hypothesis_count) + " lines, reference set " +
                  std::to_string(set + 1) + " has " + std::to_string(references[set].size()));
    }
  }
}

}  // namespace

LineReferences collect_references(std::size_t hypothesis_count,
                                  const std::vector<std::vector<std::string>>& references) {
  check_line_counts(hypothesis_count, references);
  LineReferences result;
  result.lines.resize(hypothesis_count);
  std::set<std::size_t> counts;
  for (std::size_t line = 0; line < hypothesis_count; ++line) {
    for (const auto& set : references) {
      if (!set[line].empty()) result.lines[line].push_back(set[line]);
    }
    if (result.lines[line].empty()) {
      throw Error("line " + std::to_string(line + 1) + ": all " +
                  std::to_string(references.size()) +
                  " references are empty, expected at least one non-empty reference");
    }
    counts.insert(result.lines[line].size());
  }
  if (hypothesis_count == 0) counts.insert(references.size());
  result.nrefs = counts.size() == 1 ? std::to_string(*counts.begin()) : "var";
  return result;
}

std::vector<std::vector<std::string>> as_reference_sets(
    const std::vector<std::string>& references) {
  std::vector<std::vector<std::string>> sets;
  sets.reserve(references.size());
  for (const auto& reference : references) sets.push_back({reference});
  return sets;
}

}  // namespace nmt::eval
