// End to end through the binary: train a tiny model on the sample corpus, resume it, translate
// from arguments and stdin, evaluate and score.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "test_utils.h"
#include "viz/screenshot.h"

namespace nmt::cli {
namespace {

using testing::run_command;
using testing::run_nmt;

class TrainedRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new testing::ScratchDir();
    const std::string config = scratch_->write(
        "tiny.json", R"({
      "data": {"path": ")" +
                         testing::source_dir() +
                         R"(/data/sample/en-es.tsv", "valid_fraction": 0.1, "test_fraction": 0.1},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
      "train": {"batch_size": 32, "epochs": 2, "lr": 0.003, "threads": 1}})");
    run_dir_ = scratch_->file("run");
    train_result_ = new testing::CommandResult(
        run_nmt("train --config '" + config + "' --out '" + run_dir_ + "'"));
  }
  static void TearDownTestSuite() {
    delete train_result_;
    delete scratch_;
  }
  static std::string model() { return " --model '" + run_dir_ + "'"; }

  static testing::ScratchDir* scratch_;
  static std::string run_dir_;
  static testing::CommandResult* train_result_;
};

testing::ScratchDir* TrainedRunTest::scratch_ = nullptr;
std::string TrainedRunTest::run_dir_;
testing::CommandResult* TrainedRunTest::train_result_ = nullptr;

TEST_F(TrainedRunTest, TrainWritesTheRunDirectory) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  for (const char* name : {"config.json", "train.tsv", "valid.tsv", "test.tsv", "vocab.src.txt",
                           "vocab.tgt.txt", "checkpoint.pt", "best.pt", "metrics.jsonl"}) {
    EXPECT_TRUE(std::filesystem::exists(run_dir_ + "/" + name)) << name;
  }
  const auto again =
      run_nmt("train --config '" + run_dir_ + "/config.json' --out '" + run_dir_ + "'");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("already holds a trained run"), std::string::npos);
}

TEST_F(TrainedRunTest, InitFromFineTunesOnNewPairsWithTheParentsVocabularies) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  testing::ScratchDir dir;
  // Known words, new pairings: learned only if the fine-tuning trains the parent's model.
  const std::string pairs = dir.write(
      "new.tsv", "Hello!\tBuenas noches.\nThank you.\tBuenos días.\nGood night.\tGracias.\n");
  const std::string config = dir.write("fine.json", R"({
      "data": {"path": ")" + pairs + R"(", "valid_fraction": 0, "test_fraction": 0},
      "train": {"batch_size": 4, "epochs": 60, "lr": 0.003, "threads": 1}})");
  const std::string child = dir.file("child");
  const auto tuned = run_nmt("train --config '" + config + "' --init-from '" + run_dir_ +
                             "' --out '" + child + "'");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_NE(tuned.output.find("starting from the weights of " + run_dir_ + "/best.pt"),
            std::string::npos)
      << tuned.output;
  for (const char* vocabulary : {"/vocab.src.txt", "/vocab.tgt.txt"}) {
    EXPECT_EQ(testing::read_file(child + vocabulary), testing::read_file(run_dir_ + vocabulary))
        << vocabulary;
  }
  const auto recorded = nlohmann::json::parse(testing::read_file(child + "/config.json"));
  EXPECT_EQ(recorded["train"]["init_from"], run_dir_);
  EXPECT_EQ(recorded["model"]["d_model"], 32) << "the parent's model settings";
  const auto translated =
      run_nmt("translate --model '" + child + "' 'Hello!' 'Thank you.' 'Good night.' 2>/dev/null");
  EXPECT_EQ(translated.output, "buenas noches\nbuenos días\ngracias\n");
  const auto missing = run_nmt("train --config '" + config + "' --init-from '" +
                               dir.file("nowhere") + "' --out '" + dir.file("x") + "'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("--init-from: " + dir.file("nowhere") + " is not a run directory"),
            std::string::npos)
      << missing.output;
}

TEST_F(TrainedRunTest, ResumeExtendsTrainingFromTheCheckpoint) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto resumed = run_nmt("train --resume --out '" + run_dir_ + "' --epochs 3");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed at epoch 3"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("epoch 3/3"), std::string::npos);
}

TEST_F(TrainedRunTest, TranslateGivesOneLinePerInputLine) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto from_arguments =
      run_nmt("translate" + model() + " 'I am hungry' 'Where is the bank?'");
  ASSERT_EQ(from_arguments.exit_code, 0) << from_arguments.output;
  const std::string input =
      scratch_->write("in.txt", "I am hungry\n\nWhere is the bank?\nxyzzy qwerty\n");
  for (const char* strategy : {"greedy", "beam", "sample"}) {
    const auto result = run_command("'" + std::string(NMT_BINARY) + "' -q translate" + model() +
                                    " --strategy " + strategy + " < '" + input + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 4)
        << strategy << ": " << result.output;
  }
}

TEST_F(TrainedRunTest, TranslateFormatHtmlKeepsTheMarkupAndRefusesWhatItCannotParse) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto page = run_nmt("-q translate" + model() +
                            " --format html '<p class=\"x\">I am hungry. <b>Where is the "
                            "bank?</b></p><code>ls -l</code>'");
  ASSERT_EQ(page.exit_code, 0) << page.output;
  EXPECT_EQ(page.output.rfind("<p class=\"x\">", 0), 0u) << page.output;
  const std::size_t bold = page.output.find("<b>");
  ASSERT_NE(bold, std::string::npos) << page.output;
  EXPECT_NE(page.output.find("</b></p><code>ls -l</code>\n", bold), std::string::npos)
      << page.output;

  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<i>";
  const std::string input = scratch_->write("deep.html", deep + "text");
  const auto refused = run_command("'" + std::string(NMT_BINARY) + "' -q translate" + model() +
                                   " --format html < '" + input + "'");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("HTML input 1: cannot parse the HTML text: Excessive depth in "
                                "document: 256"),
            std::string::npos)
      << refused.output;
  const auto n_best =
      run_nmt("-q translate" + model() + " --format html --strategy beam --n-best 2 '<p>Hi</p>'");
  EXPECT_EQ(n_best.exit_code, 2) << n_best.output;
  EXPECT_NE(n_best.output.find("--format html gives one translation per input: leave out "
                               "--n-best and --scores"),
            std::string::npos)
      << n_best.output;
}

TEST_F(TrainedRunTest, AverageWritesACheckpointThatTranslationTakes) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const std::string out = scratch_->file("mean.pt");
  const std::string average = "average" + model() + " best.pt checkpoint.pt --out '" + out + "'";
  const auto averaged = run_nmt(average);
  ASSERT_EQ(averaged.exit_code, 0) << averaged.output;
  EXPECT_NE(averaged.output.find(out + ": the mean of best.pt + checkpoint.pt (2 checkpoints"),
            std::string::npos)
      << averaged.output;
  const auto translated =
      run_nmt("-q translate" + model() + " --checkpoint '" + out + "' 'I am hungry'");
  ASSERT_EQ(translated.exit_code, 0) << translated.output;
  EXPECT_EQ(std::count(translated.output.begin(), translated.output.end(), '\n'), 1);

  const auto again = run_nmt(average);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("--out " + out + " exists; --force replaces it"), std::string::npos)
      << again.output;
  const auto both = run_nmt("average" + model() + " --last 2 best.pt --out '" + out + "'");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("excludes"), std::string::npos) << both.output;
}

TEST_F(TrainedRunTest, ARepeatedModelIsAnEnsembleAndSentencesStaySentences) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto alone = run_nmt("-q translate" + model() + " 'I am hungry' 'Where is the bank?'");
  const auto ensemble =
      run_nmt("-q translate" + model() + model() + " 'I am hungry' 'Where is the bank?'");
  ASSERT_EQ(ensemble.exit_code, 0) << ensemble.output;
  EXPECT_EQ(ensemble.output, alone.output);
}

TEST_F(TrainedRunTest, EvalReportsScoresWithSignaturesAsJson) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto result = run_command("'" + std::string(NMT_BINARY) + "' -q eval" + model() +
                                  " --json --out '" + scratch_->file("hyp.txt") + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto json = nlohmann::json::parse(result.output);
  EXPECT_EQ(json["bleu"]["signature"],
            "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
  EXPECT_TRUE(json["chrf"].contains("score"));
  EXPECT_GT(json["perplexity"].get<double>(), 1.0);
  EXPECT_EQ(
      json["sentences"].get<int>(),
      static_cast<int>(std::count(
          std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(run_dir_ + "/test.tsv")),
          std::istreambuf_iterator<char>(), '\n')));
  EXPECT_TRUE(std::filesystem::exists(scratch_->file("hyp.txt")));
}

// BLEU and chrF by source length count the whitespace words of the raw source; an empty range
// is reported as empty (null in JSON), and the report page tabulates the eval record.
TEST_F(TrainedRunTest, EvalScoresBySourceLengthInWordsOfTheRawSource) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  testing::ScratchDir dir;
  const std::string long_source =
      "I think that we should go home now because it is getting late and dark, and the last bus "
      "leaves from the station near the old church at nine o'clock, as you know.";
  const std::string sources =
      dir.write("src.en", "Hello!\nThank you very much, my good friend.\n" + long_source + "\n");
  const std::string references =
      dir.write("ref.es", "¡Hola!\nMuchas gracias, mi buen amigo.\nCreo que deberíamos irnos.\n");
  const auto json_run = run_command("'" + std::string(NMT_BINARY) + "' -q eval" + model() +
                                    " --src '" + sources + "' --ref '" + references + "' --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.output;
  const auto buckets = nlohmann::json::parse(json_run.output)["by_source_length"];
  ASSERT_EQ(buckets.size(), 5u);
  const std::vector<int> sentences = {1, 1, 0, 0, 1};  // 1, 7 and 33 words
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    EXPECT_EQ(buckets[i]["sentences"], sentences[i]) << buckets[i].dump();
    EXPECT_EQ(buckets[i]["bleu"].is_null(), sentences[i] == 0) << buckets[i].dump();
  }
  EXPECT_EQ(buckets[4]["words"], "31+");
  const auto text_run = run_command("'" + std::string(NMT_BINARY) + "' -q eval" + model() +
                                    " --src '" + sources + "' --ref '" + references + "'");
  ASSERT_EQ(text_run.exit_code, 0) << text_run.output;
  EXPECT_NE(text_run.output.find("  11-15 words:      0 sentences  (empty: no score)\n"),
            std::string::npos)
      << text_run.output;
  const auto report = run_nmt("report" + model() + " --out '" + dir.file("report.html") + "'");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string page = testing::read_file(dir.file("report.html"));
  EXPECT_NE(page.find("<h2>BLEU / chrF by source length</h2>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num note\">empty</td>"), std::string::npos);
}

// `nmt translate --model RUN` with its stdin and stdout on pipes, held as a program that talks to
// it holds them (stderr goes to a file).
class TranslatePipe {
 public:
  TranslatePipe(const std::string& run, const std::string& log) {
    int input[2];
    int output[2];
    if (pipe(input) != 0 || pipe(output) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(input[0], STDIN_FILENO);
      dup2(output[1], STDOUT_FILENO);
      const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(err, STDERR_FILENO);
      for (const int fd : {input[0], input[1], output[0], output[1], err}) close(fd);
      execl(NMT_BINARY, NMT_BINARY, "translate", "--model", run.c_str(), nullptr);
      _exit(127);
    }
    close(input[0]);
    close(output[1]);
    to_nmt_ = input[1];
    from_nmt_ = output[0];
  }
  ~TranslatePipe() {
    close(to_nmt_);
    close(from_nmt_);
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  TranslatePipe(const TranslatePipe&) = delete;
  TranslatePipe& operator=(const TranslatePipe&) = delete;

  void write_text(const std::string& text) {
    EXPECT_EQ(::write(to_nmt_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  // The next line nmt wrote, or nothing if none came within the time (or the output ended).
  std::optional<std::string> read_line(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (received_.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd ready{from_nmt_, POLLIN, 0};
      if (left.count() <= 0 || poll(&ready, 1, static_cast<int>(left.count())) <= 0) return {};
      char buffer[4096];
      const ssize_t size = ::read(from_nmt_, buffer, sizeof buffer);
      if (size <= 0) return {};
      received_.append(buffer, static_cast<std::size_t>(size));
    }
    const std::size_t end = received_.find('\n');
    std::string line = received_.substr(0, end);
    received_.erase(0, end + 1);
    return line;
  }
  void send(int signal) { kill(pid_, signal); }
  int wait() {
    if (!status_) {
      int status = 0;
      waitpid(pid_, &status, 0);
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return *status_;
  }

 private:
  pid_t pid_ = -1;
  int to_nmt_ = -1;
  int from_nmt_ = -1;
  std::string received_;
  std::optional<int> status_;
};

TEST_F(TrainedRunTest, TranslateAnswersEachLineOfAPipeAndCtrlCKeepsTheLinesSent) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  const auto expected = run_nmt("-q translate" + model() +
                                " 'I am hungry' 'Where is the bank?' 'Thank you.' 'Good "
                                "night.'");
  ASSERT_EQ(expected.exit_code, 0) << expected.output;
  std::istringstream lines(expected.output);
  std::vector<std::string> translations;
  for (std::string line; std::getline(lines, line);) translations.push_back(line);
  ASSERT_EQ(translations.size(), 4u);

  const std::string log = scratch_->file("pipe.log");
  TranslatePipe nmt(run_dir_, log);
  // One sentence at a time, each answered while the input stays open.
  nmt.write_text("I am hungry\n");
  EXPECT_EQ(nmt.read_line(std::chrono::seconds(60)), translations[0]) << testing::read_file(log);
  nmt.write_text("Where is the bank?\n");
  EXPECT_EQ(nmt.read_line(std::chrono::seconds(60)), translations[1]) << testing::read_file(log);
  // Ctrl-C right after two more lines were sent: they are still translated.
  nmt.write_text("Thank you.\nGood night.\n");
  nmt.send(SIGINT);
  EXPECT_EQ(nmt.read_line(std::chrono::seconds(60)), translations[2]) << testing::read_file(log);
  EXPECT_EQ(nmt.read_line(std::chrono::seconds(60)), translations[3]) << testing::read_file(log);
  EXPECT_EQ(nmt.read_line(std::chrono::seconds(60)), std::nullopt) << "the output ends";
  EXPECT_EQ(nmt.wait(), 130);
  EXPECT_NE(testing::read_file(log).find("interrupted: the 4 lines read were translated"),
            std::string::npos)
      << testing::read_file(log);
}

TEST_F(TrainedRunTest, EvalOnAReadOnlyRunScoresAndWarnsThatItsRecordWasNotWritten) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  // Tests may run as root, whom chmod does not stop: a read-only bind mount in a private mount
  // namespace does.
  const std::string read_only_mount =
      "unshare -rm sh -c \"mount --bind -o ro '" + run_dir_ + "' '" + run_dir_ + "'";
  const auto probe = run_command(read_only_mount + "\"");
  if (probe.exit_code != 0) {
    GTEST_SKIP() << "cannot make a read-only mount here (unshare -rm, mount --bind -o ro): "
                 << probe.output;
  }
  const std::string metrics = testing::read_file(run_dir_ + "/metrics.jsonl");
  const auto result =
      run_command(read_only_mount + " && exec '" + NMT_BINARY + "' eval" + model() + "\"");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("BLEU"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("the scores were not recorded in the run: cannot open " + run_dir_ +
                               "/metrics.jsonl for appending: Read-only file system"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(testing::read_file(run_dir_ + "/metrics.jsonl"), metrics);
}

// `nmt attention` and `nmt report` on a trained run give pages that render in headless Chromium
// and show every token of the sentence.
TEST_F(TrainedRunTest, AttentionAndReportPagesRenderInBrowser) {
  ASSERT_EQ(train_result_->exit_code, 0) << train_result_->output;
  if (!testing::has_chromium()) GTEST_SKIP() << "no " << testing::kChromium;
  testing::ScratchDir pages;
  const auto attention = run_nmt("attention" + model() + " 'Where is the library?' --out '" +
                                 pages.file("a.html") + "'");
  ASSERT_EQ(attention.exit_code, 0) << attention.output;
  const auto report = run_nmt("report" + model() + " --out '" + pages.file("r.html") + "'");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  // Thresholds suit a 5 x 7 heat map: a page without it is grey text on white (no colour).
  testing::expect_picture(pages, pages.file("a.html"), 0.02, 0.008, "attention");
  testing::expect_picture(pages, pages.file("r.html"), 0.02, 0.002, "report");
  const std::string dom = testing::rendered_dom(pages, pages.file("a.html"), "attention");
  for (const char* token : {"where", "is", "the", "library", "?", "<SOS>"}) {
    EXPECT_NE(dom.find(">" + testing::dom_text(token) + "<"), std::string::npos) << token;
  }
  const auto text = run_nmt("attention" + model() + " 'Where is the library?' --format txt");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("library"), std::string::npos);
}

// A practitioner's layout: training corpora as aligned plain-text files plus a weighted TSV, a
// named dev set and a named test set, validation by BLEU every few steps choosing best.pt.
class NamedDevTestRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::vector<std::string> lines =
        read_lines(testing::source_dir() + "/data/sample/en-es.tsv");
    ASSERT_GE(lines.size(), 400u);
    const auto write_aligned = [this, &lines](const std::string& stem, std::size_t first,
                                              std::size_t end) {
      std::string english, spanish;
      for (std::size_t i = first; i < end; ++i) {
        english += lines[i].substr(0, lines[i].find('\t')) + "\n";
        spanish += lines[i].substr(lines[i].find('\t') + 1) + "\n";
      }
      scratch_.write(stem + ".en", english);
      scratch_.write(stem + ".es", spanish);
    };
    write_aligned("train", 0, 320);
    write_aligned("dev", 340, 370);
    std::string extra, test;
    for (std::size_t i = 320; i < 340; ++i) extra += lines[i] + "\n";
    for (std::size_t i = 370; i < 400; ++i) test += lines[i] + "\n";
    scratch_.write("extra.tsv", extra);
    scratch_.write("test.tsv", test);
  }

  std::string config(const std::string& dev_target) {
    const std::string dir = scratch_.path() + "/";
    return scratch_.write("named.json", R"({
      "data": {"train": [{"source": ")" + dir +
                                            R"(train.en", "target": ")" + dir + R"(train.es"},
                         {"path": ")" + dir +
                                            R"(extra.tsv", "weight": 2}],
               "valid": {"source": ")" + dir +
                                            R"(dev.en", "target": ")" + dir + dev_target + R"("},
               "test": ")" + dir + R"(test.tsv"},
      "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre"},
      "train": {"batch_size": 32, "epochs": 3, "lr": 0.003, "threads": 1, "valid_every": 5,
                "best_metric": "bleu", "log_every": 5}})");
  }

  testing::ScratchDir scratch_;
};

TEST_F(NamedDevTestRunTest, BleuChoosesBestPtAndEvalScoresTheNamedTestSet) {
  const std::string run = scratch_.file("run");
  const auto trained = run_nmt("train --config '" + config("dev.es") + "' --out '" + run + "'");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const auto prepared = nlohmann::json::parse(testing::read_file(run + "/prepare.json"));
  EXPECT_EQ(prepared["split"]["valid"], 30) << "the dev files, whole";
  EXPECT_EQ(prepared["split"]["test"], 30) << "the test file, whole";
  EXPECT_EQ(prepared["corpora"].size(), 4u);
  EXPECT_EQ(prepared["corpora"][1]["pairs_read"], 20);
  const std::size_t dropped = prepared["dropped"]["source_in_dev_or_test"];
  EXPECT_EQ(prepared["split"]["train"].get<std::size_t>() + dropped, 320u + 2 * 20u)
      << "the weighted TSV counts twice";

  std::vector<nlohmann::json> validations;
  nlohmann::json end;
  for (const std::string& line : read_lines(run + "/metrics.jsonl")) {
    const auto record = nlohmann::json::parse(line);
    if (record["event"] == "valid") validations.push_back(record);
    if (record["event"] == "end") end = record;
  }
  ASSERT_GE(validations.size(), 4u);
  double best_bleu = -1.0;
  int64_t best_step = 0;
  for (const auto& validation : validations) {
    EXPECT_EQ(validation["step"].get<int64_t>() % 5, 0);
    ASSERT_TRUE(validation.contains("valid_bleu")) << validation.dump();
    if (validation["valid_bleu"].get<double>() > best_bleu) {
      best_bleu = validation["valid_bleu"];
      best_step = validation["step"];
    }
  }
  EXPECT_EQ(end["best_metric"], "bleu");
  EXPECT_EQ(end["best_step"], best_step);
  EXPECT_DOUBLE_EQ(end["best_score"].get<double>(), best_bleu);
  EXPECT_NE(trained.output.find("best.pt: step " + std::to_string(best_step)), std::string::npos)
      << trained.output;
  EXPECT_NE(testing::read_file(run + "/report.html").find("BLEU and chrF against steps"),
            std::string::npos);

  const auto evaluated =
      run_command("'" + std::string(NMT_BINARY) + "' -q eval --model '" + run + "' --json");
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.output;
  const auto scores = nlohmann::json::parse(evaluated.output);
  EXPECT_EQ(scores["sentences"], 30);
  EXPECT_EQ(scores["data"], "test split of " + run);
}

TEST_F(NamedDevTestRunTest, MisalignedDevFilesStopBeforeTraining) {
  std::string short_target = testing::read_file(scratch_.file("dev.es"));
  short_target.erase(short_target.rfind('\n', short_target.size() - 2) + 1);  // drop a line
  scratch_.write("dev-short.es", short_target);
  const std::string run = scratch_.file("run");
  const auto trained =
      run_nmt("train --config '" + config("dev-short.es") + "' --out '" + run + "'");
  EXPECT_EQ(trained.exit_code, 1);
  EXPECT_NE(trained.output.find(scratch_.file("dev.en") + ": has 30 lines but " +
                                scratch_.file("dev-short.es") + " has 29"),
            std::string::npos)
      << trained.output;
  EXPECT_FALSE(std::filesystem::exists(run + "/checkpoint.pt"));
}

// A subword run directory is self-contained: a copy of it translates exactly like the original.
// The notebook's sanity check: a model trained long enough on about 20 pairs reproduces each of
// them with greedy decoding. Sources are written already cleaned, so that a line of the run's
// train.tsv is the key of its expected (detokenised) translation. The final weights are used:
// best.pt is chosen by the loss on one unseen validation pair, which says little here.
// Trains on a tiny corpus until it is learned (with --reverse: the Spanish column is the source)
// and checks that greedy decoding reproduces every training pair.
void expect_tiny_corpus_learned(bool reverse) {
  const std::map<std::string, std::pair<std::string, std::string>> corpus = {
      // cleaned source -> {raw target, expected translation}
      {"i am hungry", {"Tengo hambre.", "tengo hambre"}},
      {"where is the bank ?", {"¿Dónde está el banco?", "¿dónde está el banco?"}},
      {"the cat sleeps", {"El gato duerme.", "el gato duerme"}},
      {"i like green apples", {"Me gustan las manzanas verdes.", "me gustan las manzanas verdes"}},
      {"do you speak italian ?", {"¿Hablas italiano?", "¿hablas italiano?"}},
      {"we are friends", {"Somos amigos.", "somos amigos"}},
      {"it is raining", {"Está lloviendo.", "está lloviendo"}},
      {"help !", {"¡Ayuda!", "¡ayuda!"}},
      {"my name is tom", {"Me llamo Tom.", "me llamo tom"}},
      {"the book is red", {"El libro es rojo.", "el libro es rojo"}},
      {"she reads a lot", {"Ella lee mucho.", "ella lee mucho"}},
      {"open the door", {"Abre la puerta.", "abre la puerta"}},
      {"how old are you ?", {"¿Cuántos años tienes?", "¿cuántos años tienes?"}},
      {"i live in madrid", {"Vivo en Madrid.", "vivo en madrid"}},
      {"they eat bread", {"Ellos comen pan.", "ellos comen pan"}},
      {"the water is cold", {"El agua está fría.", "el agua está fría"}},
      {"come here , please", {"Ven aquí, por favor.", "ven aquí, por favor"}},
      {"i have two dogs", {"Tengo dos perros.", "tengo dos perros"}},
      {"what time is it ?", {"¿Qué hora es?", "¿qué hora es?"}},
      {"the children play", {"Los niños juegan.", "los niños juegan"}},
      {"good night", {"Buenas noches.", "buenas noches"}},
      {"thank you very much", {"Muchas gracias.", "muchas gracias"}},
  };
  testing::ScratchDir scratch;
  std::string tsv;
  for (const auto& [source, target] : corpus) tsv += source + "\t" + target.first + "\n";
  const std::string data = scratch.write("tiny.tsv", tsv);
  // English references as a word model writes them: punctuation joined to the word before it.
  const auto rendered_english = [](std::string text) {
    for (const char* mark : {" ?", " !", " ,"}) {
      for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark))
        text.erase(at, 1);
    }
    return text;
  };
  std::map<std::string, std::string> expected;  // cleaned source -> translation
  for (const auto& [source, target] : corpus) expected[source] = target.second;
  const std::string config = scratch.write("overfit.json", R"({
      "data": {"path": ")" + data + R"(", "valid_fraction": 0.05, "test_fraction": 0.05},
      "model": {"d_model": 64, "layers": 2, "heads": 4, "ff_mult": 2, "dropout": 0.0, "norm": "pre"},
      "train": {"batch_size": 32, "epochs": 150, "lr": 0.003, "label_smoothing": 0.0, "threads": 1,
                "log_every": 50}})");
  const std::string run = scratch.file("run");
  const auto trained = run_nmt("train --config '" + config + "' --out '" + run + "'" +
                               (reverse ? " --reverse" : ""));
  ASSERT_EQ(trained.exit_code, 0) << trained.output;

  double last_train_loss = -1.0;
  for (const std::string& line : read_lines(run + "/metrics.jsonl")) {
    const auto record = nlohmann::json::parse(line);
    if (record["event"] == "epoch") last_train_loss = record["train_loss"].get<double>();
  }
  EXPECT_GE(last_train_loss, 0.0);
  EXPECT_LT(last_train_loss, 0.05) << "the training pairs are not learned";

  std::vector<std::string> sources;
  for (const std::string& line : read_lines(run + "/train.tsv")) {
    sources.push_back(line.substr(0, line.find('\t')));
    if (reverse) expected[sources.back()] = rendered_english(line.substr(line.find('\t') + 1));
  }
  ASSERT_EQ(sources.size(), corpus.size() - 2) << "one pair each for the valid and test splits";
  std::string input;
  for (const std::string& source : sources) input += source + "\n";
  const auto translated = run_command("'" + std::string(NMT_BINARY) + "' -q translate --model '" +
                                      run + "' --checkpoint checkpoint.pt --strategy greedy < '" +
                                      scratch.write("in.txt", input) + "'");
  ASSERT_EQ(translated.exit_code, 0) << translated.output;
  std::istringstream outputs(translated.output);
  for (const std::string& source : sources) {
    std::string output;
    ASSERT_TRUE(std::getline(outputs, output)) << "no translation for " << source;
    ASSERT_EQ(expected.count(source), 1u) << source;
    EXPECT_EQ(output, expected.at(source)) << source;
  }
}

TEST(OverfitTest, EveryTrainingPairOfATinyCorpusIsReproducedByGreedyDecoding) {
  expect_tiny_corpus_learned(/*reverse=*/false);
}

TEST(OverfitTest, ReversedTheSameFileTrainsSpanishToEnglish) {
  expect_tiny_corpus_learned(/*reverse=*/true);
}

TEST(SubwordRunTest, ACopiedRunDirectoryReloadsAndTranslatesIdentically) {
  testing::ScratchDir scratch;
  const std::string config =
      scratch.write("spm.json",
                    R"({
    "data": {"path": ")" +
                        testing::source_dir() +
                        R"(/data/sample/en-es.tsv", "valid_fraction": 0.1, "test_fraction": 0.1},
    "text": {"clean": "normalize", "tokenizer": "sentencepiece", "vocab_size": 400, "shared_vocab": true},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2, "norm": "pre", "tie_embeddings": true,
              "share_embeddings": true},
    "train": {"batch_size": 32, "epochs": 2, "lr": 0.003, "threads": 1}})");
  const auto trained =
      run_nmt("train --config '" + config + "' --out '" + scratch.file("run") + "'");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  ASSERT_TRUE(std::filesystem::exists(scratch.file("run/spm.model")));
  std::filesystem::copy(scratch.file("run"), scratch.file("copy"),
                        std::filesystem::copy_options::recursive);
  const std::string sentences = " 'Where is the station?' 'She likes music.' 'We buy flowers.'";
  const auto original = run_nmt("-q translate --model '" + scratch.file("run") + "'" + sentences);
  const auto copy = run_nmt("-q translate --model '" + scratch.file("copy") + "'" + sentences);
  ASSERT_EQ(original.exit_code, 0) << original.output;
  EXPECT_EQ(copy.output, original.output);
  EXPECT_EQ(std::count(original.output.begin(), original.output.end(), '\n'), 3);
}

// Fine-tuning takes the parent's text section but the new run's subword sampling, checked against
// the parent's model type.
TEST(SubwordRunTest, FineTuningKeepsItsOwnSubwordSamplingWithTheParentsVocabulary) {
  testing::ScratchDir scratch;
  const std::string data = testing::source_dir() + "/data/sample/en-es.tsv";
  const std::string parent = scratch.write("parent.json", R"({"data": {"path": ")" + data + R"("},
    "text": {"clean": "normalize", "tokenizer": "sentencepiece", "vocab_size": 400},
    "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2},
    "train": {"batch_size": 32, "epochs": 1, "threads": 1}})");
  const auto trained =
      run_nmt("-q train --config '" + parent + "' --out '" + scratch.file("parent") + "'");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const std::string child = scratch.write("child.json", R"({"data": {"path": ")" + data + R"("},
    "text": {"tokenizer": "sentencepiece", "sampling_nbest": -1, "sampling_alpha": 0.1},
    "train": {"batch_size": 32, "epochs": 1, "threads": 1}})");
  const std::string init = " --init-from '" + scratch.file("parent") + "'";
  const auto tuned =
      run_nmt("-q train --config '" + child + "' --out '" + scratch.file("child") + "'" + init);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  const nlohmann::json text =
      nlohmann::json::parse(testing::read_file(scratch.file("child/config.json")))["text"];
  EXPECT_EQ(text["vocab_size"], 400) << "the parent's vocabulary";
  EXPECT_EQ(text["clean"], "normalize");
  EXPECT_EQ(text["sampling_nbest"], -1) << "the new run's sampling";
  EXPECT_EQ(text["sampling_alpha"], 0.1);
  const auto refused =
      run_nmt("-q train --config '" + child + "' --out '" + scratch.file("bpe") + "'" + init +
              " --set text.sampling_nbest=0 --set text.sampling_alpha=0 --set text.model_type=bpe "
              "--set text.bpe_dropout=0.1");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find(child +
                                ": text.bpe_dropout: needs model_type \"bpe\"; unigram models "
                                "sample with sampling_nbest and sampling_alpha (text settings of " +
                                scratch.file("parent")),
            std::string::npos)
      << refused.output;
}

TEST(ScoreCommandTest, MatchesSacrebleuAndRejectsMismatchedFiles) {
  const std::string data = testing::source_dir() + "/tests/eval/testdata/sacrebleu/";
  const auto result = run_command("'" + std::string(NMT_BINARY) + "' score --json --hyp '" + data +
                                  "hyp.txt' --ref '" + data + "ref.txt'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto json = nlohmann::json::parse(result.output);
  EXPECT_NEAR(json["bleu"]["score"].get<double>(), 48.5475, 0.01);
  EXPECT_NEAR(json["chrf"]["score"].get<double>(), 66.8836, 0.01);
  testing::ScratchDir dir;
  const auto mismatch = run_nmt("score --hyp '" + dir.write("h.txt", "a\nb\n") + "' --ref '" +
                                dir.write("r.txt", "a\n") + "'");
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_NE(mismatch.output.find("has 2 lines but"), std::string::npos) << mismatch.output;
  EXPECT_NE(mismatch.output.find("r.txt has 1"), std::string::npos);
}

TEST(TranslateCommandTest, MissingRunIsAClearError) {
  testing::ScratchDir dir;
  const auto result = run_nmt("translate --model '" + dir.file("nothing") + "' hello");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("is not a run directory"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace nmt::cli
