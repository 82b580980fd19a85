// The model the checkpoint fuzz targets load into, and the checkpoint that fits it. Kept tiny so
// that saving and loading it costs a few milliseconds per input; every kind of parameter (both
// stacks, attention, feed-forward, norms, embeddings, projection) is still there.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "nmt/model/transformer.h"
#include "nmt/train/adam.h"
#include "nmt/train/checkpoint.h"

namespace nmt::fuzz {

struct CheckpointModel {
  model::Transformer model{nullptr};
  std::vector<at::Tensor> parameters;
  train::Adam adam;

  CheckpointModel()
      : model(make_model()),
        parameters(model->parameters()),
        adam(parameters, train::AdamOptions{}) {}

  // Writes the checkpoint a real run of this model would write after one update.
  void save(const std::string& path) {
    for (auto& parameter : parameters) parameter.mutable_grad() = torch::ones_like(parameter);
    adam.step(1e-3);
    train::TrainingState progress;
    progress.epoch = 1;
    progress.batch = 2;
    progress.step = 3;
    progress.target_tokens = 40;
    progress.best_score = 2.5;
    progress.train_seconds = 0.25;
    train::save_checkpoint(path, model, &adam, progress, R"({"model": {"d_model": 4}})");
  }

 private:
  static model::Transformer make_model() {
    model::TransformerOptions options;
    options.d_model = 4;
    options.layers = 1;
    options.heads = 2;
    options.ff_mult = 1;
    options.dropout = 0.0;
    torch::manual_seed(5);
    constexpr int64_t kVocab = 6;
    return model::Transformer(options, kVocab, kVocab);
  }
};

// One thread, like a loader in a fuzzing process should be: the result must not depend on timing.
inline void use_one_thread() {
  torch::set_num_threads(1);
  torch::set_num_interop_threads(1);
}

}  // namespace nmt::fuzz
