// The data phase shared by `nmt prepare`, `nmt train` and `nmt bench train`: read the corpus,
// clean, filter, split, build the tokenizers on the training split, and write it all into a
// directory laid out like a run (nmt/run_dir.h). Logs a summary and the first malformed lines.
// Throws DataError for unusable data, ConfigError for invalid options.
#pragma once

#include <string>

#include "nmt/config.h"
#include "nmt/data/dataset.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"

namespace nmt::run {

struct PreparedData {
  data::Splits splits;
  text::TokenizerPair tokenizers;
};

// Writes dir's {train,valid,test}.tsv, tokenizer files, config.json and prepare.json (counts).
// With vocabulary_source (fine-tuning, train.init_from) the tokenizers are that run's, saved
// unchanged into dir, instead of being trained on the new split.
PreparedData prepare_data(const Config& config,
                          const RunDir& dir,
                          const RunDir* vocabulary_source = nullptr);

// `nmt prepare`: prepare_data while holding dir's RunLock, so that it cannot replace the files of
// a run that `nmt train` is writing.
PreparedData prepare_run_data(const Config& config, const RunDir& dir);

// Loads the splits and tokenizers a previous prepare_data wrote into dir.
PreparedData load_prepared_data(const Config& config, const RunDir& dir);

// runs/<config file's stem>-data: where `nmt prepare` writes without --out.
std::string default_data_dir(const std::string& config_path);

}  // namespace nmt::run
