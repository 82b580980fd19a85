// The model card (README.md) of a transformers export: what the model is, how well it translates
// and what it cost to train, as the run recorded them, and how to load it. Private to src/export/.
#pragma once

#include <cstdint>
#include <string>

#include "nmt/run/open_run.h"

namespace nmt::exporter::detail {

struct CardFacts {
  std::string name;         // the export directory's name
  std::string model_class;  // PegasusForConditionalGeneration or MarianMTModel
  bool is_marian_form = false;
  int64_t parameters = 0;
};

// Scores: the last `nmt eval` of the exported weights on the run's test split in its
// metrics.jsonl, with sacreBLEU's signatures. Training: the data, the time, the steps and the
// hardware of the run's training sessions.
std::string huggingface_model_card(const run::OpenedRun& opened, const CardFacts& facts);

}  // namespace nmt::exporter::detail
