// The workflows behind the commands, called in-process on one tiny run trained on the sample
// corpus: training, opening, evaluating, translating, attention pictures, reports, benchmarks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.h"
#include "nmt/cpu_count.h"
#include "nmt/cpu_features.h"
#include "nmt/data/augment.h"
#include "nmt/data/batch_plan.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/attention_picture.h"
#include "nmt/run/average.h"
#include "nmt/run/bench.h"
#include "nmt/run/data_phase.h"
#include "nmt/run/evaluation.h"
#include "nmt/run/open_run.h"
#include "nmt/run/report.h"
#include "nmt/run/sampled_epochs.h"
#include "nmt/run/training.h"
#include "nmt/run/translation.h"
#include "nmt/text/vocab.h"
#include "test_utils.h"
#include "torch_test_utils.h"

namespace nmt::run {
namespace {

std::string tiny_config(const testing::ScratchDir& dir) {
  return dir.write("tiny.json", R"({
    "data": {"path": ")" + testing::source_dir() +
                                    R"(/data/sample/en-es.tsv",
             "valid_fraction": 0.1, "test_fraction": 0.1},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
    "train": {"batch_size": 32, "epochs": 2, "lr": 0.003, "threads": 1, "average_last": 2}})");
}

class WorkflowTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new testing::ScratchDir();
    // train_run points runs/latest at the run: keep that link inside the scratch directory.
    previous_dir_ = std::filesystem::current_path();
    std::filesystem::current_path(scratch_->path());
    TrainRequest request;
    request.config_path = tiny_config(*scratch_);
    request.run_dir = scratch_->file("run");
    outcome_ = new TrainOutcome(train_run(request));
  }
  static void TearDownTestSuite() {
    std::filesystem::current_path(previous_dir_);
    delete outcome_;
    delete scratch_;
  }
  static const RunDir& run() { return outcome_->run; }
  static OpenedRun open(const ConfigOverrides& overrides = {}) {
    return open_run({run().path(), "", {}}, overrides);
  }

  static testing::ScratchDir* scratch_;
  static std::filesystem::path previous_dir_;
  static TrainOutcome* outcome_;
};

testing::ScratchDir* WorkflowTest::scratch_ = nullptr;
std::filesystem::path WorkflowTest::previous_dir_;
TrainOutcome* WorkflowTest::outcome_ = nullptr;

TEST_F(WorkflowTest, TrainingWritesTheRunAndPointsLatestAtIt) {
  EXPECT_EQ(outcome_->result.reason, train::StopReason::kFinished);
  EXPECT_EQ(outcome_->result.progress.epoch, 2);
  EXPECT_EQ(exit_status(outcome_->result.reason), 0);
  for (const std::string& path :
       {run().config(), run().checkpoint(), run().best(), run().metrics(), run().report(),
        run().split(Split::kTest), run().prepare_report()}) {
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
  }
  EXPECT_EQ(std::filesystem::canonical(kLatestRunLink), std::filesystem::canonical(run().path()));
  const MetricsFile metrics = read_metrics(run().metrics());
  EXPECT_TRUE(metrics.skipped_lines.empty());
  ASSERT_GE(metrics.records.size(), 4u);
  EXPECT_TRUE(std::holds_alternative<StartRecord>(metrics.records.front()));
  EXPECT_EQ(std::get<EndRecord>(metrics.records.back()).reason, "finished");
}

TEST_F(WorkflowTest, ATrainedRunRefusesAFreshTrainingAndResumesToMoreEpochs) {
  TrainRequest again;
  again.config_path = tiny_config(*scratch_);
  again.run_dir = run().path();
  try {
    train_run(again);
    FAIL() << "training into a trained run must be refused";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("already holds a trained run"), std::string::npos);
  }
  testing::ScratchDir copy;
  std::filesystem::copy(run().path(), copy.path(), std::filesystem::copy_options::recursive);
  TrainRequest resume;
  resume.run_dir = copy.path();
  resume.is_resume = true;
  resume.overrides = {{"train.epochs", 3}};
  const TrainOutcome resumed = train_run(resume);
  EXPECT_EQ(resumed.result.progress.epoch, 3);
  EXPECT_EQ(load_config(RunDir(copy.path()).config()).train.epochs, 3) << "the override is kept";
}

TEST_F(WorkflowTest, OpenRunPrefersAveragedThenBestAndAppliesOverrides) {
  const std::string expected =
      std::filesystem::exists(run().averaged()) ? run().averaged() : run().best();
  EXPECT_EQ(pick_checkpoint(run(), ""), expected);
  EXPECT_EQ(pick_checkpoint(run(), "checkpoint.pt"), run().checkpoint());
  const OpenedRun opened =
      open({{"decode.strategy", "beam"}, {"decode.beam_size", 3}, {"runtime.threads", 1}});
  EXPECT_EQ(opened.config.decode.strategy, decode::Strategy::kBeam);
  EXPECT_EQ(opened.config.decode.beam_size, 3);
  EXPECT_FALSE(opened.model->is_training());
  EXPECT_EQ(opened.threads, 1);
  EXPECT_EQ(open().threads, usable_cpu_count())
      << "the run trained on one thread; translating it takes runtime.threads, all cores";
}

TEST_F(WorkflowTest, OpenRunErrorsNameTheProblem) {
  auto message_of = [](const RunRequest& request, const ConfigOverrides& overrides) {
    try {
      open_run(request, overrides);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message_of({"/nonexistent", "", {}}, {}),
            "--model: /nonexistent is not a run directory");
  EXPECT_EQ(message_of({scratch_->path(), "", {}}, {}),
            "--model: " + scratch_->path() + " has no config.json (not a run directory)");
  EXPECT_EQ(message_of({run().path(), "", {}}, {{"decode.beam_size", 0}}),
            "command line: decode.beam_size: expected a positive integer, got 0");
  EXPECT_EQ(message_of({run().path(), "nope.pt", {}}, {}),
            run().file("nope.pt") + ": no such checkpoint");
}

TEST_F(WorkflowTest, AveragingTheLastEpochsWritesTheMeanOfTheirWeights) {
  ASSERT_EQ(epoch_checkpoints(run()),
            (std::vector<std::string>{run().epoch_weights(1), run().epoch_weights(2)}));
  AverageRequest request;
  request.run_dir = run().path();
  request.last = 2;
  request.out = scratch_->file("mean-2.pt");
  const AverageReport report = average_checkpoints(request);
  EXPECT_EQ(report.inputs, epoch_checkpoints(run()));
  EXPECT_EQ(report.step, outcome_->result.progress.step);

  const OpenedRun mean = open_run({run().path(), request.out, {}}, {});
  auto first = open_run({run().path(), "epoch-1.pt", {}}, {}).model->named_parameters();
  auto second = open_run({run().path(), "epoch-2.pt", {}}, {}).model->named_parameters();
  int64_t parameters = 0;
  for (const auto& item : mean.model->named_parameters()) {
    EXPECT_TRUE(testing::all_close(item.value(), (first[item.key()] + second[item.key()]) / 2))
        << item.key();
    parameters += item.value().numel();
  }
  EXPECT_EQ(report.parameters, parameters);

  // Named one by one, in another order, the same files give the same weights.
  request.last = 0;
  request.checkpoints = {"epoch-2.pt", run().epoch_weights(1)};
  request.out = scratch_->file("mean-named.pt");
  average_checkpoints(request);
  auto named = open_run({run().path(), request.out, {}}, {}).model->named_parameters();
  for (const auto& item : mean.model->named_parameters()) {
    EXPECT_TRUE(torch::equal(item.value(), named[item.key()])) << item.key();
  }
}

TEST_F(WorkflowTest, AveragingErrorsNameTheProblemAndWriteNothing) {
  auto message_of = [](AverageRequest request) {
    try {
      average_checkpoints(request);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  testing::ScratchDir dir;
  AverageRequest request;
  request.run_dir = run().path();
  request.out = dir.file("mean.pt");

  request.last = 3;
  EXPECT_EQ(message_of(request), "--last 3: " + run().path() +
                                     " has 2 epoch checkpoints (epoch-1.pt, epoch-2.pt); training "
                                     "keeps the last max(train.average_last, train.keep_epochs) "
                                     "epochs' weights");
  request.last = 1;
  EXPECT_EQ(message_of(request), "--last 1: averaging needs at least 2 checkpoints");
  request.checkpoints = {"epoch-1.pt", "epoch-2.pt"};
  EXPECT_EQ(message_of(request), "average: give checkpoint files or --last N, not both");
  request.last = 0;
  request.checkpoints = {"epoch-1.pt"};
  EXPECT_EQ(message_of(request), "average: give at least two checkpoints to average, or --last N");
  request.checkpoints = {"epoch-1.pt", run().epoch_weights(1)};
  EXPECT_EQ(message_of(request),
            "average: " + run().epoch_weights(1) + " is given twice (each checkpoint counts once)");
  request.checkpoints = {"epoch-1.pt", "nope.pt"};
  EXPECT_EQ(message_of(request), run().file("nope.pt") + ": no such checkpoint");
  EXPECT_FALSE(std::filesystem::exists(request.out));

  request.checkpoints = {"epoch-1.pt", "epoch-2.pt"};
  request.out = run().epoch_weights(2);
  EXPECT_EQ(message_of(request), "--out " + run().epoch_weights(2) +
                                     " is one of the checkpoints averaged; write the mean to a "
                                     "new file");
  request.out = dir.write("kept.pt", "earlier work");
  EXPECT_EQ(message_of(request), "--out " + request.out + " exists; --force replaces it");
  EXPECT_EQ(read_text_file(request.out), "earlier work");
  request.is_forced = true;
  EXPECT_EQ(message_of(request), "no error");
  EXPECT_NO_THROW(open_run({run().path(), request.out, {}}, {}));

  // A file that is no checkpoint stops the averaging before anything is written.
  request.checkpoints = {"epoch-1.pt", dir.write("damaged.pt", "not a checkpoint")};
  request.out = dir.file("mean.pt");
  EXPECT_NE(message_of(request).find("damaged.pt"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(request.out));
  EXPECT_FALSE(std::filesystem::exists(request.out + ".tmp"));
}

TEST_F(WorkflowTest, EvaluationScoresTheTestSplitAndRecordsIt) {
  OpenedRun opened = open();
  EvalOptions options;
  options.hypotheses_out = scratch_->file("hyp.txt");
  const EvalReport report = evaluate(opened, load_eval_data(opened, options), options);
  const std::size_t test_lines = read_lines(run().split(Split::kTest)).size();
  EXPECT_EQ(report.hypotheses.size(), test_lines);
  EXPECT_EQ(read_lines(options.hypotheses_out), report.hypotheses);
  EXPECT_EQ(report.data, "test split of " + run().path());
  EXPECT_EQ(report.decoding, "greedy");
  EXPECT_GT(report.loss.tokens, 0);
  EXPECT_GE(report.scores.bleu.score, 0.0);

  const nlohmann::json json = eval_report_json(report);
  EXPECT_EQ(json["sentences"], test_lines);
  EXPECT_EQ(json["bleu"]["score"], report.scores.bleu.score);
  EXPECT_EQ(json["strategy"]["strategy"], "greedy");
  EXPECT_NE(eval_report_text(report).find("sentences of the test split of"), std::string::npos);

  const MetricsFile metrics = read_metrics(run().metrics());
  const auto* last = std::get_if<EvalRecord>(&metrics.records.back());
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->bleu, report.scores.bleu.score);
  EXPECT_EQ(last->checkpoint, opened.checkpoint);
}

TEST_F(WorkflowTest, AnEnsembleOfARunWithItselfTranslatesLikeTheRunAlone) {
  EvalOptions options;
  OpenedRun alone = open();
  const EvalReport single = evaluate(alone, load_eval_data(alone, options), options);
  OpenedRun twice = open_run({run().path(), "", {run().path()}}, {});
  ASSERT_EQ(twice.models().size(), 2u);
  const EvalReport ensemble = evaluate(twice, load_eval_data(twice, options), options);
  EXPECT_EQ(ensemble.hypotheses, single.hypotheses);
  EXPECT_EQ(ensemble.checkpoint, alone.checkpoint + " + " + alone.checkpoint);

  testing::ScratchDir other;
  std::filesystem::copy(run().path(), other.path(), std::filesystem::copy_options::recursive);
  std::ofstream(RunDir(other.path()).file("vocab.tgt.txt"), std::ios::app) << "extra\n";
  try {
    open_run({run().path(), "", {other.path()}}, {});
    FAIL() << "a run with another vocabulary cannot join";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what())
                  .rfind("--model: " + other.path() + " cannot join an ensemble with " +
                             run().path() + ": its vocabularies or text cleaning differ",
                         0),
              0u)
        << error.what();
  }
}

TEST_F(WorkflowTest, EvaluationOfFilesChecksTheirLineCounts) {
  OpenedRun opened = open();
  EvalOptions options;
  options.source_file = scratch_->write("src.txt", "I am hungry.\nWhere is the library?\n");
  options.reference_file = scratch_->write("ref.txt", "Tengo hambre.\n");
  try {
    load_eval_data(opened, options);
    FAIL() << "mismatched files must be an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              options.source_file + " has 2 lines but " + options.reference_file + " has 1");
  }
  options.reference_file =
      scratch_->write("ref2.txt", "Tengo hambre.\n¿Dónde está la biblioteca?\n");
  const EvalData data = load_eval_data(opened, options);
  EXPECT_FALSE(data.sources_are_cleaned);
  EXPECT_EQ(data.references[0], "tengo hambre") << "word models score the notebook's form";
  EXPECT_EQ(evaluate(opened, data, options).hypotheses.size(), 2u);
}

TEST(EvalOptionsTest, ValidationMessagesNameTheFlags) {
  EvalOptions options;
  options.source_file = "a.txt";
  EXPECT_THROW(options.validate(), ConfigError);
  options = EvalOptions{};
  options.split = "nope";
  try {
    options.validate();
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), "--split: expected \"test\" or \"valid\", got \"nope\"");
  }
  options = EvalOptions{};
  options.split_sentences = true;
  try {
    options.validate();
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--split-sentences: only with --src (a run's splits hold one cleaned sentence per "
              "line)");
  }
}

TEST_F(WorkflowTest, TranslatingAStreamGivesOneLinePerInputLine) {
  OpenedRun opened = open();
  testing::ScratchDir dir;
  // An unterminated last line counts.
  const std::string input = dir.write("in.txt", "I am hungry\r\n\nWhere is the bank?\nBye");
  const int fd = ::open(input.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::ostringstream out;
  const TranslateSummary summary = translate_stream(opened, fd, out, OutputOptions{});
  ::close(fd);
  EXPECT_EQ(summary.inputs, 4u);
  EXPECT_FALSE(summary.is_interrupted);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  std::ostringstream direct;
  translate_sentences(opened, {"I am hungry", "", "Where is the bank?", "Bye"}, direct, {});
  EXPECT_EQ(direct.str(), text);
}

TEST_F(WorkflowTest, AParagraphIsTranslatedSentenceBySentenceInItsLayout) {
  OpenedRun opened = open();
  std::ostringstream sentences;
  translate_sentences(opened, {"I am hungry.", "Where is the bank?"}, sentences, {});
  const std::string lines = sentences.str();
  const std::string first = lines.substr(0, lines.find('\n'));
  const std::string second = lines.substr(first.size() + 1, lines.size() - first.size() - 2);
  std::ostringstream paragraph;
  translate_sentences(opened, {"I am hungry.  Where is the bank? "}, paragraph, {});
  EXPECT_EQ(paragraph.str(), first + "  " + second + " \n");
  std::ostringstream alone, whole;
  OutputOptions no_split;
  no_split.split_sentences = false;
  translate_sentences(opened, {"I am hungry. Where is the bank?"}, alone, no_split);
  translate_sentences(opened, {" I am hungry. Where is the bank?\t"}, whole, no_split);
  const std::string one_sentence = alone.str().substr(0, alone.str().size() - 1);
  EXPECT_EQ(whole.str(), " " + one_sentence + "\t\n");
}

// The whole chain of data.augment_placeholders on a corpus of five sentence patterns around
// numbers: pairs with placeholders in training, a vocabulary that keeps them whole, spans protected
// in translation and put back. A tiny model trained for seconds spells a number it never saw piece
// by piece; with placeholders it copies numbers, codes and URLs it never saw.
TEST(PlaceholdersWorkflowTest, NumbersCodesAndUrlsNeverSeenComeOutVerbatim) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> patterns = {
      {"i have # apples.", "tengo # manzanas."},
      {"we sold # cars.", "vendimos # coches."},
      {"call # now.", "llama al # ahora."},
      {"room # is free.", "la habitación # está libre."},
      {"the bus leaves at #.", "el autobús sale a las #."}};
  std::string corpus;
  uint32_t state = 5;
  for (int i = 0; i < 600; ++i) {
    state = state * 1664525u + 1013904223u;
    const std::string number = std::to_string(1 + state % 99999);
    const auto& [source, target] = patterns[static_cast<std::size_t>(i) % patterns.size()];
    const auto fill = [&number](std::string text) {
      return text.replace(text.find('#'), 1, number);
    };
    corpus += fill(source) + "\t" + fill(target) + "\n";
  }
  const std::string corpus_path = dir.write("corpus.tsv", corpus);
  TrainRequest request;
  request.config_path = dir.write("copy.json", R"({
    "data": {"path": ")" + corpus_path + R"(", "valid_fraction": 0.05, "test_fraction": 0.05,
             "augment_placeholders": 0.9},
    "text": {"clean": "normalize", "tokenizer": "sentencepiece", "vocab_size": 1000,
             "shared_vocab": true},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre",
              "share_embeddings": true, "tie_embeddings": true},
    "train": {"batch_size": 32, "epochs": 10, "lr": 0.005, "warmup": 50, "threads": 1,
              "average_last": 0},
    "decode": {"strategy": "greedy"}})");
  request.run_dir = dir.file("run");
  const std::filesystem::path previous_dir = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());  // train_run points runs/latest at the run
  const TrainOutcome outcome = train_run(request);
  std::filesystem::current_path(previous_dir);
  OpenedRun opened = open_run({outcome.run.path(), "", {}}, {});
  std::ostringstream out;
  OutputOptions output;
  output.sentence_case = false;
  translate_sentences(opened,
                      {"i have 80417 apples.", "call 555-0199 now.", "room B-17 is free.",
                       "call https://example.org/a?b=1 now."},
                      out, output);
  EXPECT_EQ(out.str(),
            "tengo 80417 manzanas.\nllama al 555-0199 ahora.\nla habitación B-17 está libre.\n"
            "llama al https://example.org/a?b=1 ahora.\n");
}

TEST(InputTextsTest, JoinsEachRankOfATextsSentencesAndSumsTheirScores) {
  const text::SentenceSplitter splitter("en");
  const InputTexts inputs({"Hi. Bye.", "   ", "Yes."}, {&splitter, nullptr});
  EXPECT_EQ(inputs.sentences(), (std::vector<std::string>{"Hi.", "Bye.", "Yes."}));
  decode::TranslationReport report;
  report.results = {{{"Hola.", "hola .", {4}, -0.5f}, {"Ola.", "ola .", {5}, -1.0f}},
                    {{"Adiós.", "adiós .", {6}, -0.25f}},
                    {{"Sí.", "sí .", {7}, -0.125f}}};
  report.truncated_inputs = 1;
  const decode::TranslationReport texts = inputs.join(report);
  ASSERT_EQ(texts.results.size(), 3u);
  ASSERT_EQ(texts.results[0].size(), 2u);
  EXPECT_EQ(texts.results[0][0].text, "Hola. Adiós.");
  EXPECT_EQ(texts.results[0][0].decoded, "hola . adiós .");
  EXPECT_FLOAT_EQ(texts.results[0][0].score, -0.75f);
  EXPECT_EQ(texts.results[0][1].text, "Ola. Adiós.");
  EXPECT_FLOAT_EQ(texts.results[0][1].score, -1.25f);
  EXPECT_EQ(texts.results[1].front().text, "   ");
  EXPECT_EQ(texts.results[2].front().ids, std::vector<int64_t>{7});  // one sentence: as it came
  EXPECT_EQ(texts.truncated_inputs, 1);
}

TEST(InputTextsTest, CapitalsAreReadInSentenceCaseAndAnsweredInCapitals) {
  const text::CaseLanguages casing{"en", "es"};
  // Casing is judged per sentence: the line as one sentence is mixed.
  const InputTexts line({"I'M HUNGRY! where is tom?"}, {nullptr, &casing});
  EXPECT_EQ(line.sentences(), (std::vector<std::string>{"I'M HUNGRY! where is tom?"}));
  const text::SentenceSplitter splitter("en");
  const InputTexts split({"I'M HUNGRY! where is tom?"}, {&splitter, &casing});
  EXPECT_EQ(split.sentences(), (std::vector<std::string>{"I'm hungry!", "Where is tom?"}));
  decode::TranslationReport report;
  report.results = {{{"¡Tengo hambre!", "¡tengo hambre !", {4}, -0.5f}},
                    {{"¿Dónde está Tom?", "¿dónde está tom ?", {5}, -0.25f}}};
  const decode::TranslationReport texts = split.join(report);
  ASSERT_EQ(texts.results.size(), 1u);
  EXPECT_EQ(texts.results[0][0].text, "¡TENGO HAMBRE! ¿Dónde está Tom?");
  EXPECT_EQ(texts.results[0][0].decoded, "¡TENGO HAMBRE ! ¿dónde está tom ?");
  const InputTexts as_written({"I'M HUNGRY!"}, {nullptr, nullptr});
  EXPECT_EQ(as_written.sentences(), std::vector<std::string>{"I'M HUNGRY!"});
}

TEST(TranslationFormatTest, NBestIsMosesAndScoresPrecedeSingleHypotheses) {
  decode::TranslationReport report;
  report.results = {{{"hola", "hola", {4}, -0.5f}, {"ola", "ola", {5}, -1.25f}},
                    {{"adiós", "adiós", {6}, -0.25f}}};
  EXPECT_EQ(format_translations(report, 7, false),
            "7 ||| hola ||| -0.5\n7 ||| ola ||| -1.25\nadiós\n");
  EXPECT_EQ(format_translations(report, 0, true),
            "0 ||| hola ||| -0.5\n0 ||| ola ||| -1.25\n-0.25\tadiós\n");
}

TEST_F(WorkflowTest, AttentionPictureHasEveryLayerAndHead) {
  OpenedRun opened = open();
  const viz::AttentionPicture picture =
      attention_picture(opened, "Where is the library?", opened.config.decode);
  ASSERT_EQ(picture.cross.size(), 1u);
  ASSERT_EQ(picture.cross[0].size(), 2u);
  EXPECT_EQ(picture.source_tokens,
            (std::vector<std::string>{"where", "is", "the", "library", "?"}));
  EXPECT_EQ(picture.target_tokens.front(), "<SOS>");
  EXPECT_EQ(picture.cross[0][0].rows, static_cast<int64_t>(picture.target_tokens.size()));
  EXPECT_EQ(picture.cross[0][0].cols, 5);
  EXPECT_THROW(attention_picture(opened, "   ", opened.config.decode), ConfigError);
}

TEST_F(WorkflowTest, ReportDrawsTheRunsCurves) {
  const std::string out = scratch_->file("report.html");
  write_report(run(), out);
  const std::string page = read_text_file(out);
  EXPECT_NE(page.find("Loss against steps"), std::string::npos);
  EXPECT_NE(page.find(run().path()), std::string::npos);
}

BenchTrainOptions bench_options(int64_t steps, int64_t warmup) {
  BenchTrainOptions options;
  options.steps = steps;
  options.warmup = warmup;
  return options;
}

TEST_F(WorkflowTest, BenchmarksReportThroughput) {
  const BenchTrainResult train = bench_train(load_config(run().config()), bench_options(3, 1));
  EXPECT_EQ(train.steps, 3);
  EXPECT_GT(train.tgt_tokens_per_s, 0.0);
  EXPECT_GT(train.mfu, 0.0);
  EXPECT_NE(bench_train_text(train, "tiny").find("target tokens/s"), std::string::npos);
  const nlohmann::json json = to_json(train);
  EXPECT_EQ(json["steps"], 3);
  EXPECT_EQ(json["tgt_tokens_per_s"], train.tgt_tokens_per_s);
  EXPECT_EQ(json["ms_per_step_phases"]["backward"], train.ms_backward);
  EXPECT_FALSE(json.contains("ranks")) << "a single process is no job";
  // The FMA ceiling comes with fp32 on the CPU, in both forms of the report.
  EXPECT_EQ(json.contains("fma_peak_gflops"), train.fma_peak.has_value());
  EXPECT_EQ(bench_train_text(train, "tiny").find("FMA ceiling") != std::string::npos,
            train.fma_peak.has_value());
  if (train.precision == "fp32" && vector_loop_tier() != CpuTier::kBaseline) {
    EXPECT_TRUE(train.fma_peak.has_value());
  }
  EXPECT_THROW(bench_train(load_config(run().config()), bench_options(0, 1)), ConfigError);
  BenchTrainOptions profiled = bench_options(1, 0);
  profiled.profile_path = scratch_->file("no-such-directory/trace.json");
  try {
    bench_train(load_config(run().config()), profiled);
    ADD_FAILURE() << "a trace in a missing directory was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--profile " + profiled.profile_path + ": cannot write this file");
  }

  // The run's own prepared data, mapped instead of prepared again; refused for other settings.
  BenchTrainOptions on_prepared = bench_options(2, 0);
  on_prepared.prepared_path = run().path();
  EXPECT_EQ(bench_train(load_config(run().config()), on_prepared).steps, 2);
  Config other = load_config(run().config());
  other.data.max_words += 1;
  try {
    bench_train(other, on_prepared);
    ADD_FAILURE() << "data prepared with other settings was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(
        std::string(error.what()),
        "--prepared: " + run().path() +
            " holds no data prepared with this configuration "
            "(it differs in data.max_words); prepare it with `nmt prepare --config ... --out " +
            run().path() + "`");
  }

  OpenedRun opened = open();
  const BenchTranslateOptions options{"test", 20, ""};
  const BenchTranslateResult translate = bench_translate(opened, options);
  EXPECT_EQ(translate.sentences, 20);
  EXPECT_GT(translate.sentences_per_s, 0.0);
  EXPECT_NE(bench_translate_text(translate, opened, options).find("sentences/s"),
            std::string::npos);
  EXPECT_EQ(to_json(translate)["sentences"], 20);
  EXPECT_EQ(to_json(translate)["strategy"], "greedy");
  EXPECT_FALSE(to_json(translate).contains("profile"));

  BenchTranslateOptions profiled_translation{"test", 20, scratch_->file("translate-trace.json")};
  const nlohmann::json with_profile = to_json(bench_translate(opened, profiled_translation));
  EXPECT_EQ(with_profile["profiled_sentences"], 20);
  EXPECT_EQ(with_profile["profile"], profiled_translation.profile_path);
  std::ifstream trace_file(profiled_translation.profile_path);
  const nlohmann::json trace = nlohmann::json::parse(trace_file);
  ASSERT_TRUE(trace.is_array()) << "a Chrome trace: an array of events";
  const bool has_operators = std::any_of(
      trace.begin(), trace.end(),
      [](const nlohmann::json& event) { return event.value("name", "").rfind("aten::", 0) == 0; });
  EXPECT_TRUE(has_operators) << "LibTorch's operators are in the trace";
  profiled_translation.profile_path = scratch_->file("no-such-directory/trace.json");
  try {
    bench_translate(opened, profiled_translation);
    ADD_FAILURE() << "a trace in a missing directory was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--profile " + profiled_translation.profile_path + ": cannot write this file");
  }
}

// Where auto chose the precision on the CPU, both benchmarks name the row of docs/performance.md's
// table that applied; a precision asked for is no row's.
TEST_F(WorkflowTest, BenchmarksNameTheRowOfPrecisionAutoThatApplied) {
  Config config = load_config(run().config());
  config.train.device = "cpu";
  config.train.precision = train::Precision::kAuto;
  const BenchTrainResult chosen = bench_train(config, bench_options(1, 0));
  EXPECT_EQ(chosen.auto_row, precision_auto_row());
  EXPECT_EQ(to_json(chosen)["auto_row"], precision_auto_row());
  EXPECT_NE(bench_train_text(chosen, "tiny")
                .find(std::string("auto on a CPU of the row ") + precision_auto_row()),
            std::string::npos)
      << bench_train_text(chosen, "tiny");
  config.train.precision = train::Precision::kFp32;
  EXPECT_FALSE(to_json(bench_train(config, bench_options(1, 0))).contains("auto_row"));

  OpenedRun opened = open();
  const BenchTranslateOptions options{"test", 4, ""};
  opened.config.decode.precision = decode::Precision::kAuto;
  const BenchTranslateResult automatic = bench_translate(opened, options);
  EXPECT_EQ(automatic.auto_row, precision_auto_row());
  EXPECT_EQ(to_json(automatic)["auto_row"], precision_auto_row());
  EXPECT_NE(bench_translate_text(automatic, opened, options).find("(auto on a CPU of the row "),
            std::string::npos);
  opened.config.decode.precision = decode::Precision::kFp32;
  EXPECT_FALSE(to_json(bench_translate(opened, options)).contains("auto_row"));
}

// The benchmark trains through the trainer's own update path: with update_freq 2 an update takes
// two batches of the plan, so 3 updates cover exactly the tokens of 6 updates of one batch.
TEST_F(WorkflowTest, BenchTrainTimesTheUpdatesTrainingRuns) {
  Config config = load_config(run().config());
  config.train.update_freq = 1;
  const BenchTrainResult single = bench_train(config, bench_options(6, 0));
  config.train.update_freq = 2;
  const BenchTrainResult doubled = bench_train(config, bench_options(3, 0));
  EXPECT_NEAR(doubled.tgt_tokens_per_step * 3, single.tgt_tokens_per_step * 6, 1e-6);
}

TEST(TrainingTest, ExitStatusOfEveryStopReason) {
  EXPECT_EQ(exit_status(train::StopReason::kFinished), 0);
  EXPECT_EQ(exit_status(train::StopReason::kEarlyStopped), 0);
  EXPECT_EQ(exit_status(train::StopReason::kStepLimit), 0);
  EXPECT_EQ(exit_status(train::StopReason::kInterrupted), 130);
  EXPECT_EQ(exit_status(train::StopReason::kDiverged), 1);
  EXPECT_EQ(exit_status(train::StopReason::kTimeLimit), 0);
  EXPECT_EQ(default_run_dir("configs/quickstart.json").rfind("runs/quickstart-", 0), 0u);
}

TEST(DataPhaseTest, PreparedDataLoadsBackIdentically) {
  testing::ScratchDir dir;
  const Config config = load_config(tiny_config(dir));
  const PreparedData prepared = prepare_data(config, RunDir(dir.file("data")));
  const PreparedData loaded = load_prepared_data(config, RunDir(dir.file("data")));
  // Training reads the token file, not the text.
  EXPECT_TRUE(prepared.splits.train.empty());
  EXPECT_TRUE(loaded.splits.train.empty());
  EXPECT_EQ(loaded.splits.valid, prepared.splits.valid);
  EXPECT_EQ(loaded.splits.test, prepared.splits.test);
  EXPECT_EQ(loaded.tokenizers.source->size(), prepared.tokenizers.source->size());
  const std::vector<data::SentencePair> train =
      data::read_pairs(RunDir(dir.file("data")).split(Split::kTrain));
  const data::EncodedCorpus encoded = data::encode_pairs(train, prepared.tokenizers);
  ASSERT_EQ(loaded.train_ids.size(), train.size());
  ASSERT_EQ(prepared.train_ids.size(), train.size());
  for (std::size_t index = 0; index < encoded.size(); ++index) {
    ASSERT_EQ(loaded.train_ids.pair(index), encoded.pair(index)) << "pair " << index;
  }
  EXPECT_EQ(loaded.train_ids.id_bytes(), 2);
  EXPECT_EQ(loaded.valid_ids.size(), prepared.splits.valid.size());
  EXPECT_EQ(default_data_dir("configs/seed.json"), "runs/seed-data");
}

TEST(DataPhaseTest, OnlySettingsThatChangeThePreparedDataPrepareItAgain) {
  testing::ScratchDir dir;
  const RunDir prepared(dir.file("data"));
  Config config = load_config(tiny_config(dir));
  EXPECT_EQ(data_settings_changed(config, prepared), std::vector<std::string>{"prepare.json"});
  prepare_data(config, prepared);
  EXPECT_TRUE(data_settings_changed(config, prepared).empty());
  config.train.epochs = 7;
  config.text.bpe_dropout = 0.1;
  EXPECT_TRUE(data_settings_changed(config, prepared).empty());
  config.data.max_words = 9;
  config.text.vocab_size = 500;
  EXPECT_EQ(data_settings_changed(config, prepared),
            (std::vector<std::string>{"data.max_words", "text.vocab_size"}));
}

TEST(DataPhaseTest, TrainingIntoPreparedDataTrainsOnItWithoutPreparingAgain) {
  testing::ScratchDir dir;
  const std::string config_path = tiny_config(dir);
  const RunDir prepared(dir.file("data"));
  prepare_data(load_config(config_path), prepared);
  const auto written = std::filesystem::last_write_time(prepared.token_file(Split::kTrain));
  TrainRequest request;
  request.config_path = config_path;
  request.run_dir = prepared.path();
  request.overrides = {{"train.epochs", 1}};
  const std::filesystem::path previous_dir = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());  // runs/latest stays in the scratch directory
  const TrainOutcome outcome = train_run(request);
  std::filesystem::current_path(previous_dir);
  EXPECT_EQ(outcome.result.reason, train::StopReason::kFinished);
  EXPECT_TRUE(std::filesystem::exists(prepared.checkpoint()));
  EXPECT_EQ(std::filesystem::last_write_time(prepared.token_file(Split::kTrain)), written);
}

// The log of prepare_data(config, run): what a data phase that went on from a stopped one said
// it kept and did again.
std::string prepare_data_log(const Config& config, const RunDir& run) {
  const testing::CapturedLog log;
  prepare_data(config, run);
  return log.text();
}

// Expects the log of a data phase that went on from a stopped one to say it kept what `kept`
// says, and not to say `redone`, the line of the step it would otherwise do again.
void expect_went_on(const std::string& log, const std::string& kept, const std::string& redone) {
  EXPECT_NE(log.find(kept), std::string::npos) << log;
  EXPECT_EQ(log.find(redone), std::string::npos) << log;
}

// Expects no scratch file of the data phase (*.tmp) left in run.
void expect_no_scratch_file(const RunDir& run) {
  for (const auto& entry : std::filesystem::directory_iterator(run.path())) {
    EXPECT_NE(entry.path().extension(), ".tmp") << "a scratch file is left: " << entry.path();
  }
}

// Expects the files `names` of `run`, a data phase that stopped and went on, to be those of
// `straight`, one run straight through, and nothing of its checkpoint left.
void expect_prepared_as_straight_through(const RunDir& run,
                                         const RunDir& straight,
                                         const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    EXPECT_EQ(testing::read_file(run.file(name)), testing::read_file(straight.file(name))) << name;
  }
  expect_no_scratch_file(run);
}

// The data phase streams the corpus through files; the functions that hold it in memory say what
// it must write.
TEST(DataPhaseTest, TheStreamedDataPhaseWritesWhatTheStepsInMemoryMake) {
  testing::ScratchDir dir;
  const Config config = load_config(dir.write("steps.json", R"({
    "data": {"train": [{"path": ")" + testing::source_dir() + R"(/data/sample/en-es.tsv",
                        "weight": 1.5}],
             "valid_fraction": 0.1, "test_fraction": 0.1, "max_length": 9,
             "augment_upper": 0.1, "augment_lower": 0.1, "augment_concat": 0.3},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
    "text": {"tokenizer": "sentencepiece", "vocab_size": 500},
    "train": {"batch_size": 32, "epochs": 1, "threads": 1}})"));
  const RunDir run(dir.file("data"));
  const PreparedData prepared = prepare_data(config, run);

  const data::CorpusSet corpora{
      {data::read_corpus(config.data.training_corpora()[0], config.data.format).pairs}, {}, {}};
  data::Splits splits = data::make_splits(corpora, config.data, config.text.clean);
  const data::AugmentReport augmented = data::augment_training_split(splits, config.data);
  const data::EncodedCorpus unfiltered = data::encode_pairs(splits.train, prepared.tokenizers);
  const std::vector<std::size_t> kept =
      data::filter_by_length(splits, config.data, [&unfiltered](std::size_t index) {
        return std::pair{unfiltered.source_length(index), unfiltered.target_length(index)};
      });
  std::vector<std::size_t> ids_of;  // the index in `unfiltered` of each training pair's ids
  for (const std::size_t origin : data::apply_weights(splits, config.data)) {
    ids_of.push_back(kept[origin]);
  }
  EXPECT_GT(augmented.joined, 0u);
  EXPECT_GT(splits.report.too_many_tokens, 0u);
  EXPECT_EQ(data::read_pairs(run.split(Split::kTrain)), splits.train);
  EXPECT_EQ(prepared.splits.valid, splits.valid);
  EXPECT_EQ(prepared.splits.test, splits.test);
  EXPECT_EQ(prepared.splits.report.too_many_tokens, splits.report.too_many_tokens);
  ASSERT_EQ(prepared.train_ids.size(), ids_of.size());
  for (std::size_t index = 0; index < ids_of.size(); ++index) {
    ASSERT_EQ(prepared.train_ids.pair(index), unfiltered.pair(ids_of[index])) << "pair " << index;
  }
  expect_no_scratch_file(run);
}

// With fewer pairs allowed than the training text holds (text.vocab_max_pairs), the vocabularies
// are trained on the seeded sample of its pairs, picked from the cleaned text and from the pairs
// augmentation added after it.
TEST(DataPhaseTest, VocabulariesAreTrainedOnTheSeededSampleOfTheTrainingText) {
  testing::ScratchDir dir;
  const Config config = load_config(dir.write("sample.json", R"({
    "data": {"path": ")" + testing::source_dir() + R"(/data/sample/en-es.tsv",
             "valid_fraction": 0.1, "test_fraction": 0.1, "augment_concat": 0.3},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
    "text": {"tokenizer": "sentencepiece", "vocab_size": 400, "vocab_max_pairs": 60},
    "train": {"batch_size": 32, "epochs": 1, "threads": 1}})"));
  const RunDir run(dir.file("data"));
  prepare_data(config, run);

  const data::CorpusSet corpora{
      {data::read_corpus(config.data.training_corpora()[0], config.data.format).pairs}, {}, {}};
  data::Splits splits = data::make_splits(corpora, config.data, config.text.clean);
  const std::size_t cleaned = splits.train.size();
  ASSERT_GT(data::augment_training_split(splits, config.data).joined, 0u);
  const std::vector<std::size_t> sample =
      data::sample_indices(splits.train.size(), 60, config.data.seed);
  ASSERT_EQ(sample.size(), 60u);
  ASSERT_LT(sample.front(), cleaned);
  ASSERT_GE(sample.back(), cleaned) << "the sample takes no pair augmentation added";
  std::vector<std::string> sources;
  std::vector<std::string> targets;
  for (const std::size_t index : sample) {
    sources.push_back(splits.train[index].source);
    targets.push_back(splits.train[index].target);
  }
  const text::TokenizerPair expected =
      text::train_tokenizers(config.text, sources, targets, config.data.seed);
  const std::string expected_dir = dir.file("expected");
  std::filesystem::create_directories(expected_dir);
  for (const std::string& path : text::save_tokenizers(config.text, expected, expected_dir)) {
    const std::string name = std::filesystem::path(path).filename();
    EXPECT_EQ(testing::read_file(run.file(name)), testing::read_file(path)) << name;
  }
}

// A data phase that stops after its split (here: the vocabulary run it is given has no
// vocabulary) goes on from the split the next time, and prepares what one run straight through
// prepares; other data settings split again.
TEST(DataPhaseTest, ADataPhaseStoppedAfterItsSplitGoesOnFromIt) {
  testing::ScratchDir dir;
  const Config config = load_config(tiny_config(dir));
  const RunDir straight(dir.file("straight"));
  prepare_data(config, straight);
  const RunDir stopped(dir.file("stopped"));
  const RunDir no_vocabulary(dir.file("empty"));
  std::filesystem::create_directories(no_vocabulary.path());
  EXPECT_THROW(prepare_data(config, stopped, &no_vocabulary), Error);
  EXPECT_TRUE(std::filesystem::exists(stopped.file("split.json.tmp")));
  EXPECT_FALSE(std::filesystem::exists(stopped.prepare_report()));
  expect_went_on(prepare_data_log(config, stopped),
                 stopped.path() +
                     " holds the split of an unfinished data phase of these corpora and "
                     "data settings: ",
                 "cleaned and split");
  expect_prepared_as_straight_through(
      stopped, straight,
      {"train.tsv", "valid.tsv", "test.tsv", "train.ids", "valid.ids", "prepare.json"});

  Config shorter = config;
  shorter.data.max_words = 6;
  EXPECT_THROW(prepare_data(config, stopped, &no_vocabulary), Error);
  const std::string again = prepare_data_log(shorter, stopped);
  EXPECT_NE(again.find("a split kept by an earlier data phase of other data settings or "
                       "corpus files; splitting again"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find("cleaned and split"), std::string::npos) << again;
}

// A data phase that fails after training its vocabularies (train.tsv cannot be put in place: a
// directory stands there) trains them only once.
TEST(DataPhaseTest, ADataPhaseStoppedAfterItsVocabulariesGoesOnFromThem) {
  testing::ScratchDir dir;
  Config config = load_config(tiny_config(dir));
  config.text.tokenizer = text::TokenizerKind::kSentencePiece;
  config.text.vocab_size = 400;
  const RunDir straight(dir.file("straight"));
  prepare_data(config, straight);
  const RunDir stopped(dir.file("stopped"));
  std::filesystem::create_directories(stopped.file("train.tsv"));
  EXPECT_THROW(prepare_data(config, stopped), Error);
  EXPECT_TRUE(std::filesystem::exists(stopped.file("split.vocab.json.tmp")));
  std::filesystem::remove(stopped.file("train.tsv"));
  expect_went_on(prepare_data_log(config, stopped),
                 stopped.path() +
                     " holds the vocabularies of an unfinished data phase of this split "
                     "and these text settings: not trained again",
                 "vocabulary: training on");
  expect_prepared_as_straight_through(
      stopped, straight,
      {"train.tsv", "train.ids", "valid.ids", "prepare.json", "spm.src.model", "spm.tgt.model"});

  // Other text settings train again, from the kept split.
  std::filesystem::remove(stopped.prepare_report());
  std::filesystem::remove(stopped.file("train.tsv"));
  std::filesystem::create_directories(stopped.file("train.tsv"));
  EXPECT_THROW(prepare_data(config, stopped), Error);
  std::filesystem::remove(stopped.file("train.tsv"));
  Config smaller = config;
  smaller.text.vocab_size = 360;
  const std::string again = prepare_data_log(smaller, stopped);
  EXPECT_NE(again.find("vocabularies kept by an earlier data phase of other text settings; "
                       "training them again"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find("vocabulary: training on"), std::string::npos) << again;
  EXPECT_NE(again.find("holds the split of an unfinished data phase"), std::string::npos) << again;
}

// Stops a data phase into `stopped` in the second part of its tokenizing pass: a first phase stops
// after its split (the vocabulary run it is given has no vocabulary), then a directory stands where
// the second part's token file is written. The directory is gone after.
void stop_in_the_second_tokenizing_part(const Config& config,
                                        const RunDir& stopped,
                                        const RunDir* vocabulary_source,
                                        const testing::ScratchDir& dir) {
  const RunDir no_vocabulary(dir.file("empty"));
  std::filesystem::create_directories(no_vocabulary.path());
  EXPECT_THROW(prepare_data(config, stopped, &no_vocabulary), Error);
  std::filesystem::create_directories(stopped.file("split.part-1.ids.tmp.tmp"));
  EXPECT_THROW(prepare_data(config, stopped, vocabulary_source), Error);
  EXPECT_TRUE(std::filesystem::exists(stopped.file("split.parts.json.tmp")));
  std::filesystem::remove(stopped.file("split.part-1.ids.tmp.tmp"));
}

// A data phase that stops while tokenizing goes on after the part it finished, and prepares what
// one run straight through prepares; with other vocabularies it tokenizes again.
TEST(DataPhaseTest, ADataPhaseStoppedWhileTokenizingGoesOnAfterItsLastPart) {
  testing::ScratchDir dir;
  Config config = load_config(tiny_config(dir));
  config.text.tokenizer = text::TokenizerKind::kSentencePiece;
  config.text.vocab_size = 400;
  const RunDir straight(dir.file("straight"));
  prepare_data(config, straight);
  const std::size_t training_pairs =
      nlohmann::json::parse(testing::read_file(straight.prepare_report()))
          .at("split")
          .at("train")
          .get<std::size_t>();
  ASSERT_GT(training_pairs, 256u) << "a test of three parts of 128 pairs";
  const RunDir stopped(dir.file("stopped"));
  stop_in_the_second_tokenizing_part(config, stopped, nullptr, dir);
  const std::string went_on = prepare_data_log(config, stopped);
  EXPECT_NE(went_on.find(fmt::format(
                "{} holds the first 128 of {} training pairs tokenized by an unfinished data "
                "phase of this split and these vocabularies: not tokenized again",
                stopped.path(), training_pairs)),
            std::string::npos)
      << went_on;
  EXPECT_NE(went_on.find(fmt::format("tokenized {} training pairs in", training_pairs - 128)),
            std::string::npos)
      << went_on;
  expect_prepared_as_straight_through(stopped, straight,
                                      {"train.tsv", "train.ids", "valid.ids", "prepare.json"});

  stop_in_the_second_tokenizing_part(config, stopped, nullptr, dir);
  config.text.vocab_size = 360;
  const std::string again = prepare_data_log(config, stopped);
  EXPECT_NE(again.find("parts tokenized by an earlier data phase with other vocabularies; "
                       "tokenizing again"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find(fmt::format("tokenized {} training pairs in", training_pairs)),
            std::string::npos)
      << again;
}

// With a kept vocabulary (fine-tuning), prepare.json says which share of the training split's
// pieces it spells <UNK>: counted over every part, also those of a pass that went on after a stop.
TEST(DataPhaseTest, TheUnknownPieceShareOfAKeptVocabularyCountsEveryPart) {
  testing::ScratchDir dir;
  Config config = load_config(tiny_config(dir));
  config.text.min_freq = 2;  // words seen once become <UNK>
  const RunDir vocabulary(dir.file("vocabulary"));
  prepare_data(config, vocabulary);
  const RunDir straight(dir.file("straight"));
  prepare_data(config, straight, &vocabulary);

  const data::EncodedCorpus ids = data::EncodedCorpus::map(straight.token_file(Split::kTrain));
  std::array<int64_t, 2> unknown{};
  std::array<int64_t, 2> total{};
  for (std::size_t index = 0; index < ids.size(); ++index) {
    const data::EncodedPair pair = ids.pair(index);
    for (const auto& [side, pieces] : {std::pair{0, &pair.source}, std::pair{1, &pair.target}}) {
      unknown[side] += std::count(pieces->begin(), pieces->end(), text::kUnkId);
      total[side] += static_cast<int64_t>(pieces->size());
    }
  }
  ASSERT_GT(unknown[0], 0);
  ASSERT_GT(unknown[1], 0);
  const nlohmann::json share = nlohmann::json::parse(testing::read_file(straight.prepare_report()))
                                   .at("unknown_piece_share");
  EXPECT_DOUBLE_EQ(share.at("source").get<double>(),
                   static_cast<double>(unknown[0]) / static_cast<double>(total[0]));
  EXPECT_DOUBLE_EQ(share.at("target").get<double>(),
                   static_cast<double>(unknown[1]) / static_cast<double>(total[1]));

  const RunDir stopped(dir.file("stopped"));
  stop_in_the_second_tokenizing_part(config, stopped, &vocabulary, dir);
  prepare_data(config, stopped, &vocabulary);
  EXPECT_EQ(testing::read_file(stopped.prepare_report()),
            testing::read_file(straight.prepare_report()));
}

TEST(DataPhaseTest, SubwordSamplingReadsTheSplitFromDiskAndSamplesWhatItWouldInMemory) {
  testing::ScratchDir dir;
  const Config config = load_config(dir.write("sampled.json", R"({
    "data": {"path": ")" + testing::source_dir() + R"(/data/sample/en-es.tsv"},
    "text": {"tokenizer": "sentencepiece", "vocab_size": 500, "sampling_nbest": -1,
             "sampling_alpha": 0.2},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
    "train": {"batch_size": 32, "epochs": 1, "threads": 1}})"));
  const RunDir run(dir.file("data"));
  const PreparedData prepared = prepare_data(config, run);
  EXPECT_TRUE(prepared.splits.train.empty()) << "the text of the split is not held";
  const text::SubwordSampling sampling = *text::subword_sampling(config.text);
  SampledEpochsOptions options;
  options.sampling = sampling;
  options.seed = config.train.seed;
  SampledEpochs epochs(run, dir.file("sampled.ids"), prepared.tokenizers, options);
  const data::EncodedCorpus streamed = epochs.epoch(3);
  const data::EncodedCorpus whole =
      data::sample_pairs(data::read_pairs(run.split(Split::kTrain)), prepared.tokenizers, sampling,
                         config.train.seed, 3);
  EXPECT_EQ(streamed.origin(), dir.file("sampled.ids"));
  ASSERT_EQ(streamed.size(), whole.size());
  for (std::size_t index = 0; index < whole.size(); ++index) {
    ASSERT_EQ(streamed.pair(index), whole.pair(index)) << "pair " << index;
  }
}

// runs/latest, relative to the working directory: each test works in a scratch directory.
class LatestLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_dir_ = std::filesystem::current_path();
    std::filesystem::current_path(scratch_.path());
  }
  void TearDown() override { std::filesystem::current_path(previous_dir_); }

  testing::ScratchDir scratch_;
  std::filesystem::path previous_dir_;
};

TEST_F(LatestLinkTest, TrainingsReplacingTheLinkTogetherEachLeaveAWholeLink) {
  // Removing the link and creating it again let a second training find the first one's new link
  // in its way ("File exists") and stop with an error; the suite's parallel trainings hit it.
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  std::vector<std::string> first_error(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const RunDir run("runs/run-" + std::to_string(w));
      for (int i = 0; i < 1000; ++i) {
        try {
          update_latest_link(run);
        } catch (const std::exception& error) {
          ++failures;
          if (first_error[static_cast<std::size_t>(w)].empty()) {
            first_error[static_cast<std::size_t>(w)] = error.what();
          }
        }
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(failures.load(), 0) << "e.g. " << first_error[0] << first_error[1];
  ASSERT_TRUE(std::filesystem::is_symlink("runs/latest"));
  EXPECT_EQ(std::filesystem::read_symlink("runs/latest").string().rfind("run-", 0), 0u)
      << std::filesystem::read_symlink("runs/latest");
  for (const auto& entry : std::filesystem::directory_iterator("runs")) {
    EXPECT_EQ(entry.path().filename().string().rfind(".latest-", 0), std::string::npos)
        << "left behind: " << entry.path();
  }
}

TEST_F(LatestLinkTest, ADirectoryInTheLinksPlaceIsNamedAndKept) {
  std::filesystem::create_directories("runs/latest/mine");
  try {
    update_latest_link(RunDir("runs/run-1"));
    FAIL() << "a directory was replaced";
  } catch (const std::filesystem::filesystem_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot point runs/latest at the run"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(std::filesystem::is_directory("runs/latest/mine"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator("runs"),
                          std::filesystem::directory_iterator()),
            1);  // no staging link left behind
}

}  // namespace
}  // namespace nmt::run
