#include "export/export_dir.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::exporter::detail {
namespace fs = std::filesystem;

std::string export_dir_path(const std::string& out_dir) {
  fs::path path = fs::path(out_dir).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  return path.string();
}

void check_export_dir(const std::string& out_dir,
                      bool is_forced,
                      const std::vector<std::string>& export_files) {
  if (out_dir.empty()) throw ConfigError("--out: a directory to write the model to is required");
  if (!fs::exists(out_dir)) return;
  if (!fs::is_directory(out_dir)) {
    throw ConfigError("--out: " + out_dir + " exists and is not a directory");
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(out_dir)) {
    const std::string name = entry.path().filename().string();
    if (!is_forced) {
      throw ConfigError("--out: " + out_dir +
                        " is not empty; pass --force to replace the model exported there");
    }
    const bool is_export_file =
        std::find(export_files.begin(), export_files.end(), name) != export_files.end();
    if (!is_export_file || !entry.is_regular_file()) {
      throw ConfigError("--out: " + out_dir + " holds " + name +
                        ", which nmt export does not write; --force replaces only an earlier "
                        "export: choose another directory");
    }
  }
}

void check_one_run(std::size_t further_runs) {
  if (further_runs == 0) return;
  throw ConfigError("--model was given " + std::to_string(further_runs + 1) +
                    " times: an ensemble translates as several models and exports as none; "
                    "export each run on its own");
}

ConfigError unexportable(const RunDir& run, const std::string& format, const std::string& why) {
  return ConfigError(run.path() + ": cannot export to " + format + ": " + why);
}

RunSettings read_run_settings(const run::RunRequest& request) {
  RunDir dir = run::resolve_run_dir(request.run_dir);
  Config config = load_config(dir.config());
  return {std::move(dir), std::move(config)};
}

void write_json(const std::string& path, const nlohmann::json& json) {
  std::string text;
  try {
    text = json.dump(2) + "\n";
  } catch (const nlohmann::json::type_error& error) {
    throw Error("cannot write " + path + ": " + error.what());
  }
  write_text_atomically(path, text);
}

}  // namespace nmt::exporter::detail
