// The data section: where the corpora are, how they are read, filtered and split. Its keys, their
// types and ranges and its enums' names, listed once for reading and writing
// (nmt/config_fields.h); nmt/run/config.h assembles the sections.
#pragma once

#include "nmt/config_fields.h"
#include "nmt/data/dataset.h"

namespace nmt::data {

inline const config::Choices<TsvFormat> kFormats = {
    {"auto", TsvFormat::kAuto}, {"tatoeba", TsvFormat::kTatoeba}, {"anki", TsvFormat::kAnki}};

// Corpus lists (data.train, data.valid, data.test): "file.tsv", {"path": ...} or {"source": ...,
// "target": ..., "weight": ...}, or an array of those; written as an array of objects.
const config::FieldCodec<std::vector<CorpusFile>>& corpus_files_codec();

template <class Fields>
void corpus_fields(Fields& f, CorpusOptions& o) {
  f("path", o.path);
  f("train", o.train, corpus_files_codec());
  f("valid", o.valid, corpus_files_codec());
  f("test", o.test, corpus_files_codec());
  f("format", o.format, kFormats);
  f("max_words", o.max_words, config::IntKind::kNonNegative);
  f("max_length", o.max_length, config::IntKind::kNonNegative);
  f("max_length_ratio", o.max_length_ratio);
  f("valid_fraction", o.valid_fraction);
  f("test_fraction", o.test_fraction);
  f("seed", o.seed);
  f("group_by_source", o.group_by_source);
  f("dedupe", o.dedupe);
  f("drop_identical", o.drop_identical);
  f("reverse", o.reverse);
  f("augment_upper", o.augment_upper);
  f("augment_lower", o.augment_lower);
  f("augment_concat", o.augment_concat);
  f("augment_placeholders", o.augment_placeholders);
  f("source_lang", o.source_lang);
  f("target_lang", o.target_lang);
}

}  // namespace nmt::data
