// Training hyperparameters (the "train" section of the configuration). Defaults are the notebook's.
// Kept apart from trainer.h so that code reading configurations does not compile LibTorch.
// Torch-free; validate() throws ConfigError naming the field.
#pragma once

#include <cstdint>
#include <string>

namespace nmt::train {

enum class Schedule {
  kConstant,     // lr throughout (the notebook)
  kInverseSqrt,  // linear warmup to lr, then lr * sqrt(warmup / step) (Vaswani et al. 2017, 5.3)
};

// Arithmetic of the forward and backward passes. bf16 autocast runs the matrix products in bf16
// while master weights, Adam, the loss, softmax and layer norms stay fp32; bf16 has fp32's range,
// so unlike fp16 it needs no loss scaling. `auto` means bf16 on a CPU where it measured faster
// (nmt::cpu_trains_faster_in_bf16(): AMX, or AVX512-BF16 on AMD's Zen 4) and fp32 everywhere else:
// on Intel's AVX512-BF16 without AMX fp32 measured 1.4x faster, on CUDA bf16 measured slower for
// nmt's model sizes, and CPUs without the instructions emulate bf16 slowly
// (docs/performance.md, "Precision auto, by CPU").
enum class Precision { kAuto, kFp32, kBf16 };

// True when a pass on CUDA (is_cuda) or on a CPU where bf16 trains faster or not runs under bf16
// autocast.
bool uses_bf16(Precision precision, bool is_cuda, bool cpu_trains_faster_in_bf16);
// The same on this machine's processor. Throws ConfigError for bf16 on a CPU below AVX-512.
bool uses_bf16(Precision precision, bool is_cuda);

// Collective communication between the ranks of a distributed job (c10d): Gloo between CPU ranks,
// NCCL between CUDA ranks; auto picks by device.
enum class Backend { kAuto, kGloo, kNccl };

// What chooses best.pt and drives early stopping: the validation loss (lower is better), or the
// BLEU or chrF of the validation translations (higher is better).
enum class BestMetric { kLoss, kBleu, kChrf };

// "loss", "bleu" or "chrf".
const char* best_metric_name(BestMetric metric);

struct DistributedOptions {
  Backend backend = Backend::kAuto;
  // Seconds a rank waits for the others in a collective before it gives up: a dead or hung rank
  // stops the job within this time. Rank 0 validates and saves while the others wait, so it must
  // exceed the longest validation.
  double timeout_seconds = 600.0;
  // Gradients are all-reduced in buckets of at most this many MB (fairseq's --bucket-cap-mb).
  double bucket_mb = 32.0;
};

struct TrainOptions {
  int64_t batch_size = 128;  // sentences per batch (when max_tokens is 0)
  int64_t max_tokens = 0;    // >0: batches cut by padded target tokens, length-bucketed
  int64_t epochs = 10;       // passes over the training split
  int64_t max_steps = 0;     // stop after this many updates (checkpoint saved); 0 disables
  // Training time budget in seconds (train.max_time, written "40m", "2h", "1h30m"): training stops
  // at the first update that would begin after this much training time, counted across resumes
  // (TrainingState::train_seconds: the updates' own time, not validation or checkpoint writes),
  // then validates, averages and reports as at a normal end. 0 disables.
  double max_time_seconds = 0.0;
  double lr = 5e-4;  // Adam learning rate (peak, with a schedule)
  Schedule schedule = Schedule::kConstant;
  int64_t warmup = 4000;          // steps of linear warmup for inverse_sqrt
  double label_smoothing = 0.05;  // epsilon of label-smoothed cross-entropy; 0 disables
  double clip_norm = 0.0;         // clip the global gradient norm to this; 0 disables
  int64_t early_stopping = 0;     // stop after this many validations without a better best_metric;
                                  // 0 disables
  uint64_t seed = 23;             // initialisation, dropout and batch order
  std::string device = "auto";    // "cpu", "cuda", "cuda:N" or "auto" (CUDA when present)
  int64_t threads = 0;            // CPU threads; 0 = all cores
  int64_t log_every = 50;         // steps between progress records
  int64_t save_every = 0;         // steps between mid-epoch checkpoints; 0 = end of each epoch only
  int64_t average_last = 0;  // also write averaged.pt, the mean of the last N epoch checkpoints
  // Epoch weights (epoch-K.pt) kept for `nmt average` beyond the average_last that averaged.pt
  // needs (fairseq's --keep-last-epochs): the run keeps the last max(average_last, keep_epochs).
  int64_t keep_epochs = 0;
  Precision precision = Precision::kAuto;  // auto, fp32 or bf16 autocast (see Precision)
  double adam_beta1 = 0.9;                 // Adam's first-moment decay
  double adam_beta2 = 0.999;               // Adam's second-moment decay
  double adam_eps = 1e-8;                  // Adam's denominator epsilon
  double weight_decay = 0.0;  // AdamW's decoupled weight decay (times lr per step); 0 = Adam
  // Batches whose gradients are summed into one update (gradient accumulation; fairseq's
  // --update-freq, Marian's --optimizer-delay). With R ranks an update covers R x update_freq
  // batches of the epoch's plan.
  int64_t update_freq = 1;
  // Steps between validations (and checkpoints with them); 0 = at the end of each epoch.
  int64_t valid_every = 0;
  BestMetric best_metric = BestMetric::kLoss;
  // Validation also translates up to this many validation sentences and scores them (BLEU and
  // chrF, logged and charted); 0 = loss only. Needed by best_metric bleu or chrf.
  int64_t valid_bleu_sentences = 500;
  // Validation translations: 1 = greedy (fast), more = beam search of that width with
  // decode.length_penalty.
  int64_t valid_beam_size = 1;
  DistributedOptions distributed;
  // A trained run to fine-tune: a fresh run starts from its weights (best checkpoint) and reuses
  // its vocabularies and model settings, with a new optimiser and schedule. Empty: from scratch.
  std::string init_from;

  void validate() const;
};

}  // namespace nmt::train
