// nmt export: a trained run as a model of another inference engine (CTranslate2), library
// (Hugging Face transformers) or application (Argos Translate, LibreTranslate).
#include <spdlog/spdlog.h>

#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "nmt/export/argos.h"
#include "nmt/export/ctranslate2.h"
#include "nmt/export/huggingface.h"

namespace nmt::cli {
namespace {

struct ExportArgs {
  std::string format;
  run::RunRequest model;
  std::string out_dir;
  exporter::Ctranslate2Options options;
  exporter::ArgosOptions argos;
};

int export_argos(const ExportArgs& args) {
  exporter::ArgosOptions options = args.argos;
  options.is_forced = args.options.is_forced;
  const exporter::ArgosReport report = exporter::export_argos(args.model, args.out_dir, options);
  spdlog::info("exported {} ({} parameters) to {} ({} to {}): {} members, {} bytes",
               report.checkpoint, report.parameters, report.archive, report.source_lang,
               report.target_lang, report.members.size(), report.bytes);
  return 0;
}

}  // namespace

Command add_export(CLI::App& app) {
  auto* command = app.add_subcommand(
      "export",
      "Write a trained run as a model of another engine:\n"
      "  ctranslate2   model.bin, config.json, vocabularies and, for SentencePiece runs, the spm\n"
      "                models, for CTranslate2's Translator; the weights are fp32, CTranslate2\n"
      "                quantises them when it loads them (compute_type)\n"
      "  huggingface   a transformers directory (model.safetensors, config.json,\n"
      "                generation_config.json, tokenizer files, a model card) that\n"
      "                AutoModelForSeq2SeqLM and AutoTokenizer load: PegasusForConditional-\n"
      "                Generation for pre-norm runs, MarianMTModel for post-norm ones; for\n"
      "                SentencePiece runs (unigram, one vocabulary, text.clean normalize) and\n"
      "                runs imported with nmt import --format marian");
  auto args = std::make_shared<ExportArgs>();
  command->add_option("--format", args->format, "Model format to write")
      ->required()
      ->check(CLI::IsMember({"ctranslate2", "huggingface", "argos"}));
  add_ensemble_refused_model_options(*command, args->model);
  command
      ->add_option("-o,--out", args->out_dir,
                   "Directory to write the model to (argos: the .argosmodel file)")
      ->required();
  command->add_flag("--force", args->options.is_forced,
                    "Replace the model an earlier export wrote to --out");
  command
      ->add_option("--max-positions", args->options.max_positions,
                   "ctranslate2: rows of the position tables, the longest source and the most "
                   "output tokens CTranslate2 can then take")
      ->capture_default_str();
  command->add_option("--source-lang", args->argos.source_lang,
                      "argos: the source's language code (ISO 639, as en); default: the run's "
                      "data.source_lang");
  command->add_option("--target-lang", args->argos.target_lang,
                      "argos: the target's language code; default: the run's data.target_lang");
  command
      ->add_option("--package-version", args->argos.package_version,
                   "argos: the package's version, which Argos compares to choose updates")
      ->capture_default_str();
  command->footer(
      "Example:\n"
      "  nmt export --format ctranslate2 --model runs/latest --out ct2-model\n"
      "then ctranslate2.Translator(\"ct2-model\") in Python;\n"
      "  nmt export --format huggingface --model runs/en-es --out hf-model\n"
      "then AutoModelForSeq2SeqLM.from_pretrained(\"hf-model\");\n"
      "  nmt export --format argos --model runs/en-es --out en_es.argosmodel\n"
      "then argostranslate.package.install_from_path(\"en_es.argosmodel\"). docs/export.md has\n"
      "the details.");
  return {command, [args] {
            if (args->format == "argos") return export_argos(*args);
            if (args->format == "huggingface") {
              const exporter::HuggingfaceReport report = exporter::export_huggingface(
                  args->model, args->out_dir, {args->options.is_forced});
              spdlog::info("exported {} ({} parameters) to {} as a {}: {} tensors in "
                           "model.safetensors",
                           report.checkpoint, report.parameters, report.out_dir,
                           report.model_class, report.tensors);
              return 0;
            }
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
