// Teacher-forced log-probabilities of given outputs under a run's model, for
// marian_import_test.sh to hold an imported model's against transformers' own. Reads JSON lines
//
//   {"source": [nmt ids, </s> included], "target": [nmt ids, no <EOS>]}
//
// and writes one JSON line per input line, {"log_probs": [...]}: log P of each target token and
// then of <EOS>, from one forward pass of the training graph in fp32 on the CPU.
// Usage: forced_log_probs RUN IN.jsonl OUT.jsonl. Exit 0, or 1 with a message on stderr.
#include <c10/core/InferenceMode.h>

#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "nmt/run/open_run.h"
#include "torch_test_utils.h"

namespace {

int run(const std::string& run_dir, const std::string& in_path, const std::string& out_path) {
  nmt::run::OpenedRun opened = nmt::run::open_run({run_dir, "", {}}, {{"train.device", "cpu"}});
  opened.model->to(torch::kFloat);
  opened.model->eval();
  c10::InferenceMode inference;
  std::ifstream in(in_path);
  if (!in) throw std::runtime_error("cannot read " + in_path);
  std::ofstream out(out_path);
  std::string line;
  int64_t written = 0;
  while (std::getline(in, line)) {
    const nlohmann::json pair = nlohmann::json::parse(line);
    const auto source = pair.at("source").get<std::vector<int64_t>>();
    const auto target = pair.at("target").get<std::vector<int64_t>>();
    const nlohmann::json result = {
        {"log_probs", nmt::testing::teacher_forced_log_probs(*opened.model, source, target)}};
    out << result.dump() << '\n';
    ++written;
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + out_path);
  std::cerr << "forced_log_probs: " << written << " sentences under " << run_dir << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: forced_log_probs RUN IN.jsonl OUT.jsonl\n";
    return 2;
  }
  try {
    return run(argv[1], argv[2], argv[3]);
  } catch (const std::exception& error) {
    std::cerr << "forced_log_probs: " << error.what() << '\n';
    return 1;
  }
}
