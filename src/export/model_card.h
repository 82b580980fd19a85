// The README.md of an export: the model card of a transformers directory, and the sections an
// Argos package's README shares with it (how well the model translates and what it cost to train,
// as the run recorded them). Private to src/export/.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/metrics_jsonl.h"
#include "nmt/run/open_run.h"

namespace nmt::exporter::detail {

// "## Scores": the last `nmt eval` of the exported weights on the run's test split in its
// metrics.jsonl, with sacreBLEU's signatures, or how to get one.
std::string scores_section(const run::OpenedRun& opened, const MetricsFile& metrics);

// "## Training": the data, the time, the steps and the hardware of the run's training sessions.
std::string training_section(const Config& config, const MetricsFile& metrics);

struct CardFacts {
  std::string name;         // the export directory's name
  std::string model_class;  // PegasusForConditionalGeneration or MarianMTModel
  bool is_marian_form = false;
  int64_t parameters = 0;
};

// What the model is, its scores and training (above), and how to load it with transformers.
std::string huggingface_model_card(const run::OpenedRun& opened, const CardFacts& facts);

}  // namespace nmt::exporter::detail
