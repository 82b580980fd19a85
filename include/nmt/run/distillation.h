// `nmt distil` as a library call: sequence-level knowledge distillation (Kim & Rush 2016). The
// teachers (one run, or several as an ensemble) translate every distinct source of the first
// teacher's training split; their translations become the target side of a new corpus, which a
// student run (optional) then trains on with the first teacher's tokenizers, validated and tested
// on the first teacher's own valid and test splits.
//
// Everything lives in one directory, `out`:
//   teacher-translations.tsv  "index<TAB>score<TAB>translation" per distinct source, appended and
//                       synced a chunk at a time, so a killed distillation loses at most one
//                       chunk and the same command continues it; the score is the teachers'
//                       mean log-probability per target token (the end of sentence included);
//   distilled.tsv       the corpus, "source<TAB>translation", in the training split's order,
//                       written from the translations with the filter (a new --min-score
//                       rewrites it without translating again);
//   distil.json         its provenance: teachers, checkpoints, decoding, progress, time, counts;
//   and, with a student configuration, the student's run (config.json, checkpoints, ...).
// Logs progress with the rate and the time left. Throws ConfigError for bad options or an `out`
// that holds another distillation, DataError for an unreadable split, CheckpointError for
// missing weights.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "nmt/run/config.h"
#include "nmt/run/open_run.h"
#include "nmt/run/training.h"

namespace nmt::run {

struct DistilRequest {
  RunRequest teachers;                // --model (repeated: an ensemble) and --checkpoint
  ConfigOverrides decoding;           // how the teachers translate (decode and runtime flags)
  std::string out;                    // the distillation's directory (also the student's run)
  std::string student_config;         // empty: make the corpus only
  ConfigOverrides student_overrides;  // --set for the student's configuration
  // Pairs whose teacher translation has a lower mean log-probability per token are dropped.
  double min_score = -std::numeric_limits<double>::infinity();
  // Sources translated, saved and synced together: what a kill can lose. The translator batches
  // within a chunk, so a larger one translates faster.
  int64_t chunk_sources = 1000;
  bool is_terminal = false;  // the student's progress as a redrawn status line
};

struct DistilledCorpus {
  std::string path;             // out/distilled.tsv
  int64_t training_pairs = 0;   // pairs in the teacher's training split
  int64_t sources = 0;          // distinct sources translated
  int64_t kept = 0;             // pairs written
  int64_t dropped_empty = 0;    // empty translations
  int64_t dropped_score = 0;    // below min_score
  double seconds = 0.0;         // translating, across resumes
  bool is_interrupted = false;  // SIGINT/SIGTERM: the same request continues it
};

struct DistilOutcome {
  DistilledCorpus corpus;
  std::optional<TrainOutcome> student;  // when a student configuration was given
};

DistilOutcome distil(const DistilRequest& request);

// The process exit status: 130 when interrupted, else the student's (exit_status), else 0.
int exit_status(const DistilOutcome& outcome);

}  // namespace nmt::run
