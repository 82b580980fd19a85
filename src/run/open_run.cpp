#include "nmt/run/open_run.h"

#include <filesystem>

#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/train/checkpoint.h"

namespace nmt::run {

namespace fs = std::filesystem;

RunDir resolve_run_dir(const std::string& requested) {
  const RunDir run(requested.empty() ? kLatestRunLink : requested);
  if (!fs::is_directory(run.path())) {
    throw ConfigError(requested.empty()
                          ? "--model: no run given and runs/latest does not exist; train one with "
                            "`nmt train` or pass --model RUN"
                          : "--model: " + run.path() + " is not a run directory");
  }
  if (!fs::exists(run.config())) {
    throw ConfigError("--model: " + run.path() + " has no config.json (not a run directory)");
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

OpenedRun open_run(const RunRequest& request, const ConfigOverrides& overrides) {
  OpenedRun opened;
  opened.dir = resolve_run_dir(request.run_dir);
  opened.config = resolve_config(read_config_json(opened.dir.config()), overrides);
  opened.threads = set_threads(opened.config.train.threads);
  opened.device = resolve_device(opened.config.train.device);
  opened.checkpoint = pick_checkpoint(opened.dir, request.checkpoint);
  opened.tokenizers = text::load_tokenizers(opened.config.text, opened.dir.path());
  opened.model = model::Transformer(opened.config.model, opened.tokenizers.source->size(),
                                    opened.tokenizers.target->size());
  opened.model->to(opened.device);
  train::load_checkpoint(opened.checkpoint, opened.model, nullptr, opened.device,
                         /*restore_rng=*/false);
  opened.model->eval();
  return opened;
}

void update_latest_link(const RunDir& run) {
  const fs::path link(kLatestRunLink);
  fs::create_directories(link.parent_path());
  const fs::path target = fs::weakly_canonical(run.path());
  const fs::path runs = fs::weakly_canonical(link.parent_path());
  const fs::path relative = target.lexically_relative(runs);
  const bool is_inside = !relative.empty() && *relative.begin() != "..";
  std::error_code ignored;
  fs::remove(link, ignored);
  fs::create_directory_symlink(is_inside ? relative : target, link);
}

}  // namespace nmt::run
