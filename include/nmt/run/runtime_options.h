// The runtime section: where the commands that do not train — translate, eval, serve, distil's
// teachers, attention, export, bench translate — run their models: the device and the process's
// CPU threads. Training runs where train.device and train.threads say, and a run's training
// settings no longer decide how it is served. Its keys, their types and ranges, listed once for
// reading and writing (nmt/config_fields.h); nmt/run/config.h assembles the sections. Torch-free.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/check.h"
#include "nmt/config_fields.h"
#include "nmt/error.h"

namespace nmt::run {

struct RuntimeOptions {
  std::string device = "auto";  // "cpu", "cuda", "cuda:N" or "auto" (CUDA when present)
  int64_t threads = 0;          // CPU threads of the process; 0 = all cores

  // Throws ConfigError naming the key within the section ("device").
  void validate() const { check::device_name("device", device); }
};

template <class Fields>
void runtime_fields(Fields& f, RuntimeOptions& o) {
  f("device", o.device);
  f("threads", o.threads, config::IntKind::kNonNegative);
}

}  // namespace nmt::run
