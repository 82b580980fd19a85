// `nmt eval` as a library call: translate a run's held-out split (or given source and reference
// files), score the translations with sacreBLEU-exact BLEU and chrF, measure the teacher-forced
// loss, and append an eval record to the run's metrics.jsonl (when the run can be written: a
// read-only run is scored all the same).
//
// Which text is scored: word models are scored in the notebook's cleaned form (references cleaned
// like the training data); subword models on detokenised text against the raw references; with
// is_notebook_form, every model in the notebook's cleaned form. BLEU and chrF are also given by
// source length (eval/length_buckets.h), in whitespace words of the source sentence: of the raw
// text for --src files and for splits cleaned with `normalize`; a split cleaned in the notebook's
// form holds no raw text, so its words are counted with the split punctuation joined back
// (text::join_punctuation), which differs from the raw count only where the cleaning turned a
// character inside a word into a space ("don't" -> "don t").
// Throws ConfigError for inconsistent options, DataError/nmt::Error for unusable files; never logs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/data/corpus.h"
#include "nmt/eval/length_buckets.h"
#include "nmt/eval/scores.h"
#include "nmt/metrics_jsonl.h"
#include "nmt/run/open_run.h"
#include "nmt/train/validation.h"

namespace nmt::run {

struct EvalOptions {
  std::string split = "test";  // "test" or "valid": the run's split to score
  std::string source_file;     // with reference_file: score these instead of a split
  std::string reference_file;
  std::string hypotheses_out;  // also write the hypotheses here, exactly as scored
  bool is_notebook_form = false;
  bool split_sentences = false;  // cut each --src line into sentences (the run's language)

  // Throws ConfigError naming the flag (--split, --src and --ref, --split-sentences).
  void validate() const;
};

// The sentences an evaluation translates and the references it scores against.
struct EvalData {
  std::vector<std::string> sources;               // as given to the translator
  bool sources_are_cleaned = false;               // split files hold cleaned text
  std::vector<std::string> references;            // in the form hypotheses are scored against
  std::vector<data::SentencePair> cleaned_pairs;  // for the loss
  std::string description;                        // "test split of RUN" or the source file
};

EvalData load_eval_data(const OpenedRun& run, const EvalOptions& options);

struct EvalReport {
  eval::Scores scores;
  std::vector<eval::LengthBucket> by_source_length;
  train::ValidationResult loss;
  std::vector<std::string> hypotheses;  // as scored
  std::string data;                     // EvalData::description
  std::string checkpoint;
  std::string references_form;    // how hypotheses and references were scored, in words
  std::string decoding;           // "greedy", "beam 5, length penalty 1", ...
  nlohmann::json decode_options;  // the decode section used
  bool is_notebook_form = false;
  double sentences_per_s = 0.0;  // translation speed
  // Why the eval record could not be appended to the run's metrics.jsonl (a read-only run:
  // "cannot open RUN/metrics.jsonl for appending: Read-only file system"); empty when it was.
  std::string unrecorded_reason;
};

// Translates, scores and measures the loss; writes options.hypotheses_out when set and appends
// the eval record to the run's metrics, or says in unrecorded_reason why it could not.
EvalReport evaluate(OpenedRun& run, const EvalData& data, const EvalOptions& options);

// `nmt eval --json`: scores_json plus by_source_length (eval::length_buckets_json), loss, nll,
// perplexity, sentences, data, checkpoint, references, strategy and sentences_per_s.
nlohmann::json eval_report_json(const EvalReport& report);
// `nmt eval`: the sacreBLEU lines, the scores by source length, the loss, what was scored and
// how fast.
std::string eval_report_text(const EvalReport& report);
// The metrics.jsonl record of an evaluation.
EvalRecord eval_record(const EvalReport& report);

}  // namespace nmt::run
