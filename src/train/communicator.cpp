#include "nmt/train/communicator.h"

#include <ATen/ATen.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <thread>

#include "nmt/error.h"
#include "torch_compat.h"

namespace nmt::train {

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds to_milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

// c10d's errors carry a C++ stack trace after their message; Gloo's are plain runtime_errors.
std::string without_backtrace(const std::exception& error) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&error)) {
    return torch_error->what_without_backtrace();
  }
  return error.what();
}

bool is_loopback(const std::string& address) {
  return address == "127.0.0.1" || address == "localhost" || address == "::1";
}

}  // namespace

bool has_gloo() {
#ifdef USE_C10D_GLOO
  return true;
#else
  return false;
#endif
}

bool has_nccl() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

Backend resolve_backend(Backend requested, const c10::Device& device) {
  if (requested != Backend::kAuto) return requested;
  return device.is_cuda() ? Backend::kNccl : Backend::kGloo;
}

struct Communicator::Group {
  c10::intrusive_ptr<::c10d::Store> store;
  c10::intrusive_ptr<compat::CollectiveBackend> backend;
  Backend kind = Backend::kGloo;
};

Communicator::Communicator(const RankPlacement& placement,
                           const DistributedOptions& options,
                           const c10::Device& device)
    : placement_(placement), options_(options), group_(std::make_unique<Group>()) {
  group_->kind = resolve_backend(options.backend, device);
  const std::string where = "rank " + std::to_string(placement.rank) + " of " +
                            std::to_string(placement.world_size) + ": ";
  if (group_->kind == Backend::kGloo && device.is_cuda()) {
    throw ConfigError("train.distributed.backend: gloo is for CPU ranks; CUDA ranks use nccl");
  }
  if (group_->kind == Backend::kNccl && !device.is_cuda()) {
    throw ConfigError("train.distributed.backend: nccl needs CUDA ranks; CPU ranks use gloo");
  }
  const auto timeout = to_milliseconds(options.timeout_seconds);
  try {
    ::c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(placement.master_port);
    // torchrun's agent already serves a store at MASTER_ADDR:MASTER_PORT and says so; otherwise
    // rank 0 serves it.
    const char* agent_store = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
    store_options.isServer =
        placement.is_leader() && !(agent_store && std::string(agent_store) == "True");
    store_options.numWorkers = static_cast<std::size_t>(placement.world_size);
    store_options.waitWorkers = true;
    store_options.timeout = timeout;
    group_->store = c10::make_intrusive<::c10d::TCPStore>(placement.master_addr, store_options);
    if (!placement.store_prefix.empty()) {
      group_->store =
          c10::make_intrusive<::c10d::PrefixStore>(placement.store_prefix, group_->store);
    }
    if (group_->kind == Backend::kGloo) {
#ifdef USE_C10D_GLOO
      auto gloo_options = ::c10d::ProcessGroupGloo::Options::create(timeout);
      // Loopback jobs talk over 127.0.0.1; others over the interface GLOO_SOCKET_IFNAME names,
      // or the one this machine's hostname resolves to, as PyTorch does.
      if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME")) {
        gloo_options->devices.push_back(
            ::c10d::ProcessGroupGloo::createDeviceForInterface(interface));
      } else if (is_loopback(placement.master_addr)) {
        gloo_options->devices.push_back(
            ::c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        gloo_options->devices.push_back(::c10d::ProcessGroupGloo::createDefaultDevice());
      }
      group_->backend = c10::make_intrusive<::c10d::ProcessGroupGloo>(
          group_->store, placement.rank, placement.world_size, gloo_options);
#else
      throw ConfigError(
          "train.distributed.backend: this nmt was built without Gloo (Debian: install "
          "libgloo-dev and rebuild)");
#endif
    } else {
#ifdef USE_C10D_NCCL
      auto nccl_options = ::c10d::ProcessGroupNCCL::Options::create();
      nccl_options->timeout = timeout;
      group_->backend = c10::make_intrusive<::c10d::ProcessGroupNCCL>(
          group_->store, placement.rank, placement.world_size, nccl_options);
#else
      throw ConfigError(
          "train.distributed.backend: this nmt was built without NCCL (LibTorch without "
          "USE_C10D_NCCL); use gloo or build against a CUDA LibTorch (scripts/gpu-build.sh)");
#endif
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {
    throw Error("distributed: " + where + "cannot join the job at " + placement.master_addr + ":" +
                std::to_string(placement.master_port) + " (" + without_backtrace(error) + ")");
  }
}

Communicator::~Communicator() = default;

const char* Communicator::backend_name() const {
  return group_->kind == Backend::kNccl ? "nccl" : "gloo";
}

namespace {

// Whether a collective's error says that the connection to another rank failed or timed out
// (Gloo: "Connection closed by peer", "Connection reset by peer", "Timed out waiting 20000ms for
// recv operation"; NCCL: "remote process exited", "collective operation timeout"), rather than
// that this rank could not do its part.
bool is_another_ranks_failure(std::string message) {
  std::transform(message.begin(), message.end(), message.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* sign : {"closed", "reset by peer", "timed out", "timeout", "broken pipe",
                           "remote process", "network error", "aborted", "refused"}) {
    if (message.find(sign) != std::string::npos) return true;
  }
  return false;
}

// Runs one collective and waits for it; failures become one nmt::Error that says who and what,
// and whether another rank failed (died, was killed, hangs) or this one.
template <class Start>
void run_collective(const RankPlacement& placement,
                    double timeout_seconds,
                    const std::string& what,
                    double& seconds,
                    Start start) {
  const std::string where = "distributed: rank " + std::to_string(placement.rank) + " of " +
                            std::to_string(placement.world_size) + ": " + what;
  const auto begin = Clock::now();
  decltype(start()) work;
  try {
    work = start();
  } catch (const std::exception& error) {
    throw Error(where + " failed on this rank, before it exchanged anything with another rank: " +
                without_backtrace(error));
  }
  try {
    work->wait();
  } catch (const std::exception& error) {
    const std::string message = without_backtrace(error);
    if (!is_another_ranks_failure(message)) {
      throw Error(where + " failed on this rank: " + message);
    }
    throw Error(where + " failed; another rank died, was killed or did not answer within " +
                std::to_string(static_cast<int64_t>(timeout_seconds)) +
                " s (train.distributed.timeout): " + message);
  }
  seconds += std::chrono::duration<double>(Clock::now() - begin).count();
}

}  // namespace

void Communicator::sum(const std::vector<at::Tensor>& tensors, const std::string& what) {
  // Every rank forms the same buckets because every rank holds the same list of shapes.
  const auto bucket_bytes = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
  std::vector<std::vector<at::Tensor>> buckets;
  int64_t bucket_size = 0;
  for (const at::Tensor& tensor : tensors) {
    const int64_t bytes = tensor.numel() * static_cast<int64_t>(tensor.element_size());
    const bool fits = !buckets.empty() && bucket_size + bytes <= bucket_bytes &&
                      buckets.back().front().scalar_type() == tensor.scalar_type() &&
                      buckets.back().front().device() == tensor.device();
    if (!fits) {
      buckets.emplace_back();
      bucket_size = 0;
    }
    buckets.back().push_back(tensor);
    bucket_size += bytes;
  }
  for (const std::vector<at::Tensor>& bucket : buckets) {
    std::vector<at::Tensor> pieces;
    pieces.reserve(bucket.size());
    for (const at::Tensor& tensor : bucket) pieces.push_back(tensor.reshape({-1}));
    // One tensor per call: a process group's list form means one tensor per local device.
    std::vector<at::Tensor> flat{at::cat(pieces)};
    run_collective(placement_, options_.timeout_seconds, "all-reduce of " + what,
                   collective_seconds_,
                   [&] { return group_->backend->allreduce(flat, ::c10d::AllreduceOptions()); });
    int64_t offset = 0;
    for (const at::Tensor& tensor : bucket) {
      tensor.copy_(flat[0].narrow(0, offset, tensor.numel()).view(tensor.sizes()));
      offset += tensor.numel();
    }
  }
}

void Communicator::broadcast_from_leader(const std::vector<at::Tensor>& tensors) {
  for (const at::Tensor& tensor : tensors) {
    run_collective(placement_, options_.timeout_seconds, "broadcast of the parameters",
                   collective_seconds_, [&] {
                     std::vector<at::Tensor> list{tensor};
                     return group_->backend->broadcast(list, ::c10d::BroadcastOptions());
                   });
  }
}

bool Communicator::identical_on_all_ranks(const std::vector<at::Tensor>& tensors) {
  // The bits of every element as integers: equal on all ranks exactly when max == min.
  std::vector<at::Tensor> pieces;
  for (const at::Tensor& tensor : tensors) {
    TORCH_CHECK(tensor.element_size() == 4, "identical_on_all_ranks compares 32-bit tensors");
    pieces.push_back(tensor.detach().reshape({-1}).view(at::kInt));
  }
  const auto [lowest, highest] = range_over_ranks(at::cat(pieces), "comparison of the parameters");
  return at::equal(highest, lowest);
}

std::pair<at::Tensor, at::Tensor> Communicator::range_over_ranks(const at::Tensor& values,
                                                                 const std::string& what) {
  at::Tensor highest = values.detach().clone();
  at::Tensor lowest = highest.clone();
  for (const auto& [flat, op] :
       {std::pair{&highest, ::c10d::ReduceOp::MAX}, std::pair{&lowest, ::c10d::ReduceOp::MIN}}) {
    at::Tensor* const target = flat;  // lambdas cannot capture structured bindings in C++17
    const auto reduce_op = op;
    run_collective(placement_, options_.timeout_seconds, what, collective_seconds_, [&] {
      std::vector<at::Tensor> list{*target};
      ::c10d::AllreduceOptions reduce;
      reduce.reduceOp = reduce_op;
      return group_->backend->allreduce(list, reduce);
    });
  }
  return {lowest, highest};
}

void Communicator::wait_for_readers(const std::string& readers_key) {
  const auto deadline = std::chrono::steady_clock::now() + kErrorReadWait;
  while (group_->store->add(readers_key, 0) < world_size() - 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kLeaderPollInterval);
  }
}

void Communicator::share_from_leader(const std::string& key, LeaderOutcome& outcome) {
  // A value and an error go under keys of their own: the stored bytes need no marker.
  const std::string error_key = key + "/error";
  const std::string readers_key = key + "/read";
  try {
    if (is_leader()) {
      group_->store->set(outcome.succeeded ? key : error_key,
                         std::vector<uint8_t>(outcome.text.begin(), outcome.text.end()));
      if (!outcome.succeeded) wait_for_readers(readers_key);
      return;
    }
    // As long as rank 0 takes (its data phase may train SentencePiece on a large corpus for far
    // longer than train.distributed.timeout) and lives: a dead rank 0 takes its store with it,
    // and the next check fails.
    for (;; std::this_thread::sleep_for(kLeaderPollInterval)) {
      if (group_->store->check({key})) {
        outcome.succeeded = true;
        break;
      }
      if (group_->store->check({error_key})) {
        outcome.succeeded = false;
        break;
      }
    }
    const std::vector<uint8_t> bytes = group_->store->get(outcome.succeeded ? key : error_key);
    outcome.text.assign(bytes.begin(), bytes.end());
    group_->store->add(readers_key, 1);
  } catch (const std::exception& error) {
    throw Error("distributed: rank " + std::to_string(rank()) + " of " +
                std::to_string(world_size()) + ": waiting for rank 0's " + key +
                " failed; rank 0 died or its store cannot be reached (" + without_backtrace(error) +
                ")");
  }
}

}  // namespace nmt::train
