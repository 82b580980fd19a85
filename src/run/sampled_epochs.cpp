#include "nmt/run/sampled_epochs.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>
#include <vector>

#include "nmt/data/batch_plan.h"
#include "nmt/data/dataset.h"
#include "nmt/data/read_ahead.h"
#include "nmt/io.h"

namespace nmt::run {
namespace {

constexpr std::size_t kChunkPairs = std::size_t{1} << 16;

// Thrown inside a sampling ahead that is no longer wanted, to leave it at the next pair.
struct SamplingStopped {};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SampledEpochs::SampledEpochs(RunDir run,
                             std::string token_file,
                             text::TokenizerPair tokenizers,
                             SampledEpochsOptions options)
    : run_(std::move(run)),
      token_file_(std::move(token_file)),
      tokenizers_(std::move(tokenizers)),
      options_(options) {
  // Checked now rather than on the first sampling, which may be on another thread.
  data::SubwordSampler(tokenizers_, options_.sampling, options_.seed, 0);
}

SampledEpochs::~SampledEpochs() {
  stop_ahead();
  remove_tree(token_file_);
}

void SampledEpochs::stop_ahead() {
  if (!ahead_.valid()) return;
  stopping_ = true;
  ahead_.wait();
  ahead_ = {};
  ahead_epoch_ = -1;
  stopping_ = false;
}

data::EncodedCorpus SampledEpochs::epoch(int64_t epoch) {
  Sampled sampled;
  if (ahead_.valid() && ahead_epoch_ == epoch) {
    const auto start = std::chrono::steady_clock::now();
    sampled = ahead_.get();
    ahead_epoch_ = -1;
    spdlog::info(
        "epoch {}: subword samples drawn during the last epoch in {:.1f} s; waited {:.1f} s",
        epoch + 1, sampled.seconds, seconds_since(start));
  } else {
    stop_ahead();  // for another epoch: a resumed run's first call
    sampled = sample(epoch, /*on_intra_op_threads=*/true);
    spdlog::info("epoch {}: subword samples drawn in {:.1f} s", epoch + 1, sampled.seconds);
  }
  const int64_t next = epoch + 1;
  if (options_.ahead && (options_.last_epoch < 0 || next <= options_.last_epoch)) {
    ahead_epoch_ = next;
    ahead_ = std::async(std::launch::async,
                        [this, next] { return sample(next, /*on_intra_op_threads=*/false); });
  }
  return std::move(sampled.pairs);
}

SampledEpochs::Sampled SampledEpochs::sample(int64_t epoch, bool on_intra_op_threads) {
  const auto start = std::chrono::steady_clock::now();
  data::PairFileReader reader(run_.split(Split::kTrain));
  data::TokenFileWriter writer(token_file_, tokenizers_.source->size(), tokenizers_.target->size());
  const data::SubwordSampler sampler(tokenizers_, options_.sampling, options_.seed, epoch);
  std::size_t first = 0;
  try {
    data::visit_chunks(reader, kChunkPairs, [&](const std::vector<data::SentencePair>& chunk) {
      if (on_intra_op_threads) {
        const data::EncodedCorpus encoded =
            data::sample_pairs(chunk, tokenizers_, options_.sampling, options_.seed, epoch, first);
        for (std::size_t i = 0; i < encoded.size(); ++i) {
          const data::EncodedPair pair = encoded.pair(i);
          writer.add(pair.source, pair.target);
        }
      } else {
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          if (stopping_) throw SamplingStopped{};
          const data::EncodedPair pair = sampler.sample(chunk[i], first + i);
          writer.add(pair.source, pair.target);
        }
      }
      first += chunk.size();
    });
  } catch (const SamplingStopped&) {
    return {};  // the writer, not committed, leaves the previous epoch's file as it was
  }
  writer.commit();
  return {data::EncodedCorpus::map(token_file_), seconds_since(start)};
}

}  // namespace nmt::run
