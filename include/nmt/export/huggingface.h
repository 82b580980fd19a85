// A trained run as a Hugging Face transformers directory, which AutoModelForSeq2SeqLM and
// AutoTokenizer load with no code of nmt's (docs/export.md):
//
//   model.safetensors        the weights in fp32, named as transformers names them, metadata
//                            {"format": "pt"}
//   config.json              MarianConfig or PegasusConfig: shapes, activation, embeddings, ids
//   generation_config.json   the run's decoding: beams, length penalty, stopping rule, the special
//                            tokens never generated
//   tokenizer files          nmt's SentencePiece runs: tokenizer.json (PreTrainedTokenizerFast)
//                            and tokenizer_config.json; runs of Marian's form: MarianTokenizer's
//                            source.spm, target.spm, vocab.json (target_vocab.json)
//   README.md                a model card: what the model is, how to load it
//
// Which class: post-norm runs are MarianMTModel, pre-norm runs PegasusForConditionalGeneration
// (Marian's layout with pre-norm layers and a final norm on each stack). Runs of Marian's form
// (nmt import --format marian and its fine-tunings) keep MarianTokenizer and its ids, which swap
// nmt's first four: 0 </s>, 1 <unk>, 2 <pad>, 3 the decoder start (nmt's <SOS> row, "<s>"). nmt's
// own runs keep nmt's ids; their interleaved sinusoids become transformers' split ones by a
// permutation of the hidden dimension (huggingface_weights.h). Every row stays, so transformers'
// softmax runs over nmt's rows and its log-probabilities are nmt's.
//
// Refused, naming the setting: word vocabularies, text.clean "notebook", BPE SentencePiece models,
// separate SentencePiece vocabularies, Marian's tokenisation with pre-norm or interleaved layers.
//
// The namespace is nmt::exporter because `export` is a C++ keyword. Throws ConfigError (exit 2)
// for a run it cannot express or an output directory it must not replace; nmt::Error for a failed
// write. Never logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/run/open_run.h"

namespace nmt::exporter {

struct HuggingfaceOptions {
  bool is_forced = false;  // replace a directory that holds an earlier export
};

struct HuggingfaceReport {
  std::string out_dir;
  std::string checkpoint;          // the weights exported
  std::string model_class;         // transformers' class: MarianMTModel or PegasusForConditional...
  std::vector<std::string> files;  // the directory's files, by name
  int64_t parameters = 0;          // nmt parameters exported
  int64_t tensors = 0;             // tensors in model.safetensors
};

// The exported id of nmt's id (and, being its own inverse, nmt's id of an exported id).
int64_t huggingface_id(int64_t nmt_id);

// Opens a run on the CPU as `nmt translate` does (same checkpoint choice) and writes it to
// out_dir, atomically: into "<out_dir>.tmp", then renamed into place. An existing non-empty
// out_dir is replaced only with options.is_forced, and only when it holds nothing but an earlier
// export's files.
HuggingfaceReport export_huggingface(const run::RunRequest& request,
                                     const std::string& out_dir,
                                     const HuggingfaceOptions& options);

}  // namespace nmt::exporter
