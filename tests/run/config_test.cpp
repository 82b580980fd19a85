#include "nmt/run/config.h"

#include <gtest/gtest.h>

#include "nmt/error.h"
#include "test_utils.h"

namespace nmt {
namespace {

using nlohmann::json;

std::string error_of(const json& config) {
  try {
    config_from_json(config);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ConfigTest, DefaultsAreTheNotebooks) {
  const Config config = config_from_json(json::object());
  // The notebook's 15-word limit lives in configs/seed.json: a user's own corpus has no limit in
  // words unless asked (max_length, in tokens, guards memory instead).
  EXPECT_EQ(config.data.max_words, 0);
  EXPECT_EQ(config.data.max_length, 256);
  EXPECT_EQ(config.text.clean, text::CleanMode::kNotebook);
  EXPECT_EQ(config.text.tokenizer, text::TokenizerKind::kWord);
  EXPECT_EQ(config.model.d_model, 256);
  EXPECT_EQ(config.model.layers, 6);
  EXPECT_EQ(config.model.heads, 8);
  EXPECT_EQ(config.model.ff_mult, 4);
  EXPECT_DOUBLE_EQ(config.model.dropout, 0.1);
  EXPECT_EQ(config.model.norm, model::NormPosition::kPost);
  EXPECT_EQ(config.train.batch_size, 128);
  EXPECT_DOUBLE_EQ(config.train.lr, 5e-4);
  EXPECT_DOUBLE_EQ(config.train.label_smoothing, 0.05);
  EXPECT_EQ(config.train.schedule, train::Schedule::kConstant);
}

TEST(ConfigTest, CorpusListsReadInEveryFormAndRoundTrip) {
  const json root = {
      {"data",
       {{"train", {"a.tsv", {{"source", "b.en.gz"}, {"target", "b.es.gz"}, {"weight", 2.5}}}},
        {"valid", {{"source", "dev.en"}, {"target", "dev.es"}}},
        {"test", "test.tsv"}}}};
  const Config config = config_from_json(root);
  ASSERT_EQ(config.data.train.size(), 2u);
  EXPECT_EQ(config.data.train[0].path, "a.tsv");
  EXPECT_EQ(config.data.train[1].source, "b.en.gz");
  EXPECT_EQ(config.data.train[1].target, "b.es.gz");
  EXPECT_DOUBLE_EQ(config.data.train[1].weight, 2.5);
  ASSERT_EQ(config.data.valid.size(), 1u);
  EXPECT_EQ(config.data.valid[0].name(), "dev.en + dev.es");
  ASSERT_EQ(config.data.test.size(), 1u);
  EXPECT_EQ(config.data.test[0].path, "test.tsv");
  EXPECT_EQ(config.data.path, "") << "data.train replaces data.path";
  const Config again = config_from_json(config_to_json(config));
  EXPECT_EQ(again.data.train, config.data.train);
  EXPECT_EQ(again.data.valid, config.data.valid);
  EXPECT_EQ(again.data.test, config.data.test);
  EXPECT_EQ(config_to_json(again), config_to_json(config));
  // --data names one corpus instead of the list.
  json overridden = root;
  set_config_value(overridden, "data.path", "other.tsv");
  const Config one = config_from_json(overridden);
  EXPECT_TRUE(one.data.train.empty());
  EXPECT_EQ(one.data.training_corpora().front().path, "other.tsv");
}

TEST(ConfigTest, CorpusListErrorsNameTheEntry) {
  EXPECT_EQ(error_of({{"data", {{"path", "a.tsv"}, {"train", {"b.tsv"}}}}}),
            "data.train: name the training data either as data.path or as data.train, not both");
  EXPECT_EQ(error_of({{"data", {{"train", {"a.tsv", {{"source", "b.en"}}}}}}}),
            "data.train[1].target: aligned files need both \"source\" and \"target\"");
  EXPECT_EQ(error_of({{"data", {{"train", {{{"path", "a.tsv"}, {"source", "b.en"}}}}}}}),
            "data.train[0]: expected either a TSV file (\"path\") or aligned files (\"source\" and "
            "\"target\")");
  EXPECT_EQ(error_of({{"data", {{"valid", {{"path", "dev.tsv"}, {"weight", 2}}}}}}),
            "data.valid[0].weight: weights apply to training corpora only");
  EXPECT_EQ(error_of({{"data", {{"train", {{{"path", "a.tsv"}, {"weight", 0}}}}}}}),
            "data.train[0].weight: expected a positive number, got 0");
  EXPECT_EQ(error_of({{"data", {{"train", {{{"file", "a.tsv"}}}}}}}),
            "data.train[0].file: unknown key (known keys: path, source, target, weight)");
  EXPECT_EQ(error_of({{"data", {{"test", 3}}}}),
            "data.test: expected a file name or an object with \"path\" or \"source\" and "
            "\"target\", got 3");
  EXPECT_EQ(error_of({{"data", {{"max_length_ratio", 0.5}}}}),
            "data.max_length_ratio: expected 0 (no limit) or at least 1, got 0.5");
}

TEST(ConfigTest, ErrorsNameTheKeyPathAndExpectedType) {
  EXPECT_EQ(error_of({{"data", {{"max_words", "x"}}}}),
            "data.max_words: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(error_of({{"data", {{"max_words", -1}}}}),
            "data.max_words: expected a non-negative integer, got -1");
  EXPECT_EQ(error_of({{"train", {{"lr", "fast"}}}}), "train.lr: expected a number, got \"fast\"");
  EXPECT_EQ(error_of({{"train", {{"lr", -1}}}}), "train.lr: expected a positive number, got -1");
  EXPECT_EQ(error_of({{"model", {{"norm", "middle"}}}}),
            "model.norm: expected one of \"post\", \"pre\", got \"middle\"");
  EXPECT_EQ(error_of({{"model", {{"activation", "tanh"}}}}),
            "model.activation: expected one of \"relu\", \"gelu\", \"swish\", got \"tanh\"");
  EXPECT_EQ(error_of({{"model", {{"positions", "learned"}}}}),
            "model.positions: expected one of \"interleaved\", \"split\", got \"learned\"");
  EXPECT_EQ(error_of({{"model", {{"decoder_layers", -1}}}}),
            "model.decoder_layers: expected a non-negative integer, got -1");
  EXPECT_EQ(error_of({{"model", {{"heads", 3}}}}),
            "model.heads: expected a divisor of d_model (256), got 3");
  EXPECT_EQ(error_of({{"data", {{"dedupe", 1}}}}), "data.dedupe: expected true or false, got 1");
  EXPECT_EQ(error_of({{"data", "x"}}), "data: expected an object, got \"x\"");
  EXPECT_EQ(
      error_of({{"decode", {{"top_p", 0}}}}),
      "decode.top_p: expected a number from 1.17549e-38 (the smallest normal float) to 1, got "
      "0");
  EXPECT_EQ(
      error_of({{"decode", {{"precision", "fp16"}}}}),
      "decode.precision: expected one of \"auto\", \"fp32\", \"bf16\", \"int8\", \"int8w7\", got "
      "\"fp16\"");
  EXPECT_EQ(error_of({{"train", {{"device", "tpu"}}}}),
            "train.device: expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\", got \"tpu\"");
}

TEST(ConfigTest, UnknownKeysAndSectionsAreErrors) {
  EXPECT_EQ(error_of({{"data", {{"max_word", 3}}}})
                .rfind("data.max_word: unknown key (known keys: path,", 0),
            0u);
  EXPECT_EQ(error_of({{"optim", json::object()}}).rfind("optim: unknown section", 0), 0u);
}

TEST(ConfigTest, ServeSectionReadsChecksAndRoundTrips) {
  const Config config = config_from_json(
      {{"serve", {{"host", "0.0.0.0"}, {"port", 0}, {"max_batch", 16}, {"max_wait_ms", 0}}}});
  EXPECT_EQ(config.serve.host, "0.0.0.0");
  EXPECT_EQ(config.serve.port, 0);
  EXPECT_EQ(config.serve.max_batch, 16);
  EXPECT_EQ(config.serve.max_wait_ms, 0);
  EXPECT_EQ(config.serve.workers, 1) << "one batch at a time by default";
  EXPECT_EQ(config_to_json(config)["serve"]["max_batch"], 16);
  EXPECT_EQ(config_from_json(config_to_json(config)).serve.host, "0.0.0.0");
  EXPECT_EQ(error_of({{"serve", {{"port", 70000}}}}),
            "serve.port: expected a TCP port from 0 to 65535, got 70000");
  EXPECT_EQ(error_of({{"serve", {{"max_batch", 0}}}}),
            "serve.max_batch: expected a positive integer, got 0");
  EXPECT_EQ(error_of({{"serve", {{"max_queue", 10}, {"max_sentences", 20}}}}),
            "serve.max_queue: expected at least max_sentences (20), got 10");
  EXPECT_EQ(error_of({{"serve", {{"api_key", "x"}}}}).rfind("serve.api_key: unknown key", 0), 0u)
      << "keys are not configuration";
}

TEST(ConfigTest, CrossSectionRules) {
  EXPECT_EQ(error_of({{"model", {{"share_embeddings", true}}}}),
            "model.share_embeddings: needs text.shared_vocab = true");
  EXPECT_EQ(error_of({{"text", {{"vocab_from", "runs/teacher"}}},
                      {"train", {{"init_from", "runs/parent"}}}}),
            "text.vocab_from: not with train.init_from, whose run brings its own vocabularies");
  EXPECT_EQ(error_of({{"data", {{"augment_placeholders", 0.2}}}}),
            "data.augment_placeholders: needs text.tokenizer \"sentencepiece\", whose vocabulary "
            "keeps the placeholders ⦅1⦆ … ⦅9⦆ whole");
  EXPECT_EQ(error_of({{"text", {{"vocab_from", std::string("runs/a\0b", 8)}}}})
                .rfind("text.vocab_from: expected a file name", 0),
            0u);
}

TEST(ConfigTest, JsonRoundTripKeepsEveryValue) {
  json input = {
      {"data", {{"path", "x.tsv"}, {"format", "anki"}, {"seed", 5}}},
      {"text", {{"clean", "normalize"}, {"tokenizer", "sentencepiece"}, {"vocab_size", 4000}}},
      {"model",
       {{"norm", "pre"},
        {"tie_embeddings", true},
        {"d_model", 64},
        {"heads", 4},
        {"activation", "swish"},
        {"positions", "split"},
        {"encoder_layers", 6},
        {"decoder_layers", 1}}},
      {"train", {{"schedule", "inverse_sqrt"}, {"max_tokens", 1000}, {"precision", "bf16"}}},
      {"decode", {{"strategy", "beam"}, {"beam_size", 4}, {"n_best", 2}, {"precision", "int8w7"}}}};
  const Config config = config_from_json(input);
  const json written = config_to_json(config);
  EXPECT_EQ(config_to_json(config_from_json(written)), written);
  EXPECT_EQ(written["text"]["tokenizer"], "sentencepiece");
  EXPECT_EQ(written["model"]["norm"], "pre");
  EXPECT_EQ(written["model"]["activation"], "swish");
  EXPECT_EQ(written["model"]["positions"], "split");
  EXPECT_EQ(config.model.activation, model::Activation::kSwish);
  EXPECT_EQ(config.model.positions, model::PositionLayout::kSplit);
  EXPECT_EQ(config.model.encoder_depth(), 6);
  EXPECT_EQ(config.model.decoder_depth(), 1);
  EXPECT_EQ(config_to_json(Config{})["model"]["decoder_layers"], 0);
  EXPECT_EQ(config_to_json(Config{})["model"]["activation"], "relu");
  EXPECT_EQ(config_to_json(Config{})["model"]["positions"], "interleaved");
  EXPECT_EQ(written["train"]["max_tokens"], 1000);
  EXPECT_EQ(written["decode"]["n_best"], 2);
  EXPECT_EQ(written["decode"]["precision"], "int8w7");
  EXPECT_EQ(written["train"]["precision"], "bf16");
}

TEST(ConfigTest, MaxTimeIsADurationRecordedInTheResolvedConfig) {
  EXPECT_EQ(config_from_json(json::object()).train.max_time_seconds, 0.0);
  EXPECT_EQ(config_to_json(Config{})["train"]["max_time"], "0");
  const Config config = config_from_json({{"train", {{"max_time", "1h30m"}}}});
  EXPECT_EQ(config.train.max_time_seconds, 5400.0);
  EXPECT_EQ(config_to_json(config)["train"]["max_time"], "1h30m");
  EXPECT_EQ(config_from_json({{"train", {{"max_time", 0}}}}).train.max_time_seconds, 0.0);
  EXPECT_EQ(config_from_json({{"train", {{"max_time", ""}}}}).train.max_time_seconds, 0.0);
  EXPECT_EQ(resolve_config(json::object(), {parse_config_override("train.max_time=40m")})
                .train.max_time_seconds,
            2400.0);
  const std::string expected =
      "train.max_time: expected a duration such as \"90s\", \"40m\", \"2h\" or \"1h30m\" (0 = "
      "no limit), got ";
  EXPECT_EQ(error_of({{"train", {{"max_time", 90}}}}), expected + "90");
  EXPECT_EQ(error_of({{"train", {{"max_time", "40 minutes"}}}}), expected + "\"40 minutes\"");
  EXPECT_EQ(error_of({{"train", {{"max_time", true}}}}), expected + "true");
  EXPECT_EQ(error_of({{"train", {{"max_time", "0.5s"}}}}),
            "train.max_time: expected 0 (no limit) or from 1s to 100000h, got 0.5 s");
  EXPECT_EQ(error_of({{"train", {{"max_time", "200000h"}}}}),
            "train.max_time: expected 0 (no limit) or from 1s to 100000h, got 7.2e+08 s");
}

TEST(ConfigTest, SubwordSamplingIsRefusedWhereItCannotSample) {
  const json unigram = {{"tokenizer", "sentencepiece"}, {"model_type", "unigram"}};
  const json bpe = {{"tokenizer", "sentencepiece"}, {"model_type", "bpe"}};
  const auto with = [](json text, const json& extra) {
    text.update(extra);
    return json{{"text", text}};
  };
  const Config sampled =
      config_from_json(with(unigram, {{"sampling_nbest", -1}, {"sampling_alpha", 0.1}}));
  EXPECT_EQ(sampled.text.sampling_nbest, -1);
  EXPECT_EQ(config_to_json(sampled)["text"]["sampling_alpha"], 0.1);
  EXPECT_EQ(config_from_json(with(bpe, {{"bpe_dropout", 0.1}})).text.bpe_dropout, 0.1);
  EXPECT_EQ(config_from_json(with(unigram, {{"sampling_nbest", 1}})).text.sampling_nbest, 1);

  EXPECT_EQ(error_of({{"text", {{"sampling_nbest", -1}, {"sampling_alpha", 0.1}}}}),
            "text.sampling_nbest: subword sampling needs tokenizer \"sentencepiece\" (a word "
            "vocabulary has one segmentation)");
  EXPECT_EQ(error_of(with(bpe, {{"sampling_nbest", 64}, {"sampling_alpha", 0.1}})),
            "text.sampling_nbest: samples segmentations of unigram models; model_type \"bpe\" "
            "samples with bpe_dropout");
  EXPECT_EQ(error_of(with(unigram, {{"sampling_alpha", 0.1}})),
            "text.sampling_alpha: needs sampling_nbest -1 (every segmentation) or above 1 (the n "
            "best); 0 and 1 sample nothing");
  EXPECT_EQ(error_of(with(unigram, {{"sampling_nbest", -1}})),
            "text.sampling_alpha: expected a positive number with sampling_nbest -1 (Kudo 2018: "
            "0.1-0.5), got 0");
  EXPECT_EQ(error_of(with(unigram, {{"sampling_nbest", 513}, {"sampling_alpha", 0.1}})),
            "text.sampling_nbest: expected -1 (every segmentation), 0 or 1 (off) or at most 512, "
            "got 513");
  EXPECT_EQ(error_of(with(unigram, {{"sampling_nbest", -2}, {"sampling_alpha", 0.1}})),
            "text.sampling_nbest: expected -1 (every segmentation), 0 or 1 (off) or at most 512, "
            "got -2");
  EXPECT_EQ(error_of(with(unigram, {{"bpe_dropout", 0.1}})),
            "text.bpe_dropout: needs model_type \"bpe\"; unigram models sample with "
            "sampling_nbest and sampling_alpha");
  EXPECT_EQ(error_of({{"text", {{"bpe_dropout", 0.1}}}}),
            "text.bpe_dropout: needs tokenizer \"sentencepiece\" with model_type \"bpe\"");
  EXPECT_EQ(error_of(with(bpe, {{"bpe_dropout", 1}})),
            "text.bpe_dropout: expected a number in [0, 1), got 1");
  EXPECT_EQ(error_of(with(unigram, {{"sampling_nbest", "all"}})),
            "text.sampling_nbest: expected an integer, got \"all\"");
}

TEST(ConfigTest, LoadReportsMissingFilesAndBadJson) {
  testing::ScratchDir dir;
  EXPECT_THROW(load_config(dir.file("none.json")), ConfigError);
  try {
    load_config(dir.write("bad.json", "{\"data\": "));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.json: not valid JSON"), std::string::npos);
  }
  try {
    load_config(dir.write("typo.json", R"({"train": {"epochs": "ten"}})"));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.file("typo.json") + ": train.epochs: expected a positive integer, got \"ten\"");
  }
}

// Where an error came from is data on the error, not a prefix of its text: the key path from the
// section that refused it, the origin from load_config (the file, or the flag that set the key).
TEST(ConfigTest, AnErrorCarriesItsKeyAndOriginApartFromItsDetail) {
  testing::ScratchDir dir;
  const std::string good = dir.write("good.json", R"({"train": {"epochs": 3}})");
  const std::string odd_width = dir.write("odd.json", R"({"model": {"d_model": 5, "heads": 1}})");
  const auto error_of = [](const std::string& path, const ConfigOverrides& overrides) {
    try {
      load_config(path, overrides);
    } catch (const ConfigError& error) {
      return error;
    }
    return ConfigError("nothing was refused");
  };
  const ConfigError from_flag = error_of(good, {parse_config_override("decode.beam_size=0")});
  EXPECT_EQ(from_flag.origin(), "command line");
  EXPECT_EQ(from_flag.key(), "decode.beam_size");
  EXPECT_EQ(from_flag.detail(), "expected a positive integer, got 0");
  EXPECT_EQ(std::string(from_flag.what()),
            "command line: decode.beam_size: expected a positive integer, got 0");

  // A flag that sets a list makes the errors of the keys inside it the command line's.
  const ConfigError from_list_flag =
      error_of(good, {parse_config_override(R"(data.train=[{"path": "a.tsv", "weight": -1}])")});
  EXPECT_EQ(from_list_flag.origin(), "command line");
  EXPECT_EQ(from_list_flag.key(), "data.train[0].weight");
  EXPECT_EQ(from_list_flag.detail(), "expected a positive number, got -1");

  // A flag that sets another key leaves the file's error the file's; the key of an error found
  // by a section's own checks is named from the top.
  const ConfigError from_file = error_of(odd_width, {parse_config_override("train.epochs=4")});
  EXPECT_EQ(from_file.origin(), odd_width);
  EXPECT_EQ(from_file.key(), "model.d_model");
  EXPECT_EQ(std::string(from_file.what()),
            odd_width +
                ": model.d_model: expected an even number (sinusoidal positions pair sin "
                "and cos), got 5");

  const ConfigError whole_file = ConfigError("expected a JSON object").from("a.json");
  EXPECT_EQ(whole_file.key(), "");
  EXPECT_EQ(std::string(whole_file.what()), "a.json: expected a JSON object");
}

TEST(ConfigTest, DirectionKeysRoundTripAndLanguageCodesAreChecked) {
  const Config reversed = config_from_json(
      json::parse(R"({"data": {"reverse": true, "source_lang": "es", "target_lang": "en"}})"));
  EXPECT_TRUE(reversed.data.reverse);
  EXPECT_EQ(config_to_json(reversed)["data"]["source_lang"], "es");
  try {
    config_from_json(json::parse(R"({"data": {"source_lang": "e n"}})"));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "data.source_lang: expected a language code such as \"en\" or \"pt-BR\", got \"e "
              "n\"");
  }
}

TEST(ConfigTest, SetAssignmentsReadJsonValuesAndBareWords) {
  EXPECT_EQ(parse_config_override("model.d_model=512").value, 512);
  EXPECT_EQ(parse_config_override("model.dropout=0.3").value, 0.3);
  EXPECT_EQ(parse_config_override("data.reverse=true").value, true);
  EXPECT_EQ(parse_config_override("model.norm=pre").value, "pre");
  EXPECT_EQ(parse_config_override("data.path=a=b.tsv").value, "a=b.tsv");
  EXPECT_EQ(parse_config_override("data.path=a=b.tsv").key, "data.path");
  EXPECT_THROW(parse_config_override("model.d_model"), ConfigError);
  EXPECT_THROW(resolve_config(json::object(), {parse_config_override("model.width=3")}),
               ConfigError);
}

TEST(ConfigTest, ANumberOutOfRangeNamesItsKey) {
  testing::ScratchDir dir;
  try {
    load_config(dir.write("huge.json", R"({"data": {"seed": 1}, "train": {"epochs": 1e999}})"));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.file("huge.json") + ": train.epochs: number overflow parsing '1e999'");
  }
}

TEST(ConfigTest, ADuplicatedKeyIsRefusedWithTheLinesOfBothOccurrences) {
  testing::ScratchDir dir;
  const std::string path = dir.write("twice.json", R"({"train": {"epochs": 3,
      "lr": 0.1,
      "epochs": 7}})");
  try {
    load_config(path);
    FAIL() << "a duplicated key was read";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ":3: train.epochs: duplicate key (also set at line 1); name each key once");
  }
  // The same key in different objects is no duplicate.
  EXPECT_NO_THROW(load_config(
      dir.write("ok.json", R"({"data": {"seed": 1, "path": "a.tsv"}, "train": {"seed": 1}})")));
  EXPECT_THROW(parse_config_override(R"(data.train=[{"path": "a", "path": "b"}])"), ConfigError);
}

TEST(ConfigTest, ValuesInMessagesAreShortenedWhateverTheirSize) {
  const std::string huge(50 << 20, 'y');
  const std::string message = error_of({{"data", {{"max_words", huge}}}});
  EXPECT_EQ(message, "data.max_words: expected a non-negative integer, got \"" +
                         std::string(80, 'y') + "...\" (52428800 bytes)");
  json wide = json::array();
  for (int i = 0; i < 100000; ++i) wide.push_back(i);
  const std::string array_message = error_of({{"train", {{"epochs", wide}}}});
  EXPECT_LT(array_message.size(), 200u) << array_message;
  EXPECT_EQ(array_message.rfind("train.epochs: expected a positive integer, got [0,1,2,", 0), 0u);
  EXPECT_NE(array_message.find("... (100000 elements)"), std::string::npos) << array_message;
  EXPECT_EQ(error_of({{huge, 1}}),
            std::string(80, 'y') +
                "... (52428800 bytes): unknown section (known: data, text, model, train, decode, "
                "serve, runtime, description)");
}

TEST(ConfigTest, FlagValuesNestedTooDeepAreRefused) {
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  try {
    parse_config_override("data.max_words=" + deep);
    FAIL() << "a value nested 1000 deep was taken";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), "--set data.max_words:1: nested deeper than 32 levels");
  }
}

TEST(ConfigTest, SetConfigValueOverridesOneKey) {
  json root = {{"train", {{"threads", 1}}}};
  set_config_value(root, "train.threads", 4);
  set_config_value(root, "data.path", "a.tsv");
  EXPECT_EQ(config_from_json(root).train.threads, 4);
  EXPECT_EQ(config_from_json(root).data.path, "a.tsv");
  EXPECT_THROW(set_config_value(root, "threads", 2), ConfigError);
}

TEST(ConfigTest, DistributedKeysLiveInTheirOwnObjectUnderTrain) {
  const Config config = config_from_json(
      {{"train", {{"update_freq", 4}, {"distributed", {{"backend", "gloo"}, {"timeout", 30}}}}}});
  EXPECT_EQ(config.train.update_freq, 4);
  EXPECT_EQ(config.train.distributed.backend, train::Backend::kGloo);
  EXPECT_EQ(config.train.distributed.timeout_seconds, 30.0);
  EXPECT_EQ(config_to_json(config)["train"]["distributed"]["backend"], "gloo");
  EXPECT_EQ(error_of({{"train", {{"distributed", {{"backend", "mpi"}}}}}}),
            "train.distributed.backend: expected one of \"auto\", \"gloo\", \"nccl\", got \"mpi\"");
  EXPECT_EQ(error_of({{"train", {{"distributed", {{"port", 1}}}}}}),
            "train.distributed.port: unknown key (known keys: backend, timeout, bucket_mb)");
  EXPECT_EQ(error_of({{"train", {{"distributed", 3}}}}),
            "train.distributed: expected an object, got 3");
  EXPECT_EQ(error_of({{"train", {{"update_freq", 0}}}}),
            "train.update_freq: expected a positive integer, got 0");
  json root = json::object();
  set_config_value(root, "train.distributed.timeout", 5);
  EXPECT_EQ(config_from_json(root).train.distributed.timeout_seconds, 5.0);
}

TEST(ConfigTest, BundledConfigsAreValid) {
  for (const char* name : {"quickstart.json", "seed.json", "tatoeba-en-es.json",
                           "tatoeba-en-es-student.json", "notebook-baseline.json"}) {
    const std::string path = testing::source_dir() + "/configs/" + name;
    EXPECT_NO_THROW(load_config(path)) << path;
  }
}

// Where a command that does not train runs: the runtime section, and the old train keys where
// they still decide.
RuntimeChoice runtime_of(const nlohmann::json& file, const ConfigOverrides& overrides = {}) {
  return choose_runtime(file, "RUN/config.json", resolve_config(file, overrides), overrides);
}

TEST(RuntimeChoiceTest, ARunWithARuntimeSectionUsesItWhateverItTrainedWith) {
  const RuntimeChoice choice =
      runtime_of({{"train", {{"threads", 1}, {"device", "cpu"}}}, {"runtime", {{"threads", 3}}}});
  EXPECT_EQ(choice.threads, 3);
  EXPECT_EQ(choice.device, "auto");
  EXPECT_EQ(choice.device_key, "runtime.device");
  EXPECT_TRUE(choice.notes.empty());
}

TEST(RuntimeChoiceTest, ARunWrittenBeforeTheRuntimeSectionKeepsItsTrainKeysWithANote) {
  const RuntimeChoice choice = runtime_of({{"train", {{"threads", 1}, {"device", "cpu"}}}});
  EXPECT_EQ(choice.threads, 1);
  EXPECT_EQ(choice.device, "cpu");
  EXPECT_EQ(choice.device_key, "train.device") << "so that an error about it names the key read";
  ASSERT_EQ(choice.notes.size(), 2u);
  EXPECT_EQ(choice.notes[0],
            "RUN/config.json has no runtime section (written before it existed): train.device "
            "\"cpu\" is read in its place for now; set runtime.device (--device) for commands "
            "that do not train");
  EXPECT_EQ(choice.notes[1],
            "RUN/config.json has no runtime section (written before it existed): train.threads 1 "
            "is read in its place for now; set runtime.threads (--threads) for commands that do "
            "not train");
  const RuntimeChoice defaults = runtime_of({{"train", {{"epochs", 3}}}});
  EXPECT_EQ(defaults.threads, 0);
  EXPECT_TRUE(defaults.notes.empty()) << "nothing to say where train kept its defaults";
}

TEST(RuntimeChoiceTest, TrainKeysOnTheCommandLineAreStillReadWithADeprecationNote) {
  const nlohmann::json file = {{"runtime", {{"threads", 0}}}};
  const RuntimeChoice choice = runtime_of(file, {{"train.threads", 4}});
  EXPECT_EQ(choice.threads, 4);
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_EQ(choice.notes[0],
            "train.threads 4 set on the command line of a command that does not train is "
            "deprecated: set runtime.threads (--threads) instead");
  const RuntimeChoice both = runtime_of(file, {{"train.threads", 4}, {"runtime.threads", 2}});
  EXPECT_EQ(both.threads, 2) << "the runtime key wins";
  EXPECT_TRUE(both.notes.empty());
  const RuntimeChoice devices =
      runtime_of({{"runtime", {{"device", "cpu"}}}}, {{"train.device", "cpu"}});
  EXPECT_EQ(devices.device_key, "train.device") << "the value read, not its equal, names the key";
}

TEST(RuntimeChoiceTest, ABadRuntimeDeviceIsRefusedWithItsKey) {
  EXPECT_EQ(error_of({{"runtime", {{"device", "gpu"}}}}),
            "runtime.device: expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\", got \"gpu\"");
}

}  // namespace
}  // namespace nmt
