// nmt attention: translate one sentence and show where the model looked, as an HTML page of heat
// maps (every layer and head of encoder self-, decoder self- and cross-attention) or a text map.
#include <iostream>
#include <memory>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <spdlog/spdlog.h>

#include "cli/app.h"
#include "cli/common_flags.h"
#include "cli/config_flags.h"
#include "cli/run_dir.h"
#include "nmt/decode/translator.h"
#include "nmt/device.h"
#include "nmt/error.h"
#include "nmt/io.h"
#include "nmt/text/vocab.h"
#include "nmt/viz/attention_page.h"

namespace nmt::cli {
namespace {

struct AttentionArgs {
  ModelArgs model;
  std::string sentence;
  std::string out_path;
  std::string format = "html";
  int layer = -1;
};

// [1, H, R, C] -> one Matrix per head.
std::vector<viz::Matrix> heads_of(const at::Tensor& weights) {
  const at::Tensor cpu = weights.to(at::kFloat).cpu().contiguous();
  std::vector<viz::Matrix> heads;
  for (int64_t h = 0; h < cpu.size(1); ++h) {
    const at::Tensor head = cpu[0][h].contiguous();
    viz::Matrix matrix{head.size(0), head.size(1), {}};
    matrix.values.assign(head.data_ptr<float>(), head.data_ptr<float>() + head.numel());
    heads.push_back(std::move(matrix));
  }
  return heads;
}

std::vector<std::vector<viz::Matrix>> layers_of(const std::vector<at::Tensor>& maps) {
  std::vector<std::vector<viz::Matrix>> layers;
  for (const at::Tensor& weights : maps) layers.push_back(heads_of(weights));
  return layers;
}

viz::AttentionPicture picture_of(LoadedRun& run, const std::string& sentence, const decode::SearchOptions& options) {
  decode::Translator translator(run.model, run.tokenizers, run.config.text.clean, run.device);
  const decode::Translation best = translator.translate({sentence}, options).results[0][0];
  const std::vector<int64_t> source_ids = run.tokenizers.source->encode(text::clean(sentence, run.config.text.clean));
  if (source_ids.empty()) throw ConfigError("SENTENCE: nothing left to translate after cleaning \"" + sentence + "\"");
  std::vector<int64_t> target_ids = {text::kSosId};
  target_ids.insert(target_ids.end(), best.ids.begin(), best.ids.end());

  c10::InferenceMode inference;
  const at::Tensor source = at::tensor(source_ids, at::kLong).view({1, -1}).to(run.device);
  const at::Tensor target = at::tensor(target_ids, at::kLong).view({1, -1}).to(run.device);
  model::AttentionMaps maps;
  const at::Tensor memory = run.model->encode(source, &maps);
  run.model->decode(target, memory, model::padding_mask(source), &maps);

  viz::AttentionPicture picture;
  picture.source_text = sentence;
  picture.translation = best.text;
  picture.source_tokens = run.tokenizers.source->pieces(source_ids);
  picture.target_tokens = run.tokenizers.target->pieces(target_ids);
  picture.encoder_self = layers_of(maps.encoder_self);
  picture.decoder_self = layers_of(maps.decoder_self);
  picture.cross = layers_of(maps.cross);
  viz::check_shapes(picture);
  return picture;
}

int run_attention(const AttentionArgs& args, const ConfigFlags& flags) {
  if (args.format != "html" && args.format != "txt") {
    throw ConfigError("--format: expected \"html\" or \"txt\", got \"" + args.format + "\"");
  }
  if (args.format == "html" && args.out_path.empty()) throw ConfigError("--out: required for --format html");
  const std::string run_dir = resolve_run_dir(args.model.run_dir);
  const Config config = flags.resolve(read_config_json(run_dir + "/config.json"));
  set_threads(config.train.threads);
  LoadedRun run = load_run(run_dir, args.model.checkpoint, resolve_device(config.train.device));
  run.config = config;
  const viz::AttentionPicture picture = picture_of(run, args.sentence, config.decode);
  if (args.layer >= static_cast<int>(picture.cross.size())) {
    throw ConfigError("--layer: the model has " + std::to_string(picture.cross.size()) + " layers, got " +
                      std::to_string(args.layer));
  }
  if (args.format == "txt") {
    std::cout << viz::render_attention_text(picture, args.layer);
    return 0;
  }
  write_text_atomically(args.out_path, viz::render_attention_html(picture));
  spdlog::info("\"{}\" -> \"{}\"; attention maps of {} layers x {} heads written to {}", args.sentence,
               picture.translation, picture.cross.size(), picture.cross.empty() ? 0 : picture.cross[0].size(),
               args.out_path);
  return 0;
}

}  // namespace

Command add_attention(CLI::App& app) {
  auto* command = app.add_subcommand(
      "attention",
      "Translate one sentence and draw the model's attention: decoder->encoder (cross) attention and\n"
      "the encoder and decoder self-attention, for every layer and head, as heat maps with the tokens\n"
      "on the axes, in one self-contained HTML file (no network access needed to view it).");
  auto args = std::make_shared<AttentionArgs>();
  auto flags = std::make_shared<ConfigFlags>(*command);
  add_model_options(*command, args->model);
  command->add_option("sentence", args->sentence, "The sentence to translate")->required();
  command->add_option("-o,--out", args->out_path, "HTML file to write (needed for --format html)");
  command->add_option("--format", args->format, "html, or txt for a text heat map of the cross-attention on stdout")
      ->capture_default_str();
  command->add_option("--layer", args->layer, "txt: layer to show (default: the last)");
  add_decode_flags(*flags);
  add_runtime_flags(*flags);
  command->footer(
      "Examples:\n"
      "  nmt attention \"Where is the library?\" --out attention.html\n"
      "  nmt attention \"Where is the library?\" --format txt");
  return {command, [args, flags] { return run_attention(*args, *flags); }};
}

}  // namespace nmt::cli
