// A run of Marian's form as a Hugging Face transformers MarianMTModel directory, which
// AutoModelForSeq2SeqLM and AutoTokenizer load with no code of nmt's (docs/export.md):
//
//   model.safetensors            the weights in fp32, named as transformers names them, metadata
//                                {"format": "pt"}
//   config.json                  MarianConfig: shapes, activation, embeddings, special ids
//   generation_config.json       the run's decoding: beams, length penalty, stopping rule, the
//                                special tokens never generated
//   vocab.json (target_vocab.json)  the vocabularies in the exported ids
//   source.spm, target.spm       the run's SentencePiece models
//   tokenizer_config.json        MarianTokenizer, the languages
//   README.md                    a model card: what the model is, how to load it
//
// Marian's form is what an import gives (nmt import --format marian) and fine-tuning keeps:
// post-norm layers, split sinusoid positions, Marian's tokenisation (text.tokenizer marian). Other
// runs are refused, naming the setting that differs. The exported ids swap nmt's first four:
// 0 </s>, 1 <unk>, 2 <pad>, 3 the decoder start (nmt's <SOS> row, "<s>"), then every piece in
// nmt's order, so that transformers' softmax runs over nmt's rows and its log-probabilities are
// nmt's.
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
