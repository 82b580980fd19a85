#include "cli/common_flags.h"

namespace nmt::cli {

void add_runtime_flags(ConfigFlags& flags) {
  flags.add<std::string>("--device", "runtime.device", "cpu, cuda, cuda:N or auto");
  flags.add<int64_t>("--threads", "runtime.threads", "CPU threads, 0 = all cores");
}

void add_training_runtime_flags(ConfigFlags& flags) {
  flags.add<std::string>("--device", "train.device", "cpu, cuda, cuda:N or auto");
  flags.add<int64_t>("--threads", "train.threads", "CPU threads, 0 = all cores");
}

void add_decode_flags(ConfigFlags& flags) {
  flags.add<std::string>("--strategy", "decode.strategy", "greedy, sample or beam")
      ->check(CLI::IsMember({"greedy", "sample", "beam"}));
  flags.add<int64_t>("--beam-size", "decode.beam_size",
                     "Hypotheses kept per sentence by beam search");
  flags.add<double>("--length-penalty", "decode.length_penalty",
                    "Beam: rank by logprob / length^penalty (0 = raw logprob)");
  flags
      .add<std::string>("--beam-stop", "decode.beam_stop",
                        "Beam: first = done when beam-size hypotheses ended (fairseq, "
                        "CTranslate2); best = while an open beam can still beat them "
                        "(transformers' generate)")
      ->check(CLI::IsMember({"first", "best"}));
  flags.add<int64_t>("--n-best", "decode.n_best", "Beam: hypotheses returned per sentence");
  flags.add<double>("--temperature", "decode.temperature", "Sampling: divide logits by this");
  flags.add<int64_t>("--top-k", "decode.top_k",
                     "Sampling: keep the k most likely tokens (0 = all)");
  flags.add<double>("--top-p", "decode.top_p",
                    "Sampling: keep the smallest set with this probability");
  flags.add<uint64_t>("--seed", "decode.seed", "Sampling seed");
  flags.add<int64_t>("--max-len", "decode.max_len",
                     "Output tokens at most (0 = 2 x source length + 10)");
  flags.add<int64_t>("--batch-size", "decode.batch_size", "Sentences decoded together");
  flags.add<int64_t>("--translators", "decode.translators",
                     "CPU: batches decoded side by side (0 = CPU threads / --decode-threads)");
  flags.add<int64_t>("--decode-threads", "decode.threads", "CPU: threads of each translator");
  flags.add<std::string>(
      "--precision", "decode.precision",
      "Matrix products in fp32, bf16, int8 or int8w7 (int8 with 7-bit weights: faster on CPUs "
      "without VNNI); auto: int8 on x86-64 CPUs with VNNI, int8w7 on those with only AVX2, else "
      "fp32");
}

void add_target_language_flag(ConfigFlags& flags) {
  flags.add<std::string>("--target-lang", "decode.target_lang",
                         "Multi-target models: the output language, e.g. spa for >>spa<< (an "
                         "unknown one is refused with the model's list)");
}

void add_model_options(CLI::App& command, run::RunRequest& request) {
  command.add_option("-m,--model", request.run_dir, "Run directory (default: runs/latest)");
  command.add_option(
      "--checkpoint", request.checkpoint,
      "Checkpoint file in the run (default: averaged.pt, else best.pt, else checkpoint.pt)");
}

namespace {

void add_repeatable_model_options(CLI::App& command,
                                  run::RunRequest& request,
                                  const std::string& help) {
  command
      .add_option_function<std::vector<std::string>>(
          "-m,--model",
          [&request](const std::vector<std::string>& runs) {
            request.run_dir = runs.front();
            request.ensemble_dirs.assign(runs.begin() + 1, runs.end());
          },
          help)
      // One run per --model, so that sentences after it stay sentences.
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option(
      "--checkpoint", request.checkpoint,
      "Checkpoint file in the run (default: averaged.pt, else best.pt, else checkpoint.pt)");
}

}  // namespace

void add_ensemble_model_options(CLI::App& command, run::RunRequest& request) {
  add_repeatable_model_options(
      command, request,
      "Run directory (default: runs/latest). Given more than once, the runs translate as an "
      "ensemble that averages their log-probabilities at every step (they must share "
      "vocabularies; --checkpoint and the loss apply to the first)");
}

void add_ensemble_refused_model_options(CLI::App& command, run::RunRequest& request) {
  add_repeatable_model_options(command, request,
                               "Run directory (default: runs/latest); one run, an ensemble is "
                               "not one model");
}

}  // namespace nmt::cli
