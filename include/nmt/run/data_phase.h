// The data phase shared by `nmt prepare`, `nmt train` and `nmt bench train`: read the corpus,
// clean, filter, split, build the tokenizers on the training split, and write it all into a
// directory laid out like a run (nmt/run_dir.h). Logs a summary and the first malformed lines.
// Throws DataError for unusable data, ConfigError for invalid options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nmt/run/config.h"
#include "nmt/data/dataset.h"
#include "nmt/data/encoded_corpus.h"
#include "nmt/run_dir.h"
#include "nmt/text/tokenizer.h"

namespace nmt::run {

struct PreparedData {
  // The text splits but train, whose pairs training reads from the token files (and subword
  // sampling from train.tsv, a chunk at a time: run/sampled_epochs.h).
  data::Splits splits;
  text::TokenizerPair tokenizers;
  // The token ids of the train and valid splits, mapped from the run's token files.
  data::EncodedCorpus train_ids;
  data::EncodedCorpus valid_ids;
};

// Writes dir's {train,valid,test}.tsv, tokenizer files, {train,valid}.ids (token ids),
// config.json and prepare.json (counts), prepare.json last: a run with it holds all the others.
// The training corpora are streamed (data::stream_splits) and the training split passes through
// scratch files in dir, a chunk at a time: memory grows by a few bytes a training pair, not with
// the text.
// With vocabulary_source (fine-tuning, train.init_from) the tokenizers are that run's, saved
// unchanged into dir, instead of being trained on the new split.
PreparedData prepare_data(const Config& config,
                          const RunDir& dir,
                          const RunDir* vocabulary_source = nullptr);

// `nmt prepare`: prepare_data while holding dir's RunLock, so that it cannot replace the files of
// a run that `nmt train` is writing; with text.vocab_from, with that run's tokenizers and text
// settings (with_vocabulary_run). config_path names the configuration in errors.
PreparedData prepare_run_data(const Config& config,
                              const std::string& config_path,
                              const RunDir& dir);

// Fine-tuning (train.init_from): the run it names, whose weights, vocabularies and model settings
// the new run starts from; nullopt without init_from. Throws ConfigError when it is no run.
std::optional<RunDir> parent_run(const Config& config);

// The run whose tokenizers a new run takes instead of training its own: train.init_from's
// (fine-tuning) or text.vocab_from's (a distilled student, another member of an ensemble);
// nullopt when neither is set. Throws ConfigError when it is no run.
std::optional<RunDir> vocabulary_run(const Config& config);

// config with the text (but subword sampling) and model sections of `parent`, so that its weights
// and tokenizers fit; `config_path` names the configuration in the ConfigError of a combination
// that is not valid.
Config with_parent_model(const Config& config, const RunDir& parent, const std::string& config_path);

// config with the text section (but subword sampling and vocab_from) of the run text.vocab_from
// names, whose tokenizers it will use; config itself without vocab_from.
Config with_vocabulary_run(const Config& config, const std::string& config_path);

// Loads the tokenizers and splits a previous prepare_data wrote into dir, mapping its token files;
// a run prepared before token files existed has its splits encoded in memory instead. Throws
// DataError when a token file is damaged or does not fit the run's vocabularies.
PreparedData load_prepared_data(const Config& config, const RunDir& dir);

// The settings of the data phase (the data and text sections, train.init_from) in which dir's
// prepared data (prepare.json, config.json) differs from config's: empty when dir holds data
// prepared as config would prepare it, so that training on it need not prepare again; {"prepare.json"}
// when dir holds no prepared data.
std::vector<std::string> data_settings_changed(const Config& config, const RunDir& dir);

// runs/<config file's stem>-data: where `nmt prepare` writes without --out.
std::string default_data_dir(const std::string& config_path);

}  // namespace nmt::run
