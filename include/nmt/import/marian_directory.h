// A Hugging Face Marian (OPUS-MT) model directory, read without LibTorch: everything that
// `nmt import --format marian DIR` needs besides the weights' values, checked before any weight is
// loaded. The files, as transformers' MarianMTModel.save_pretrained and its OPUS-MT conversion
// (convert_marian_to_pytorch.py) write them:
//
//   config.json             architecture, special ids (MarianConfig); old decoding defaults
//   generation_config.json  decoding defaults (optional; older directories have none)
//   tokenizer_config.json   source_lang, target_lang, separate_vocabs (optional)
//   vocab.json              piece -> model id (not SentencePiece's ids) of the source side, and
//                           of the target side too unless separate_vocabs
//   target_vocab.json       piece -> id of the target side, with separate_vocabs
//   source.spm, target.spm  SentencePiece models (located here, loaded by text/)
//   model.safetensors       the weights; pytorch_model.bin (a pickle) is only reported
//
// Every refusal is a ConfigError (exit status 2) whose message starts with the file's path and
// names the key, e.g.
//   DIR/config.json: encoder_ffn_dim: expected a positive integer, got "x"
//   DIR/config.json: model_type "bart" is not a Marian model; nmt import --format marian reads ...
// and quotes at most 60 bytes of any value. Files are size-bounded (1 MiB for the configurations,
// 64 MiB for a vocabulary) and JSON nesting deeper than 8 levels is refused while parsing, so
// hostile files cost little. Torch-free; never logs: what is read but has no effect comes back as
// notes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmt/model/options.h"

namespace nmt::import {

// transformers builds every Marian LayerNorm as torch.nn.LayerNorm(d_model), whose eps is 1e-5:
// nmt's LayerNorm default too.
inline constexpr double kMarianLayerNormEps = 1e-5;

// The special ids and table sizes of config.json.
struct MarianIds {
  int64_t pad = 58100;            // pad_token_id: padding; OPUS-MT: the last id, zero embedding
  int64_t eos = 0;                // eos_token_id: "</s>", appended to every source sentence
  int64_t decoder_start = 58100;  // decoder_start_token_id: first decoder input (OPUS-MT: pad)
  int64_t vocab_size = 58101;     // rows of the source (or shared) embedding
  int64_t decoder_vocab_size = 58101;  // rows of the target embedding, lm_head, final_logits_bias
  int64_t max_positions = 1024;        // max_position_embeddings: rows of the sinusoid table
};

// Decoding defaults as transformers' generate() takes them; a missing key has GenerationConfig's
// default.
struct MarianGeneration {
  int64_t num_beams = 1;        // beam size; 1 = greedy
  int64_t max_length = 20;      // tokens of the output counting the decoder start token
  double length_penalty = 1.0;  // beam scores are divided by length^length_penalty
  bool early_stopping = false;  // beam: true stops at num_beams ended hypotheses
  std::vector<std::vector<int64_t>> bad_words_ids;  // never generated; OPUS-MT: {{pad}}
  std::vector<int64_t> forced_eos_token_ids;        // forced at max_length; empty: none
  std::string source;  // the file they came from: generation_config.json or config.json
  std::vector<std::string> notes;  // values nmt decodes otherwise, e.g. early_stopping "never"
};

// config.json, mapped onto nmt's Transformer.
struct MarianConfig {
  // Post-norm, split sinusoid positions, one head count and one feed-forward width for both
  // stacks: the only Marian models nmt can hold. layers = encoder_layers.
  model::TransformerOptions options;
  MarianIds ids;
  MarianGeneration generation;  // the legacy keys of config.json (num_beams, max_length, ...)
  // Keys that were read but change nothing, e.g. "config.json: normalize_before is true, but
  // transformers' MarianMTModel ignores it: its layers are post-norm whatever it says".
  std::vector<std::string> notes;
};

// tokenizer_config.json (MarianTokenizer's arguments); all optional.
struct MarianTokenizerConfig {
  std::string source_lang;           // "" when absent or null
  std::string target_lang;           // "" when absent or null
  bool has_separate_vocabs = false;  // separate_vocabs: target_vocab.json serves the target side
};

// A vocabulary file, checked to be a bijection between its pieces and the ids 0..size-1.
struct MarianVocabulary {
  std::string path;
  std::vector<std::string> pieces;  // pieces[id]
  int64_t unk_id = 1;               // "<unk>", which MarianTokenizer requires
};

// Where the weights are. nmt reads safetensors only.
struct MarianWeights {
  std::string safetensors_path;  // DIR/model.safetensors, "" when absent
  std::string pytorch_bin_path;  // DIR/pytorch_model.bin, "" when absent
  // The shell command that writes DIR/model.safetensors from pytorch_model.bin with transformers,
  // for a pytorch_model.bin nmt cannot read; set only when is_pytorch_bin_only().
  std::string conversion_command;

  // The weights come from pytorch_model.bin (model.safetensors is preferred where both are).
  bool is_pytorch_bin_only() const { return safetensors_path.empty(); }
};

// A whole directory, every file checked against config.json.
struct MarianDirectory {
  std::string path;  // DIR as given
  MarianConfig config;
  MarianGeneration generation;  // generation_config.json's when present, else config.generation
  MarianTokenizerConfig tokenizer;
  MarianVocabulary source_vocab;  // vocab.json
  MarianVocabulary target_vocab;  // target_vocab.json with separate vocabularies, else vocab.json
  // The source vocabulary's language tags, pieces matching ^>>[^<>]+<<$ (">>fra<<"), sorted: a
  // multi-target model reads the output language from one of them before the sentence.
  std::vector<std::string> language_tags;
  std::string source_spm_path;  // DIR/source.spm, a non-empty regular file
  std::string target_spm_path;  // DIR/target.spm, likewise
  MarianWeights weights;
  std::vector<std::string> notes;  // config.notes
};

// Reads and checks DIR (symbolic links followed, as in Hugging Face's cache). Throws ConfigError
// (above) for any missing, unreadable or inconsistent file, and when neither weights file exists.
[[nodiscard]] MarianDirectory read_marian_directory(const std::string& dir);

// The parsers read_marian_directory uses, on a file's text; `source` (its path) starts messages.
// config.json: refuses another model_type, another architecture than MarianMTModel, and what nmt
// cannot hold (different head counts or feed-forward widths, a width that is not a multiple of
// d_model, an activation other than swish/silu, gelu/gelu_python and relu).
[[nodiscard]] MarianConfig parse_marian_config(const std::string& text, const std::string& source);
// generation_config.json; ids are checked against ids.decoder_vocab_size.
[[nodiscard]] MarianGeneration parse_marian_generation_config(const std::string& text,
                                                              const std::string& source,
                                                              const MarianIds& ids);
// tokenizer_config.json.
[[nodiscard]] MarianTokenizerConfig parse_marian_tokenizer_config(const std::string& text,
                                                                  const std::string& source);
// vocab.json (is_target false: vocab_size entries) or target_vocab.json (decoder_vocab_size): ids
// unique and in range, "</s>" = eos, "<pad>" = pad, "<unk>" present.
[[nodiscard]] MarianVocabulary parse_marian_vocabulary(const std::string& text,
                                                       const std::string& source,
                                                       const MarianIds& ids,
                                                       bool is_target);

// The language tags among pieces (see MarianDirectory::language_tags), sorted.
[[nodiscard]] std::vector<std::string> marian_language_tags(const std::vector<std::string>& pieces);

// One shell command line that loads DIR with transformers and saves it back, which writes
// DIR/model.safetensors (transformers 4.35 or later save safetensors by default; 5.x no longer
// takes safe_serialization=, so the command does not pass it). dir is single-quoted for POSIX
// shells, whatever bytes it holds:
//   python3 -c "import sys; from transformers import MarianMTModel; ..." 'DIR'
[[nodiscard]] std::string marian_conversion_command(const std::string& dir);

}  // namespace nmt::import
