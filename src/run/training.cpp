#include "nmt/run/training.h"

#include <spdlog/spdlog.h>
#include <torch/utils.h>

#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>

#include "nmt/data/batcher.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/format.h"
#include "nmt/memory.h"
#include "nmt/run/data_phase.h"
#include "nmt/run/open_run.h"
#include "nmt/run/report.h"
#include "nmt/run/stop_signal.h"

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

RunSetup resumed_run(const TrainRequest& request) {
  RunSetup setup{resolve_run_dir(request.run_dir, "--out"), {}, {}, {}};
  setup.lock = std::make_unique<RunLock>(setup.run);
  // config.json is written after the splits and vocabularies, so a run that has it but no
  // checkpoint was stopped between its data phase and its first save: it starts from step 0.
  setup.has_checkpoint = std::filesystem::exists(setup.run.checkpoint());
  setup.config = resolve_config(read_config_json(setup.run.config()), request.overrides);
  save_config(setup.run.config(), setup.config);
  setup.prepared = load_prepared_data(setup.config, setup.run);
  if (setup.has_checkpoint) {
    spdlog::info("resuming {}", setup.run.path());
  } else {
    spdlog::info(
        "{} has no checkpoint yet (stopped before its first save): training from the start",
        setup.run.path());
  }
  return setup;
}

RunSetup fresh_run(const TrainRequest& request) {
  if (request.config_path.empty()) {
    throw ConfigError("--config: required unless --resume is given");
  }
  RunSetup setup{
      RunDir(request.run_dir.empty() ? default_run_dir(request.config_path) : request.run_dir),
      {},
      resolve_config(read_config_json(request.config_path), request.overrides),
      {}};
  setup.lock = std::make_unique<RunLock>(setup.run);
  if (std::filesystem::exists(setup.run.checkpoint())) {
    throw ConfigError("--out: " + setup.run.path() +
                      " already holds a trained run; continue it with --resume or choose another "
                      "--out");
  }
  setup.prepared = prepare_data(setup.config, setup.run);
  return setup;
}

void log_outcome(const TrainOutcome& outcome) {
  const train::TrainResult& result = outcome.result;
  switch (result.reason) {
    case train::StopReason::kFinished:
    case train::StopReason::kEarlyStopped:
    case train::StopReason::kStepLimit:
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

}  // namespace

TrainOutcome train_run(const TrainRequest& request) {
  RunSetup setup = request.is_resume ? resumed_run(request) : fresh_run(request);
  const Config& config = setup.config;
  const int64_t threads = set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  torch::manual_seed(config.train.seed);
  const text::TokenizerPair& tokenizers = setup.prepared.tokenizers;
  refuse_if_too_large(config.model, tokenizers.source->size(), tokenizers.target->size(), device);
  model::Transformer model(config.model, tokenizers.source->size(), tokenizers.target->size());
  model->to(device);
  spdlog::info(
      "model: {} parameters, d_model {}, {}+{} layers, {} heads, {}-norm; device {}, {} threads",
      count_parameters(model), config.model.d_model, config.model.layers, config.model.layers,
      config.model.heads, config.model.norm == model::NormPosition::kPre ? "pre" : "post",
      describe_device(device), threads);

  train::TrainerSetup trainer_setup{config.train, setup.run, config_to_json(config).dump(), device,
                                    request.is_terminal};
  train::Trainer trainer(model, trainer_setup,
                         data::encode_pairs(setup.prepared.splits.train, tokenizers),
                         data::encode_pairs(setup.prepared.splits.valid, tokenizers));
  if (setup.has_checkpoint) {
    trainer.resume(setup.run.checkpoint());
    spdlog::info("resumed at epoch {}, batch {}, step {}", trainer.progress().epoch + 1,
                 trainer.progress().batch, trainer.progress().step);
  }
  update_latest_link(setup.run);

  TrainOutcome outcome{setup.run, {}};
  {
    const StopOnSignal stop;
    outcome.result = trainer.run(stop.requested());
  }
  try {
    write_report(setup.run, setup.run.report());
  } catch (const std::exception& error) {
    spdlog::warn("could not write {}: {}", setup.run.report(), error.what());
  }
  log_outcome(outcome);
  return outcome;
}

int exit_status(train::StopReason reason) {
  switch (reason) {
    case train::StopReason::kFinished:
    case train::StopReason::kEarlyStopped:
    case train::StopReason::kStepLimit:
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
