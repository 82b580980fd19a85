#include "nmt/train/update_step.h"

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>

#include "autocast.h"
#include "nmt/stopwatch.h"
#include "nmt/text/vocab.h"
#include "nmt/train/schedule.h"

namespace nmt::train {
namespace {

// Forward pass of a batch: decoder states of the real target positions only, so that the
// vocabulary projection never runs on padding. Returns (loss sum, tokens).
LossSum batch_loss(model::Transformer& model,
                   const at::Tensor& source,
                   const at::Tensor& target_in,
                   const at::Tensor& target_out,
                   double smoothing) {
  const at::Tensor memory = model->encode(source);
  const at::Tensor hidden = model->decode(target_in, memory, model::padding_mask(source));
  const at::Tensor rows = target_out.reshape({-1}).ne(text::kPadId).nonzero().squeeze(1);
  const at::Tensor states = hidden.reshape({-1, hidden.size(-1)}).index_select(0, rows);
  const at::Tensor targets = target_out.reshape({-1}).index_select(0, rows);
  return label_smoothed_cross_entropy(model->project(states), targets, smoothing);
}

}  // namespace

data::BatchPlan plan_epoch(const data::EncodedCorpus& pairs,
                           const TrainOptions& options,
                           int64_t epoch) {
  const data::BatchingOptions batching{options.batch_size, options.max_tokens, options.seed,
                                       /*shuffle=*/true};
  return data::plan_batches(pairs, batching, epoch);
}

UpdateStep::UpdateStep(model::Transformer model,
                       const TrainOptions& options,
                       c10::Device device,
                       std::shared_ptr<Communicator> communicator)
    : model_(std::move(model)),
      options_(options),
      device_(device),
      communicator_(std::move(communicator)),
      parameters_(model_->parameters()),
      optimizer_(parameters_,
                 AdamOptions{options.adam_beta1, options.adam_beta2, options.adam_eps,
                             options.weight_decay}) {}

std::vector<int64_t> UpdateStep::rank_batches(int64_t first, int64_t batches) const {
  const int64_t ranks = communicator_ ? communicator_->world_size() : 1;
  const int64_t rank = communicator_ ? communicator_->rank() : 0;
  const int64_t end = std::min(batches, first + ranks * options_.update_freq);
  std::vector<int64_t> mine;
  for (int64_t index = first + rank; index < end; index += ranks) mine.push_back(index);
  return mine;
}

int64_t UpdateStep::batches_per_update() const {
  return (communicator_ ? communicator_->world_size() : 1) * options_.update_freq;
}

UpdateBatches UpdateStep::gather(const data::EncodedCorpus& pairs,
                                 const data::BatchPlan& plan,
                                 int64_t first,
                                 bool stop_requested,
                                 bool is_out_of_time) {
  UpdateBatches update;
  const auto start = SteadyClock::now();
  for (const int64_t index : rank_batches(first, static_cast<int64_t>(plan.size()))) {
    update.mine.push_back(data::collate(pairs, plan.batch(static_cast<std::size_t>(index))));
    update.tokens += update.mine.back().target_tokens;
  }
  update.collate_seconds = seconds_since(start);
  update.is_stop_requested = stop_requested;
  update.is_out_of_time = is_out_of_time;
  if (communicator_) {
    // One small all-reduce: the update's tokens on all ranks, whether any rank was told to stop
    // (a signal reaches one rank or all; either way they stop at the same update), and whether
    // rank 0 has spent the time budget.
    at::Tensor shared = at::tensor(
        {update.tokens, static_cast<int64_t>(stop_requested), static_cast<int64_t>(is_out_of_time)},
        at::kLong);
    if (device_.is_cuda()) shared = shared.to(device_);
    communicator_->sum({shared}, "the update's token count");
    shared = shared.cpu();
    update.tokens = shared[0].item<int64_t>();
    update.is_stop_requested = shared[1].item<int64_t>() > 0;
    update.is_out_of_time = shared[2].item<int64_t>() > 0;
  }
  return update;
}

StepResult UpdateStep::run(const data::Batch& batch, bool measure_phases) {
  return run(std::vector<data::Batch>{batch}, batch.target_tokens, measure_phases);
}

StepResult UpdateStep::run(const std::vector<data::Batch>& micro_batches,
                           int64_t update_tokens,
                           bool measure_phases) {
  StepResult result;
  const bool is_cuda = device_.is_cuda();
  auto mark = [&](double& slot, SteadyClock::time_point& since) {
    if (!measure_phases) return;
    if (is_cuda) torch::cuda::synchronize(device_.index());
    const auto now = SteadyClock::now();
    slot += std::chrono::duration<double>(now - since).count();
    since = now;
  };
  const double divisor = static_cast<double>(std::max<int64_t>(1, update_tokens));
  model_->train();
  auto since = SteadyClock::now();
  for (const data::Batch& batch : micro_batches) {
    const at::Tensor source = batch.source.to(device_, /*non_blocking=*/true);
    const at::Tensor target_in = batch.target_in.to(device_, /*non_blocking=*/true);
    const at::Tensor target_out = batch.target_out.to(device_, /*non_blocking=*/true);
    mark(result.times.data, since);
    LossSum loss;
    {
      AutocastScope autocast(device_.type(), uses_bf16(options_.precision, is_cuda));
      loss = batch_loss(model_, source, target_in, target_out, options_.label_smoothing);
    }
    mark(result.times.forward, since);
    (loss.sum / divisor).backward();
    mark(result.times.backward, since);
    const at::Tensor sum = loss.sum.detach();
    result.loss.sum = result.loss.sum.defined() ? result.loss.sum + sum : sum;
    result.loss.tokens =
        result.loss.tokens.defined() ? result.loss.tokens + loss.tokens : loss.tokens;
  }
  if (!result.loss.sum.defined()) {  // a rank without a batch in the last update of an epoch
    result.loss.sum = at::zeros({}, at::TensorOptions().device(device_));
    result.loss.tokens = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(device_));
  }
  if (communicator_) {
    std::vector<at::Tensor> summed;
    summed.reserve(parameters_.size() + 1);
    for (at::Tensor& parameter : parameters_) {
      if (!parameter.grad().defined()) parameter.mutable_grad() = at::zeros_like(parameter);
      summed.push_back(parameter.grad());
    }
    summed.push_back(result.loss.sum);
    communicator_->sum(summed, "the gradients");
    result.loss.tokens = at::full({}, update_tokens, result.loss.tokens.options());
  }
  if (options_.clip_norm > 0.0) {
    torch::nn::utils::clip_grad_norm_(parameters_, options_.clip_norm);
  }
  optimizer_.step(learning_rate(options_, optimizer_.steps() + 1));
  optimizer_.zero_grad();
  mark(result.times.optimizer, since);
  return result;
}

}  // namespace nmt::train
