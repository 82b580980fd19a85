// nmt's side of the CTranslate2 round trip (round_trip_test.sh): for every sentence of a run's
// test split, the source pieces, nmt's fp32 greedy translation (pieces) and the log-probability
// of each of its tokens and of the final <EOS> by teacher forcing, one JSON object per line:
//
//   {"source": [...], "target": [...], "log_probs": [...], "max_decoding_length": N}
//
// N is nmt's output limit for the sentence (2 x source length + 10), which CTranslate2 is given
// too. Usage: reference_translations RUN OUT.jsonl. Exit 0, or 1 with a message on stderr.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "nmt/data/dataset.h"
#include "nmt/decode/search.h"
#include "nmt/decode/translator.h"
#include "nmt/run/open_run.h"
#include "nmt/text/vocab.h"
#include "torch_test_utils.h"

namespace {

int run(const std::string& run_dir, const std::string& out_path) {
  nmt::run::OpenedRun opened = nmt::run::open_run(
      {run_dir, "", {}}, {{"train.device", "cpu"}, {"decode.precision", "fp32"}});
  std::vector<std::string> sources;
  for (const auto& pair : nmt::data::read_pairs(opened.dir.split(nmt::Split::kTest))) {
    sources.push_back(pair.source);
  }
  nmt::decode::SearchOptions search = opened.config.decode;
  search.strategy = nmt::decode::Strategy::kGreedy;
  search.max_len = 0;
  search.precision = nmt::decode::Precision::kFp32;
  nmt::decode::Translator translator(opened.model, opened.tokenizers, opened.config.text.clean,
                                     opened.device);
  const auto report = translator.translate_cleaned(sources, search);
  c10::InferenceMode inference;
  std::ofstream out(out_path);
  int64_t written = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::vector<int64_t> source = opened.tokenizers.source->encode(sources[i]);
    if (source.empty()) continue;  // nothing to translate on either side
    const std::vector<int64_t>& target = report.results[i].front().ids;
    const nlohmann::json line = {
        {"source", opened.tokenizers.source->pieces(source)},
        {"target", opened.tokenizers.target->pieces(target)},
        {"log_probs", nmt::testing::teacher_forced_log_probs(*opened.model, source, target)},
        {"max_decoding_length", nmt::decode::output_limit(0, static_cast<int64_t>(source.size()))},
    };
    out << line.dump() << '\n';
    ++written;
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + out_path);
  std::cerr << "reference_translations: " << written << " sentences of " << run_dir << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: reference_translations RUN OUT.jsonl\n";
    return 2;
  }
  try {
    return run(argv[1], argv[2]);
  } catch (const std::exception& error) {
    std::cerr << "reference_translations: " << error.what() << '\n';
    return 1;
  }
}
