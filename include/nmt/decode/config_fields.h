// The decode section: search, its limits, precision and threads. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/decode/options.h"

namespace nmt::decode {

inline const config::Choices<Precision> kDecodePrecisions = {{"auto", Precision::kAuto},
                                                             {"fp32", Precision::kFp32},
                                                             {"bf16", Precision::kBf16},
                                                             {"int8", Precision::kInt8},
                                                             {"int8w7", Precision::kInt8W7}};
inline const config::Choices<Strategy> kStrategies = {
    {"greedy", Strategy::kGreedy}, {"sample", Strategy::kSample}, {"beam", Strategy::kBeam}};
inline const config::Choices<BeamStop> kBeamStops = {{"first", BeamStop::kFirst},
                                                     {"best", BeamStop::kBest}};

template <class Fields>
void decode_fields(Fields& f, SearchOptions& o) {
  f("strategy", o.strategy, kStrategies);
  f("beam_size", o.beam_size, config::IntKind::kPositive);
  f("length_penalty", o.length_penalty);
  f("beam_stop", o.beam_stop, kBeamStops);
  f("n_best", o.n_best, config::IntKind::kPositive);
  f("max_len", o.max_len, config::IntKind::kNonNegative);
  f("temperature", o.temperature);
  f("top_k", o.top_k, config::IntKind::kNonNegative);
  f("top_p", o.top_p);
  f("seed", o.seed);
  f("batch_size", o.batch_size, config::IntKind::kPositive);
  f("translators", o.translators, config::IntKind::kNonNegative);
  f("threads", o.threads, config::IntKind::kPositive);
  f("precision", o.precision, kDecodePrecisions);
  f("target_lang", o.target_lang);
}

}  // namespace nmt::decode
