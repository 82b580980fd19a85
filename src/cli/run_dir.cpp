#include "cli/run_dir.h"

#include <filesystem>

#include "nmt/error.h"
#include "nmt/train/checkpoint.h"

namespace nmt::cli {

namespace fs = std::filesystem;

std::string resolve_run_dir(const std::string& requested) {
  const std::string dir = requested.empty() ? kLatestRunLink : requested;
  if (!fs::is_directory(dir)) {
    throw ConfigError(requested.empty()
                          ? "--model: no run given and runs/latest does not exist; train one with `nmt train` "
                            "or pass --model RUN"
                          : "--model: " + dir + " is not a run directory");
  }
  if (!fs::exists(dir + "/config.json")) throw ConfigError("--model: " + dir + " has no config.json (not a run directory)");
  return dir;
}

std::string pick_checkpoint(const std::string& run_dir, const std::string& name) {
  if (!name.empty()) {
    const std::string path = fs::exists(name) ? name : run_dir + "/" + name;
    if (!fs::exists(path)) throw CheckpointError(path + ": no such checkpoint");
    return path;
  }
  for (const char* candidate : {"averaged.pt", "best.pt", "checkpoint.pt"}) {
    const std::string path = run_dir + "/" + candidate;
    if (fs::exists(path)) return path;
  }
  throw CheckpointError(run_dir + ": no checkpoint (averaged.pt, best.pt or checkpoint.pt); has it been trained?");
}

LoadedRun load_run(const std::string& run_dir, const std::string& checkpoint_name, const c10::Device& device) {
  LoadedRun run;
  run.dir = run_dir;
  run.checkpoint = pick_checkpoint(run_dir, checkpoint_name);
  run.config = load_config(run_dir + "/config.json");
  run.tokenizers = text::load_tokenizers(run.config.text, run_dir);
  run.device = device;
  run.model = model::Transformer(run.config.model, run.tokenizers.source->size(), run.tokenizers.target->size());
  run.model->to(device);
  train::load_checkpoint(run.checkpoint, run.model, nullptr, device, /*restore_rng=*/false);
  run.model->eval();
  return run;
}

void update_latest_link(const std::string& run_dir) {
  const fs::path link(kLatestRunLink);
  fs::create_directories(link.parent_path());
  const fs::path target = fs::weakly_canonical(run_dir);
  const fs::path runs = fs::weakly_canonical(link.parent_path());
  const fs::path relative = target.lexically_relative(runs);
  const bool is_inside = !relative.empty() && *relative.begin() != "..";
  std::error_code ignored;
  fs::remove(link, ignored);
  fs::create_directory_symlink(is_inside ? relative : target, link);
}

}  // namespace nmt::cli
