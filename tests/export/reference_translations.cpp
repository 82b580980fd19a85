// nmt's side of the CTranslate2 and transformers round trips (round_trip_test.sh,
// huggingface_round_trip_test.sh): for every sentence of a run's test split, or of SENTENCES (raw
// text, cleaned as nmt translate cleans it), the sentence, its source pieces, nmt's fp32 greedy
// translation (pieces and text) and the log-probability of each of its tokens and of the final <EOS> by
// teacher forcing, one JSON object per line:
//
//   {"text": "...", "source": [...], "target": [...], "translation": "...", "log_probs": [...],
//    "max_decoding_length": N}
//
// N is nmt's output limit for the sentence (2 x source length + 10), which the other engine is
// given too. Usage: reference_translations RUN OUT.jsonl [SENTENCES]. Exit 0, or 1 with a message
// on stderr.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "nmt/data/dataset.h"
#include "nmt/decode/search.h"
#include "nmt/decode/translator.h"
#include "nmt/run/open_run.h"
#include "nmt/text/clean.h"
#include "nmt/text/vocab.h"
#include "torch_test_utils.h"

namespace {

std::vector<std::string> read_sentences(const std::string& path, nmt::text::CleanMode clean) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> sentences;
  for (std::string line; std::getline(in, line);) {
    sentences.push_back(nmt::text::clean(line, clean));
  }
  return sentences;
}

int run(const std::string& run_dir, const std::string& out_path, const std::string& sentences) {
  nmt::run::OpenedRun opened = nmt::run::open_run(
      {run_dir, "", {}}, {{"train.device", "cpu"}, {"decode.precision", "fp32"}});
  std::vector<std::string> sources;
  std::vector<std::string> texts;
  if (sentences.empty()) {
    for (const auto& pair : nmt::data::read_pairs(opened.dir.split(nmt::Split::kTest))) {
      sources.push_back(pair.source);
    }
    texts = sources;
  } else {
    sources = read_sentences(sentences, opened.config.text.clean);
    std::ifstream in(sentences);
    for (std::string line; std::getline(in, line);) texts.push_back(line);
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
        {"text", texts[i]},
        {"source", opened.tokenizers.source->pieces(source)},
        {"target", opened.tokenizers.target->pieces(target)},
        {"translation", report.results[i].front().decoded},
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
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: reference_translations RUN OUT.jsonl [SENTENCES]\n";
    return 2;
  }
  try {
    return run(argv[1], argv[2], argc == 4 ? argv[3] : "");
  } catch (const std::exception& error) {
    std::cerr << "reference_translations: " << error.what() << '\n';
    return 1;
  }
}
