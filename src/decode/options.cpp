#include "nmt/decode/options.h"

#include <string>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"

namespace nmt::decode {

Precision resolve_precision(Precision precision, bool is_cuda, bool cpu_has_vnni) {
  if (precision != Precision::kAuto) return precision;
  return !is_cuda && cpu_has_vnni ? Precision::kInt8 : Precision::kFp32;
}

void SearchOptions::validate() const {
  check::positive("beam_size", beam_size);
  check::non_negative("length_penalty", length_penalty);
  check::positive("n_best", n_best);
  check::non_negative("max_len", max_len);
  check::positive("temperature", temperature);
  check::non_negative("top_k", top_k);
  if (!(top_p > 0.0 && top_p <= 1.0)) {
    throw ConfigError("top_p: expected a number in (0, 1], got " + format_number(top_p));
  }
  check::positive("batch_size", batch_size);
  check::non_negative("translators", translators);
  check::positive("threads", threads);
  if (strategy == Strategy::kBeam && n_best > beam_size) {
    throw ConfigError("n_best: expected at most beam_size (" + std::to_string(beam_size) +
                      "), got " + std::to_string(n_best));
  }
  if (strategy != Strategy::kBeam && n_best != 1) {
    throw ConfigError("n_best: only beam search returns several hypotheses, got " +
                      std::to_string(n_best));
  }
}

}  // namespace nmt::decode
