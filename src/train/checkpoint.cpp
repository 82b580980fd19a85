#include "nmt/train/checkpoint.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <exception>
#include <filesystem>

#include "nmt/error.h"
#include "nmt/io.h"
#include "torch_compat.h"

namespace nmt::train {
namespace {

constexpr int64_t kFormatVersion = 1;

torch::Tensor scalar(int64_t value) { return torch::tensor(value, torch::kLong); }
torch::Tensor scalar(double value) { return torch::tensor(value, torch::kDouble); }

// The message of an exception from LibTorch, without the stack trace c10::Error carries. Besides
// c10::Error, LibTorch throws standard exceptions on damaged data: std::out_of_range from its
// unpickler, std::runtime_error from number conversions.
std::string torch_message(const std::exception& error) {
  const auto* torch_error = dynamic_cast<const c10::Error*>(&error);
  return torch_error ? torch_error->what_without_backtrace() : error.what();
}

torch::serialize::InputArchive open_archive(const std::string& path, const c10::Device& device) {
  if (!std::filesystem::exists(path)) throw CheckpointError(path + ": no such checkpoint");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, device);
  } catch (const std::exception& error) {
    throw CheckpointError(path + ": not a readable checkpoint (" + torch_message(error) + ")");
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

bool has_entry(torch::serialize::InputArchive& archive, const std::string& key) {
  torch::Tensor tensor;
  return archive.try_read(key, tensor);
}

// Checkpoints written before validation by BLEU name some progress entries differently.
std::string entry_or_older(torch::serialize::InputArchive& archive,
                           const std::string& key,
                           const std::string& older) {
  return has_entry(archive, key) || !has_entry(archive, older) ? key : older;
}

// The one number stored under key; item() would throw for a tensor of another size and for a
// value the type cannot hold (NaN or 1e300 as an integer).
template <class T>
T read_number(torch::serialize::InputArchive& archive,
              const std::string& path,
              const std::string& key) {
  const torch::Tensor tensor = read_tensor(archive, path, key);
  if (tensor.numel() != 1) {
    throw CheckpointError(path + ": entry \"" + key + "\" holds " + std::to_string(tensor.numel()) +
                          " values, expected one number");
  }
  try {
    return tensor.item<T>();
  } catch (const std::exception& error) {
    throw CheckpointError(path + ": entry \"" + key + "\" holds an unusable number (" +
                          torch_message(error) + ")");
  }
}

// Restores a generator from the state stored under key, which LibTorch checks for size and type.
void restore_generator(const std::string& path,
                       const std::string& key,
                       const c10::Device& device,
                       const torch::Tensor& state) {
  try {
    compat::set_generator_state(device, state.cpu());
  } catch (const std::exception& error) {
    throw CheckpointError(path + ": entry \"" + key + "\" is not a random generator state (" +
                          torch_message(error) + ")");
  }
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
                     const TrainingState& progress,
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
  archive.write("progress/best_score", scalar(progress.best_score));
  archive.write("progress/best_step", scalar(progress.best_step));
  archive.write("progress/validations_without_improvement",
                scalar(progress.validations_without_improvement));
  archive.write("progress/train_seconds", scalar(progress.train_seconds));
  archive.write("progress/epoch_loss_sum", scalar(progress.epoch_loss_sum));
  archive.write("progress/epoch_loss_tokens", scalar(progress.epoch_loss_tokens));
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

TrainingState load_checkpoint(const std::string& path,
                              model::Transformer& model,
                              Adam* optimizer,
                              const c10::Device& device,
                              bool restore_rng) {
  torch::serialize::InputArchive archive = open_archive(path, device);
  const auto format = read_number<int64_t>(archive, path, "format");
  if (format != kFormatVersion) {
    throw CheckpointError(path + ": checkpoint format " + std::to_string(format) +
                          ", this nmt reads " + std::to_string(kFormatVersion));
  }
  read_weights(archive, path, model);

  TrainingState progress;
  progress.epoch = read_number<int64_t>(archive, path, "progress/epoch");
  progress.batch = read_number<int64_t>(archive, path, "progress/batch");
  progress.step = read_number<int64_t>(archive, path, "progress/step");
  progress.target_tokens = read_number<int64_t>(archive, path, "progress/target_tokens");
  progress.best_score = read_number<double>(
      archive, path, entry_or_older(archive, "progress/best_score", "progress/best_valid_loss"));
  if (has_entry(archive, "progress/best_step")) {
    progress.best_step = read_number<int64_t>(archive, path, "progress/best_step");
  }
  progress.validations_without_improvement =
      read_number<int64_t>(archive, path,
                           entry_or_older(archive, "progress/validations_without_improvement",
                                          "progress/epochs_without_improvement"));
  progress.train_seconds = read_number<double>(archive, path, "progress/train_seconds");
  // Checkpoints written before the epoch's loss was kept resume it from zero.
  if (has_entry(archive, "progress/epoch_loss_sum")) {
    progress.epoch_loss_sum = read_number<double>(archive, path, "progress/epoch_loss_sum");
    progress.epoch_loss_tokens = read_number<int64_t>(archive, path, "progress/epoch_loss_tokens");
  }

  if (optimizer) {
    std::vector<at::Tensor> first, second;
    for (std::size_t i = 0; i < optimizer->first_moments().size(); ++i) {
      first.push_back(read_tensor(archive, path, "optimizer/m/" + std::to_string(i)));
      second.push_back(read_tensor(archive, path, "optimizer/v/" + std::to_string(i)));
    }
    optimizer->load_state(read_number<int64_t>(archive, path, "optimizer/steps"), first, second);
  }
  if (restore_rng) {
    restore_generator(path, "rng/cpu", c10::Device(c10::kCPU),
                      read_tensor(archive, path, "rng/cpu"));
    torch::Tensor cuda_state;
    if (device.is_cuda() && archive.try_read("rng/cuda", cuda_state)) {
      restore_generator(path, "rng/cuda", device, cuda_state);
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
