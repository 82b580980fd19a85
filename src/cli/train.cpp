// nmt train: the data phase, then training with checkpoints, resume and Ctrl-C handling.
#include <atomic>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <memory>

#include <spdlog/spdlog.h>
#include <torch/utils.h>
#include <unistd.h>

#include "cli/app.h"
#include "cli/config_flags.h"
#include "cli/pipeline.h"
#include "cli/report_writer.h"
#include "cli/run_dir.h"
#include "nmt/data/batcher.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/train/progress.h"
#include "nmt/train/trainer.h"

namespace nmt::cli {
namespace {

// A signal handler can only reach static storage; this flag is the one piece of global state in nmt.
std::atomic<bool> g_stop_requested{false};

extern "C" void request_stop(int) { g_stop_requested.store(true); }

// Installs the SIGINT/SIGTERM handler for its lifetime.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_requested.store(false);
    previous_int_ = std::signal(SIGINT, request_stop);
    previous_term_ = std::signal(SIGTERM, request_stop);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void (*previous_int_)(int) = nullptr;
  void (*previous_term_)(int) = nullptr;
};

struct TrainArgs {
  std::string config_path;
  std::string out_dir;
  bool is_resume = false;
};

std::string default_run_dir(const std::string& config_path) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  return "runs/" + std::filesystem::path(config_path).stem().string() + "-" + stamp;
}

int64_t count_parameters(model::Transformer& model) {
  int64_t count = 0;
  for (const auto& parameter : model->parameters()) count += parameter.numel();
  return count;
}

int run_training(const TrainArgs& args, const ConfigFlags& flags) {
  std::string run_dir = args.out_dir;
  Config config;
  PreparedData prepared;
  if (args.is_resume) {
    run_dir = resolve_run_dir(run_dir);
    if (!std::filesystem::exists(run_dir + "/checkpoint.pt")) {
      throw CheckpointError(run_dir + "/checkpoint.pt: nothing to resume (the run has no checkpoint yet)");
    }
    config = flags.resolve(read_config_json(run_dir + "/config.json"));
    save_config(run_dir + "/config.json", config);
    prepared = load_prepared_data(config, run_dir);
    spdlog::info("resuming {}", run_dir);
  } else {
    if (args.config_path.empty()) throw ConfigError("--config: required unless --resume is given");
    config = flags.resolve(read_config_json(args.config_path));
    if (run_dir.empty()) run_dir = default_run_dir(args.config_path);
    if (std::filesystem::exists(run_dir + "/checkpoint.pt")) {
      throw ConfigError("--out: " + run_dir + " already holds a trained run; continue it with --resume or choose another --out");
    }
    prepared = prepare_data(config, run_dir);
  }

  const int64_t threads = set_threads(config.train.threads);
  const c10::Device device = resolve_device(config.train.device);
  torch::manual_seed(config.train.seed);
  model::Transformer model(config.model, prepared.tokenizers.source->size(), prepared.tokenizers.target->size());
  model->to(device);
  spdlog::info("model: {} parameters, d_model {}, {}+{} layers, {} heads, {}-norm; device {}, {} threads",
               count_parameters(model), config.model.d_model, config.model.layers, config.model.layers,
               config.model.heads, config.model.norm == model::NormPosition::kPre ? "pre" : "post",
               describe_device(device), threads);

  train::TrainerSetup setup{config.train, run_dir, config_to_json(config).dump(), device, isatty(STDERR_FILENO) == 1};
  train::Trainer trainer(model, setup, data::encode_pairs(prepared.splits.train, prepared.tokenizers),
                         data::encode_pairs(prepared.splits.valid, prepared.tokenizers));
  if (args.is_resume) {
    trainer.resume(run_dir + "/checkpoint.pt");
    spdlog::info("resumed at epoch {}, batch {}, step {}", trainer.progress().epoch + 1, trainer.progress().batch,
                 trainer.progress().step);
  }
  update_latest_link(run_dir);

  StopOnSignal stop_on_signal;
  const train::TrainResult result = trainer.run(g_stop_requested);
  try {
    write_report(run_dir, run_dir + "/report.html");
  } catch (const std::exception& error) {
    spdlog::warn("could not write {}/report.html: {}", run_dir, error.what());
  }
  switch (result.reason) {
    case train::StopReason::kFinished:
    case train::StopReason::kEarlyStopped:
    case train::StopReason::kStepLimit:
      spdlog::info("{}; {} steps in {}, {:.0f} target tokens/s. Model in {}", result.message, result.progress.step,
                   train::format_duration(result.progress.train_seconds),
                   static_cast<double>(result.progress.target_tokens) / std::max(result.progress.train_seconds, 1e-9),
                   run_dir);
      return 0;
    case train::StopReason::kInterrupted:
      spdlog::warn("{}", result.message);
      return 130;
    case train::StopReason::kDiverged:
      spdlog::error("{}", result.message);
      return 1;
  }
  return 1;
}

}  // namespace

Command add_train(CLI::App& app) {
  auto* command = app.add_subcommand(
      "train",
      "Prepare the data and train a Transformer; writes a run directory with the splits, the\n"
      "vocabularies, checkpoint.pt (latest), best.pt (best validation loss) and metrics.jsonl.\n"
      "Ctrl-C saves a checkpoint and stops; --resume continues exactly where it stopped.");
  auto args = std::make_shared<TrainArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  command->add_option("-c,--config", args->config_path, "JSON configuration file (see configs/)")
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", args->out_dir,
                      "Run directory (default: runs/<config name>-<date>-<time>; with --resume: runs/latest)");
  command->add_flag("--resume", args->is_resume,
                    "Continue the run in --out from its checkpoint.pt (model, optimiser, data position, RNG);\n"
                    "uses the run's own config.json, to which the flags below still apply (e.g. --epochs)");
  flags->add<std::string>("--device", "train.device", "cpu, cuda, cuda:N or auto");
  flags->add<int64_t>("--threads", "train.threads", "CPU threads, 0 = all cores");
  flags->add<int64_t>("--epochs", "train.epochs", "Passes over the training split");
  flags->add<int64_t>("--max-steps", "train.max_steps", "Stop after this many updates, 0 = no limit");
  flags->add<int64_t>("--batch-size", "train.batch_size", "Sentences per batch");
  flags->add<int64_t>("--max-tokens", "train.max_tokens", "Padded target tokens per batch, 0 = use --batch-size");
  flags->add<double>("--lr", "train.lr", "Adam learning rate");
  flags->add<uint64_t>("--seed", "train.seed", "Seed of initialisation, dropout and batch order");
  flags->add<std::string>("--data", "data.path", "Sentence-pair TSV file");
  command->footer(
      "Examples:\n"
      "  nmt train --config configs/quickstart.json\n"
      "  nmt train --config configs/seed.json --data ../shared/data/tatoeba-en-es/eng-spa.tsv --out runs/seed\n"
      "  nmt train --resume --out runs/seed --epochs 20");
  return {command, [args, flags] { return run_training(*args, *flags); }};
}

}  // namespace nmt::cli
