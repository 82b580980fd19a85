// Fuzzes the configuration reader (nmt/run/config.h) on arbitrary file content: load_config reads JSON
// and validates every section. Only ConfigError may escape, and a configuration it accepts must
// survive config_to_json and config_from_json unchanged (save_config and resuming rely on that).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_support.h"
#include "nmt/run/config.h"
#include "nmt/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const nmt::fuzz::ScratchFile file("config.json");
  const std::string& path = file.write(nmt::fuzz::as_text(data, size));
  nmt::Config config;
  try {
    config = nmt::load_config(path);
  } catch (const nmt::ConfigError&) {
    return 0;
  }
  const nlohmann::json saved = nmt::config_to_json(config);
  nmt::Config reloaded;
  try {
    reloaded = nmt::config_from_json(nlohmann::json::parse(saved.dump()));
  } catch (const nmt::ConfigError& error) {
    std::fprintf(stderr, "saved configuration refused: %s\n", error.what());
    NMT_FUZZ_CHECK(false, "an accepted configuration reads back");
  }
  NMT_FUZZ_CHECK(nmt::config_to_json(reloaded) == saved, "an accepted configuration round-trips");
  return 0;
}
