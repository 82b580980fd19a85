// The files of a run directory, named in one place. `nmt train` writes a run; translate, eval,
// attention, report and bench read it:
//
//   config.json       the resolved configuration        checkpoint.pt   latest full training state
//   train/valid/test.tsv  the cleaned split             best.pt         best validated weights
//   train/valid.ids   their token ids (data/encoded_corpus.h)
//   prepare.json      counts of the data phase          averaged.pt     mean of the last epochs
//   metrics.jsonl     one JSON record per log line      epoch-N.pt      weights after epoch N
//   report.html       curves and configuration          vocab.*.txt / spm*.model (text/tokenizer.h)
//   train.lock        held by the one `nmt train` writing the run (RunLock)
//
// RunDir is a value type that only builds paths; RunLock is the one thing here that touches the
// file system. Torch-free; never logs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace nmt {

// A run's held-out or training split.
enum class Split { kTrain, kValid, kTest };

// "train", "valid" or "test".
const char* split_name(Split split);

class RunDir {
 public:
  explicit RunDir(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // path/name, for files named elsewhere (tokenizers) or chosen by the user (--checkpoint).
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  std::string config() const { return file("config.json"); }
  std::string prepare_report() const { return file("prepare.json"); }
  std::string split(Split split) const { return file(std::string(split_name(split)) + ".tsv"); }
  std::string token_file(Split split) const {
    return file(std::string(split_name(split)) + ".ids");
  }
  std::string metrics() const { return file("metrics.jsonl"); }
  std::string report() const { return file("report.html"); }
  std::string lock() const { return file("train.lock"); }
  std::string checkpoint() const { return file(kCheckpoint); }
  std::string best() const { return file(kBest); }
  std::string averaged() const { return file(kAveraged); }
  // Weights saved after epoch (1-based) when train.average_last is set.
  std::string epoch_weights(int64_t epoch) const {
    return file("epoch-" + std::to_string(epoch) + ".pt");
  }

  // Checkpoint file names, in the order translation prefers them.
  static constexpr const char* kAveraged = "averaged.pt";
  static constexpr const char* kBest = "best.pt";
  static constexpr const char* kCheckpoint = "checkpoint.pt";

 private:
  std::string path_;
};

// One writer per run: an advisory lock (flock) on the run's train.lock, held while the object
// lives. The kernel releases it when the process ends, however it ends, so a lock left by a
// killed training never blocks the next one. Creates the run directory if needed; throws
// nmt::Error naming the run and the process holding it when another process has the lock.
class RunLock {
 public:
  explicit RunLock(const RunDir& run);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

// The run `nmt translate` and friends use when no --model is given.
inline constexpr const char* kLatestRunLink = "runs/latest";

}  // namespace nmt
