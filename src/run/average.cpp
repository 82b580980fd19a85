#include "nmt/run/average.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <utility>

#include "nmt/error.h"
#include "nmt/model/transformer.h"
#include "nmt/run/config.h"
#include "nmt/run/open_run.h"
#include "nmt/text/tokenizer.h"
#include "nmt/train/checkpoint.h"

namespace nmt::run {

namespace fs = std::filesystem;

std::vector<std::string> epoch_checkpoints(const RunDir& run) {
  static const std::regex kEpochFile(R"(epoch-([0-9]{1,9})\.pt)");
  std::vector<std::pair<int64_t, std::string>> epochs;
  for (const fs::directory_entry& entry : fs::directory_iterator(run.path())) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (entry.is_regular_file() && std::regex_match(name, match, kEpochFile)) {
      epochs.emplace_back(std::stoll(match[1].str()), run.file(name));
    }
  }
  std::sort(epochs.begin(), epochs.end());
  std::vector<std::string> paths;
  for (auto& epoch : epochs) paths.push_back(std::move(epoch.second));
  return paths;
}

std::string file_names(const std::vector<std::string>& paths, const std::string& separator) {
  std::string names;
  for (const std::string& path : paths) {
    names += (names.empty() ? "" : separator) + fs::path(path).filename().string();
  }
  return names;
}

namespace {

std::vector<std::string> pick_inputs(const RunDir& run, const AverageRequest& request) {
  if (request.last != 0 && !request.checkpoints.empty()) {
    throw ConfigError("average: give checkpoint files or --last N, not both");
  }
  if (request.last == 0) {
    if (request.checkpoints.size() < 2) {
      throw ConfigError("average: give at least two checkpoints to average, or --last N");
    }
    std::vector<std::string> paths;
    for (const std::string& name : request.checkpoints) {
      const std::string path = pick_checkpoint(run, name);
      for (const std::string& earlier : paths) {
        if (fs::equivalent(earlier, path)) {
          throw ConfigError("average: " + name + " is given twice (each checkpoint counts once)");
        }
      }
      paths.push_back(path);
    }
    return paths;
  }
  if (request.last < 2) {
    throw ConfigError("--last " + std::to_string(request.last) +
                      ": averaging needs at least 2 checkpoints");
  }
  std::vector<std::string> epochs = epoch_checkpoints(run);
  if (static_cast<int64_t>(epochs.size()) < request.last) {
    throw ConfigError("--last " + std::to_string(request.last) + ": " + run.path() + " has " +
                      std::to_string(epochs.size()) + " epoch checkpoints" +
                      (epochs.empty() ? "" : " (" + file_names(epochs, ", ") + ")") +
                      "; training keeps the last max(train.average_last, train.keep_epochs) "
                      "epochs' weights");
  }
  epochs.erase(epochs.begin(), epochs.end() - request.last);
  return epochs;
}

void check_output(const AverageRequest& request, const std::vector<std::string>& inputs) {
  if (request.out.empty()) throw ConfigError("--out: the file to write the mean to is required");
  if (!fs::exists(request.out)) return;
  for (const std::string& input : inputs) {
    if (fs::equivalent(input, request.out)) {
      throw ConfigError("--out " + request.out +
                        " is one of the checkpoints averaged; write the mean to a new file");
    }
  }
  if (!request.is_forced) {
    throw ConfigError("--out " + request.out + " exists; --force replaces it");
  }
}

}  // namespace

AverageReport average_checkpoints(const AverageRequest& request) {
  const RunDir run = resolve_run_dir(request.run_dir);
  AverageReport report;
  report.inputs = pick_inputs(run, request);
  check_output(request, report.inputs);
  report.out = request.out;

  const Config config = load_config(run.config());
  const text::TokenizerPair tokenizers = text::load_tokenizers(config.text, run.path());
  model::Transformer model(config.model, tokenizers.source->size(), tokenizers.target->size());
  const c10::Device cpu(c10::kCPU);
  // The newest input's progress and configuration go into the file, as for the trainer's
  // averaged.pt; its weights are then replaced by the mean.
  const train::TrainingState progress =
      train::load_checkpoint(report.inputs.back(), model, nullptr, cpu, /*restore_rng=*/false);
  train::load_averaged_weights(report.inputs, model, cpu);
  train::save_checkpoint(report.out, model, nullptr, progress,
                         train::checkpoint_config(report.inputs.back()));
  for (const at::Tensor& parameter : model->parameters()) report.parameters += parameter.numel();
  report.step = progress.step;
  return report;
}

}  // namespace nmt::run
