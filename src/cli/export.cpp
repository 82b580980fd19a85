// nmt export: a trained run as a model directory of another inference engine (CTranslate2).
#include <spdlog/spdlog.h>

#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "nmt/export/ctranslate2.h"

namespace nmt::cli {
namespace {

struct ExportArgs {
  std::string format;
  run::RunRequest model;
  std::string out_dir;
  exporter::Ctranslate2Options options;
};

}  // namespace

Command add_export(CLI::App& app) {
  auto* command = app.add_subcommand(
      "export",
      "Write a trained run as a CTranslate2 model directory (model.bin, config.json, vocabularies\n"
      "and, for SentencePiece runs, the spm models), to translate with CTranslate2's Translator.\n"
      "The weights are fp32; CTranslate2 quantises them when it loads them (compute_type).");
  auto args = std::make_shared<ExportArgs>();
  command->add_option("--format", args->format, "Model format to write")
      ->required()
      ->check(CLI::IsMember({"ctranslate2"}));
  add_model_options(*command, args->model);
  command->add_option("-o,--out", args->out_dir, "Directory to write the model to")->required();
  command->add_flag("--force", args->options.is_forced,
                    "Replace the model an earlier export wrote to --out");
  command
      ->add_option("--max-positions", args->options.max_positions,
                   "Rows of the position tables: the longest source, and the most output tokens, "
                   "CTranslate2 can then take")
      ->capture_default_str();
  command->footer(
      "Example:\n"
      "  nmt export --format ctranslate2 --model runs/latest --out ct2-model\n"
      "then ctranslate2.Translator(\"ct2-model\") in Python; docs/export.md has the details.");
  return {command, [args] {
            const exporter::ExportReport report =
                exporter::export_ctranslate2(args->model, args->out_dir, args->options);
            spdlog::info("exported {} ({} parameters) to {}: {} variables, {} aliases, {} bytes",
                         report.checkpoint, report.parameters, report.out_dir,
                         report.model_bin.variables, report.model_bin.aliases,
                         report.model_bin.bytes);
            return 0;
          }};
}

}  // namespace nmt::cli
