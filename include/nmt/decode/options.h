// Decoding hyperparameters (the "decode" section of the configuration and the translate flags).
// Kept apart from search.h so that code reading configurations does not compile LibTorch.
// Torch-free; validate() throws ConfigError naming the field.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace nmt::decode {

enum class Strategy { kGreedy, kSample, kBeam };

// When beam search is done with a sentence (BeamSearch, search.h): kFirst when beam_size
// hypotheses have ended, as fairseq and CTranslate2 do; kBest, transformers' generate() (its
// default early_stopping=False), when no open beam can still beat the worst of the beam_size best
// ended ones.
enum class BeamStop { kFirst, kBest };

// The number format of the model's matrix products while decoding (model/linear.h). kInt8W7 is
// int8 with the weights rounded to 7 bits, faster on CPUs without VNNI. `auto` is resolved by
// resolve_precision().
enum class Precision { kAuto, kFp32, kBf16, kInt8, kInt8W7 };

struct SearchOptions {
  Strategy strategy = Strategy::kGreedy;
  int64_t beam_size = 5;        // hypotheses kept per sentence by beam search
  double length_penalty = 1.0;  // beam: rank by logprob / length^length_penalty; 0 = raw logprob
  int64_t n_best = 1;           // hypotheses returned per sentence (at most beam_size)
  BeamStop beam_stop = BeamStop::kFirst;  // beam: when a sentence is done
  int64_t max_len = 0;                    // output tokens at most; 0 = 2 * source length + 10
  double temperature = 1.0;               // sampling: divide logits by this
  int64_t top_k = 0;                      // sampling: keep the k most likely tokens; 0 disables
  double top_p = 1.0;       // sampling: keep the smallest set with this much probability
  uint64_t seed = 23;       // sampling generator seed
  int64_t batch_size = 64;  // sentences decoded together
  int64_t translators = 0;  // CPU: batches decoded side by side; 0 = CPU threads / threads
  int64_t threads = 1;      // CPU: threads of each translator (its encoder and matrix products)
  Precision precision =
      Precision::kAuto;  // fp32, bf16, int8 or int8w7 matrix products; see resolve_precision
  // Multi-target models (OPUS-MT's en-ROMANCE): the output language, whose tag (">>spa<<") goes
  // before every source sentence; "" leaves the sentences as they are.
  std::string target_lang;

  void validate() const;
};

// Every field equal: requests whose options are equal can be decoded in one batch (nmt serve).
// Inline, so that torch-free libraries (serve) compare options without linking the decoder.
inline bool operator==(const SearchOptions& a, const SearchOptions& b) {
  // The structured bindings name every member: with one more member or one fewer they do not
  // compile, so a field added to SearchOptions cannot be left out of the comparison.
  const auto& [strategy, beam_size, length_penalty, n_best, beam_stop, max_len, temperature, top_k,
               top_p, seed, batch_size, translators, threads, precision, target_lang] = a;
  return std::tie(strategy, beam_size, length_penalty, n_best, beam_stop, max_len, temperature,
                  top_k, top_p, seed, batch_size, translators, threads, precision, target_lang) ==
         std::tie(b.strategy, b.beam_size, b.length_penalty, b.n_best, b.beam_stop, b.max_len,
                  b.temperature, b.top_k, b.top_p, b.seed, b.batch_size, b.translators, b.threads,
                  b.precision, b.target_lang);
}

inline bool operator!=(const SearchOptions& a, const SearchOptions& b) { return !(a == b); }

// Which of nmt's int8 kernels a CPU runs: none (not x86-64, or below AVX2), only the AVX2 ones, or
// one with VNNI's exact 8-bit dot product (AVX512-VNNI, AVX-VNNI, AMX).
enum class CpuInt8 { kNone, kAvx2, kVnni };

// The format `precision` means on this machine: kAuto is int8 on a CPU with a VNNI kernel and
// int8w7 on one with only the AVX2 kernels, where each measured fastest at fp32's BLEU
// (docs/performance.md), and fp32 elsewhere (on CUDA, and on CPUs without the instructions).
// Explicit choices are kept.
Precision resolve_precision(Precision precision, bool is_cuda, CpuInt8 cpu_int8);

}  // namespace nmt::decode
