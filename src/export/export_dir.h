// What every `nmt export` format shares about its output directory: where it goes, when an
// existing one may be replaced, and how its JSON files are written. Private to src/export/.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/error.h"
#include "nmt/run/config.h"
#include "nmt/run/open_run.h"

namespace nmt::exporter::detail {

// out_dir without a trailing separator, so that "<out_dir>.tmp" is its sibling.
std::string export_dir_path(const std::string& out_dir);

// Throws ConfigError unless out_dir is absent or empty, or is_forced and it holds only regular
// files named in export_files (an earlier export of this format): --force never deletes a file
// nmt did not write.
void check_export_dir(const std::string& out_dir,
                      bool is_forced,
                      const std::vector<std::string>& export_files);

// Throws ConfigError when --model was given more than once: an ensemble is not one model.
void check_one_run(std::size_t further_runs);

// The refusal of a run that format cannot express: ConfigError "<run>: cannot export to <format>:
// <why>".
ConfigError unexportable(const RunDir& run, const std::string& format, const std::string& why);

// The run --model names and its config.json, read without the weights: a run an export cannot
// express is refused before they are loaded.
struct RunSettings {
  RunDir dir;
  Config config;
};
RunSettings read_run_settings(const run::RunRequest& request);

// json, indented by 2, written atomically; nmt::Error naming path for a value JSON cannot hold.
void write_json(const std::string& path, const nlohmann::json& json);

}  // namespace nmt::exporter::detail
