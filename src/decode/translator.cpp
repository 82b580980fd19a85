#include "nmt/decode/translator.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <algorithm>
#include <numeric>

#include "nmt/decode/transformer_step_model.h"
#include "nmt/text/vocab.h"

namespace nmt::decode {
namespace {

at::Tensor pad_sources(const std::vector<std::vector<int64_t>>& encoded,
                       const std::vector<std::size_t>& indices) {
  std::size_t longest = 1;
  for (const std::size_t i : indices) longest = std::max(longest, encoded[i].size());
  at::Tensor source =
      at::full({static_cast<int64_t>(indices.size()), static_cast<int64_t>(longest)}, text::kPadId,
               at::kLong);
  auto* data = source.data_ptr<int64_t>();
  for (std::size_t r = 0; r < indices.size(); ++r) {
    std::copy(encoded[indices[r]].begin(), encoded[indices[r]].end(), data + r * longest);
  }
  return source;
}

}  // namespace

Translator::Translator(model::Transformer model,
                       text::TokenizerPair tokenizers,
                       text::CleanMode clean,
                       c10::Device device)
    : model_(std::move(model)),
      tokenizers_(std::move(tokenizers)),
      clean_(clean),
      device_(device) {}

TranslationReport Translator::translate(const std::vector<std::string>& sentences,
                                        const SearchOptions& options) {
  std::vector<std::string> cleaned;
  cleaned.reserve(sentences.size());
  for (const std::string& sentence : sentences) cleaned.push_back(text::clean(sentence, clean_));
  return translate_cleaned(cleaned, options);
}

TranslationReport Translator::translate_cleaned(const std::vector<std::string>& cleaned,
                                                const SearchOptions& options) {
  const auto search = make_search(options);
  c10::InferenceMode inference;
  model_->eval();
  TranslationReport report;
  report.results.resize(cleaned.size());
  std::vector<std::vector<int64_t>> encoded(cleaned.size());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < cleaned.size(); ++i) {
    encoded[i] = tokenizers_.source->encode(cleaned[i]);
    if (static_cast<int64_t>(encoded[i].size()) > kMaxInputTokens) {
      encoded[i].resize(kMaxInputTokens);
      ++report.truncated_inputs;
    }
    if (encoded[i].empty()) {
      report.results[i] = {Translation{}};
    } else {
      order.push_back(i);
    }
  }
  // Longest first: similar lengths share a batch, and memory peaks early if it peaks at all.
  std::stable_sort(order.begin(), order.end(), [&encoded](std::size_t a, std::size_t b) {
    return encoded[a].size() > encoded[b].size();
  });
  TransformerStepModel step_model(model_);
  for (std::size_t start = 0; start < order.size();
       start += static_cast<std::size_t>(options.batch_size)) {
    const std::vector<std::size_t> batch(
        order.begin() + static_cast<std::ptrdiff_t>(start),
        order.begin() + static_cast<std::ptrdiff_t>(std::min(
                            order.size(), start + static_cast<std::size_t>(options.batch_size))));
    std::vector<int64_t> lengths;
    for (const std::size_t i : batch) lengths.push_back(static_cast<int64_t>(encoded[i].size()));
    const auto hypotheses =
        search->search(step_model, pad_sources(encoded, batch).to(device_), lengths);
    for (std::size_t r = 0; r < batch.size(); ++r) {
      auto& out = report.results[batch[r]];
      for (const Hypothesis& hypothesis : hypotheses[r]) {
        out.push_back({tokenizers_.target->render(hypothesis.ids),
                       tokenizers_.target->decode(hypothesis.ids), hypothesis.ids,
                       hypothesis.score});
      }
      if (!hypotheses[r].empty())
        report.output_tokens += static_cast<int64_t>(hypotheses[r].front().ids.size());
    }
  }
  return report;
}

}  // namespace nmt::decode
