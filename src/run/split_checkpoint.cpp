#include "run/split_checkpoint.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "nmt/error.h"
#include "nmt/io.h"

namespace nmt::run {
namespace {

constexpr int kFormat = 1;

// The size and modification time of a corpus file: what tells a corpus edited or replaced since
// the split was made (as make tells a stale target). A file that cannot be examined is noted as
// such; reading it then fails with the reader's own message.
nlohmann::json file_identity(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {{"file", path}, {"missing", true}};
  return {{"file", path},
          {"bytes", static_cast<int64_t>(status.st_size)},
          {"modified_ns", static_cast<int64_t>(status.st_mtim.tv_sec) * 1'000'000'000 +
                              static_cast<int64_t>(status.st_mtim.tv_nsec)}};
}

nlohmann::json corpus_identities(const data::CorpusOptions& options) {
  nlohmann::json files = nlohmann::json::array();
  const auto add = [&files](const std::vector<data::CorpusFile>& corpora) {
    for (const data::CorpusFile& corpus : corpora) {
      if (corpus.is_aligned_pair()) {
        files.push_back(file_identity(corpus.source));
        files.push_back(file_identity(corpus.target));
      } else {
        files.push_back(file_identity(corpus.path));
      }
    }
  };
  add(options.valid);
  add(options.test);
  add(options.training_corpora());
  return files;
}

nlohmann::json filter_report_json(const data::FilterReport& report) {
  return {{"input", report.input},
          {"empty", report.empty},
          {"too_long", report.too_long},
          {"identical", report.identical},
          {"duplicates", report.duplicates},
          {"held_out_source", report.held_out_source},
          {"too_many_tokens", report.too_many_tokens},
          {"length_ratio", report.length_ratio},
          {"kept", report.kept},
          {"held_out_empty", report.held_out_empty}};
}

data::FilterReport filter_report(const nlohmann::json& json) {
  data::FilterReport report;
  report.input = json.at("input").get<std::size_t>();
  report.empty = json.at("empty").get<std::size_t>();
  report.too_long = json.at("too_long").get<std::size_t>();
  report.identical = json.at("identical").get<std::size_t>();
  report.duplicates = json.at("duplicates").get<std::size_t>();
  report.held_out_source = json.at("held_out_source").get<std::size_t>();
  report.too_many_tokens = json.at("too_many_tokens").get<std::size_t>();
  report.length_ratio = json.at("length_ratio").get<std::size_t>();
  report.kept = json.at("kept").get<std::size_t>();
  report.held_out_empty = json.at("held_out_empty").get<std::size_t>();
  return report;
}

std::vector<uint32_t> read_corpus_indices(const std::string& path, std::size_t pairs) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint32_t> indices(pairs);
  const auto bytes = static_cast<std::streamsize>(pairs * sizeof(uint32_t));
  if (!in || !in.read(reinterpret_cast<char*>(indices.data()), bytes) || in.peek() != EOF) {
    throw DataError(path, "does not hold " + std::to_string(pairs) + " corpus indices");
  }
  return indices;
}

// The text settings a vocabulary is trained with: all but how training samples segmentations.
nlohmann::json vocabulary_settings(const text::TextOptions& options) {
  text::TextOptions trained = options;
  trained.sampling_nbest = 0;
  trained.sampling_alpha = 0.0;
  trained.bpe_dropout = 0.0;
  Config config;
  config.text = trained;
  return config_to_json(config).at("text");
}

// What tells the vocabularies a tokenizing pass used: the text settings they are used with (but
// sampling's, which the pass does not use) and each saved file's name, size and CRC-32.
nlohmann::json vocabulary_identity(const text::TextOptions& options,
                                   const std::vector<std::string>& vocabulary_files) {
  nlohmann::json files = nlohmann::json::array();
  for (const std::string& file : vocabulary_files) {
    const std::string bytes = read_text_file(file);
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()),
                            static_cast<uInt>(bytes.size()));
    files.push_back({{"file", std::filesystem::path(file).filename().string()},
                     {"bytes", bytes.size()},
                     {"crc32", static_cast<uint32_t>(crc)}});
  }
  return {{"text", vocabulary_settings(options)}, {"files", std::move(files)}};
}

}  // namespace

SplitCheckpoint::SplitCheckpoint(const RunDir& dir, const Config& config)
    : dir_(dir.path()), train_text_(path("split.train.tmp")) {
  const nlohmann::json settings = config_to_json(config);
  inputs_ = {{"data", settings.at("data")},
             {"text.clean", settings.at("text").at("clean")},
             {"corpora", corpus_identities(config.data)}};
}

std::string SplitCheckpoint::path(const char* name) const { return dir_ + "/" + name; }

std::optional<CheckpointedSplit> SplitCheckpoint::take() const {
  const std::string marker = path("split.json.tmp");
  if (!std::filesystem::exists(marker)) return std::nullopt;
  try {
    const nlohmann::json kept = nlohmann::json::parse(read_text_file(marker));
    if (kept.at("format") != kFormat || kept.at("inputs") != inputs_) {
      spdlog::info(
          "{}: a split kept by an earlier data phase of other data settings or corpus "
          "files; splitting again",
          marker);
    } else if (std::filesystem::file_size(train_text_) !=
               kept.at("train_text_bytes").get<std::uintmax_t>()) {
      spdlog::warn("{}: not the size the split wrote; splitting again", train_text_);
    } else {
      CheckpointedSplit split;
      split.splits.train_size = kept.at("train_pairs").get<std::size_t>();
      split.splits.train_corpus =
          read_corpus_indices(path("split.corpus.tmp"), split.splits.train_size);
      split.splits.valid = data::read_pairs(path("split.valid.tmp"));
      split.splits.test = data::read_pairs(path("split.test.tmp"));
      split.splits.report = filter_report(kept.at("report"));
      split.reads = kept.at("reads");
      return split;
    }
  } catch (const std::exception& error) {
    spdlog::warn("the split kept by an earlier data phase cannot be used ({}); splitting again",
                 error.what());
  }
  remove_tree(marker);
  remove_vocabularies();
  remove_parts();
  return std::nullopt;
}

std::optional<text::TokenizerPair> SplitCheckpoint::take_vocabularies(
    const text::TextOptions& options) const {
  const std::string marker = path("split.vocab.json.tmp");
  if (!std::filesystem::exists(marker)) return std::nullopt;
  try {
    const nlohmann::json kept = nlohmann::json::parse(read_text_file(marker));
    if (kept.at("format") == kFormat && kept.at("text") == vocabulary_settings(options)) {
      return text::load_tokenizers(options, path("split.vocab.tmp"));
    }
    spdlog::info(
        "{}: vocabularies kept by an earlier data phase of other text settings; "
        "training them again",
        marker);
  } catch (const std::exception& error) {
    spdlog::warn(
        "the vocabularies kept by an earlier data phase cannot be used ({}); training "
        "them again",
        error.what());
  }
  remove_vocabularies();
  return std::nullopt;
}

void SplitCheckpoint::save_vocabularies(const text::TextOptions& options,
                                        const text::TokenizerPair& tokenizers) const {
  remove_vocabularies();
  std::filesystem::create_directories(path("split.vocab.tmp"));
  text::save_tokenizers(options, tokenizers, path("split.vocab.tmp"));
  const nlohmann::json kept = {{"format", kFormat}, {"text", vocabulary_settings(options)}};
  write_text_atomically(path("split.vocab.json.tmp"), kept.dump(1) + "\n");
}

void SplitCheckpoint::remove_vocabularies() const {
  remove_tree(path("split.vocab.json.tmp"));
  remove_tree(path("split.vocab.tmp"));
}

std::string SplitCheckpoint::part_text(std::size_t part) const {
  return dir_ + "/split.part-" + std::to_string(part) + ".tsv.tmp";
}

std::string SplitCheckpoint::part_ids(std::size_t part) const {
  return dir_ + "/split.part-" + std::to_string(part) + ".ids.tmp";
}

std::optional<TokenizedParts> SplitCheckpoint::take_parts(
    const text::TextOptions& options, const std::vector<std::string>& vocabulary_files) const {
  const std::string marker = path("split.parts.json.tmp");
  if (!std::filesystem::exists(marker)) return std::nullopt;
  try {
    const nlohmann::json kept = nlohmann::json::parse(read_text_file(marker));
    if (kept.at("format") != kFormat ||
        kept.at("vocabularies") != vocabulary_identity(options, vocabulary_files)) {
      spdlog::info(
          "{}: parts tokenized by an earlier data phase with other vocabularies; tokenizing "
          "again",
          marker);
    } else {
      TokenizedParts parts;
      parts.count = kept.at("parts").get<std::size_t>();
      parts.input_pairs = kept.at("input_pairs").get<std::size_t>();
      parts.counts = kept.at("counts");
      const nlohmann::json& bytes = kept.at("part_bytes");
      for (std::size_t part = 0; part < parts.count; ++part) {
        for (const auto& [file, size] : {std::pair{part_text(part), bytes.at(part).at(0)},
                                         std::pair{part_ids(part), bytes.at(part).at(1)}}) {
          if (std::filesystem::file_size(file) != size.get<std::uintmax_t>()) {
            throw DataError(file, "not the size the tokenizing pass wrote");
          }
        }
      }
      return parts;
    }
  } catch (const std::exception& error) {
    spdlog::warn(
        "the parts tokenized by an earlier data phase cannot be used ({}); tokenizing again",
        error.what());
  }
  remove_parts();
  return std::nullopt;
}

void SplitCheckpoint::save_parts(const text::TextOptions& options,
                                 const std::vector<std::string>& vocabulary_files,
                                 const TokenizedParts& parts) const {
  nlohmann::json bytes = nlohmann::json::array();
  for (std::size_t part = 0; part < parts.count; ++part) {
    bytes.push_back(
        {std::filesystem::file_size(part_text(part)), std::filesystem::file_size(part_ids(part))});
  }
  const nlohmann::json kept = {{"format", kFormat},
                               {"vocabularies", vocabulary_identity(options, vocabulary_files)},
                               {"parts", parts.count},
                               {"input_pairs", parts.input_pairs},
                               {"counts", parts.counts},
                               {"part_bytes", std::move(bytes)}};
  write_text_atomically(path("split.parts.json.tmp"), kept.dump(1) + "\n");
}

void SplitCheckpoint::remove_parts() const {
  remove_tree(path("split.parts.json.tmp"));  // first: no marker stands over missing parts
  std::vector<std::string> parts;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    if (entry.path().filename().string().rfind("split.part-", 0) == 0) {
      parts.push_back(entry.path().string());
    }
  }
  for (const std::string& part : parts) remove_tree(part);
}

void SplitCheckpoint::save(const CheckpointedSplit& split) const {
  remove_vocabularies();  // trained on another split
  remove_parts();
  const std::vector<uint32_t>& corpus = split.splits.train_corpus;
  write_file_atomically(path("split.corpus.tmp"), [&corpus](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(corpus.data()),
              static_cast<std::streamsize>(corpus.size() * sizeof(uint32_t)));
  });
  data::write_pairs(path("split.valid.tmp"), split.splits.valid);
  data::write_pairs(path("split.test.tmp"), split.splits.test);
  const nlohmann::json kept = {{"format", kFormat},
                               {"inputs", inputs_},
                               {"train_pairs", split.splits.train_size},
                               {"train_text_bytes", std::filesystem::file_size(train_text_)},
                               {"report", filter_report_json(split.splits.report)},
                               {"reads", split.reads}};
  write_text_atomically(path("split.json.tmp"), kept.dump(1) + "\n");
}

void SplitCheckpoint::remove() const {
  // The markers first: a removal stopped half-way leaves no marker over missing files.
  remove_parts();
  remove_vocabularies();
  for (const char* name : {"split.json.tmp", "split.train.tmp", "split.corpus.tmp",
                           "split.valid.tmp", "split.test.tmp"}) {
    remove_tree(path(name));
  }
}

}  // namespace nmt::run
