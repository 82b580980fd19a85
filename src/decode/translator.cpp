#include "nmt/decode/translator.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>

#include "nmt/cpu_features.h"
#include "nmt/decode/ensemble_step_model.h"
#include "nmt/decode/transformer_step_model.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/text/marian_tokenizer.h"
#include "nmt/text/placeholders.h"
#include "nmt/text/vocab.h"

namespace nmt::decode {
namespace {

// The padded source positions, times the hypotheses each sentence keeps, that one batch decodes at
// most. Memory follows them (the encoder's attention, the cache of every layer's keys and values,
// the output rows), not the number of sentences: 64 sentences of 1,000 tokens took a server from
// 0.96 to 2.6 GB in one batch (issue 66). Typical batches (64 sentences of 20 tokens, beam 5:
// 6,400) stay whole.
constexpr int64_t kMaxBatchPositions = 16384;

// Sentences (indices into encoded, longest first) cut into batches of consecutive ones: at most
// options.batch_size sentences and kMaxBatchPositions padded positions times the hypotheses per
// sentence (one alone may pass it), and enough batches for every translator when there are
// enough sentences.
std::vector<std::vector<std::size_t>> plan_batches(const std::vector<std::size_t>& order,
                                                   const std::vector<std::vector<int64_t>>& encoded,
                                                   const SearchOptions& options,
                                                   std::size_t translators) {
  const auto most_sentences =
      std::max<std::size_t>(1, std::min(static_cast<std::size_t>(options.batch_size),
                                        (order.size() + translators - 1) / translators));
  const int64_t hypotheses = options.strategy == Strategy::kBeam ? options.beam_size : 1;
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t start = 0; start < order.size();) {
    // Longest first: the batch's first sentence sets its padded width.
    const auto width = static_cast<int64_t>(encoded[order[start]].size());
    const auto by_positions = static_cast<std::size_t>(
        std::max<int64_t>(1, kMaxBatchPositions / std::max<int64_t>(1, width * hypotheses)));
    const std::size_t end = std::min(order.size(), start + std::min(most_sentences, by_positions));
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(start),
                         order.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return batches;
}

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
    : Translator(
          std::vector<model::Transformer>{std::move(model)}, std::move(tokenizers), clean, device) {
}

Translator::Translator(std::vector<model::Transformer> models,
                       text::TokenizerPair tokenizers,
                       text::CleanMode clean,
                       c10::Device device)
    : models_(std::move(models)),
      tokenizers_(std::move(tokenizers)),
      clean_(clean),
      placeholders_(text::keeps_placeholders(tokenizers_)),
      device_(device) {
  if (models_.empty()) throw ConfigError("translator: needs at least one model");
}

Translator::~Translator() {
  if (!prepared_form_ || *prepared_form_ == model::WeightForm::kFp32) return;
  for (model::Transformer& model : models_) model->set_inference_form(model::WeightForm::kFp32);
}

int64_t translator_count(const SearchOptions& options, int64_t threads) {
  return options.translators > 0 ? options.translators
                                 : std::max<int64_t>(1, threads / options.threads);
}

std::shared_ptr<DecodingThreads> Translator::decoding_threads(std::size_t translators,
                                                              int64_t threads) {
  const std::lock_guard<std::mutex> lock(decoding_threads_mutex_);
  if (!decoding_threads_ || decoding_threads_->translators() != translators ||
      decoding_threads_->threads() != threads) {
    decoding_threads_ = std::make_shared<DecodingThreads>(translators, threads);
  }
  return decoding_threads_;
}

void Translator::prepare(model::WeightForm form) {
  if (prepared_form_ == form) return;
  cpu_decoders_.clear();
  c10::InferenceMode inference;
  for (model::Transformer& model : models_) {
    model->eval();
    model->set_inference_form(form);
    if (device_.is_cpu()) cpu_decoders_.push_back(std::make_unique<model::CpuDecoder>(*model));
  }
  prepared_form_ = form;
}

TranslationReport Translator::translate(const std::vector<std::string>& sentences,
                                        const SearchOptions& options,
                                        const StopCheck& should_stop) {
  std::vector<std::string> cleaned;
  cleaned.reserve(sentences.size());
  for (const std::string& sentence : sentences) cleaned.push_back(text::clean(sentence, clean_));
  return translate_cleaned(cleaned, options, should_stop);
}

namespace {

using BatchHypotheses = std::vector<std::vector<Hypothesis>>;
using Batches = std::vector<std::vector<std::size_t>>;

template <class Decode>
std::vector<BatchHypotheses> decode_in_order(std::size_t count,
                                             const Decode& decode,
                                             const Batches& batches) {
  std::vector<BatchHypotheses> results(count);
  for (std::size_t b = 0; b < count; ++b) results[b] = decode(batches[b]);
  return results;
}

// On the CPU, the batches are decoded by the translator's workers side by side
// (nmt/decode/decoding_threads.h); their results do not depend on which worker decodes them.
template <class Decode>
std::vector<BatchHypotheses> decode_in_parallel(DecodingThreads& workers,
                                                const Decode& decode,
                                                const Batches& batches) {
  std::vector<BatchHypotheses> results(batches.size());
  workers.run(batches.size(), [&](std::size_t b) { results[b] = decode(batches[b]); });
  return results;
}

}  // namespace

namespace {

// nmt's int8 kernels are made of AMX, AVX512-VNNI, AVX-VNNI or AVX2 instructions
// (model/vnni_gemm.h), all giving the same bytes for the same weights.
CpuInt8 cpu_int8_kernels() {
  if (!(model::has_int8_inference() && cpu_has_avx2())) return CpuInt8::kNone;
  return model::int8_runs_on_vnni() ? CpuInt8::kVnni : CpuInt8::kAvx2;
}

}  // namespace

model::WeightForm decoding_form(Precision precision, const c10::Device& device) {
  const CpuInt8 cpu_int8 = cpu_int8_kernels();
  const Precision resolved = resolve_precision(precision, device.is_cuda(), cpu_int8);
  switch (resolved) {
    case Precision::kBf16:
      // LibTorch multiplies bf16 on the CPU through oneDNN, which has no bf16 kernel below
      // AVX-512 and fails with its own message ("could not create a primitive descriptor").
      if (!device.is_cuda() && cpu_tier() < CpuTier::kAvx512) {
        throw ConfigError("decode.precision",
                          "bf16 on the CPU needs AVX-512 (oneDNN's bf16 kernels), above this CPU "
                          "tier (" +
                              std::string(tier_name(cpu_tier())) + "); use int8 or fp32");
      }
      return model::WeightForm::kBf16;
    case Precision::kInt8:
    case Precision::kInt8W7:
      if (device.is_cuda() || cpu_int8 == CpuInt8::kNone) {
        throw ConfigError(
            "decode.precision: int8 and int8w7 need the CPU, one with AVX2, and nmt built for "
            "x86-64; use bf16 or fp32 here");
      }
      return resolved == Precision::kInt8 ? model::WeightForm::kInt8 : model::WeightForm::kInt8W7;
    case Precision::kAuto:
    case Precision::kFp32:
      break;
  }
  return model::WeightForm::kFp32;
}

namespace {

// A step model that asks the call's StopCheck before each step.
class StoppableStepModel final : public StepModel {
 public:
  StoppableStepModel(StepModel& model, const StopCheck& should_stop)
      : model_(model), should_stop_(should_stop) {}
  void start(const at::Tensor& source) override {
    stop_if_asked();
    model_.start(source);
  }
  at::Tensor step(const at::Tensor& last_ids) override {
    stop_if_asked();
    return model_.step(last_ids);
  }
  void keep_rows(const at::Tensor& rows) override { model_.keep_rows(rows); }

 private:
  void stop_if_asked() const {
    if (should_stop_ && should_stop_()) throw Stopped("translation stopped before it ended");
  }

  StepModel& model_;
  const StopCheck& should_stop_;
};

}  // namespace

TranslationReport Translator::translate_cleaned(const std::vector<std::string>& cleaned,
                                                const SearchOptions& options,
                                                const StopCheck& should_stop) {
  if (!placeholders_) return decode_cleaned(cleaned, options, should_stop);
  const text::Tokenizer& source = *tokenizers_.source;
  std::vector<text::ProtectedText> sentences;
  std::vector<std::string> inputs;
  for (const std::string& sentence : cleaned) {
    sentences.push_back(text::protect_for_model(sentence, source));
    inputs.push_back(sentences.back().text);
  }
  TranslationReport report = decode_cleaned(inputs, options, should_stop);
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    for (Translation& translation : report.results[i]) {
      translation.text = text::restore_spans(translation.text, sentences[i]);
      translation.decoded = text::restore_spans(translation.decoded, sentences[i]);
    }
  }
  return report;
}

namespace {

// The inputs as the model reads them: token ids (after the target-language tag, if any), each cut
// to kMaxInputTokens; the non-empty ones' indices, longest first; the longest length.
struct EncodedInputs {
  std::vector<std::vector<int64_t>> ids;
  std::vector<std::size_t> order;
  int64_t longest = 1;
};

// Encodes every input; an empty one gets its empty translation in the report now, a cut one is
// counted there.
EncodedInputs encode_inputs(const text::Tokenizer& source,
                            const std::vector<std::string>& cleaned,
                            const std::string& tag,
                            TranslationReport& report) {
  EncodedInputs inputs;
  inputs.ids.resize(cleaned.size());
  for (std::size_t i = 0; i < cleaned.size(); ++i) {
    std::vector<int64_t>& ids = inputs.ids[i];
    ids = source.encode(cleaned[i].empty() ? cleaned[i] : tag + cleaned[i]);
    if (static_cast<int64_t>(ids.size()) > kMaxInputTokens) {
      ids.resize(kMaxInputTokens);
      ++report.truncated_inputs;
    }
    if (ids.empty()) {
      report.results[i] = {Translation{}};
    } else {
      inputs.order.push_back(i);
      inputs.longest = std::max(inputs.longest, static_cast<int64_t>(ids.size()));
    }
  }
  // Longest first: similar lengths share a batch, and memory peaks early if it peaks at all.
  std::stable_sort(inputs.order.begin(), inputs.order.end(),
                   [&inputs](std::size_t a, std::size_t b) {
                     return inputs.ids[a].size() > inputs.ids[b].size();
                   });
  return inputs;
}

// The work decoding took, summed over batches decoded side by side.
struct WorkCounts {
  std::atomic<int64_t> source_positions{0};
  std::atomic<int64_t> step_rows{0};
};

// One batch searched through the models (as an ensemble when there are several), asking
// should_stop before every step when it is given.
BatchHypotheses search_batch(std::vector<model::Transformer>& models,
                             const std::vector<std::unique_ptr<model::CpuDecoder>>& cpu_decoders,
                             const SearchStrategy& search,
                             const at::Tensor& sources,
                             const std::vector<int64_t>& lengths,
                             const StopCheck& should_stop,
                             WorkCounts& counts) {
  std::vector<TransformerStepModel> members;
  for (std::size_t m = 0; m < models.size(); ++m) {
    members.emplace_back(models[m], cpu_decoders.empty() ? nullptr : cpu_decoders[m].get());
  }
  std::vector<StepModel*> member_pointers;
  for (TransformerStepModel& member : members) member_pointers.push_back(&member);
  EnsembleStepModel ensemble(member_pointers);
  StepModel& members_model =
      members.size() == 1 ? members.front() : static_cast<StepModel&>(ensemble);
  StoppableStepModel stoppable(members_model, should_stop);
  StepModel& step_model = should_stop ? stoppable : members_model;
  BatchHypotheses hypotheses = search.search(step_model, sources, lengths);
  for (const TransformerStepModel& member : members) {
    counts.source_positions += member.source_positions();
    counts.step_rows += member.step_rows();
  }
  return hypotheses;
}

// Every batch's hypotheses, rendered and decoded, in their inputs' places in the report.
void collect_translations(const text::Tokenizer& target,
                          const Batches& batches,
                          const std::vector<BatchHypotheses>& hypotheses,
                          TranslationReport& report) {
  for (std::size_t b = 0; b < batches.size(); ++b) {
    for (std::size_t r = 0; r < batches[b].size(); ++r) {
      auto& out = report.results[batches[b][r]];
      for (const Hypothesis& hypothesis : hypotheses[b][r]) {
        out.push_back({target.render(hypothesis.ids), target.decode(hypothesis.ids), hypothesis.ids,
                       hypothesis.score});
      }
      if (!hypotheses[b][r].empty()) {
        report.output_tokens += static_cast<int64_t>(hypotheses[b][r].front().ids.size());
      }
    }
  }
}

}  // namespace

std::shared_lock<std::shared_mutex> Translator::hold_form(model::WeightForm form) {
  std::shared_lock<std::shared_mutex> decoding(prepare_mutex_);
  while (prepared_form_ != form) {
    decoding.unlock();
    {
      const std::unique_lock<std::shared_mutex> preparing(prepare_mutex_);
      prepare(form);
    }
    decoding.lock();
  }
  return decoding;
}

TranslationReport Translator::decode_cleaned(const std::vector<std::string>& cleaned,
                                             const SearchOptions& options,
                                             const StopCheck& should_stop) {
  const auto search = make_search(options);
  const std::string tag = options.target_lang.empty()
                              ? ""
                              : text::language_tag(*tokenizers_.source, options.target_lang) + " ";
  c10::InferenceMode inference;
  const std::shared_lock<std::shared_mutex> decoding =
      hold_form(decoding_form(options.precision, device_));
  TranslationReport report;
  report.results.resize(cleaned.size());
  const EncodedInputs inputs = encode_inputs(*tokenizers_.source, cleaned, tag, report);
  // Unless the options name it, the translators share this thread's count (the process's).
  const std::size_t translators =
      device_.is_cpu() ? static_cast<std::size_t>(translator_count(options, at::get_num_threads()))
                       : 1;
  const Batches batches = plan_batches(inputs.order, inputs.ids, options, translators);
  const int64_t positions = std::max(inputs.longest, output_limit(options.max_len, inputs.longest));
  for (model::Transformer& model : models_) model->reserve_positions(positions + 1, device_);
  WorkCounts counts;
  const auto decode_batch = [&](const std::vector<std::size_t>& batch) {
    std::vector<int64_t> lengths;
    for (const std::size_t i : batch) lengths.push_back(static_cast<int64_t>(inputs.ids[i].size()));
    return search_batch(models_, cpu_decoders_, *search, pad_sources(inputs.ids, batch).to(device_),
                        lengths, should_stop, counts);
  };
  const std::vector<BatchHypotheses> hypotheses =
      device_.is_cpu() ? decode_in_parallel(*decoding_threads(translators, options.threads),
                                            decode_batch, batches)
                       : decode_in_order(batches.size(), decode_batch, batches);
  report.source_positions = counts.source_positions;
  report.step_rows = counts.step_rows;
  collect_translations(*tokenizers_.target, batches, hypotheses, report);
  return report;
}

}  // namespace nmt::decode
