// Hostile and careless input through the binary: configurations nested 100,000 levels deep, holding
// a 50 MB string or a key twice, with errors that must name the file; and gzip bombs, inflated
// under a real address-space limit (`ulimit -v`) while the peak resident memory is measured.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "child_process.h"
#include "gzip_utils.h"
#include "test_utils.h"

namespace nmt::cli {
namespace {

using testing::run_command;
using testing::run_nmt;

// The sample corpus with the data section's other keys given as JSON text.
std::string config_with(const testing::ScratchDir& dir,
                        const std::string& name,
                        const std::string& data_keys) {
  return dir.write(name, "{\"data\": {\"path\": \"" + testing::source_dir() +
                             "/data/sample/en-es.tsv\"" + data_keys + "},\n" +
                             R"( "model": {"d_model": 16, "layers": 1, "heads": 2, "ff_mult": 2},
 "train": {"batch_size": 32, "epochs": 1, "threads": 1}})");
}

std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// nmt under an 8 MiB stack, the usual default, whatever the test runner's limit is.
testing::CommandResult run_nmt_on_bounded_stack(const std::string& arguments) {
  return run_command("ulimit -s 8192 && '" + std::string(NMT_BINARY) + "' " + arguments);
}

TEST(HostileConfigTest, AValueNestedOneHundredThousandDeepIsAnErrorNotACrash) {
  testing::ScratchDir dir;
  const std::string config =
      config_with(dir, "deep.json", ",\n \"max_words\": " + nested_arrays(100000));
  for (const char* command : {"prepare", "train"}) {
    const auto result = run_nmt_on_bounded_stack(std::string(command) + " --config '" + config +
                                                 "' --out '" + dir.file("run") + "'");
    EXPECT_EQ(result.exit_code, 2) << command << ": " << result.output.substr(0, 2000);
    EXPECT_EQ(result.output,
              "nmt: error: " + config + ":2: data.max_words: nested deeper than 32 levels\n")
        << command;
  }
}

TEST(HostileConfigTest, ReportOnARunWhoseConfigIsNestedTooDeepIsAnErrorNotACrash) {
  testing::ScratchDir dir;
  const std::string run = dir.file("run");
  std::filesystem::create_directories(run);
  dir.write("run/config.json", "{\"description\": " + nested_arrays(100000) + "}");
  const auto result = run_nmt_on_bounded_stack("report --model '" + run + "' --out '" +
                                               dir.file("report.html") + "'");
  EXPECT_EQ(result.exit_code, 2) << result.output.substr(0, 2000);
  EXPECT_EQ(result.output,
            "nmt: error: " + run + "/config.json:1: description: nested deeper than 32 levels\n");
}

TEST(HostileConfigTest, AFiftyMegabyteValueIsQuotedShortened) {
  testing::ScratchDir dir;
  const std::string huge(50 << 20, 'x');
  const std::string config = config_with(dir, "huge.json", ", \"max_words\": \"" + huge + "\"");
  const auto result = run_nmt("prepare --config '" + config + "' --out '" + dir.file("run") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "nmt: error: " + config +
                               ": data.max_words: expected a non-negative integer, got \"" +
                               std::string(80, 'x') + "...\" (52428800 bytes)\n")
      << result.output.substr(0, 2000);
  const std::string only_list =
      dir.write("list.json", "{\"data\": {\"train\": [{\"path\": \"" + huge + "\"}]}}");
  const auto list_result =
      run_nmt("prepare --config '" + only_list + "' --out '" + dir.file("run") + "'");
  EXPECT_EQ(list_result.exit_code, 2);
  EXPECT_EQ(list_result.output, "nmt: error: " + only_list +
                                    ": data.train[0].path: expected a file name (at most 4096 "
                                    "bytes, no NUL), got \"" +
                                    std::string(80, 'x') + "...\" (52428800 bytes)\n")
      << list_result.output.substr(0, 2000);
}

TEST(HostileConfigTest, KeyErrorsNameTheFileInEveryCommandThatReadsAConfig) {
  testing::ScratchDir dir;
  const std::string config = config_with(dir, "bad.json", ", \"max_words\": \"x\"");
  const std::string message =
      "nmt: error: " + config + ": data.max_words: expected a non-negative integer, got \"x\"\n";
  for (const std::string command : {"prepare --out o", "train --out o", "bench train --steps 1"}) {
    const auto result = run_nmt(command + " --config '" + config + "'");
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_EQ(result.output, message) << command;
  }
  // A value a flag set is the command line's.
  const std::string good = config_with(dir, "good.json", "");
  const auto flag = run_nmt("prepare --config '" + good + "' --set train.epochs=ten --out '" +
                            dir.file("o") + "'");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.output,
            "nmt: error: command line: train.epochs: expected a positive integer, got \"ten\"\n");

  // A run whose config.json went bad: resuming, translating and evaluating name it too.
  const std::string run = dir.file("run");
  ASSERT_EQ(run_nmt("prepare --config '" + good + "' --out '" + run + "'").exit_code, 0);
  dir.write("run/config.json", R"({"data": {"path": "x.tsv", "max_words": "x"}})");
  const std::string in_run = "nmt: error: " + run +
                             "/config.json: data.max_words: expected a non-negative integer, "
                             "got \"x\"\n";
  for (const std::string command : {"train --resume --out", "translate Hello --model",
                                    "eval --model", "attention Hello --out x.html --model"}) {
    const auto result = run_nmt(command + " '" + run + "'");
    EXPECT_EQ(result.exit_code, 2) << command;
    EXPECT_EQ(result.output, in_run) << command;
  }
}

TEST(HostileConfigTest, ADuplicatedKeyIsRefusedNamingItsPathAndLines) {
  testing::ScratchDir dir;
  const std::string config = config_with(dir, "twice.json", R"(, "max_words": 15,
   "max_words": 20)");
  const auto result = run_nmt("train --config '" + config + "' --out '" + dir.file("run") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "nmt: error: " + config +
                               ":2: data.max_words: duplicate key (also set at line 1); name each "
                               "key once\n");
  const std::string sections = dir.write("sections.json", R"({"data": {"path": "a.tsv"},
    "train": {"epochs": 3},
    "data": {"path": "b.tsv"}})");
  const auto second = run_nmt("prepare --config '" + sections + "'");
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_EQ(second.output, "nmt: error: " + sections +
                               ":3: data: duplicate key (also set at line 1); name each key "
                               "once\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("run")));
}

// Address space for nmt: its libraries loaded and 600 MiB for the data phase.
rlim_t address_space_bytes(const testing::LoadedMemory& loaded) {
  return loaded.address_space_kib > 0
             ? (static_cast<rlim_t>(loaded.address_space_kib) << 10) + (rlim_t{600} << 20)
             : RLIM_INFINITY;
}

TEST(GzipBombTest, AnEndlessLineOfZerosIsReadThroughInBoundedMemoryAndNamed) {
  testing::ScratchDir dir;
  // 2 GiB of zero bytes without a line end, in 32 members of 64 MiB: a 2 MB file.
  const std::string bomb =
      dir.write("bomb.tsv.gz", testing::gzip_bomb(std::string(1 << 16, '\0'), 64 << 20, 32));
  const std::string config = dir.write("bomb.json", R"({"data": {"path": ")" + bomb + R"("}})");
  const testing::LoadedMemory loaded = testing::loaded_memory(dir);
  ASSERT_GT(loaded.resident_kib, 0) << "could not measure nmt's memory";
  testing::NmtProcess process({"prepare", "--config", config, "--out", dir.file("run")},
                              dir.file("log"), {{}, "", address_space_bytes(loaded)});
  EXPECT_EQ(process.wait(), 1);
  EXPECT_EQ(testing::read_file(dir.file("log")),
            "nmt: error: " + bomb + ": no usable sentence pair in 1 lines (first problem: " + bomb +
                ":1: a line of 2147483648 bytes, longer than the 1048576 bytes a line may "
                "have)\n");
  EXPECT_LT(process.peak_resident_kib(), loaded.resident_kib + 256 * 1024)
      << "peak resident memory in KiB; " << loaded.resident_kib
      << " KiB with nmt's libraries loaded";
}

TEST(GzipBombTest, PairsThatOutgrowTheMemoryAreAnErrorNamingTheFile) {
  testing::ScratchDir dir;
  // 4 GiB of "a<TAB>b" lines: a billion pairs, far more than the address space allows.
  const std::string bomb = dir.write("pairs.tsv.gz", testing::gzip_bomb("a\tb\n", 64 << 20, 64));
  const std::string config = dir.write("pairs.json", R"({"data": {"path": ")" + bomb + R"("}})");
  const rlim_t limit = address_space_bytes(testing::loaded_memory(dir));
  testing::NmtProcess process({"prepare", "--config", config, "--out", dir.file("run")},
                              dir.file("log"), {{}, "", limit});
  EXPECT_EQ(process.wait(), 1);
  const std::string log = testing::read_file(dir.file("log"));
  EXPECT_EQ(log.rfind("nmt: error: " + bomb + ": out of memory after ", 0), 0u) << log;
  EXPECT_NE(log.find(" lines: nmt keeps a hash of each sentence pair while it splits the corpus, "
                     "and this many do not fit in the memory available; use a part of the "
                     "corpus\n"),
            std::string::npos)
      << log;
  EXPECT_LT(process.peak_resident_kib(), limit / 1024);
}

}  // namespace
}  // namespace nmt::cli
