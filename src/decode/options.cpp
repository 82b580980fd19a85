#include "nmt/decode/options.h"

#include <cmath>
#include <limits>
#include <string>

#include "nmt/check.h"
#include "nmt/error.h"
#include "nmt/format.h"

namespace nmt::decode {

Precision resolve_precision(Precision precision, bool is_cuda, CpuInt8 cpu_int8) {
  if (precision != Precision::kAuto) return precision;
  if (is_cuda) return Precision::kFp32;
  switch (cpu_int8) {
    case CpuInt8::kVnni:
      return Precision::kInt8;
    case CpuInt8::kAvx2:
      return Precision::kInt8W7;
    case CpuInt8::kNone:
      break;
  }
  return Precision::kFp32;
}

namespace {

// Temperature and top_p are used as floats: a positive double whose float is 0 or subnormal
// (1e-300) divides logits into infinities and NaN probabilities.
void check_positive_float(const char* name, double value, double largest) {
  if (!(std::isfinite(value) && static_cast<float>(value) >= std::numeric_limits<float>::min() &&
        value <= largest)) {
    throw ConfigError(name, "expected a number from " +
                                format_number(std::numeric_limits<float>::min()) +
                                " (the smallest normal "
                                "float) to " +
                                format_number(largest) + ", got " + format_number(value));
  }
}

}  // namespace

void SearchOptions::validate() const {
  check::positive("beam_size", beam_size);
  check::non_negative("length_penalty", length_penalty);
  if (!std::isfinite(length_penalty)) {
    throw ConfigError("length_penalty",
                      "expected a finite number, got " + format_number(length_penalty));
  }
  check::positive("n_best", n_best);
  check::non_negative("max_len", max_len);
  check_positive_float("temperature", temperature, std::numeric_limits<float>::max());
  check::non_negative("top_k", top_k);
  check_positive_float("top_p", top_p, 1.0);
  check::positive("batch_size", batch_size);
  check::non_negative("translators", translators);
  check::positive("threads", threads);
  if (strategy == Strategy::kBeam && n_best > beam_size) {
    throw ConfigError("n_best", "expected at most beam_size (" + std::to_string(beam_size) +
                                    "), got " + std::to_string(n_best));
  }
  if (strategy != Strategy::kBeam && n_best != 1) {
    throw ConfigError("n_best",
                      "only beam search returns several hypotheses, got " + std::to_string(n_best));
  }
}

}  // namespace nmt::decode
