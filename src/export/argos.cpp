#include "nmt/export/argos.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "export/export_dir.h"
#include "export/model_card.h"
#include "nmt/error.h"
#include "nmt/export/ctranslate2.h"
#include "nmt/import/zip_writer.h"
#include "nmt/io.h"
#include "nmt/language_names.h"

namespace nmt::exporter {
namespace {

namespace fs = std::filesystem;

constexpr const char* kExtension = ".argosmodel";

void check_archive_path(const std::string& archive, bool is_forced) {
  if (archive.empty()) throw ConfigError("--out: a file to write the package to is required");
  const std::string extension = kExtension;
  if (archive.size() <= extension.size() ||
      archive.compare(archive.size() - extension.size(), extension.size(), extension) != 0) {
    throw ConfigError("--out: " + archive + " does not end in " + extension +
                      ", the extension argospm and LibreTranslate install packages from");
  }
  if (fs::is_directory(archive)) {
    throw ConfigError("--out: " + archive + " is a directory; give the package's file name");
  }
  if (fs::exists(archive) && !is_forced) {
    throw ConfigError("--out: " + archive + " exists; pass --force to replace it");
  }
}

// ISO 639 codes ("en", "kab") with an optional region or script ("pt-BR", "zh-Hant"): they name the
// package's directory and LibreTranslate's languages.
bool is_language_code(const std::string& code) {
  const auto is_letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  const std::size_t dash = code.find('-');
  const std::string language = code.substr(0, dash);
  if (language.size() < 2 || language.size() > 3 ||
      !std::all_of(language.begin(), language.end(), is_letter)) {
    return false;
  }
  if (dash == std::string::npos) return true;
  const std::string rest = code.substr(dash + 1);
  return !rest.empty() && rest.size() <= 8 && std::all_of(rest.begin(), rest.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
  });
}

struct LanguageSide {
  const char* side;     // "source" or "target"
  const char* flag;     // the command's flag
  const char* key;      // the run config's key
  const char* example;  // a code for the message
};
constexpr LanguageSide kSourceSide{"source", "--source-lang", "data.source_lang", "en"};
constexpr LanguageSide kTargetSide{"target", "--target-lang", "data.target_lang", "es"};

// The flag's code, else the run's; ConfigError when neither gives a valid one.
std::string language_code(const std::string& given,
                          const std::string& recorded,
                          const LanguageSide& side,
                          const RunDir& run) {
  const std::string code = given.empty() ? recorded : given;
  const std::string flag = side.flag;
  if (code.empty()) {
    throw ConfigError(run.path() + ": cannot export to Argos Translate: the run records no " +
                      side.side + " language (" + side.key + ") and " + flag +
                      " gives none; pass " + flag + ", e.g. " + flag + " " + side.example);
  }
  if (!is_language_code(code)) {
    throw ConfigError((given.empty() ? std::string(side.key) : flag) + ": \"" + code +
                      "\" is not a language code (ISO 639 letters, as \"en\", with an optional "
                      "region after '-', as \"pt-BR\")");
  }
  return code;
}

void check_version(const std::string& version) {
  bool is_valid = !version.empty() && version.front() != '.' && version.back() != '.' &&
                  version.find("..") == std::string::npos;
  for (const char c : version) {
    is_valid = is_valid && (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.');
  }
  if (!is_valid) {
    throw ConfigError("--package-version: \"" + version +
                      "\" is not a version of numbers and dots, as \"1.0\", which Argos compares "
                      "to choose updates");
  }
}

void check_run(const detail::RunSettings& run) {
  const text::TextOptions& text = run.config.text;
  if (text.tokenizer == text::TokenizerKind::kWord) {
    throw detail::unexportable(run.dir, "Argos Translate",
                               "it has word vocabularies (text.tokenizer \"word\"), and an Argos "
                               "package tokenizes with one SentencePiece model; train with "
                               "text.tokenizer \"sentencepiece\"");
  }
  if (text.tokenizer == text::TokenizerKind::kMarian) {
    throw detail::unexportable(run.dir, "Argos Translate",
                               "it has Marian's tokenisation, two SentencePiece models and a "
                               "source ending in </s>, and an Argos package tokenizes both sides "
                               "with one model; export it with --format huggingface or "
                               "ctranslate2");
  }
  if (text.clean != text::CleanMode::kNormalize) {
    throw detail::unexportable(run.dir, "Argos Translate",
                               "its text.clean is \"notebook\", nmt's own cleaning, which Argos "
                               "does not apply; train with text.clean \"normalize\"");
  }
  if (!text.shared_vocab) {
    throw detail::unexportable(run.dir, "Argos Translate",
                               "it has separate vocabularies (text.shared_vocab false), and an "
                               "Argos package tokenizes both languages with one SentencePiece "
                               "model; train with text.shared_vocab true");
  }
}

std::string package_dir_name(const std::string& source,
                             const std::string& target,
                             std::string version) {
  std::replace(version.begin(), version.end(), '.', '_');
  return "translate-" + source + "_" + target + "-" + version;
}

nlohmann::json metadata(const ArgosReport& report, const std::string& version) {
  return {
      {"package_version", version},
      {"argos_version", kArgosVersion},
      {"type", "translate"},
      {"from_code", report.source_lang},
      {"from_name", language_name(report.source_lang)},
      {"to_code", report.target_lang},
      {"to_name", language_name(report.target_lang)},
  };
}

std::string readme(const run::OpenedRun& opened, const ArgosReport& report) {
  const std::string from = language_name(report.source_lang);
  const std::string to = language_name(report.target_lang);
  const MetricsFile metrics = read_metrics(opened.dir.metrics());
  std::string text = "# " + from + " to " + to + " (" + report.package_dir + ")\n\n";
  text += "An Argos Translate package exported by nmt from the run `" + opened.dir.path() +
          "` (weights `" + fs::path(opened.checkpoint).filename().string() + "`, " +
          std::to_string(report.parameters) + " parameters).\n\n";
  text +=
      "- translation: the CTranslate2 model in `model/` (fp32), as Argos runs it: beam search with "
      "4 beams (`ARGOS_BEAM_SIZE`), length penalty 0.2, at most 256 tokens. `nmt translate "
      "--strategy beam --beam-size 4 --length-penalty 0.2 --max-len 256` gives the same "
      "translations.\n"
      "- text: Argos gives `sentencepiece.model` the text as it is, where nmt first applies "
      "Unicode NFKC, squeezes runs of whitespace and trims the ends; text already in that form "
      "translates as nmt translates it. Argos also turns every `_` of a translation into a "
      "space.\n"
      "- sentences: Argos splits text into sentences and translates each on its own; nmt "
      "translates each line as one sentence.\n\n";
  text +=
      detail::scores_section(opened, metrics) + detail::training_section(opened.config, metrics);
  return text +
         "## Install\n\n```python\nimport argostranslate.package, argostranslate.translate\n\n"
         "argostranslate.package.install_from_path(\"" +
         fs::path(report.archive).filename().string() +
         "\")\nprint(argostranslate.translate.translate(\"I am hungry.\", \"" + report.source_lang +
         "\", \"" + report.target_lang +
         "\"))\n```\n\nLibreTranslate serves every package installed in its "
         "`ARGOS_PACKAGES_DIR`.\n";
}

// The package directory's members, directories before what they hold, each level sorted.
std::vector<import::ZipMember> members_of(const std::string& root, const std::string& name) {
  std::vector<import::ZipMember> members = {{name + "/", ""}};
  std::vector<fs::path> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
    entries.push_back(entry.path());
  }
  std::sort(entries.begin(), entries.end());
  for (const fs::path& entry : entries) {
    const std::string member = name + "/" + entry.filename().string();
    if (fs::is_directory(entry)) {
      for (import::ZipMember& inner : members_of(entry.string(), member)) {
        members.push_back(std::move(inner));
      }
    } else {
      members.push_back({member, entry.string()});
    }
  }
  return members;
}

}  // namespace

ArgosReport export_argos(const run::RunRequest& request,
                         const std::string& archive,
                         const ArgosOptions& options) {
  detail::check_one_run(request.ensemble_dirs.size());
  check_archive_path(archive, options.is_forced);
  check_version(options.package_version);
  const detail::RunSettings settings = detail::read_run_settings(request);
  check_run(settings);
  ArgosReport report;
  report.archive = archive;
  report.source_lang = language_code(options.source_lang, settings.config.data.source_lang,
                                     kSourceSide, settings.dir);
  report.target_lang = language_code(options.target_lang, settings.config.data.target_lang,
                                     kTargetSide, settings.dir);

  const run::OpenedRun opened = run::open_run(request, {{"runtime.device", "cpu"}});
  report.checkpoint = opened.checkpoint;
  report.package_dir =
      package_dir_name(report.source_lang, report.target_lang, options.package_version);

  const StagingDir staging(archive + ".staging");
  const std::string dir = staging.path() + "/" + report.package_dir;
  Ctranslate2Options ct2;
  ct2.keeps_out_pad_and_start = true;
  const ExportReport model =
      write_ctranslate2(*opened.model, opened.tokenizers, opened.config.text, dir + "/model", ct2);
  report.parameters = model.parameters;
  // The CTranslate2 export keeps the run's spm.model beside its vocabulary; Argos looks for it
  // one level up, under its own name.
  if (std::rename((dir + "/model/spm.model").c_str(), (dir + "/sentencepiece.model").c_str()) !=
      0) {
    throw Error("cannot move " + dir +
                "/model/spm.model into the package: " + std::strerror(errno));
  }
  detail::write_json(dir + "/metadata.json", metadata(report, options.package_version));
  write_text_atomically(dir + "/README.md", readme(opened, report));

  const std::vector<import::ZipMember> members = members_of(dir, report.package_dir);
  import::write_zip(archive, members);
  for (const import::ZipMember& member : members) report.members.push_back(member.name);
  report.bytes = static_cast<int64_t>(fs::file_size(archive));
  return report;
}

}  // namespace nmt::exporter
