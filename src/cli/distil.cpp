// nmt distil: the teachers translate their training sources; a student trains on the result.
#include <unistd.h>

#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/run/distillation.h"

namespace nmt::cli {

Command add_distil(CLI::App& app) {
  auto* command = app.add_subcommand(
      "distil",
      "Sequence-level knowledge distillation: the teacher runs (--model, repeated for an\n"
      "ensemble) translate every distinct source of the first teacher's training split, and\n"
      "their translations become the target side of a new corpus, OUT/distilled.tsv. With\n"
      "--student, a student run then trains in OUT on that corpus with the first teacher's\n"
      "tokenizers, validated and tested on the teacher's own splits. Translating shows progress\n"
      "and the time left; a killed or interrupted distillation continues where it stopped when\n"
      "the same command is run again (OUT/teacher-translations.tsv); so does the student.");
  auto request = std::make_shared<run::DistilRequest>();
  auto teacher_flags = std::make_shared<ConfigFlags>(*command);
  auto student_flags = std::make_shared<ConfigFlags>(*command);
  add_ensemble_model_options(*command, request->teachers);
  command
      ->add_option("-o,--out", request->out,
                   "The distillation's directory: the corpus, its provenance (distil.json) "
                   "and the student's run")
      ->required();
  command
      ->add_option("--student", request->student_config,
                   "Configuration of the student to train on the corpus (its data and text "
                   "sections are replaced: the corpus, the teacher's splits and tokenizers)")
      ->check(CLI::ExistingFile);
  command->add_option("--min-score", request->min_score,
                      "Drop pairs whose translation has a lower mean log-probability per token "
                      "(e.g. -1.5; default: keep all)");
  command
      ->add_option("--chunk", request->chunk_sources,
                   "Sources translated and saved together: what a kill can lose")
      ->capture_default_str();
  add_decode_flags(*teacher_flags);
  add_runtime_flags(*teacher_flags);
  student_flags->add_set_option()->description(
      "Override a key of the student's configuration, e.g. --set train.max_time=85m (repeatable)");
  command->footer(
      "The decoding flags set how the teachers translate (default: the first teacher's decode\n"
      "section); --set applies to the student.\n"
      "Examples:\n"
      "  nmt distil --model runs/t1 --model runs/t2 --model runs/t3 --out runs/distilled\n"
      "  nmt distil --model runs/t1 --model runs/t2 --model runs/t3 --out runs/student-6-1 \\\n"
      "      --student configs/tatoeba-en-es.json --set model.encoder_layers=6 \\\n"
      "      --set model.decoder_layers=1\n"
      "then: nmt eval --model runs/student-6-1");
  return {command, [request, teacher_flags, student_flags] {
            request->decoding = teacher_flags->overrides();
            request->student_overrides = student_flags->overrides();
            request->is_terminal = isatty(STDERR_FILENO) == 1;
            return run::exit_status(run::distil(*request));
          }};
}

}  // namespace nmt::cli
