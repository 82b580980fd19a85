#include "nmt/run/training.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "nmt/cpu_count.h"
#include "nmt/data/batch_plan.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/io.h"
#include "nmt/memory.h"
#include "nmt/run/data_phase.h"
#include "nmt/run/open_run.h"
#include "nmt/run/report.h"
#include "nmt/run/sampled_epochs.h"
#include "nmt/run/stop_signal.h"
#include "nmt/run/validation_scorer.h"
#include "nmt/train/checkpoint.h"
#include "nmt/train/communicator.h"
#include "nmt/train/placement.h"
#include "nmt/train/start_check.h"

namespace nmt::run {
namespace {

int64_t count_parameters(model::Transformer& model) {
  int64_t count = 0;
  for (const auto& parameter : model->parameters()) count += parameter.numel();
  return count;
}

// Weights, gradients and Adam's two moments are fp32: 16 bytes per parameter, allocated before
// the first step. Refusing here turns an allocator failure deep in LibTorch into advice.
void refuse_if_too_large(const model::TransformerOptions& options,
                         int64_t source_vocab,
                         int64_t target_vocab,
                         const c10::Device& device) {
  if (device.is_cuda()) return;  // the CUDA allocator's own failure is described on exit
  const int64_t parameters = options.parameter_count(source_vocab, target_vocab);
  const int64_t needed = parameters * 16;
  const std::optional<int64_t> available = available_host_memory();
  if (!available || needed <= *available) return;
  throw Error("model: " + format_number(static_cast<double>(parameters), 3) + " parameters need " +
              format_bytes(needed) +
              " for fp32 weights, gradients and Adam's moments, more than the " +
              format_bytes(*available) +
              " of memory available; use a smaller model (model.d_model, model.layers, "
              "model.ff_mult, text.vocab_size)");
}

struct RunSetup {
  RunDir run{""};
  std::unique_ptr<RunLock> lock;  // held until training ends: one writer per run
  Config config;
  PreparedData prepared;
  bool has_checkpoint = false;  // false: a run stopped before its first save starts over
};

// The data phase of a run whose config.json is written. A signal during it ends the process at
// once: its files are written atomically and prepare.json last, so --resume starts it again, from
// what it finished: its split, vocabularies and tokenized parts (run/split_checkpoint.h).
PreparedData run_data_phase(const Config& config, const RunDir& run, StopOnSignal& stop) {
  stop.exit_at_once("interrupted during the data phase of " + run.path() +
                    "; `nmt train --resume --out " + run.path() +
                    "` goes on from what it finished and trains");
  const std::optional<RunDir> vocabulary = vocabulary_run(config);
  return prepare_data(config, run, vocabulary ? &*vocabulary : nullptr);
}

RunSetup resumed_run(const TrainRequest& request, StopOnSignal& stop) {
  RunSetup setup{resolve_run_dir(request.run_dir, "--out"), {}, {}, {}};
  setup.lock = std::make_unique<RunLock>(setup.run);
  setup.has_checkpoint = std::filesystem::exists(setup.run.checkpoint());
  setup.config = load_config(setup.run.config(), request.overrides);
  save_config(setup.run.config(), setup.config);
  // config.json is a run's first file and prepare.json its data phase's last: a run that has the
  // one but not the other (nor a checkpoint) was stopped during its data phase.
  if (!setup.has_checkpoint && !std::filesystem::exists(setup.run.prepare_report())) {
    spdlog::info("{} was stopped during its data phase: preparing the data again",
                 setup.run.path());
    setup.prepared = run_data_phase(setup.config, setup.run, stop);
  } else {
    stop.exit_at_once("interrupted while resuming " + setup.run.path() +
                      "; nothing was lost: run the same command again");
    setup.prepared = load_prepared_data(setup.config, setup.run);
  }
  if (setup.has_checkpoint) {
    spdlog::info("resuming {}", setup.run.path());
  } else {
    spdlog::info(
        "{} has no checkpoint yet (stopped before its first save): training from the start",
        setup.run.path());
  }
  return setup;
}

RunSetup fresh_run(const TrainRequest& request, StopOnSignal& stop) {
  if (request.config_path.empty()) {
    throw ConfigError("--config: required unless --resume is given");
  }
  RunSetup setup{
      RunDir(request.run_dir.empty() ? default_run_dir(request.config_path) : request.run_dir),
      {},
      load_config(request.config_path, request.overrides),
      {}};
  const std::optional<RunDir> parent = parent_run(setup.config);
  if (parent) {
    setup.config = with_parent_model(setup.config, *parent, request.config_path);
    spdlog::info(
        "fine-tuning {}: its vocabularies and model settings replace the text (but subword "
        "sampling) and model sections of {}",
        parent->path(), request.config_path);
  }
  if (!setup.config.text.vocab_from.empty()) {
    setup.config = with_vocabulary_run(setup.config, request.config_path);
    spdlog::info("the tokenizers of {} (text.vocab_from) and its text settings are this run's",
                 setup.config.text.vocab_from);
  }
  // From the lock to config.json a signal is only noted (run_data_phase then stops), so that a
  // run directory never holds a lock without its configuration.
  stop.request_stop_instead();
  setup.lock = std::make_unique<RunLock>(setup.run);
  if (std::filesystem::exists(setup.run.checkpoint())) {
    throw ConfigError("--out: " + setup.run.path() +
                      " already holds a trained run; continue it with --resume or choose another "
                      "--out");
  }
  const std::vector<std::string> changed = data_settings_changed(setup.config, setup.run);
  if (changed.empty()) {
    save_config(setup.run.config(), setup.config);
    stop.exit_at_once("interrupted while reading the prepared data of " + setup.run.path() +
                      "; nothing was lost: run the same command again");
    spdlog::info("{} holds data prepared with these data and text settings: training on it",
                 setup.run.path());
    setup.prepared = load_prepared_data(setup.config, setup.run);
    return setup;
  }
  if (std::filesystem::exists(setup.run.prepare_report())) {
    spdlog::info("{} holds data prepared with other settings ({}): preparing it again",
                 setup.run.path(), fmt::join(changed, ", "));
    // prepare.json marks finished data: without it, a stop during the new data phase leaves a run
    // that --resume prepares again instead of training on the old data with the new settings.
    remove_tree(setup.run.prepare_report());
  }
  save_config(setup.run.config(), setup.config);
  setup.prepared = run_data_phase(setup.config, setup.run, stop);
  return setup;
}

// A rank other than 0: the run directory rank 0 prepared (or resumes), read once it is ready.
RunSetup follower_run(const TrainRequest& request, const std::string& run_dir) {
  RunSetup setup{RunDir(run_dir), {}, {}, {}};
  setup.config = load_config(setup.run.config(), request.overrides);
  setup.prepared = load_prepared_data(setup.config, setup.run);
  setup.has_checkpoint = request.is_resume && std::filesystem::exists(setup.run.checkpoint());
  return setup;
}

// The configuration every rank reads before the ranks meet: it decides their device and backend.
Config job_config(const TrainRequest& request) {
  if (request.is_resume) {
    return load_config(resolve_run_dir(request.run_dir, "--out").config(), request.overrides);
  }
  if (request.config_path.empty()) {
    throw ConfigError("--config: required unless --resume is given");
  }
  return load_config(request.config_path, request.overrides);
}

// Joins the job when a launcher's environment says this process is one of its ranks.
std::shared_ptr<train::Communicator> join_request_job(const TrainRequest& request) {
  if (!train::placement_from_environment()) return nullptr;
  return join_job(job_config(request));
}

// Rank 0 sets the run up (lock, data phase or resume) and tells the others where it is, or why it
// failed, so that they never wait for a run that will not come.
RunSetup setup_run(const TrainRequest& request,
                   train::Communicator* communicator,
                   StopOnSignal& stop) {
  const auto lead = [&] {
    return request.is_resume ? resumed_run(request, stop) : fresh_run(request, stop);
  };
  if (!communicator) return lead();
  std::optional<RunSetup> led;
  const std::string run_dir = directory_from_leader(*communicator, "start the run", [&] {
    led = lead();
    return led->run.path();
  });
  if (led) return std::move(*led);
  return follower_run(request, run_dir);
}

void log_outcome(const TrainOutcome& outcome) {
  const train::TrainResult& result = outcome.result;
  switch (result.reason) {
    case train::StopReason::kFinished:
    case train::StopReason::kEarlyStopped:
    case train::StopReason::kStepLimit:
    case train::StopReason::kTimeLimit:
      spdlog::info("{}; {} steps in {}, {:.0f} target tokens/s. Model in {}", result.message,
                   result.progress.step, format_clock(result.progress.train_seconds),
                   static_cast<double>(result.progress.target_tokens) /
                       std::max(result.progress.train_seconds, 1e-9),
                   outcome.run.path());
      return;
    case train::StopReason::kInterrupted:
      spdlog::warn("{}", result.message);
      return;
    case train::StopReason::kDiverged:
      spdlog::error("{}", result.message);
      return;
  }
}

// Where subword sampling writes an epoch's token ids: one file per rank, as ranks may share the
// run directory.
std::string sampled_token_file(const RunDir& run, const train::Communicator* communicator) {
  const int rank = communicator ? communicator->rank() : 0;
  return (std::filesystem::path(run.path()) / ("train.sampled." + std::to_string(rank) + ".ids"))
      .string();
}

// Subword sampling, where the configuration asks for it; the next epoch sampled while one trains
// where training leaves cores idle: on a GPU, or on fewer threads than the machine has.
std::unique_ptr<SampledEpochs> sampled_epochs(const Config& config,
                                              const RunSetup& setup,
                                              const TrainingStart& start,
                                              const train::Communicator* communicator) {
  const std::optional<text::SubwordSampling> sampling = text::subword_sampling(config.text);
  if (!sampling) return nullptr;
  const int64_t cores = usable_cpu_count();
  const int64_t ranks_here = communicator ? communicator->placement().local_world_size : 1;
  SampledEpochsOptions options;
  options.sampling = *sampling;
  options.seed = config.train.seed;
  options.ahead = start.device.is_cuda() || start.threads * ranks_here < cores;
  options.last_epoch = config.train.epochs - 1;
  return std::make_unique<SampledEpochs>(setup.run, sampled_token_file(setup.run, communicator),
                                         setup.prepared.tokenizers, options);
}

}  // namespace

c10::Device rank_device(const Config& config, const train::RankPlacement& placement) {
  const c10::Device device = resolve_device(config.train.device, "train.device");
  if (!device.is_cuda()) return device;
  const auto gpus = static_cast<int>(torch::cuda::device_count());
  if (placement.local_rank >= gpus) {
    // Found on an H100 machine: two local ranks on one GPU ended in "CUDA error: invalid device
    // ordinal" from the second.
    throw ConfigError(
        "train.device",
        fmt::format("\"{}\" puts each rank on a GPU of its own, but rank {} of {} is number {} "
                    "of the {} on a machine with {} CUDA device{}; start at most {} rank{} per "
                    "machine, or train on the CPU (--device cpu)",
                    config.train.device, placement.rank, placement.world_size,
                    placement.local_rank + 1, placement.local_world_size, gpus,
                    gpus == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s"));
  }
  return {c10::kCUDA, static_cast<c10::DeviceIndex>(placement.local_rank)};
}

int64_t rank_threads(int64_t configured, const train::RankPlacement& placement) {
  if (configured > 0) return configured;
  const int64_t cores = usable_cpu_count();
  return std::max<int64_t>(1, cores / placement.local_world_size);
}

std::string directory_from_leader(train::Communicator& communicator,
                                  const std::string& task,
                                  const std::function<std::string()>& lead) {
  train::LeaderOutcome outcome;
  if (communicator.is_leader()) {
    try {
      outcome = {true, lead()};
    } catch (const std::exception& error) {
      outcome = {false, error.what()};
      communicator.share_from_leader("directory", outcome);
      throw;
    }
    communicator.share_from_leader("directory", outcome);
    return outcome.text;
  }
  communicator.share_from_leader("directory", outcome);
  if (!outcome.succeeded)
    throw Error("distributed: rank 0 could not " + task + ": " + outcome.text);
  return outcome.text;
}

std::shared_ptr<train::Communicator> join_job(const Config& config) {
  const std::optional<train::RankPlacement> placement = train::placement_from_environment();
  if (!placement) return nullptr;
  if (!placement->is_leader()) spdlog::set_level(spdlog::level::warn);  // rank 0 speaks for all
  const c10::Device device = rank_device(config, *placement);
  make_current_device(device);
  auto communicator =
      std::make_shared<train::Communicator>(*placement, config.train.distributed, device);
  spdlog::info("distributed: {} ranks ({}), rendezvous at {}:{}", placement->world_size,
               communicator->backend_name(), placement->master_addr, placement->master_port);
  return communicator;
}

TrainOutcome train_run(const TrainRequest& request) {
  // Signals are handled from here to the end; before training nothing needs saving.
  StopOnSignal stop;
  stop.exit_at_once("interrupted before the run began; nothing was written");
  const std::shared_ptr<train::Communicator> communicator = join_request_job(request);
  RunSetup setup = setup_run(request, communicator.get(), stop);
  stop.request_stop_instead();
  const Config& config = setup.config;
  const text::TokenizerPair& tokenizers = setup.prepared.tokenizers;
  const bool is_fine_tuning = !setup.has_checkpoint && !config.train.init_from.empty();
  TrainingStart start = start_training(
      config, tokenizers, communicator.get(),
      is_fine_tuning ? pick_checkpoint(resolve_run_dir(config.train.init_from, "--init-from"), "")
                     : "");
  const c10::Device device = start.device;
  model::Transformer& model = start.model;
  train::TrainerSetup trainer_setup{
      config.train,
      setup.run,
      config_to_json(config).dump(),
      device,
      request.is_terminal,
      communicator,
      make_validation_scorer(config, tokenizers, setup.prepared.splits.valid, device)};
  const std::unique_ptr<SampledEpochs> sampled =
      sampled_epochs(config, setup, start, communicator.get());
  if (sampled) {
    trainer_setup.encode_epoch = [&sampled](int64_t epoch) { return sampled->epoch(epoch); };
  }
  train::Trainer trainer(model, trainer_setup, setup.prepared.train_ids, setup.prepared.valid_ids);
  if (setup.has_checkpoint) {
    trainer.resume(setup.run.checkpoint());
    spdlog::info("resumed at epoch {}, batch {}, step {}", trainer.progress().epoch + 1,
                 trainer.progress().batch, trainer.progress().step);
  }
  if (communicator) train::check_ranks_start_alike(*communicator, trainer);
  const bool is_writer = !communicator || communicator->is_leader();
  if (is_writer) {
    try {
      update_latest_link(setup.run);
    } catch (const std::filesystem::filesystem_error& error) {
      // A convenience link is no reason to lose a training.
      spdlog::warn("{}; runs/latest still points where it did", error.what());
    }
  }

  TrainOutcome outcome{setup.run, {}};
  const double seconds_before = trainer.progress().train_seconds;
  outcome.result = trainer.run(stop.requested());
  if (!is_writer) return outcome;
  if (communicator) {
    const double seconds = outcome.result.progress.train_seconds - seconds_before;
    if (seconds > 0.0) {
      spdlog::info(
          "distributed: {} ranks; rank 0 spent {:.1f} s of {:.1f} s training in collectives "
          "({:.0f}%)",
          communicator->world_size(), communicator->collective_seconds(), seconds,
          100.0 * std::min(1.0, communicator->collective_seconds() / seconds));
    }
  }
  try {
    write_report(setup.run, setup.run.report());
  } catch (const std::exception& error) {
    spdlog::warn("could not write {}: {}", setup.run.report(), error.what());
  }
  log_outcome(outcome);
  return outcome;
}

TrainingStart start_training(const Config& config,
                             const text::TokenizerPair& tokenizers,
                             const train::Communicator* communicator,
                             const std::string& parent_weights) {
  TrainingStart start;
  start.threads =
      set_threads(communicator ? rank_threads(config.train.threads, communicator->placement())
                               : config.train.threads);
  start.device = communicator ? rank_device(config, communicator->placement())
                              : resolve_device(config.train.device, "train.device");
  torch::manual_seed(config.train.seed);
  refuse_if_too_large(config.model, tokenizers.source->size(), tokenizers.target->size(),
                      start.device);
  start.model =
      model::Transformer(config.model, tokenizers.source->size(), tokenizers.target->size());
  start.model->to(start.device);
  // "device cpu, 1 thread"; on a GPU the threads are the CPU's ("device cuda:0, 16 CPU threads").
  const std::string thread_count = std::to_string(start.threads) +
                                   (start.device.is_cpu() ? "" : " CPU") +
                                   (start.threads == 1 ? " thread" : " threads");
  spdlog::info("model: {} parameters, d_model {}, {}+{} layers, {} heads, {}-norm; device {}, {}",
               count_parameters(start.model), config.model.d_model, config.model.encoder_depth(),
               config.model.decoder_depth(), config.model.heads,
               config.model.norm == model::NormPosition::kPre ? "pre" : "post", start.device.str(),
               thread_count);
  if (!parent_weights.empty()) {
    train::load_checkpoint(parent_weights, start.model, nullptr, start.device,
                           /*restore_rng=*/false);
    spdlog::info("starting from the weights of {} (fresh optimiser and schedule)", parent_weights);
  }
  return start;
}

int exit_status(train::StopReason reason) {
  switch (reason) {
    case train::StopReason::kFinished:
    case train::StopReason::kEarlyStopped:
    case train::StopReason::kStepLimit:
    case train::StopReason::kTimeLimit:
      return 0;
    case train::StopReason::kInterrupted:
      return 130;
    case train::StopReason::kDiverged:
      return 1;
  }
  return 1;
}

std::string default_run_dir(const std::string& config_path) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return "runs/" + std::filesystem::path(config_path).stem().string() + "-" + stamp;
}

}  // namespace nmt::run
