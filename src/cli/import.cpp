// nmt import: another engine's model as an nmt run (a Hugging Face Marian / OPUS-MT directory).
#include <spdlog/spdlog.h>

#include <memory>

#include "cli/app.h"
#include "nmt/import/marian_import.h"

namespace nmt::cli {
namespace {

struct ImportArgs {
  std::string format;
  import::MarianImportRequest request;
};

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : " ") + item;
  return text;
}

}  // namespace

Command add_import(CLI::App& app) {
  auto* command = app.add_subcommand(
      "import",
      "Make a run directory from a Hugging Face MarianMTModel directory (an OPUS-MT model as\n"
      "downloaded: config.json, model.safetensors, source.spm, target.spm, vocab.json), to\n"
      "translate, evaluate, serve, export or fine-tune (train --init-from) like a trained run.");
  auto args = std::make_shared<ImportArgs>();
  command->add_option("--format", args->format, "Format of the model directory")
      ->required()
      ->check(CLI::IsMember({"marian"}));
  command->add_option("dir", args->request.dir, "The model directory")->required();
  command->add_option("-o,--out", args->request.out, "Run directory to create")->required();
  command->footer(
      "Example:\n"
      "  huggingface-cli download Helsinki-NLP/opus-mt-en-es --local-dir opus-mt-en-es\n"
      "  nmt import --format marian opus-mt-en-es --out runs/opus-mt-en-es\n"
      "  nmt translate --model runs/opus-mt-en-es \"I am hungry.\"\n"
      "docs/pretrained.md has the details.");
  return {command, [args] {
            const import::MarianImportReport report = import::import_marian(args->request);
            spdlog::info("imported {} ({} parameters, vocabularies of {} and {} ids) into {}",
                         report.weights, report.parameters, report.source_vocab,
                         report.target_vocab, report.out);
            if (!report.language_tags.empty()) {
              spdlog::info("target languages (a tag at the start of each source sentence): {}",
                           joined(report.language_tags));
            }
            for (const std::string& note : report.notes) spdlog::info("note: {}", note);
            return 0;
          }};
}

}  // namespace nmt::cli
