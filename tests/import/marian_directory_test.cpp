#include "nmt/import/marian_directory.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nmt/error.h"
#include "test_utils.h"

namespace {

using json = nlohmann::json;
using nmt::import::MarianDirectory;
using nmt::import::read_marian_directory;

// config.json of Helsinki-NLP/opus-mt-en-de as transformers 4.x converted it (generation keys
// still in config.json, BART-era flags transformers ignores).
json opus_mt_config() {
  return {{"_name_or_path", "Helsinki-NLP/opus-mt-en-de"},
          {"activation_dropout", 0.0},
          {"activation_function", "swish"},
          {"add_bias_logits", false},
          {"add_final_layer_norm", false},
          {"architectures", {"MarianMTModel"}},
          {"attention_dropout", 0.0},
          {"bad_words_ids", {{58100}}},
          {"bos_token_id", 0},
          {"classif_dropout", 0.0},
          {"d_model", 512},
          {"decoder_attention_heads", 8},
          {"decoder_ffn_dim", 2048},
          {"decoder_layerdrop", 0.0},
          {"decoder_layers", 6},
          {"decoder_start_token_id", 58100},
          {"decoder_vocab_size", 58101},
          {"dropout", 0.1},
          {"encoder_attention_heads", 8},
          {"encoder_ffn_dim", 2048},
          {"encoder_layerdrop", 0.0},
          {"encoder_layers", 6},
          {"eos_token_id", 0},
          {"forced_eos_token_id", 0},
          {"id2label", {{"0", "LABEL_0"}, {"1", "LABEL_1"}}},
          {"init_std", 0.02},
          {"is_encoder_decoder", true},
          {"max_length", 512},
          {"max_position_embeddings", 512},
          {"model_type", "marian"},
          {"normalize_before", false},
          {"normalize_embedding", false},
          {"num_beams", 4},
          {"num_hidden_layers", 6},
          {"pad_token_id", 58100},
          {"scale_embedding", true},
          {"share_encoder_decoder_embeddings", true},
          {"static_position_embeddings", true},
          {"transformers_version", "4.22.0.dev0"},
          {"use_cache", true},
          {"vocab_size", 58101}};
}

// The same model with a vocabulary of 8, for the vocabulary tests.
json small_config() {
  json config = opus_mt_config();
  config["vocab_size"] = 8;
  config["decoder_vocab_size"] = 8;
  config["pad_token_id"] = 7;
  config["decoder_start_token_id"] = 7;
  config["bad_words_ids"] = {{7}};
  return config;
}

// Marian's layout: </s> 0, <unk> 1, the pieces (language tags among them), <pad> last.
json small_vocab() {
  return {{"</s>", 0}, {"<unk>", 1},   {"▁a", 2},      {">>fra<<", 3},
          {"▁b", 4},   {">>deu<<", 5}, {">>por<<", 6}, {"<pad>", 7}};
}

// OPUS-MT's vocabulary of 58101 pieces.
json full_vocab() {
  json vocab = {{"</s>", 0}, {"<unk>", 1}, {"<pad>", 58100}};
  for (int id = 2; id < 58100; ++id) vocab["p" + std::to_string(id)] = id;
  return vocab;
}

// A Marian model directory in a scratch directory: config.json, vocab.json, tokenizer_config.json,
// both SentencePiece models and model.safetensors (placeholders: only their presence is read).
class MarianDir {
 public:
  MarianDir(const json& config, const json& vocab) {
    write("config.json", config.dump(2));
    write("vocab.json", vocab.dump());
    write("tokenizer_config.json", R"({"source_lang": "en", "target_lang": "de"})");
    write("source.spm", "source model");
    write("target.spm", "target model");
    write("model.safetensors", "weights");
  }

  std::string path() const { return scratch_.path(); }
  std::string file(const std::string& name) const { return scratch_.file(name); }
  void write(const std::string& name, const std::string& content) const {
    scratch_.write(name, content);
  }
  void remove(const std::string& name) const { std::remove(file(name).c_str()); }

 private:
  nmt::testing::ScratchDir scratch_;
};

// The ConfigError message that reading dir throws.
std::string refusal(const MarianDir& dir) {
  try {
    (void)read_marian_directory(dir.path());
  } catch (const nmt::ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

// ---- a valid directory ------------------------------------------------------------------------

TEST(MarianDirectoryTest, ReadsAnOpusMtDirectory) {
  const MarianDir dir(opus_mt_config(), full_vocab());
  const MarianDirectory model = read_marian_directory(dir.path());

  const nmt::model::TransformerOptions& options = model.config.options;
  EXPECT_EQ(options.d_model, 512);
  EXPECT_EQ(options.layers, 6);
  EXPECT_EQ(options.encoder_depth(), 6);
  EXPECT_EQ(options.decoder_depth(), 6);
  EXPECT_EQ(options.heads, 8);
  EXPECT_EQ(options.ff_mult, 4);
  EXPECT_EQ(options.activation, nmt::model::Activation::kSwish);
  EXPECT_EQ(options.norm, nmt::model::NormPosition::kPost);
  EXPECT_EQ(options.positions, nmt::model::PositionLayout::kSplit);
  EXPECT_TRUE(options.scale_embeddings);
  EXPECT_TRUE(options.share_embeddings);
  EXPECT_TRUE(options.tie_embeddings);  // absent: transformers' default
  EXPECT_DOUBLE_EQ(options.dropout, 0.1);
  EXPECT_DOUBLE_EQ(options.attention_dropout, 0.0);
  EXPECT_DOUBLE_EQ(options.activation_dropout, 0.0);

  const nmt::import::MarianIds& ids = model.config.ids;
  EXPECT_EQ(ids.pad, 58100);
  EXPECT_EQ(ids.eos, 0);
  EXPECT_EQ(ids.decoder_start, 58100);
  EXPECT_EQ(ids.vocab_size, 58101);
  EXPECT_EQ(ids.decoder_vocab_size, 58101);
  EXPECT_EQ(ids.max_positions, 512);

  // No generation_config.json: config.json's keys, as GenerationConfig.from_model_config takes.
  EXPECT_EQ(model.generation.num_beams, 4);
  EXPECT_EQ(model.generation.max_length, 512);
  EXPECT_DOUBLE_EQ(model.generation.length_penalty, 1.0);
  EXPECT_EQ(model.generation.bad_words_ids, (std::vector<std::vector<int64_t>>{{58100}}));
  EXPECT_EQ(model.generation.forced_eos_token_ids, (std::vector<int64_t>{0}));
  EXPECT_EQ(model.generation.source, dir.file("config.json"));

  EXPECT_EQ(model.tokenizer.source_lang, "en");
  EXPECT_EQ(model.tokenizer.target_lang, "de");
  EXPECT_FALSE(model.tokenizer.has_separate_vocabs);
  ASSERT_EQ(model.source_vocab.pieces.size(), 58101u);
  EXPECT_EQ(model.source_vocab.pieces[0], "</s>");
  EXPECT_EQ(model.source_vocab.pieces[58099], "p58099");
  EXPECT_EQ(model.source_vocab.pieces[58100], "<pad>");
  EXPECT_EQ(model.source_vocab.unk_id, 1);
  EXPECT_EQ(model.source_vocab.path, dir.file("vocab.json"));
  EXPECT_EQ(model.target_vocab.pieces, model.source_vocab.pieces);
  EXPECT_TRUE(model.language_tags.empty());
  EXPECT_EQ(model.source_spm_path, dir.file("source.spm"));
  EXPECT_EQ(model.target_spm_path, dir.file("target.spm"));
  EXPECT_EQ(model.weights.safetensors_path, dir.file("model.safetensors"));
  EXPECT_EQ(model.weights.pytorch_bin_path, "");
  EXPECT_FALSE(model.weights.is_pytorch_bin_only());
  EXPECT_EQ(model.weights.conversion_command, "");
  EXPECT_TRUE(model.notes.empty());  // the BART-era flags hold the values transformers acts as
}

TEST(MarianDirectoryTest, GenerationConfigJsonReplacesConfigJsonsKeys) {
  const MarianDir dir(small_config(), small_vocab());
  dir.write("generation_config.json",
            R"({"num_beams": 6, "bad_words_ids": [[7]], "length_penalty": 0.6})");
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_EQ(model.generation.num_beams, 6);
  EXPECT_EQ(model.generation.max_length, 20);  // GenerationConfig's default, not config.json's
  EXPECT_DOUBLE_EQ(model.generation.length_penalty, 0.6);
  EXPECT_EQ(model.generation.bad_words_ids, (std::vector<std::vector<int64_t>>{{7}}));
  EXPECT_TRUE(model.generation.forced_eos_token_ids.empty());
  EXPECT_EQ(model.generation.source, dir.file("generation_config.json"));
  EXPECT_EQ(model.config.generation.num_beams, 4);

  dir.write("generation_config.json", R"({"bad_words_ids": [[8]]})");
  EXPECT_EQ(refusal(dir),
            dir.file("generation_config.json") +
                ": bad_words_ids: expected an id below 8 (decoder_vocab_size), got 8");
}

TEST(MarianDirectoryTest, DefaultsFollowMarianConfig) {
  json config = small_config();
  for (const char* key : {"activation_function", "scale_embedding", "decoder_vocab_size",
                          "decoder_start_token_id", "max_position_embeddings", "dropout",
                          "share_encoder_decoder_embeddings", "num_beams", "max_length"}) {
    config.erase(key);
  }
  config["tie_word_embeddings"] = false;
  const MarianDir dir(config, small_vocab());
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_EQ(model.config.options.activation, nmt::model::Activation::kGelu);
  EXPECT_FALSE(model.config.options.scale_embeddings);
  EXPECT_TRUE(model.config.options.share_embeddings);
  EXPECT_FALSE(model.config.options.tie_embeddings);
  EXPECT_DOUBLE_EQ(model.config.options.dropout, 0.1);
  EXPECT_EQ(model.config.ids.decoder_vocab_size, 8);
  EXPECT_EQ(model.config.ids.decoder_start, 7);  // pad
  EXPECT_EQ(model.config.ids.max_positions, 1024);
  EXPECT_EQ(model.generation.num_beams, 1);
  EXPECT_EQ(model.generation.max_length, 20);
}

TEST(MarianDirectoryTest, MapsTransformersActivationNames) {
  const auto activation_of = [](const char* name) {
    json config = small_config();
    config["activation_function"] = name;
    const MarianDir dir(config, small_vocab());
    return read_marian_directory(dir.path()).config.options.activation;
  };
  EXPECT_EQ(activation_of("swish"), nmt::model::Activation::kSwish);
  EXPECT_EQ(activation_of("silu"), nmt::model::Activation::kSwish);
  EXPECT_EQ(activation_of("gelu"), nmt::model::Activation::kGelu);
  EXPECT_EQ(activation_of("gelu_python"), nmt::model::Activation::kGelu);
  EXPECT_EQ(activation_of("relu"), nmt::model::Activation::kRelu);
}

TEST(MarianDirectoryTest, NotesKeysTransformersIgnores) {
  json config = small_config();
  config["normalize_before"] = true;
  config["static_position_embeddings"] = false;
  const MarianDir dir(config, small_vocab());
  const MarianDirectory model = read_marian_directory(dir.path());
  const std::string path = dir.file("config.json");
  EXPECT_EQ(model.notes,
            (std::vector<std::string>{
                path + ": normalize_before is true, but transformers' MarianMTModel ignores it: "
                       "its layers are post-norm whatever it says",
                path + ": static_position_embeddings is false, but transformers' MarianMTModel "
                       "ignores it: its positions are the fixed sinusoid table"}));
  EXPECT_EQ(model.config.options.norm, nmt::model::NormPosition::kPost);
}

TEST(MarianDirectoryTest, ReadsSeparateVocabularies) {
  json config = small_config();
  config["share_encoder_decoder_embeddings"] = false;
  config["tie_word_embeddings"] = true;
  const MarianDir dir(config, small_vocab());
  dir.write("tokenizer_config.json",
            R"({"source_lang": "en", "target_lang": "fr", "separate_vocabs": true})");
  const json target = {{"</s>", 0}, {"<unk>", 1}, {"x", 2}, {"y", 3},
                       {"z", 4},    {"w", 5},     {"v", 6}, {"<pad>", 7}};
  dir.write("target_vocab.json", target.dump());
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_TRUE(model.tokenizer.has_separate_vocabs);
  EXPECT_FALSE(model.config.options.share_embeddings);
  EXPECT_EQ(model.target_vocab.path, dir.file("target_vocab.json"));
  EXPECT_EQ(model.target_vocab.pieces,
            (std::vector<std::string>{"</s>", "<unk>", "x", "y", "z", "w", "v", "<pad>"}));
  EXPECT_EQ(model.source_vocab.pieces[2], "▁a");

  dir.write("target_vocab.json", R"({"</s>": 0, "<unk>": 1, "<pad>": 2})");
  EXPECT_EQ(refusal(dir), dir.file("target_vocab.json") +
                              ": 3 entries, but config.json has decoder_vocab_size 8 (one "
                              "embedding row per entry)");
  dir.remove("target_vocab.json");
  EXPECT_EQ(refusal(dir), dir.file("target_vocab.json") +
                              ": missing; tokenizer_config.json sets separate_vocabs, so the "
                              "target side has a vocabulary of its own");
}

TEST(MarianDirectoryTest, FindsLanguageTagsSorted) {
  const MarianDir dir(small_config(), small_vocab());
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_EQ(model.language_tags, (std::vector<std::string>{">>deu<<", ">>fra<<", ">>por<<"}));
  EXPECT_EQ(nmt::import::marian_language_tags(
                {">>x<<", ">><<", ">>a<b<<", "a>>b<<", ">>>b<<", ">>pt_BR<<", "<<x>>"}),
            (std::vector<std::string>{">>pt_BR<<", ">>x<<"}));
}

TEST(MarianDirectoryTest, FindsAPytorchBinAndTheCommandThatConvertsIt) {
  const MarianDir dir(small_config(), small_vocab());
  dir.remove("model.safetensors");
  dir.write("pytorch_model.bin", "pickle");
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_TRUE(model.weights.is_pytorch_bin_only());
  EXPECT_EQ(model.weights.safetensors_path, "");
  EXPECT_EQ(model.weights.pytorch_bin_path, dir.file("pytorch_model.bin"));
  EXPECT_EQ(model.weights.conversion_command,
            "python3 -c \"import sys; from transformers import MarianMTModel; "
            "MarianMTModel.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[1])\" '" +
                dir.path() + "'");
  // Single quotes keep every byte; a quote inside ends, escapes and reopens them.
  EXPECT_EQ(nmt::import::marian_conversion_command("it's $HOME/`x` \"m\""),
            "python3 -c \"import sys; from transformers import MarianMTModel; "
            "MarianMTModel.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[1])\" "
            "'it'\\''s $HOME/`x` \"m\"'");

  dir.write("model.safetensors", "weights");  // both: safetensors is used
  EXPECT_FALSE(read_marian_directory(dir.path()).weights.is_pytorch_bin_only());
}

// ---- refusals: the model -----------------------------------------------------------------------

TEST(MarianDirectoryTest, RefusesOtherArchitecturesNamingThem) {
  const std::string tail =
      " is not a Marian model; nmt import --format marian reads MarianMTModel directories "
      "(OPUS-MT)";
  // Their own configs' shapes: what matters is that model_type is read first.
  const json bart = {{"model_type", "bart"}, {"d_model", 1024}, {"architectures", {"BartModel"}}};
  const json t5 = {{"model_type", "t5"}, {"d_model", 512}, {"num_layers", 6}};
  const json m2m = {{"model_type", "m2m_100"}, {"d_model", 1024}, {"scale_embedding", true}};
  for (const json& config : {bart, t5, m2m}) {
    const MarianDir dir(config, small_vocab());
    EXPECT_EQ(refusal(dir),
              dir.file("config.json") + ": model_type " + config["model_type"].dump() + tail);
  }

  json config = small_config();
  config["model_type"] = 5;
  const MarianDir numbered(config, small_vocab());
  EXPECT_EQ(refusal(numbered), numbered.file("config.json") + R"(: model_type: expected "marian", )"
                                                              R"(got 5)");
  config.erase("model_type");
  const MarianDir untyped(config, small_vocab());
  EXPECT_EQ(refusal(untyped), untyped.file("config.json") +
                                  ": model_type: missing; expected \"marian\" (nmt import --format "
                                  "marian reads MarianMTModel directories (OPUS-MT))");

  const MarianDir causal = [] {
    json decoder_only = small_config();
    decoder_only["architectures"] = {"MarianForCausalLM"};
    return MarianDir(decoder_only, small_vocab());
  }();
  EXPECT_EQ(refusal(causal), causal.file("config.json") +
                                 ": architectures lists [\"MarianForCausalLM\"], not "
                                 "\"MarianMTModel\"; nmt import --format marian reads "
                                 "MarianMTModel directories (OPUS-MT)");
}

TEST(MarianDirectoryTest, RefusesWhatNmtsTransformerCannotHold) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("config.json");
  json config = small_config();
  config["decoder_attention_heads"] = 16;
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": encoder_attention_heads (8) and decoder_attention_heads (16) "
                              "differ; nmt has one head count for both stacks");

  config = small_config();
  config["decoder_ffn_dim"] = 1024;
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": encoder_ffn_dim (2048) and decoder_ffn_dim (1024) differ; nmt "
                              "has one feed-forward width for both stacks");

  config = small_config();
  config["encoder_ffn_dim"] = config["decoder_ffn_dim"] = 2000;
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": encoder_ffn_dim 2000 is not a multiple of d_model 512; nmt's "
                              "feed-forward width is ff_mult * d_model");

  config = small_config();
  config["encoder_attention_heads"] = config["decoder_attention_heads"] = 7;
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": encoder_attention_heads: expected a divisor of d_model (512), "
                              "got 7");

  config = small_config();
  config["d_model"] = 511;
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": d_model: expected an even number (sinusoidal positions pair "
                              "sin and cos), got 511");
}

TEST(MarianDirectoryTest, RefusesActivationsNmtDoesNotHave) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("config.json");
  json config = small_config();
  config["activation_function"] = "tanh";
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path + R"(: activation_function: expected one of "swish", "silu", )"
                                 R"("gelu", "gelu_python" or "relu", got "tanh")");
  config["activation_function"] = "gelu_new";
  dir.write("config.json", config.dump());
  EXPECT_EQ(refusal(dir), path + R"(: activation_function "gelu_new" is GELU's tanh )"
                                 R"(approximation, which nmt does not have; nmt takes "swish", )"
                                 R"("silu", "gelu", "gelu_python" or "relu")");
}

TEST(MarianDirectoryTest, NamesTheKeyOfAWrongValue) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("config.json");
  const auto refused_config = [&](const json& config) {
    dir.write("config.json", config.dump());
    return refusal(dir);
  };
  const auto refused = [&](const std::string& key, const json& value) {
    json config = small_config();
    config[key] = value;
    return refused_config(config);
  };
  json without_d_model = small_config();
  without_d_model.erase("d_model");
  EXPECT_EQ(refused("encoder_ffn_dim", "x"),
            path + R"(: encoder_ffn_dim: expected a positive integer, got "x")");
  EXPECT_EQ(refused_config(without_d_model),
            path + ": d_model: missing; expected a positive integer");
  EXPECT_EQ(refused("encoder_layers", 0), path +
                                              ": encoder_layers: expected a positive integer, "
                                              "got 0");
  EXPECT_EQ(refused("d_model", 2048.0),
            path + ": d_model: expected a positive integer, got 2048.0");
  EXPECT_EQ(refused("vocab_size", 18446744073709551615u),
            path + ": vocab_size: expected at most 67108864, got 18446744073709551615");
  EXPECT_EQ(refused("scale_embedding", "yes"),
            path + R"(: scale_embedding: expected true or false, got "yes")");
  EXPECT_EQ(refused("dropout", 1.5), path + ": dropout: expected a number in [0, 1), got 1.5");
  EXPECT_EQ(refused("pad_token_id", 8),
            path + ": pad_token_id: expected an id below 8 (vocab_size), got 8");
  EXPECT_EQ(refused("eos_token_id", nullptr),
            path + ": eos_token_id: expected an id below 8 (vocab_size), got null");
  EXPECT_EQ(refused("decoder_vocab_size", 9),
            path +
                ": share_encoder_decoder_embeddings is true (one embedding matrix for both "
                "sides), but vocab_size (8) and decoder_vocab_size (9) differ");
  // At most 60 bytes of a value are quoted.
  EXPECT_EQ(refused("activation_function", std::string(1000, 'x')),
            path +
                ": activation_function: expected one of \"swish\", \"silu\", \"gelu\", "
                "\"gelu_python\" or \"relu\", got \"" +
                std::string(60, 'x') + "...\" (1000 bytes)");
}

// ---- refusals: the vocabulary ------------------------------------------------------------------

TEST(MarianDirectoryTest, RefusesAVocabularyThatDisagreesWithTheEmbeddingRows) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("vocab.json");
  json vocab = small_vocab();
  vocab.erase("▁b");
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir),
            path + ": 7 entries, but config.json has vocab_size 8 (one embedding row per entry)");

  vocab = small_vocab();
  vocab["▁b"] = 2;  // "▁a" has 2 too; 4 has none
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path + ": \"▁a\" and \"▁b\" both have id 2");

  vocab = small_vocab();
  vocab["▁b"] = 8;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": \"▁b\": expected an id below 8 (vocab_size), "
                              "got 8");
  vocab["▁b"] = -1;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": \"▁b\": expected an id below 8 (vocab_size), "
                              "got -1");
  vocab["▁b"] = "4";
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path +
                              ": \"▁b\": expected an id below 8 (vocab_size), "
                              "got \"4\"");

  dir.write("vocab.json", R"(["</s>", "<unk>"])");
  EXPECT_EQ(refusal(dir), path + ": expected a JSON object mapping pieces to ids, got an array");
}

TEST(MarianDirectoryTest, RefusesAVocabularyWhoseSpecialPiecesDisagree) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("vocab.json");
  json vocab = small_vocab();
  vocab.erase("</s>");
  vocab["x"] = 0;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path + ": has no \"</s>\" (the end-of-sentence piece)");

  vocab = small_vocab();
  vocab["</s>"] = 2;
  vocab["▁a"] = 0;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path + ": \"</s>\" has id 2, but config.json has eos_token_id 0");

  vocab = small_vocab();
  vocab["<pad>"] = 2;
  vocab["▁a"] = 7;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir), path + ": \"<pad>\" has id 2, but config.json has pad_token_id 7");

  vocab = small_vocab();
  vocab.erase("<unk>");
  vocab["x"] = 1;
  dir.write("vocab.json", vocab.dump());
  EXPECT_EQ(refusal(dir),
            path + ": has no \"<unk>\" (the unknown piece, which MarianTokenizer requires)");
}

// ---- refusals: the other files -----------------------------------------------------------------

TEST(MarianDirectoryTest, RefusesMissingFilesNamingThem) {
  const MarianDir dir(small_config(), small_vocab());
  dir.remove("source.spm");
  EXPECT_EQ(refusal(dir), dir.file("source.spm") +
                              ": missing; it is the SentencePiece model of the source language");
  dir.write("source.spm", "model");
  dir.write("target.spm", "");
  EXPECT_EQ(refusal(dir), dir.file("target.spm") +
                              ": empty; it should be the SentencePiece model of the target "
                              "language");
  dir.write("target.spm", "model");

  dir.remove("model.safetensors");
  EXPECT_EQ(refusal(dir),
            dir.path() + ": no weights: neither model.safetensors nor pytorch_model.bin exists");
  dir.write("model.safetensors", "weights");

  dir.remove("vocab.json");
  EXPECT_EQ(refusal(dir), dir.file("vocab.json") + ": missing; it maps the model's pieces to ids");
  dir.remove("config.json");
  EXPECT_EQ(refusal(dir), dir.file("config.json") + ": missing; a Marian model directory has one");

  try {
    (void)read_marian_directory(dir.file("nowhere"));
    FAIL() << "read a missing directory";
  } catch (const nmt::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("nowhere") + ": no such directory");
  }
}

TEST(MarianDirectoryTest, ReadsTheTokenizerConfigOptionally) {
  const MarianDir dir(small_config(), small_vocab());
  dir.remove("tokenizer_config.json");
  const MarianDirectory model = read_marian_directory(dir.path());
  EXPECT_EQ(model.tokenizer.source_lang, "");
  EXPECT_FALSE(model.tokenizer.has_separate_vocabs);

  dir.write("tokenizer_config.json", R"({"separate_vocabs": true})");
  EXPECT_EQ(refusal(dir), dir.file("tokenizer_config.json") +
                              ": separate_vocabs is true, but config.json's "
                              "share_encoder_decoder_embeddings is true: one embedding matrix "
                              "cannot serve two vocabularies");
  dir.write("tokenizer_config.json", R"({"source_lang": 3})");
  EXPECT_EQ(refusal(dir),
            dir.file("tokenizer_config.json") + ": source_lang: expected a string, got 3");
}

// ---- hostile input -----------------------------------------------------------------------------

TEST(MarianDirectoryTest, RefusesHostileJson) {
  const MarianDir dir(small_config(), small_vocab());
  const std::string path = dir.file("config.json");
  dir.write("config.json", std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(refusal(dir), path + ": nested deeper than 8 levels");
  json deep = small_config();
  deep["extra"] = json::parse("[[[[[[[[1]]]]]]]]");  // levels 2 to 9
  dir.write("config.json", deep.dump());
  EXPECT_EQ(refusal(dir), path + ": nested deeper than 8 levels");

  dir.write("config.json", small_config()["bad_words_ids"].dump());
  EXPECT_EQ(refusal(dir), path + ": expected a JSON object, got an array");
  dir.write("config.json", "\"marian\"");
  EXPECT_EQ(refusal(dir), path + ": expected a JSON object, got \"marian\"");

  dir.write("config.json", "{\"model_type\": \"mari\xFF\"}");
  EXPECT_EQ(refusal(dir), path +
                              ": not valid JSON: parse error at line 1, column 21: syntax error "
                              "while parsing value - invalid string: ill-formed UTF-8 byte");
  dir.write("config.json", "{\"d_model\": 1e999}");
  EXPECT_EQ(refusal(dir), path + ": not valid JSON: it holds a number too large for a double");
  dir.write("config.json", R"({"model_type": "marian", "model_type": "bart"})");
  EXPECT_EQ(refusal(dir), path + ": the key \"model_type\" appears twice");
  dir.write("config.json", std::string((1 << 20) + 1, ' '));
  EXPECT_EQ(refusal(dir), path + ": too large: 1048577 bytes (at most 1048576)");

  dir.write("config.json", small_config().dump());
  dir.write("vocab.json", "{\"</s>\": 0, \"\xC3\x28\": 1}");  // invalid UTF-8 in a piece
  EXPECT_EQ(refusal(dir), dir.file("vocab.json") +
                              ": not valid JSON: parse error at line 1, column 15: syntax error "
                              "while parsing object key - invalid string: ill-formed UTF-8 byte");
}

}  // namespace
