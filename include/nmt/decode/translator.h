// Sentences in, translations out: cleaning, tokenisation, length-sorted batches, search,
// detokenisation, results back in input order. An empty (or all-blank) input gives an empty
// translation without running the model; inputs longer than max_input_tokens are cut to that many
// tokens (counted in the report) so that a pathological line cannot exhaust memory.
//
// On the CPU, options.translators batches are decoded side by side, each on options.threads
// threads, by model::CpuDecoder (the fast decoder step); elsewhere batches are decoded in turn by
// the model's LibTorch step. The models' weights are put into the decoding precision's form the
// first time it is asked for and kept in it until another precision is asked for or the translator
// is destroyed (then the models are back in fp32 form), so that many small calls (a server's) do
// not convert them again each time. translate() may be called from several threads at once.
//
// A model whose vocabulary keeps placeholders (text/placeholders.h, data.augment_placeholders)
// gets URLs, e-mail addresses, numbers and codes, and capitalised words its vocabulary spells in
// short pieces (names it has not learnt) as placeholders, and the originals are put back in its
// translations; other models get the text as it is.
// A call may be given a stop check, asked before every decoding step: once it answers true the
// call throws Stopped (a server whose clients all left stops their batch at the next step).
// Runs under torch::InferenceMode. Never logs; throws ConfigError for invalid options.
#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "nmt/decode/decoding_threads.h"
#include "nmt/decode/options.h"
#include "nmt/decode/search.h"
#include "nmt/error.h"
#include "nmt/model/cpu_decoder.h"
#include "nmt/model/transformer.h"
#include "nmt/text/tokenizer.h"

namespace nmt::decode {

inline constexpr int64_t kMaxInputTokens = 1024;

// Asked before every decoding step; true stops the call (Stopped). Empty: never stops.
using StopCheck = std::function<bool()>;

// A translation stopped by its StopCheck; it has no results.
class Stopped : public Error {
 public:
  using Error::Error;
};

struct Translation {
  std::string text;     // for a reader (word models: punctuation joined back)
  std::string decoded;  // in the form references are scored in (tokenizer.decode)
  std::vector<int64_t> ids;
  float score = 0.0f;  // summed log-probability
};

struct TranslationReport {
  std::vector<std::vector<Translation>> results;  // per input, n-best (best first)
  int64_t truncated_inputs = 0;                   // inputs cut to kMaxInputTokens
  int64_t output_tokens = 0;                      // tokens produced, best hypotheses only
  int64_t source_positions = 0;                   // source positions encoded, padding included
  int64_t step_rows = 0;                          // decoder rows stepped, all hypotheses
};

// How many batches the CPU decodes side by side: options.translators, or as many as `threads`
// hold options.threads each (at least one).
int64_t translator_count(const SearchOptions& options, int64_t threads);

// The number format decoding uses for `precision` on device (resolve_precision with this
// machine's processor and build). Throws ConfigError for int8 where it cannot run.
model::WeightForm decoding_form(Precision precision, const c10::Device& device);

class Translator {
 public:
  Translator(model::Transformer model,
             text::TokenizerPair tokenizers,
             text::CleanMode clean,
             c10::Device device);
  // An ensemble: the models, which share tokenizers, decode as one (EnsembleStepModel). With one
  // model it is the constructor above.
  Translator(std::vector<model::Transformer> models,
             text::TokenizerPair tokenizers,
             text::CleanMode clean,
             c10::Device device);
  ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // Translates raw sentences (they are cleaned like the training data first).
  TranslationReport translate(const std::vector<std::string>& sentences,
                              const SearchOptions& options,
                              const StopCheck& should_stop = {});
  // Translates already-cleaned sentences (the run's split files).
  TranslationReport translate_cleaned(const std::vector<std::string>& cleaned,
                                      const SearchOptions& options,
                                      const StopCheck& should_stop = {});

 private:
  // translate_cleaned without placeholders.
  TranslationReport decode_cleaned(const std::vector<std::string>& cleaned,
                                   const SearchOptions& options,
                                   const StopCheck& should_stop);
  // A shared hold on the models in `form`, put into it first (under an exclusive hold) when they
  // are in another.
  std::shared_lock<std::shared_mutex> hold_form(model::WeightForm form);
  // Puts the models into `form` (and builds their CPU decoders) unless they are in it already.
  // Called with prepare_mutex_ held exclusively.
  void prepare(model::WeightForm form);
  // The CPU's decoding threads for `translators` workers of `threads` threads each: made at the
  // first call and kept while calls ask for the same.
  std::shared_ptr<DecodingThreads> decoding_threads(std::size_t translators, int64_t threads);

  std::vector<model::Transformer> models_;
  text::TokenizerPair tokenizers_;
  text::CleanMode clean_;
  bool placeholders_;  // the vocabulary keeps placeholders whole
  c10::Device device_;
  std::shared_mutex prepare_mutex_;  // shared while decoding, exclusive while preparing a form
  std::optional<model::WeightForm> prepared_form_;
  std::vector<std::unique_ptr<model::CpuDecoder>> cpu_decoders_;  // one per model, on the CPU
  std::mutex decoding_threads_mutex_;
  std::shared_ptr<DecodingThreads> decoding_threads_;
};

}  // namespace nmt::decode
