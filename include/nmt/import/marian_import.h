// `nmt import --format marian DIR --out RUN`: a Hugging Face MarianMTModel directory (an OPUS-MT
// model as downloaded) as an ordinary nmt run directory: config.json (post-norm, split sinusoids,
// Marian's activation and sizes, tokenizer "marian"), marian.{src,tgt}.{spm,vocab} and a
// weights-only checkpoint.pt, which translate, eval --src/--ref, serve, attention, average and
// export read as they read a trained run. The vocabulary is reordered to nmt's special ids
// (marian_vocabulary.h), and every embedding, output and bias row with it.
//
// Everything is written into a staging directory beside RUN and renamed into place at the end, so
// a refused or failed import leaves nothing behind. Errors in the directory's files are
// ConfigError (exit status 2) naming the file and the problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt::import {

struct MarianImportRequest {
  std::string dir;  // the Hugging Face model directory
  std::string out;  // the run directory to create; must not exist or be empty
};

struct MarianImportReport {
  std::string out;
  int64_t parameters = 0;
  int64_t source_vocab = 0;  // nmt's ids (one more than Marian's when pad is the decoder start)
  int64_t target_vocab = 0;
  std::string weights;                     // the file the weights were read from
  std::vector<std::string> language_tags;  // ">>spa<<", ... for multi-target models
  std::vector<std::string> notes;  // keys of the directory nmt ignores, as transformers does
};

MarianImportReport import_marian(const MarianImportRequest& request);

}  // namespace nmt::import
