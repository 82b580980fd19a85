#include "nmt/train/checkpoint.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <filesystem>

#include "nmt/error.h"
#include "nmt/io.h"
#include "torch_compat.h"

namespace nmt::train {
namespace {

constexpr int64_t kFormatVersion = 1;

torch::Tensor scalar(int64_t value) { return torch::tensor(value, torch::kLong); }
torch::Tensor scalar(double value) { return torch::tensor(value, torch::kDouble); }

torch::serialize::InputArchive open_archive(const std::string& path, const c10::Device& device) {
  if (!std::filesystem::exists(path)) throw CheckpointError(path + ": no such checkpoint");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, device);
  } catch (const c10::Error& error) {
    throw CheckpointError(path + ": not a readable checkpoint (" + error.what_without_backtrace() +
                          ")");
  }
  return archive;
}

torch::Tensor read_tensor(torch::serialize::InputArchive& archive,
                          const std::string& path,
                          const std::string& key) {
  torch::Tensor tensor;
  if (!archive.try_read(key, tensor))
    throw CheckpointError(path + ": entry \"" + key + "\" is missing");
  return tensor;
}

void read_weights(torch::serialize::InputArchive& archive,
                  const std::string& path,
                  model::Transformer& model) {
  torch::NoGradGuard no_grad;
  for (auto& item : model->named_parameters()) {
    const torch::Tensor saved = read_tensor(archive, path, "model/" + item.key());
    if (!saved.sizes().equals(item.value().sizes())) {
      std::ostringstream message;
      message << path << ": \"" << item.key() << "\" has shape " << saved.sizes()
              << ", the model expects " << item.value().sizes()
              << " (was the run trained with another configuration or vocabulary?)";
      throw CheckpointError(message.str());
    }
    item.value().copy_(saved);
  }
}

}  // namespace

void save_checkpoint(const std::string& path,
                     model::Transformer& model,
                     const Adam* optimizer,
                     const TrainingProgress& progress,
                     const std::string& config_json) {
  torch::serialize::OutputArchive archive;
  archive.write("format", scalar(kFormatVersion));
  archive.write("config", c10::IValue(config_json));
  for (const auto& item : model->named_parameters())
    archive.write("model/" + item.key(), item.value().detach());
  archive.write("progress/epoch", scalar(progress.epoch));
  archive.write("progress/batch", scalar(progress.batch));
  archive.write("progress/step", scalar(progress.step));
  archive.write("progress/target_tokens", scalar(progress.target_tokens));
  archive.write("progress/best_valid_loss", scalar(progress.best_valid_loss));
  archive.write("progress/epochs_without_improvement", scalar(progress.epochs_without_improvement));
  archive.write("progress/train_seconds", scalar(progress.train_seconds));
  if (optimizer) {
    archive.write("optimizer/steps", scalar(optimizer->steps()));
    for (std::size_t i = 0; i < optimizer->first_moments().size(); ++i) {
      archive.write("optimizer/m/" + std::to_string(i), optimizer->first_moments()[i]);
      archive.write("optimizer/v/" + std::to_string(i), optimizer->second_moments()[i]);
    }
  }
  const c10::Device device = model->parameters().front().device();
  archive.write("rng/cpu", compat::generator_state(c10::Device(c10::kCPU)));
  if (device.is_cuda()) archive.write("rng/cuda", compat::generator_state(device));

  // The archive streams into an AtomicFile: a full disk becomes one error naming the file, and
  // the previous checkpoint stays in place. (Saving to a file name instead lets LibTorch's writer
  // throw from its destructor, which terminates the process.)
  AtomicFile file(path);
  try {
    archive.save_to([&file](const void* data, size_t size) -> size_t {
      file.append(data, size);
      return size;
    });
  } catch (const c10::Error& error) {
    throw CheckpointError(path + ": cannot save checkpoint (" + error.what_without_backtrace() +
                          ")");
  }
  file.commit();
}

std::string checkpoint_config(const std::string& path) {
  torch::serialize::InputArchive archive = open_archive(path, c10::Device(c10::kCPU));
  c10::IValue config;
  if (!archive.try_read("config", config) || !config.isString()) {
    throw CheckpointError(path + ": entry \"config\" is missing");
  }
  return config.toStringRef();
}

TrainingProgress load_checkpoint(const std::string& path,
                                 model::Transformer& model,
                                 Adam* optimizer,
                                 const c10::Device& device,
                                 bool restore_rng) {
  torch::serialize::InputArchive archive = open_archive(path, device);
  const int64_t format = read_tensor(archive, path, "format").item<int64_t>();
  if (format != kFormatVersion) {
    throw CheckpointError(path + ": checkpoint format " + std::to_string(format) +
                          ", this nmt reads " + std::to_string(kFormatVersion));
  }
  read_weights(archive, path, model);

  TrainingProgress progress;
  progress.epoch = read_tensor(archive, path, "progress/epoch").item<int64_t>();
  progress.batch = read_tensor(archive, path, "progress/batch").item<int64_t>();
  progress.step = read_tensor(archive, path, "progress/step").item<int64_t>();
  progress.target_tokens = read_tensor(archive, path, "progress/target_tokens").item<int64_t>();
  progress.best_valid_loss = read_tensor(archive, path, "progress/best_valid_loss").item<double>();
  progress.epochs_without_improvement =
      read_tensor(archive, path, "progress/epochs_without_improvement").item<int64_t>();
  progress.train_seconds = read_tensor(archive, path, "progress/train_seconds").item<double>();

  if (optimizer) {
    std::vector<at::Tensor> first, second;
    for (std::size_t i = 0; i < optimizer->first_moments().size(); ++i) {
      first.push_back(read_tensor(archive, path, "optimizer/m/" + std::to_string(i)));
      second.push_back(read_tensor(archive, path, "optimizer/v/" + std::to_string(i)));
    }
    optimizer->load_state(read_tensor(archive, path, "optimizer/steps").item<int64_t>(), first,
                          second);
  }
  if (restore_rng) {
    compat::set_generator_state(c10::Device(c10::kCPU),
                                read_tensor(archive, path, "rng/cpu").cpu());
    torch::Tensor cuda_state;
    if (device.is_cuda() && archive.try_read("rng/cuda", cuda_state)) {
      compat::set_generator_state(device, cuda_state.cpu());
    }
  }
  return progress;
}

void load_averaged_weights(const std::vector<std::string>& paths,
                           model::Transformer& model,
                           const c10::Device& device) {
  TORCH_CHECK(!paths.empty(), "no checkpoints to average");
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> sums;
  for (const auto& item : model->named_parameters())
    sums.push_back(torch::zeros_like(item.value()));
  for (const std::string& path : paths) {
    torch::serialize::InputArchive archive = open_archive(path, device);
    read_weights(archive, path, model);
    std::size_t i = 0;
    for (const auto& item : model->named_parameters()) sums[i++].add_(item.value());
  }
  std::size_t i = 0;
  for (auto& item : model->named_parameters())
    item.value().copy_(sums[i++] / static_cast<double>(paths.size()));
}

}  // namespace nmt::train
