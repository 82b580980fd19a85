// The sacreBLEU 2.6.0 golden files of tests/eval/testdata/sacrebleu (see the README.md there):
// 500 hypothesis lines, two reference sets, and expected.json with sacreBLEU's figures.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmt::testing {

inline std::string sacrebleu_testdata(const std::string& name) {
  return std::string(NMT_EVAL_TESTDATA) + "/" + name;
}

// The lines of a golden text file, without their "\n".
inline std::vector<std::string> read_golden_lines(const std::string& name) {
  std::ifstream in(sacrebleu_testdata(name), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + sacrebleu_testdata(name));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

inline nlohmann::json read_golden_expected() {
  std::ifstream in(sacrebleu_testdata("expected.json"), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + sacrebleu_testdata("expected.json"));
  return nlohmann::json::parse(in);
}

}  // namespace nmt::testing
