#include "nmt/run/open_run.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/model/initialisation.h"
#include "nmt/train/checkpoint.h"

namespace nmt::run {

namespace fs = std::filesystem;

RunDir resolve_run_dir(const std::string& requested, const std::string& flag) {
  const RunDir run(requested.empty() ? kLatestRunLink : requested);
  if (!fs::is_directory(run.path())) {
    throw ConfigError(requested.empty()
                          ? flag +
                                ": no run given and runs/latest does not exist; train one with "
                                "`nmt train` or pass " +
                                flag + " RUN"
                          : flag + ": " + run.path() + " is not a run directory");
  }
  if (!fs::exists(run.config())) {
    throw ConfigError(flag + ": " + run.path() + " has no config.json (not a run directory)");
  }
  return run;
}

std::string pick_checkpoint(const RunDir& run, const std::string& name) {
  if (!name.empty()) {
    const std::string path = fs::exists(name) ? name : run.file(name);
    if (!fs::exists(path)) throw CheckpointError(path + ": no such checkpoint");
    return path;
  }
  for (const std::string& path : {run.averaged(), run.best(), run.checkpoint()}) {
    if (fs::exists(path)) return path;
  }
  throw CheckpointError(run.path() +
                        ": no checkpoint (averaged.pt, best.pt or checkpoint.pt); has it been "
                        "trained?");
}

namespace {

// Ensemble members must map ids to the same pieces: same sizes and the same piece for every id.
bool same_vocabulary(const text::Tokenizer& a, const text::Tokenizer& b) {
  if (a.size() != b.size()) return false;
  std::vector<int64_t> ids(static_cast<std::size_t>(a.size()));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
  return a.pieces(ids) == b.pieces(ids);
}

model::Transformer load_weights(const model::TransformerOptions& options,
                                const text::TokenizerPair& tokenizers,
                                const std::string& checkpoint,
                                const c10::Device& device) {
  const model::ParametersToBeLoaded from_checkpoint;
  model::Transformer model(options, tokenizers.source->size(), tokenizers.target->size());
  model->to(device);
  train::load_checkpoint(checkpoint, model, nullptr, device, /*restore_rng=*/false);
  model->eval();
  return model;
}

}  // namespace

std::vector<model::Transformer> OpenedRun::models() const {
  std::vector<model::Transformer> all{model};
  all.insert(all.end(), ensemble.begin(), ensemble.end());
  return all;
}

std::vector<std::string> OpenedRun::checkpoint_files() const {
  std::vector<std::string> files{checkpoint};
  files.insert(files.end(), ensemble_checkpoints.begin(), ensemble_checkpoints.end());
  return files;
}

std::string OpenedRun::checkpoints() const {
  std::string joined;
  for (const std::string& file : checkpoint_files()) joined += (joined.empty() ? "" : " + ") + file;
  return joined;
}

OpenedRun open_run(const RunRequest& request, const ConfigOverrides& overrides) {
  OpenedRun opened;
  opened.dir = resolve_run_dir(request.run_dir);
  const nlohmann::json file = read_config_json(opened.dir.config());
  opened.config = load_config(file, opened.dir.config(), overrides);
  const RuntimeChoice runtime = choose_runtime(file, opened.dir.config(), opened.config, overrides);
  for (const std::string& note : runtime.notes) spdlog::warn("{}", note);
  opened.threads = set_threads(runtime.threads);
  opened.device = resolve_device(runtime.device, runtime.device_key);
  opened.checkpoint = pick_checkpoint(opened.dir, request.checkpoint);
  opened.tokenizers = text::load_tokenizers(opened.config.text, opened.dir.path());
  opened.model =
      load_weights(opened.config.model, opened.tokenizers, opened.checkpoint, opened.device);
  for (const std::string& member_dir : request.ensemble_dirs) {
    const RunDir member = resolve_run_dir(member_dir);
    const Config config = load_config(member.config(), overrides);
    const text::TokenizerPair tokenizers = text::load_tokenizers(config.text, member.path());
    if (config.text.clean != opened.config.text.clean ||
        !same_vocabulary(*tokenizers.source, *opened.tokenizers.source) ||
        !same_vocabulary(*tokenizers.target, *opened.tokenizers.target)) {
      throw ConfigError(
          "--model: " + member.path() + " cannot join an ensemble with " + opened.dir.path() +
          ": its vocabularies or text cleaning differ (ensembles need runs that share "
          "them, e.g. trained on the same prepared data)");
    }
    opened.ensemble_checkpoints.push_back(pick_checkpoint(member, ""));
    opened.ensemble.push_back(load_weights(config.model, opened.tokenizers,
                                           opened.ensemble_checkpoints.back(), opened.device));
  }
  return opened;
}

void update_latest_link(const RunDir& run) {
  const fs::path link(kLatestRunLink);
  fs::create_directories(link.parent_path());
  const fs::path target = fs::weakly_canonical(run.path());
  const fs::path runs = fs::weakly_canonical(link.parent_path());
  const fs::path relative = target.lexically_relative(runs);
  const bool is_inside = !relative.empty() && *relative.begin() != "..";
  // Trainings started together (a sweep, the test suite) all replace the link. Removing it and
  // creating it again let one find the other's new link in its way ("File exists") and fail; a new
  // link under a name of its own, renamed over the old one, replaces it in one step.
  static std::atomic<int> next_staging{0};
  const fs::path staging = link.parent_path() / (".latest-" + std::to_string(::getpid()) + "-" +
                                                 std::to_string(next_staging++));
  std::error_code ignored;
  fs::remove(staging, ignored);
  fs::create_directory_symlink(is_inside ? relative : target, staging);
  std::error_code error;
  fs::rename(staging, link, error);
  if (error) {
    fs::remove(staging, ignored);
    throw fs::filesystem_error("cannot point " + link.string() + " at the run", link, error);
  }
}

}  // namespace nmt::run
