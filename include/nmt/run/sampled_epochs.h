// The training split's segmentations for each epoch of subword sampling (text.sampling_alpha,
// text.bpe_dropout), sampled from the run's train.tsv a chunk at a time into a token file that is
// then mapped, so that the split's text is never held. With cores to spare (training on a GPU, or
// on fewer CPU threads than the machine has), epoch e + 1 is sampled on a thread of its own while
// epoch e trains, and an epoch starts with its segmentations ready; without, an epoch's are
// sampled when it starts, on LibTorch's intra-op threads, where a thread of its own would only
// take cores from training. Either way the same ids (data::SubwordSampler), so a run trains the
// same on any machine and resumes as it would have gone on.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <string>

#include "nmt/data/encoded_corpus.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"

namespace nmt::run {

struct SampledEpochsOptions {
  text::SubwordSampling sampling;
  uint64_t seed = 23;
  // Sample the next epoch while this one trains.
  bool ahead = false;
  // The run's last epoch (0-based), after which nothing is sampled ahead; -1: no last epoch.
  int64_t last_epoch = -1;
};

class SampledEpochs {
 public:
  // token_file: where an epoch's ids go (one per rank when ranks share a run directory); replaced
  // for each epoch, removed when this is destroyed.
  SampledEpochs(RunDir run,
                std::string token_file,
                text::TokenizerPair tokenizers,
                SampledEpochsOptions options);
  // Stops a sampling ahead at its next pair and waits for it.
  ~SampledEpochs();
  SampledEpochs(const SampledEpochs&) = delete;
  SampledEpochs& operator=(const SampledEpochs&) = delete;

  // Epoch `epoch`'s segmentations (0-based): the ones sampled ahead when they are for this epoch
  // (waiting for them to finish), else sampled now; then, with `ahead`, starts on the next epoch.
  // Logs how long the sampling took and, for an epoch sampled ahead, how long it was waited for.
  // Throws DataError when train.tsv is damaged, also for an epoch sampled ahead.
  data::EncodedCorpus epoch(int64_t epoch);

 private:
  struct Sampled {
    data::EncodedCorpus pairs;
    double seconds = 0.0;
  };

  Sampled sample(int64_t epoch, bool on_intra_op_threads);
  void stop_ahead();

  RunDir run_;
  std::string token_file_;
  text::TokenizerPair tokenizers_;
  SampledEpochsOptions options_;
  std::atomic<bool> stopping_{false};
  int64_t ahead_epoch_ = -1;
  std::future<Sampled> ahead_;
};

}  // namespace nmt::run
