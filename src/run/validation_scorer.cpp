#include "nmt/run/validation_scorer.h"

#include <algorithm>

#include "nmt/decode/translator.h"
#include "nmt/eval/scores.h"

namespace nmt::run {

ValidationScorer make_validation_scorer(const Config& config,
                                        const text::TokenizerPair& tokenizers,
                                        const std::vector<data::SentencePair>& valid,
                                        const c10::Device& device) {
  const auto count = std::min<std::size_t>(
      valid.size(), static_cast<std::size_t>(config.train.valid_bleu_sentences));
  if (count == 0) return {};
  std::vector<std::string> sources;
  std::vector<std::string> references;
  for (std::size_t i = 0; i < count; ++i) {
    sources.push_back(valid[i].source);
    references.push_back(valid[i].target);
  }
  decode::SearchOptions search = config.decode;
  search.strategy =
      config.train.valid_beam_size > 1 ? decode::Strategy::kBeam : decode::Strategy::kGreedy;
  search.beam_size = config.train.valid_beam_size;
  search.n_best = 1;
  // The weights being trained, as they are: no int8 or bf16 copy of them for a score.
  search.precision = decode::Precision::kFp32;
  const text::CleanMode clean = config.text.clean;
  return [sources, references, search, tokenizers, clean, device](model::Transformer& model) {
    decode::Translator translator(model, tokenizers, clean, device);
    const decode::TranslationReport report = translator.translate_cleaned(sources, search);
    std::vector<std::string> hypotheses;
    hypotheses.reserve(report.results.size());
    for (const auto& result : report.results) hypotheses.push_back(result.front().decoded);
    const eval::Scores scores = eval::score_corpus(hypotheses, {references});
    return train::TranslationScores{scores.bleu.score, scores.chrf.score,
                                    static_cast<int64_t>(hypotheses.size())};
  };
}

}  // namespace nmt::run
