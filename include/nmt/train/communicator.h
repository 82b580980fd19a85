// The collectives data-parallel training needs, on PyTorch's distributed engine (c10d): a
// TCPStore at rank 0's address for the rendezvous, then ProcessGroupGloo between CPU ranks or
// ProcessGroupNCCL between CUDA ranks (when LibTorch was built with it). Gradients are summed in
// buckets of flattened tensors on top of the process group's all-reduce, which builds against
// LibTorch 1.13 and 2.x alike (DDP's Reducer does not).
//
// A collective that fails throws nmt::Error naming this rank and the operation, and saying whether
// another rank failed (it died or was killed: its sockets close; it hangs: the timeout passes) or
// this rank could not do its part. Under torchrun every key of the rendezvous store carries the
// attempt's prefix (RankPlacement::store_prefix), so a restarted job never reads an earlier
// attempt's values.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nmt/train/options.h"
#include "nmt/train/placement.h"

namespace nmt::train {

// How often a rank waiting for rank 0's published value looks for it.
inline constexpr std::chrono::milliseconds kLeaderPollInterval{100};
// How long a rank 0 that publishes an error waits for the other ranks to have read it before it
// goes on (to exit, taking the store with it).
inline constexpr std::chrono::seconds kErrorReadWait{10};

// Gloo for CPU ranks, NCCL for CUDA ranks, unless options name one.
Backend resolve_backend(Backend requested, const c10::Device& device);

// Whether this build has c10d's Gloo process group (CPU ranks) and NCCL process group (CUDA ranks).
bool has_gloo();
bool has_nccl();

// What rank 0 publishes for the other ranks: the value it produced (e.g. the run directory it
// chose), or the message of the error that kept it from one.
struct LeaderOutcome {
  bool succeeded = false;
  std::string text;  // the value, or the error's message
};

class Communicator {
 public:
  // Blocks until every rank has joined (or the timeout passes).
  Communicator(const RankPlacement& placement,
               const DistributedOptions& options,
               const c10::Device& device);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  const RankPlacement& placement() const { return placement_; }
  int rank() const { return placement_.rank; }
  int world_size() const { return placement_.world_size; }
  bool is_leader() const { return placement_.is_leader(); }
  const char* backend_name() const;

  // Sums the tensors over all ranks, in place. Consecutive tensors of one dtype are flattened
  // into buckets of at most distributed.bucket_mb, each all-reduced and copied back. `what` names
  // them in errors.
  void sum(const std::vector<at::Tensor>& tensors, const std::string& what);
  // Replaces the tensors with rank 0's.
  void broadcast_from_leader(const std::vector<at::Tensor>& tensors);
  // True when every element of every tensor is the same, bit for bit, on every rank.
  bool identical_on_all_ranks(const std::vector<at::Tensor>& tensors);
  // The smallest and the largest value of each element over all ranks (a 1-D tensor of integers).
  std::pair<at::Tensor, at::Tensor> range_over_ranks(const at::Tensor& values,
                                                     const std::string& what);
  // Rank 0 publishes its outcome under `key`; the others wait for it as long as rank 0 lives,
  // however long it takes (not bounded by distributed.timeout), and get it in `outcome`. An error
  // is published and then waited on until every other rank has read it (at most kErrorReadWait):
  // rank 0 exits next, and its store, which the others read from, goes with it.
  void share_from_leader(const std::string& key, LeaderOutcome& outcome);

  // Wall time spent in collectives so far.
  double collective_seconds() const { return collective_seconds_; }

 private:
  struct Group;
  // Until the other ranks have counted themselves under readers_key, or kErrorReadWait passed.
  void wait_for_readers(const std::string& readers_key);

  RankPlacement placement_;
  DistributedOptions options_;
  std::unique_ptr<Group> group_;
  double collective_seconds_ = 0.0;
};

}  // namespace nmt::train
