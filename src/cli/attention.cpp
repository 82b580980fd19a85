// nmt attention: translate one sentence and show where the model looked, as an HTML page of heat
// maps (every layer and head of encoder self-, decoder self- and cross-attention) or a text map.
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/run/attention_picture.h"

namespace nmt::cli {
namespace {

struct AttentionArgs {
  run::RunRequest model;
  std::string sentence;
  std::string out_path;
  std::string format = "html";
  int layer = -1;
};

int run_attention(const AttentionArgs& args, const ConfigFlags& flags) {
  if (args.format != "html" && args.format != "txt") {
    throw ConfigError("--format: expected \"html\" or \"txt\", got \"" + args.format + "\"");
  }
  if (args.format == "html" && args.out_path.empty()) {
    throw ConfigError("--out: required for --format html");
  }
  run::OpenedRun opened = run::open_run(args.model, flags.overrides());
  const viz::AttentionPicture picture =
      run::attention_picture(opened, args.sentence, opened.config.decode);
  if (args.layer >= static_cast<int>(picture.cross.size())) {
    throw ConfigError("--layer: the model has " + std::to_string(picture.cross.size()) +
                      " layers, got " + std::to_string(args.layer));
  }
  if (args.format == "txt") {
    std::cout << viz::render_attention_text(picture, args.layer);
    return 0;
  }
  write_text_atomically(args.out_path, viz::render_attention_html(picture));
  spdlog::info("\"{}\" -> \"{}\"; attention maps of {} layers x {} heads written to {}",
               args.sentence, picture.translation, picture.cross.size(),
               picture.cross.empty() ? 0 : picture.cross[0].size(), args.out_path);
  return 0;
}

}  // namespace

Command add_attention(CLI::App& app) {
  auto* command = app.add_subcommand(
      "attention",
      "Translate one sentence and draw the model's attention: decoder->encoder (cross) attention "
      "and\n"
      "the encoder and decoder self-attention, for every layer and head, as heat maps with the "
      "tokens\n"
      "on the axes, in one self-contained HTML file (no network access needed to view it).");
  auto args = std::make_shared<AttentionArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_model_options(*command, args->model);
  command->add_option("sentence", args->sentence, "The sentence to translate")->required();
  command->add_option("-o,--out", args->out_path, "HTML file to write (needed for --format html)");
  command
      ->add_option("--format", args->format,
                   "html, or txt for a text heat map of the cross-attention on stdout")
      ->capture_default_str();
  command->add_option("--layer", args->layer, "txt: layer to show (default: the last)");
  add_decode_flags(*flags);
  add_target_language_flag(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt attention \"Where is the library?\" --out attention.html\n"
      "  nmt attention \"Where is the library?\" --format txt");
  return {command, [args, flags] { return run_attention(*args, *flags); }};
}

}  // namespace nmt::cli
