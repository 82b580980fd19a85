// nmt train: the data phase, then training with checkpoints, resume and Ctrl-C handling.
#include <unistd.h>

#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/run/launch.h"
#include "nmt/run/training.h"

namespace nmt::cli {

Command add_train(CLI::App& app) {
  auto* command = app.add_subcommand(
      "train",
      "Prepare the data and train a Transformer; writes a run directory with the splits, the\n"
      "vocabularies, checkpoint.pt (latest), best.pt (best validation loss, BLEU or chrF:\n"
      "train.best_metric) and metrics.jsonl.\n"
      "Ctrl-C saves a checkpoint and stops; --resume continues exactly where it stopped.");
  auto request = std::make_shared<run::TrainRequest>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  command->add_option("-c,--config", request->config_path, "JSON configuration file (see configs/)")
      ->check(CLI::ExistingFile);
  command->add_option(
      "-o,--out", request->run_dir,
      "Run directory (default: runs/<config name>-<date>-<time>; with --resume: runs/latest)");
  command->add_flag(
      "--resume", request->is_resume,
      "Continue the run in --out from its checkpoint.pt (model, optimiser, data position, RNG);\n"
      "uses the run's own config.json, to which the flags below still apply (e.g. --epochs)");
  auto nproc = std::make_shared<int>(0);
  command
      ->add_option(
          "--nproc", *nproc,
          "Train on this machine with N ranks (data-parallel processes; Gloo on the CPU,\n"
          "NCCL with one GPU each); for several machines launch `nmt train` with torchrun\n"
          "or srun instead, which set RANK/WORLD_SIZE (docs/scaling.md)")
      ->check(CLI::Range(1, 1024));
  add_training_runtime_flags(*flags);
  flags->add<int64_t>("--epochs", "train.epochs", "Passes over the training split");
  flags->add<int64_t>("--max-steps", "train.max_steps",
                      "Stop after this many updates, 0 = no limit");
  flags->add<std::string>(
      "--max-time", "train.max_time",
      "Training time budget, e.g. 90s, 40m, 2h, 1h30m: stop there, validate, average and\n"
      "report as at a normal end; counts training across resumes, not validation (0 = none)");
  flags->add<int64_t>("--batch-size", "train.batch_size", "Sentences per batch");
  flags->add<int64_t>("--max-tokens", "train.max_tokens",
                      "Padded target tokens per batch, 0 = use --batch-size");
  flags->add<double>("--lr", "train.lr", "Adam learning rate");
  flags->add<uint64_t>("--seed", "train.seed", "Seed of initialisation, dropout and batch order");
  flags->add<std::string>("--precision", "train.precision",

                          "Arithmetic: auto (bf16 where it measured faster: CPUs with AMX, AMD's "
                          "with AVX512-BF16; else fp32), fp32 or bf16");
  flags->add<std::string>("--data", "data.path",
                          "Sentence-pair TSV file (replaces the corpora of data.train)");
  flags->add<int64_t>("--valid-every", "train.valid_every",
                      "Validate (and save) every N steps, 0 = at the end of each epoch");
  flags->add<std::string>("--best-metric", "train.best_metric",
                          "What picks best.pt and early stopping: loss, bleu or chrf\n"
                          "(BLEU/chrF of greedy translations of the validation set)");
  flags->add<std::string>(
      "--init-from", "train.init_from",
      "Fine-tune a trained run: start from its weights, vocabularies and model\n"
      "settings, with a fresh optimiser and schedule");
  flags->add_set_option();
  flags->add_switch("--reverse", "data.reverse",
                    "Swap the sides: translate the file's second column into its first");
  command->footer(
      "Examples:\n"
      "  nmt train --config configs/quickstart.json\n"
      "  nmt train --config configs/seed.json --data data/tatoeba-en-es/eng-spa.tsv.gz "
      "--out "
      "runs/seed\n"
      "  nmt train --resume --out runs/seed --epochs 20\n"
      "  nmt train --config my.json --valid-every 1000 --best-metric bleu   # my.json names\n"
      "      data.train [{\"source\": \"train.en\", \"target\": \"train.es\"}], data.valid, "
      "data.test\n"
      "  nmt train --config configs/tatoeba-en-es.json --out runs/tatoeba --nproc 2\n"
      "  torchrun --no-python --nnodes 2 --nproc-per-node 8 --rdzv-endpoint HOST:29500 \\\n"
      "      nmt train --config C --out /shared/runs/big");
  return {command, [request, flags, nproc] {
            if (*nproc > 0) return run::launch_local_ranks(*nproc, run::arguments_without_nproc());
            request->overrides = flags->overrides();
            request->is_terminal = isatty(STDERR_FILENO) == 1;
            return run::exit_status(run::train_run(*request).result.reason);
          }};
}

}  // namespace nmt::cli
