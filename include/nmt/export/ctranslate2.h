// A trained run as a CTranslate2 model directory: train with nmt, serve with CTranslate2
// (docs/export.md). The directory holds what CTranslate2's own converters write for a
// TransformerSpec model (python/ctranslate2/specs/, revision 7):
//
//   model.bin                    the weights in fp32 (model_bin.h), names as transformer_spec.py
//   config.json                  special tokens (<SOS>, <EOS>, <UNK>), decoder start token <SOS>,
//                                no source BOS/EOS, nmt's layer-norm epsilon
//   shared_vocabulary.json       the vocabulary, one JSON string per id, when both sides share one;
//   or source_/target_vocabulary.json   otherwise
//   spm*.model                   SentencePiece runs: the run's tokenizer models, to make the pieces
//
// Every nmt Transformer maps onto it: pre- and post-norm, tied, shared and scaled embeddings, word
// and SentencePiece vocabularies. nmt's sinusoidal positions (sin and cos interleaved, from
// position 0) differ from CTranslate2's built-in table, so both position tables are written out
// (one stored, the other an alias) with max_positions rows; CTranslate2 refuses longer inputs or
// outputs ("No position encodings are defined for positions >= N").
//
// The namespace is nmt::exporter because `export` is a C++ keyword. Throws ConfigError (exit 2)
// for a bad option or an output directory it must not replace, nmt::Error for a model it cannot
// express (a parameter without a CTranslate2 counterpart, non-finite weights) or a failed write;
// never logs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/export/model_bin.h"
#include "nmt/model/transformer.h"
#include "nmt/run/open_run.h"
#include "nmt/text/tokenizer.h"

namespace nmt::exporter {

inline constexpr const char* kTransformerSpec = "TransformerSpec";
inline constexpr uint32_t kTransformerSpecRevision = 7;

struct Ctranslate2Options {
  int64_t max_positions = 1024;  // rows of the position tables: longest source or output
  bool is_forced = false;        // replace a directory that holds an earlier export
  // Give <PAD> and <SOS> an output bias of -10000, so that CTranslate2 never chooses them, as nmt
  // never does, even for a caller that cannot pass suppress_sequences (Argos Translate).
  // Always so for a run imported from Marian, whose rows for them are copies of its pad row.
  bool keeps_out_pad_and_start = false;
};

// The TransformerSpec variables of model, its weights in fp32 on the CPU, in no particular order.
// Throws nmt::Error naming a parameter it cannot map or whose values are not finite.
std::vector<Ct2Variable> transformer_variables(const model::TransformerImpl& model,
                                               int64_t max_positions,
                                               bool keeps_out_pad_and_start);

// config.json of the exported model (TransformerConfig's keys, sorted as CTranslate2 writes them);
// add_source_eos for a source that ends with </s> (Marian's tokenisation).
nlohmann::json transformer_config(const model::TransformerImpl& model, bool add_source_eos);

// What an export wrote.
struct ExportReport {
  std::string out_dir;
  std::string checkpoint;          // the weights exported
  std::vector<std::string> files;  // the directory's files, by name
  ModelBinSummary model_bin;
  int64_t parameters = 0;  // nmt parameters exported
};

// Writes the model directory for model and its tokenizers to out_dir, atomically: the files are
// written into "<out_dir>.tmp" and that directory takes out_dir's place in one rename, so out_dir
// is always either what it was or the complete new export. An existing non-empty out_dir is
// replaced only with options.is_forced, and only when it holds nothing but an earlier export's
// files.
ExportReport write_ctranslate2(const model::TransformerImpl& model,
                               const text::TokenizerPair& tokenizers,
                               const text::TextOptions& text,
                               const std::string& out_dir,
                               const Ctranslate2Options& options);

// Opens a run on the CPU as `nmt translate` does (same checkpoint choice) and exports it.
ExportReport export_ctranslate2(const run::RunRequest& request,
                                const std::string& out_dir,
                                const Ctranslate2Options& options);

}  // namespace nmt::exporter
