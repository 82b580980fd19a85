#include "nmt/serve/api.h"

#include <gtest/gtest.h>

#include "fake_model.h"
#include "nmt/serve/libre_api.h"
#include "nmt/serve/v1_api.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

// The ApiError a call throws, as "status message".
template <class Call>
std::string refusal(Call&& call) {
  try {
    call();
  } catch (const ApiError& error) {
    return std::to_string(error.status()) + " " + error.what();
  }
  return "accepted";
}

std::string libre_refusal(const json& fields, const ModelInfo& model = testing::en_es_model()) {
  return refusal([&] { (void)libre_request(fields, ServeOptions{}, model); });
}

std::vector<SentenceResult> results_of(const std::vector<std::string>& lines, int n_best = 1) {
  decode::SearchOptions options;
  options.n_best = n_best;
  testing::FakeModel model;
  return model.translate({lines, std::vector<bool>(lines.size(), false), options, {}});
}

// What the fake model answers for each text of a request.
std::vector<SentenceResult> results_of(const RequestTexts& texts, int n_best = 1) {
  return join_texts(texts, results_of(texts.sentences(), n_best));
}

TEST(RequestFieldsTest, JsonBodiesAndFormsGiveTheSameFields) {
  const json from_json = request_fields(
      {"application/json; charset=utf-8", R"({"q": ["a", "b"], "source": "en"})", {}, ""},
      Api::kLibre, {});
  EXPECT_EQ(from_json, json::parse(R"({"q": ["a", "b"], "source": "en"})"));
  const json from_form = request_fields({"application/x-www-form-urlencoded",
                                         "",
                                         {{"q", "hello"}, {"q", "again"}, {"target", "es"}},
                                         ""},
                                        Api::kLibre, {});
  EXPECT_EQ(from_form, json::parse(R"({"q": "hello", "target": "es"})")) << "first value wins";
  // application/*+json counts as JSON, as Flask's is_json has it.
  EXPECT_EQ(request_fields({"application/vnd.api+json", R"({"q": "x"})", {}, ""}, Api::kLibre, {}),
            json::parse(R"({"q": "x"})"));
}

TEST(RequestFieldsTest, BodiesThatAreNotAJsonObjectAreRefused) {
  EXPECT_EQ(refusal([] {
              request_fields({"application/json", "{\"q\": ", {}, ""}, Api::kLibre, {});
            }).rfind("400 Failed to decode JSON object: parse error at line 1, column 7", 0),
            0u);
  EXPECT_EQ(refusal([] {
              request_fields({"application/json", "[1, 2]", {}, ""}, Api::kLibre, {});
            }),
            "400 Invalid JSON format");
  // /v1/translate reads JSON whatever the Content-Type says.
  EXPECT_EQ(refusal([] {
              request_fields({"text/plain", "\"q\"", {}, ""}, Api::kV1, {});
            }),
            "400 Invalid JSON format");
}

TEST(RequestFieldsTest, BodiesNestedDeeperThanTheLimitAreRefusedWhileRead) {
  const auto nested = [](std::size_t levels) {
    return R"({"q": "I am hungry.", "beam_size": )" + std::string(levels, '[') +
           std::string(levels, ']') + "}";
  };
  const std::string too_deep =
      "400 Failed to decode JSON object: beam_size: nested deeper than 32 levels";
  for (const Api api : {Api::kLibre, Api::kV1}) {
    // The object is level 1: 31 arrays inside it are 32 levels.
    EXPECT_EQ(refusal([&] {
                request_fields({"application/json", nested(31), {}, ""}, api, {});
              }),
              "accepted");
    EXPECT_EQ(refusal([&] {
                request_fields({"application/json", nested(32), {}, ""}, api, {});
              }),
              too_deep);
    // 200,000 levels: reading, destroying and refusing it must not recurse per level.
    EXPECT_EQ(refusal([&] {
                request_fields({"application/json", nested(200000), {}, ""}, api, {});
              }),
              too_deep);
    // Unclosed, as a client that stops sending would leave it, and in no field.
    EXPECT_EQ(refusal([&] {
                request_fields({"application/json", std::string(200000, '['), {}, ""}, api, {});
              }),
              "400 Failed to decode JSON object: nested deeper than 32 levels");
  }
}

TEST(RequestFieldsTest, BodiesOverTheSizeLimitAreRefused) {
  ServeOptions limits;
  limits.max_body_bytes = 16;
  EXPECT_EQ(
      refusal([&] {
        request_fields({"application/json", R"({"q": "0123456789"})", {}, ""}, Api::kV1, limits);
      }),
      "413 request body larger than serve.max_body_bytes (16 bytes)");
  EXPECT_EQ(refusal([&] {
              request_fields({"application/json", R"({"q": "01234"})", {}, ""}, Api::kV1, limits);
            }),
            "accepted");
}

TEST(ApiKeyTest, MissingAndWrongKeysAreRefusedAsEachApiDoes) {
  const json none = json::object();
  EXPECT_EQ(refusal([&] { check_api_key("", none, "", Api::kV1); }), "accepted");
  EXPECT_EQ(refusal([&] { check_api_key("s3cret", none, "", Api::kLibre); }),
            "400 Please contact the server operator to get an API key");
  EXPECT_EQ(refusal([&] { check_api_key("s3cret", none, "", Api::kV1); }),
            "401 missing API key: send it as \"Authorization: Bearer KEY\" or as api_key");
  EXPECT_EQ(refusal([&] { check_api_key("s3cret", none, "Bearer s3cre", Api::kV1); }),
            "403 Invalid API key");
  EXPECT_EQ(refusal([&] {
              check_api_key("s3cret", {{"api_key", "s3cretX"}}, "", Api::kLibre);
            }),
            "403 Invalid API key");
  EXPECT_EQ(refusal([&] { check_api_key("s3cret", none, "Bearer s3cret", Api::kV1); }), "accepted");
  EXPECT_EQ(refusal([&] {
              check_api_key("s3cret", {{"api_key", "s3cret"}}, "", Api::kLibre);
            }),
            "accepted");
}

TEST(LibreRequestTest, RefusesMissingAndWrongFieldsWithLibreTranslatesWords) {
  EXPECT_EQ(libre_refusal({{"source", "en"}, {"target", "es"}}),
            "400 Invalid request: missing q parameter");
  EXPECT_EQ(libre_refusal({{"q", ""}, {"source", "en"}, {"target", "es"}}),
            "400 Invalid request: missing q parameter");
  EXPECT_EQ(libre_refusal({{"q", "hi"}, {"target", "es"}}),
            "400 Invalid request: missing source parameter");
  EXPECT_EQ(libre_refusal({{"q", "hi"}, {"source", "en"}}),
            "400 Invalid request: missing target parameter");
  EXPECT_EQ(libre_refusal({{"q", 5}, {"source", "en"}, {"target", "es"}}),
            "400 Invalid request: q must be a string or a list of strings");
  EXPECT_EQ(libre_refusal({{"q", {"a", 1}}, {"source", "en"}, {"target", "es"}}),
            "400 Invalid request: q[1] is not a string");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "es"}, {"alternatives", "x"}}),
            "400 Invalid request: alternatives parameter is not a number");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "es"}, {"alternatives", 16}}),
            "400 Invalid request: alternatives parameter must be <= 15");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "es"}, {"format", "xml"}}),
            "400 xml format is not supported");
}

TEST(LibreRequestTest, AWrongLanguagePairNamesThePairTheModelServes) {
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "fr"}, {"target", "es"}}),
            "400 fr is not supported (this model translates en to es)");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "de"}}),
            "400 de is not supported (this model translates en to es)");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "auto"}, {"target", "es"}}), "accepted");
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "EN"}, {"target", "Es"}}), "accepted");
  // A run without language codes takes any.
  ModelInfo any = testing::en_es_model();
  any.source_lang.clear();
  any.target_lang.clear();
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "xx"}, {"target", "auto"}}, any), "accepted");
  any.target_lang = "es";
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "xx"}, {"target", "de"}}, any),
            "400 de is not supported (this model translates any language to es)");
}

TEST(LibreRequestTest, TargetPicksOneOfAMultiTargetModelsLanguages) {
  ModelInfo romance = testing::en_es_model();
  romance.target_lang = "roa";
  romance.target_languages = {"fra", "por", "spa"};
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "deu"}}, romance),
            "400 deu is not one of this model's target languages (fra, por, spa)");
  const LibreRequest request =
      libre_request(json{{"q", "a"}, {"source", "en"}, {"target", "por"}}, ServeOptions{}, romance);
  EXPECT_EQ(request.options.target_lang, "por");
}

TEST(LibreRequestTest, LimitsNameTheirSizeAndLimit) {
  ServeOptions limits;
  limits.max_sentences = 3;
  limits.max_chars = 30;
  const auto refused = [&](const json& q) {
    return refusal([&] {
      (void)libre_request({{"q", q}, {"source", "en"}, {"target", "es"}}, limits,
                          testing::en_es_model());
    });
  };
  EXPECT_EQ(refused({"a", "b", "c", "d"}),
            "400 Invalid request: request (4) exceeds text limit (3)");
  EXPECT_EQ(refused("one\ntwo\nthree\nfour"),
            "400 Invalid request: request (4) exceeds text limit (3)")
      << "lines count as sentences";
  EXPECT_EQ(refused("One. Two. Three! Four?"),
            "400 Invalid request: request (4) exceeds text limit (3)")
      << "so do the sentences of a line";
  limits.max_chars = 10;
  EXPECT_EQ(refused("One. Two. Three! Four? Five."),
            "400 Invalid request: request (28) exceeds text limit (10)")
      << "characters are counted before the text is cut";
  EXPECT_EQ(refused("ñññññññññññ"), "400 Invalid request: request (11) exceeds text limit (10)")
      << "characters are code points, not bytes";
  EXPECT_EQ(refused("ññññññññññ"), "accepted");
}

TEST(LibreRequestTest, TextsAreTranslatedSentenceBySentenceAndJoinedBack) {
  const LibreRequest request = libre_request(
      {{"q", {"Hello.\r\nBye. Mr. Li is here!  ", "One"}}, {"source", "en"}, {"target", "es"}}, {},
      testing::en_es_model());
  EXPECT_EQ(request.texts.sentences(),
            (std::vector<std::string>{"Hello.", "Bye.", "Mr. Li is here!", "One"}));
  EXPECT_TRUE(request.is_list);
  EXPECT_EQ(dump(libre_answer(request, results_of(request.texts), testing::en_es_model())),
            R"({"translatedText":["HELLO.\r\nBYE. MR. LI IS HERE!  ","ONE"]})");
}

TEST(LibreRequestTest, SplitFalseCutsAtLineBreaksAlone) {
  for (const json& split : {json(false), json("false"), json("0")}) {
    const LibreRequest request = libre_request(
        {{"q", "Hello. Bye.\nOne"}, {"source", "en"}, {"target", "es"}, {"split", split}}, {},
        testing::en_es_model());
    EXPECT_EQ(request.texts.sentences(), (std::vector<std::string>{"Hello. Bye.", "One"}));
  }
  EXPECT_EQ(libre_refusal({{"q", "a"}, {"source", "en"}, {"target", "es"}, {"split", "no"}}),
            "400 Invalid request: split parameter must be true or false");
}

TEST(LibreRequestTest, HtmlTranslatesTextNodesSentenceBySentenceAndKeepsTheMarkup) {
  const LibreRequest request = libre_request(
      {{"q", {R"(<p class="a">Hi. Bye.</p><code>x = 1</code> <b>Yes</b>)", "<i>One</i>"}},
       {"source", "en"},
       {"target", "es"},
       {"format", "html"},
       {"alternatives", 1}},
      {}, testing::en_es_model());
  EXPECT_EQ(request.texts.sentences(), (std::vector<std::string>{"Hi.", "Bye.", "Yes", "One"}));
  EXPECT_EQ(dump(libre_answer(request, results_of(request.texts, 2), testing::en_es_model())),
            R"({"alternatives":[["<p class=\"a\">HI. #2 BYE. #2</p><code>x = 1</code> )"
            R"(<b>YES #2</b>"],["<i>ONE #2</i>"]],"translatedText":["<p class=\"a\">HI. BYE.)"
            R"(</p><code>x = 1</code> <b>YES</b>","<i>ONE</i>"]})");
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<b>";
  EXPECT_EQ(
      libre_refusal({{"q", {"ok", deep}}, {"source", "en"}, {"target", "es"}, {"format", "html"}}),
      "400 q[1]: cannot parse the HTML text: Excessive depth in document: 256 use "
      "XML_PARSE_HUGE option");
}

TEST(RequestTextsTest, CapitalsAndLowerCaseAreQueuedInSentenceCaseAndCapitalsAnswered) {
  const RequestTexts texts =
      split_texts({"WHERE IS TOM? i am here. Fine."}, testing::en_es_model(), true, false);
  EXPECT_EQ(texts.sentences(), (std::vector<std::string>{"Where is tom?", "I am here.", "Fine."}));
  std::vector<SentenceResult> results(3);
  results[0].hypotheses = {{"¿Dónde está tom?", -1.0f}};
  results[1].hypotheses = {{"Estoy aquí.", -1.0f}};
  results[2].hypotheses = {{"Bien.", -1.0f}};
  const std::vector<SentenceResult> joined = join_texts(texts, std::move(results));
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].hypotheses.front().text, "¿DÓNDE ESTÁ TOM? Estoy aquí. Bien.");
}

TEST(LibreRequestTest, ATextWithoutASentenceComesBackAsItWas) {
  const LibreRequest request = libre_request(
      {{"q", {" \n", "Hi."}}, {"source", "en"}, {"target", "es"}}, {}, testing::en_es_model());
  EXPECT_EQ(request.texts.sentences(), std::vector<std::string>{"Hi."});
  EXPECT_EQ(dump(libre_answer(request, results_of(request.texts), testing::en_es_model())),
            R"({"translatedText":[" \n","HI."]})");
}

TEST(LibreRequestTest, AnswersAStringWithAString) {
  const LibreRequest request =
      libre_request({{"q", "hi"}, {"source", "en"}, {"target", "es"}}, {}, testing::en_es_model());
  EXPECT_EQ(dump(libre_answer(request, results_of(request.texts), testing::en_es_model())),
            R"({"translatedText":"HI"})");
}

TEST(LibreRequestTest, AlternativesComeFromBeamSearchsNBest) {
  const LibreRequest request =
      libre_request({{"q", "hi"}, {"source", "en"}, {"target", "es"}, {"alternatives", "2"}}, {},
                    testing::en_es_model());
  EXPECT_EQ(request.options.strategy, decode::Strategy::kBeam);
  EXPECT_EQ(request.options.n_best, 3);
  EXPECT_EQ(request.options.beam_size, 5);
  EXPECT_EQ(dump(libre_answer(request, results_of(request.texts, 3), testing::en_es_model())),
            R"({"alternatives":["HI #2","HI #3"],"translatedText":"HI"})");
}

TEST(LibreRequestTest, AutoIsAnsweredWithTheModelsSourceLanguage) {
  const LibreRequest request = libre_request(
      {{"q", {"a", "b"}}, {"source", "auto"}, {"target", "es"}}, {}, testing::en_es_model());
  const json answer = libre_answer(request, results_of(request.texts), testing::en_es_model());
  EXPECT_EQ(answer["detectedLanguage"], json::parse(R"([{"confidence": 100.0, "language": "en"},
                            {"confidence": 100.0, "language": "en"}])"));
}

TEST(LibreLanguagesTest, ListsThePairTheModelServes) {
  EXPECT_EQ(dump(libre_languages(testing::en_es_model())),
            R"([{"code":"en","name":"English","targets":["es"]},)"
            R"({"code":"es","name":"Spanish","targets":[]}])");
  EXPECT_EQ(dump(libre_languages(ModelInfo{})), "[]");
}

TEST(V1RequestTest, ReadsDecodingOptionsOverTheDefaults) {
  ModelInfo defaults;
  defaults.defaults.beam_size = 4;
  defaults.defaults.precision = decode::Precision::kBf16;
  const V1Request request = v1_request(
      json::parse(R"({"q": ["a", "b"], "strategy": "beam", "n_best": 3, "length_penalty": 0.6,
                      "scores": true, "attention": true, "seed": 7})"),
      {}, defaults);
  // Sentences in lower case are queued in sentence case.
  EXPECT_EQ(request.texts.sentences(), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(request.options.strategy, decode::Strategy::kBeam);
  EXPECT_EQ(request.options.beam_size, 4);
  EXPECT_EQ(request.options.n_best, 3);
  EXPECT_DOUBLE_EQ(request.options.length_penalty, 0.6);
  EXPECT_EQ(request.options.seed, 7u);
  EXPECT_EQ(request.options.precision, decode::Precision::kBf16)
      << "the server's, not the request's";
  EXPECT_TRUE(request.wants_scores);
  EXPECT_TRUE(request.wants_attention);
  EXPECT_EQ(v1_request({{"q", "One"}}, {}, defaults).texts.sentences(),
            (std::vector<std::string>{"One"}));
}

TEST(V1RequestTest, RefusesWhatItCannotUseNamingTheKey) {
  const auto refused = [](const std::string& body) {
    return refusal([&] { (void)v1_request(json::parse(body), ServeOptions{}, {}); });
  };
  EXPECT_EQ(refused(R"({"q": "a", "beam": 5})"),
            "400 beam: unknown key (known keys: q, strategy, beam_size, n_best, length_penalty, "
            "max_len, temperature, top_k, top_p, seed, scores, attention, api_key, target_lang, "
            "split, format)");
  EXPECT_EQ(refused(R"({})"), "400 q: missing (a text or a list of texts)");
  EXPECT_EQ(refused(R"({"q": {"a": 1}})"),
            "400 q: expected a string or a list of strings, got {\"a\":1}");
  EXPECT_EQ(refused(R"({"q": ["a", null]})"), "400 q[1]: expected a string, got null");
  EXPECT_EQ(refused(R"({"q": "a", "strategy": "best"})"),
            "400 strategy: expected one of \"greedy\", \"sample\", \"beam\", got \"best\"");
  EXPECT_EQ(refused(R"({"q": "a", "beam_size": 17})"),
            "400 beam_size: expected an integer from 1 to serve.max_beam_size (16), got 17");
  EXPECT_EQ(refused(R"({"q": "a", "beam_size": "5"})"),
            "400 beam_size: expected an integer from 1 to serve.max_beam_size (16), got \"5\"");
  EXPECT_EQ(refused(R"({"q": "a", "n_best": 0})"),
            "400 n_best: expected an integer from 1 to serve.max_beam_size (16), got 0");
  EXPECT_EQ(refused(R"({"q": "a", "max_len": 5000})"),
            "400 max_len: expected an integer from 0 (automatic) to 1024, got 5000");
  EXPECT_EQ(refused(R"({"q": "a", "temperature": 0})"),
            "400 temperature: expected a number from 0.000001 to 1000, got 0");
  // Positive as a double, 0 as the float the decoder divides by: NaN probabilities.
  EXPECT_EQ(refused(R"({"q": "a", "temperature": 1e-300})"),
            "400 temperature: expected a number from 0.000001 to 1000, got 1e-300");
  EXPECT_EQ(refused(R"({"q": "a", "top_p": 1.5})"),
            "400 top_p: expected a number from 0.000001 to 1, got 1.5");
  EXPECT_EQ(refused(R"({"q": "a", "top_p": 1e-300})"),
            "400 top_p: expected a number from 0.000001 to 1, got 1e-300");
  EXPECT_EQ(refused(R"({"q": "a", "top_k": -1})"),
            "400 top_k: expected a non-negative integer, got -1");
  EXPECT_EQ(refused(R"({"q": "a", "seed": -3})"),
            "400 seed: expected a non-negative integer, got -3");
  EXPECT_EQ(refused(R"({"q": "a", "scores": "yes"})"),
            "400 scores: expected true or false, got \"yes\"");
  // A 1 MB array, a 1 MB key and a long string with quotes are quoted by a short, escaped prefix.
  std::string many = "[1";  // 500,000 elements, 1 MB
  for (int i = 1; i < 500000; ++i) many += ",1";
  EXPECT_EQ(refused(R"({"q": "a", "beam_size": )" + many + "]}"),
            "400 beam_size: expected an integer from 1 to serve.max_beam_size (16), got " +
                many.substr(0, 57) + "...");
  std::string quotes;  // \" 40 times: a string of 40 double quotes, as JSON writes it
  for (int i = 0; i < 40; ++i) quotes += "\\\"";
  EXPECT_EQ(refused(R"({"q": "a", "top_k": "a)" + quotes + R"("})"),
            "400 top_k: expected a non-negative integer, got \"a" + quotes.substr(0, 54) + "...")
      << "cut between two escapes, not inside one";
  const std::string long_key(1 << 20, 'k');
  EXPECT_EQ(refused(R"({"q": "a", ")" + long_key + R"(": 1})"),
            "400 " + std::string(80, 'k') +
                "... (1048576 bytes): unknown key (known keys: q, "
                "strategy, beam_size, n_best, length_penalty, max_len, temperature, top_k, top_p, "
                "seed, scores, attention, api_key, target_lang, split, format)");
  const std::string long_value = "\"" + std::string(100, 'x') + "\"";
  EXPECT_EQ(
      refused(R"({"q": "a", "top_p": )" + long_value + "}"),
      "400 top_p: expected a number from 0.000001 to 1, got \"" + std::string(56, 'x') + "...")
      << "long values are cut";
}

TEST(V1RequestTest, LimitsNameTheServeKey) {
  ServeOptions limits;
  limits.max_sentences = 2;
  limits.max_chars = 3;
  const auto refused = [&](const json& fields) {
    return refusal([&] { (void)v1_request(fields, limits, {}); });
  };
  EXPECT_EQ(refused({{"q", {"a", "b", "c"}}}),
            "400 q: 3 sentences, more than serve.max_sentences (2)");
  EXPECT_EQ(refused({{"q", {"ok", "long"}}}),
            "400 q[1]: 4 characters, more than serve.max_chars (3)");
}

TEST(V1RequestTest, TargetLangPicksOneOfAMultiTargetModelsLanguages) {
  ModelInfo model;
  model.target_languages = {"fra", "por", "spa"};
  EXPECT_EQ(
      v1_request(json::parse(R"({"q": "a", "target_lang": "spa"})"), {}, model).options.target_lang,
      "spa");
  EXPECT_EQ(refusal([&] {
              (void)v1_request(json::parse(R"({"q": "a", "target_lang": "deu"})"), {}, model);
            }),
            "400 target_lang: deu is not one of this model's target languages (fra, por, spa)");
  EXPECT_EQ(
      refusal([&] { (void)v1_request(json::parse(R"({"q": "a", "target_lang": 3})"), {}, model); }),
      "400 target_lang: expected a string, got 3");
  EXPECT_EQ(
      refusal([] { (void)v1_request(json::parse(R"({"q": "a", "target_lang": "spa"})"), {}, {}); }),
      "400 target_lang: this model has no target-language tags: it translates into one "
      "language");
}

TEST(V1AnswerTest, CarriesHypothesesScoresAttentionModelAndOptions) {
  ModelInfo model = testing::en_es_model();
  V1Request request =
      v1_request(json::parse(R"({"q": ["a", "b"], "strategy": "beam", "n_best": 2, "scores": true,
                      "attention": true})"),
                 {}, {});
  std::vector<SentenceResult> results = results_of(request.texts.sentences(), 2);
  results[0].attention = testing::tiny_picture("a");
  const json answer = v1_answer(request, join_texts(request.texts, results), model);
  EXPECT_EQ(answer["translations"][0]["text"], "A");
  EXPECT_FLOAT_EQ(answer["translations"][0]["score"].get<float>(), -1.0f);
  EXPECT_EQ(answer["translations"][1]["hypotheses"],
            json::parse(R"([{"text": "B", "score": -1.0}, {"text": "B #2", "score": -2.0}])"));
  EXPECT_EQ(answer["translations"][0]["attention"]["source"], json::parse(R"(["a"])"));
  EXPECT_FALSE(answer["translations"][1].contains("attention"));
  EXPECT_EQ(answer["model"], json::parse(R"({"source_lang": "en", "target_lang": "es",
      "run": "runs/tiny", "checkpoint": "runs/tiny/best.pt", "version": "0badc0de"})"));
  EXPECT_EQ(answer["options"]["strategy"], "beam");
  EXPECT_EQ(answer["options"]["n_best"], 2);

  request.wants_scores = false;
  request.options.n_best = 1;
  const json plain = v1_answer(request, results_of(request.texts), model);
  EXPECT_EQ(plain["translations"][1], json::parse(R"({"text": "B"})"));
  EXPECT_TRUE(plain["translations"][0]["attention"].is_null()) << "asked for, none drawn";
}

TEST(V1RequestTest, TextsAreCutIntoSentencesUnlessSplitIsFalse) {
  const ModelInfo model = testing::en_es_model();
  const V1Request request = v1_request(
      json::parse(R"({"q": ["Hi. Bye.", "Yes"], "n_best": 2, "scores": true})"), {}, model);
  EXPECT_EQ(request.texts.sentences(), (std::vector<std::string>{"Hi.", "Bye.", "Yes"}));
  const json answer = v1_answer(request, results_of(request.texts, 2), model);
  EXPECT_EQ(answer["translations"][0]["hypotheses"],
            json::parse(R"([{"text": "HI. BYE.", "score": -2.0},
                            {"text": "HI. #2 BYE. #2", "score": -4.0}])"));
  EXPECT_EQ(
      v1_request(json::parse(R"({"q": "Hi. Bye.", "split": false})"), {}, model).texts.sentences(),
      std::vector<std::string>{"Hi. Bye."});
  ServeOptions limits;
  limits.max_sentences = 2;
  EXPECT_EQ(refusal([&] {
              (void)v1_request(json{{"q", "A. B. C."}}, limits, model);
            }),
            "400 q: 3 sentences, more than serve.max_sentences (2)");
  EXPECT_EQ(refusal([&] {
              (void)v1_request(json{{"q", "A."}, {"split", 1}}, limits, model);
            }),
            "400 split: expected true or false, got 1");
}

TEST(V1RequestTest, HtmlIsTranslatedInItsMarkup) {
  const ModelInfo model = testing::en_es_model();
  const V1Request request = v1_request(
      json{{"q", "<p>Hi &amp; bye.</p><script>x</script>"}, {"format", "html"}}, {}, model);
  EXPECT_EQ(request.texts.sentences(), std::vector<std::string>{"Hi & bye."});
  EXPECT_EQ(v1_answer(request, results_of(request.texts), model)["translations"][0]["text"],
            "<p>HI &amp; BYE.</p><script>x</script>");
  EXPECT_EQ(refusal([&] {
              (void)v1_request(json{{"q", "a"}, {"format", "md"}}, {}, model);
            }),
            "400 format: expected \"text\" or \"html\", got \"md\"");
}

TEST(DumpTest, InvalidUtf8IsReplacedNotThrown) {
  EXPECT_EQ(dump(json{{"text", std::string("a\xff")}}), "{\"text\":\"a\xEF\xBF\xBD\"}");
}

}  // namespace
}  // namespace nmt::serve
