#include "nmt/run/attention_picture.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "nmt/decode/translator.h"
#include "nmt/error.h"
#include "nmt/text/clean.h"
#include "nmt/text/vocab.h"

namespace nmt::run {
namespace {

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

}  // namespace

model::AttentionMaps attention_maps(model::Transformer& model,
                                    const std::vector<int64_t>& source_ids,
                                    const std::vector<int64_t>& target_ids) {
  c10::InferenceMode inference;
  const c10::Device device = model->parameters().front().device();
  const at::Tensor source = at::tensor(source_ids, at::kLong).view({1, -1}).to(device);
  const at::Tensor target = at::tensor(target_ids, at::kLong).view({1, -1}).to(device);
  model::AttentionMaps maps;
  const at::Tensor memory = model->encode(source, &maps);
  model->decode(target, memory, model::padding_mask(source), &maps);
  return maps;
}

viz::AttentionPicture attention_picture(OpenedRun& run,
                                        const std::string& sentence,
                                        const decode::SearchOptions& options) {
  decode::Translator translator(run.model, run.tokenizers, run.config.text.clean, run.device);
  const decode::Translation best = translator.translate({sentence}, options).results[0][0];
  const std::vector<int64_t> source_ids =
      run.tokenizers.source->encode(text::clean(sentence, run.config.text.clean));
  if (source_ids.empty()) {
    throw ConfigError("SENTENCE: nothing left to translate after cleaning \"" + sentence + "\"");
  }
  return attention_picture(run, sentence, source_ids, best);
}

viz::AttentionPicture attention_picture(OpenedRun& run,
                                        const std::string& sentence,
                                        const std::vector<int64_t>& source_ids,
                                        const decode::Translation& translation) {
  std::vector<int64_t> target_ids = {text::kSosId};
  target_ids.insert(target_ids.end(), translation.ids.begin(), translation.ids.end());
  const model::AttentionMaps maps = attention_maps(run.model, source_ids, target_ids);

  viz::AttentionPicture picture;
  picture.source_text = sentence;
  picture.translation = translation.text;
  picture.source_tokens = run.tokenizers.source->pieces(source_ids);
  picture.target_tokens = run.tokenizers.target->pieces(target_ids);
  picture.encoder_self = layers_of(maps.encoder_self);
  picture.decoder_self = layers_of(maps.decoder_self);
  picture.cross = layers_of(maps.cross);
  viz::check_shapes(picture);
  return picture;
}

}  // namespace nmt::run
