// The train section: batches, optimiser, schedule, validation, saving, ranks. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/train/options.h"

namespace nmt::train {

inline const config::Choices<Schedule> kSchedules = {{"constant", Schedule::kConstant},
                                                     {"inverse_sqrt", Schedule::kInverseSqrt}};
inline const config::Choices<BestMetric> kBestMetrics = {
    {"loss", BestMetric::kLoss}, {"bleu", BestMetric::kBleu}, {"chrf", BestMetric::kChrf}};
inline const config::Choices<Backend> kBackends = {
    {"auto", Backend::kAuto}, {"gloo", Backend::kGloo}, {"nccl", Backend::kNccl}};
inline const config::Choices<Precision> kPrecisions = {
    {"auto", Precision::kAuto}, {"fp32", Precision::kFp32}, {"bf16", Precision::kBf16}};

template <class Fields>
void train_fields(Fields& f, TrainOptions& o) {
  f("batch_size", o.batch_size, config::IntKind::kPositive);
  f("max_tokens", o.max_tokens, config::IntKind::kNonNegative);
  f("epochs", o.epochs, config::IntKind::kPositive);
  f("max_steps", o.max_steps, config::IntKind::kNonNegative);
  f("max_time", o.max_time_seconds, config::DurationField{});
  f("lr", o.lr);
  f("schedule", o.schedule, kSchedules);
  f("warmup", o.warmup, config::IntKind::kPositive);
  f("label_smoothing", o.label_smoothing);
  f("clip_norm", o.clip_norm);
  f("early_stopping", o.early_stopping, config::IntKind::kNonNegative);
  f("seed", o.seed);
  f("device", o.device);
  f("threads", o.threads, config::IntKind::kNonNegative);
  f("log_every", o.log_every, config::IntKind::kPositive);
  f("save_every", o.save_every, config::IntKind::kNonNegative);
  f("average_last", o.average_last, config::IntKind::kNonNegative);
  f("keep_epochs", o.keep_epochs, config::IntKind::kNonNegative);
  f("precision", o.precision, kPrecisions);
  f("adam_beta1", o.adam_beta1);
  f("adam_beta2", o.adam_beta2);
  f("adam_eps", o.adam_eps);
  f("weight_decay", o.weight_decay);
  f("update_freq", o.update_freq, config::IntKind::kPositive);
  f("init_from", o.init_from);
  f("valid_every", o.valid_every, config::IntKind::kNonNegative);
  f("best_metric", o.best_metric, kBestMetrics);
  f("valid_bleu_sentences", o.valid_bleu_sentences, config::IntKind::kNonNegative);
  f("valid_beam_size", o.valid_beam_size, config::IntKind::kPositive);
  f.subsection("distributed");
  f("backend", o.distributed.backend, kBackends);
  f("timeout", o.distributed.timeout_seconds);
  f("bucket_mb", o.distributed.bucket_mb);
}

}  // namespace nmt::train
