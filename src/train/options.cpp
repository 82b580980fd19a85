#include "nmt/train/options.h"

#include <string>

#include "nmt/check.h"
#include "nmt/cpu_features.h"
#include "nmt/error.h"
#include "nmt/format.h"

namespace nmt::train {
namespace {

constexpr double kMaxTimeSeconds = 100000.0 * 3600.0;  // 100,000 hours: past any real budget

}  // namespace

bool uses_bf16(Precision precision, bool is_cuda, bool cpu_trains_faster_in_bf16) {
  switch (precision) {
    case Precision::kFp32:
      return false;
    case Precision::kBf16:
      return true;
    case Precision::kAuto:
      return !is_cuda && cpu_trains_faster_in_bf16;
  }
  return false;
}

bool uses_bf16(Precision precision, bool is_cuda) {
  // LibTorch's CPU bf16 products go through oneDNN, which has no bf16 kernel below AVX-512: some
  // shapes fall back, others fail with oneDNN's own message ("could not create a primitive
  // descriptor iterator"), so bf16 is refused there before the first step.
  if (precision == Precision::kBf16 && !is_cuda && cpu_tier() < CpuTier::kAvx512) {
    throw ConfigError("train.precision",
                      std::string("bf16 on the CPU needs AVX-512 (oneDNN's bf16 kernels), above "
                                  "this CPU tier (") +
                          tier_name(cpu_tier()) + "); use fp32 or auto");
  }
  return uses_bf16(precision, is_cuda, nmt::cpu_trains_faster_in_bf16());
}

const char* best_metric_name(BestMetric metric) {
  switch (metric) {
    case BestMetric::kLoss:
      return "loss";
    case BestMetric::kBleu:
      return "bleu";
    case BestMetric::kChrf:
      return "chrf";
  }
  return "?";
}

void TrainOptions::validate() const {
  check::positive("batch_size", batch_size);
  check::non_negative("max_tokens", max_tokens);
  check::positive("epochs", epochs);
  check::non_negative("max_steps", max_steps);
  if (max_time_seconds != 0.0 &&
      !(max_time_seconds >= 1.0 && max_time_seconds <= kMaxTimeSeconds)) {
    throw ConfigError("max_time", "expected 0 (no limit) or from 1s to " +
                                      duration_text(kMaxTimeSeconds) + ", got " +
                                      format_number(max_time_seconds) + " s");
  }
  check::positive("lr", lr);
  check::positive("warmup", warmup);
  check::fraction("label_smoothing", label_smoothing);
  check::non_negative("clip_norm", clip_norm);
  check::non_negative("early_stopping", early_stopping);
  check::non_negative("threads", threads);
  check::positive("log_every", log_every);
  check::non_negative("save_every", save_every);
  check::non_negative("average_last", average_last);
  check::non_negative("keep_epochs", keep_epochs);
  check::fraction("adam_beta1", adam_beta1);
  check::fraction("adam_beta2", adam_beta2);
  check::positive("adam_eps", adam_eps);
  check::fraction("weight_decay", weight_decay);
  check::positive("update_freq", update_freq);
  check::non_negative("valid_every", valid_every);
  check::non_negative("valid_bleu_sentences", valid_bleu_sentences);
  check::positive("valid_beam_size", valid_beam_size);
  if (best_metric != BestMetric::kLoss && valid_bleu_sentences == 0) {
    throw ConfigError("best_metric",
                      std::string("\"") + best_metric_name(best_metric) +
                          "\" scores validation translations; set valid_bleu_sentences above 0");
  }
  check::file_name("init_from", init_from);
  check::positive("distributed.timeout", distributed.timeout_seconds);
  check::positive("distributed.bucket_mb", distributed.bucket_mb);
  check::device_name("device", device);
}

}  // namespace nmt::train
