// A trained run as an Argos Translate package (.argosmodel), which argostranslate installs and
// LibreTranslate serves with no code of nmt's (docs/export.md). The file is a ZIP archive of one
// directory, named as argospm names packages (translate-en_es-1_0):
//
//   metadata.json          the package's languages (codes and English names), its version, the
//                          Argos version it was made for
//   model/                 the CTranslate2 export of the run (ctranslate2.h), fp32, <PAD> and
//                          <SOS> kept out of CTranslate2's choices by the output bias
//   sentencepiece.model    the run's SentencePiece model: Argos encodes the source and decodes the
//                          translation with it
//   README.md              what the model is, its scores and training, and what Argos does
//                          differently from nmt
//
// Argos translates with CTranslate2's beam search (4 beams, length penalty 0.2, the search ending
// when 4 hypotheses have ended, at most 256 tokens): `nmt translate --strategy beam --beam-size 4
// --length-penalty 0.2 --max-len 256` gives the same text for text nmt's cleaning leaves as it is
// (Argos does not clean; it turns every '_' of a translation into a space).
//
// Refused, naming the setting: word vocabularies and Marian's tokenisation (not one SentencePiece
// model), separate vocabularies, text.clean "notebook", an ensemble, a run without language codes
// when none are given. Throws ConfigError (exit 2) for those and for an output file it must not
// replace; nmt::Error for a failed write. Never logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/run/open_run.h"

namespace nmt::exporter {

struct ArgosOptions {
  bool is_forced = false;   // replace an existing file
  std::string source_lang;  // the source's language code; "" takes data.source_lang
  std::string target_lang;  // likewise with data.target_lang
  std::string package_version = "1.0";
};

struct ArgosReport {
  std::string archive;      // the .argosmodel written
  std::string checkpoint;   // the weights exported
  std::string package_dir;  // the directory inside the archive
  std::string source_lang, target_lang;
  std::vector<std::string> members;  // the archive's members, in its order
  int64_t parameters = 0;            // nmt parameters exported
  int64_t bytes = 0;                 // of the archive
};

// The version Argos Translate's packages name in metadata.json: the release this format was
// checked against (argostranslate 1.11, LibreTranslate 1.9's argos-translate-lt 1.12).
inline constexpr const char* kArgosVersion = "1.11";

// Opens a run on the CPU as `nmt translate` does (same checkpoint choice) and writes its package
// to archive, atomically: archive is either what it was or the complete package.
ArgosReport export_argos(const run::RunRequest& request,
                         const std::string& archive,
                         const ArgosOptions& options);

}  // namespace nmt::exporter
