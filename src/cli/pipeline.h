// The data phase shared by `nmt prepare` and `nmt train`: read the corpus, clean, filter, split,
// build the tokenizers on the training split, and write it all into a directory.
#pragma once

#include <string>

#include "nmt/config.h"
#include "nmt/data/dataset.h"
#include "nmt/text/tokenizer.h"

namespace nmt::cli {

struct PreparedData {
  data::Splits splits;
  text::TokenizerPair tokenizers;
};

// Writes dir/{train,valid,test}.tsv, the tokenizer files, dir/config.json and dir/prepare.json
// (counts); logs a summary and the first malformed lines.
PreparedData prepare_data(const Config& config, const std::string& dir);

// Loads the splits and tokenizers a previous prepare_data wrote into dir.
PreparedData load_prepared_data(const Config& config, const std::string& dir);

}  // namespace nmt::cli
