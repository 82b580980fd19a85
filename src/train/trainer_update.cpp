// An update step: the rank's micro-batches of the update, forward and backward in the chosen
// precision, the gradients summed over the ranks, clipping and the optimizer step.
#include "nmt/train/trainer.h"

#include <ATen/ATen.h>
#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>

#include "autocast.h"
#include "nmt/text/vocab.h"
#include "nmt/train/schedule.h"
#include "trainer_internal.h"

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

std::vector<int64_t> Trainer::rank_batches(int64_t first, int64_t batches) const {
  const int64_t ranks = world_size();
  const int64_t rank = setup_.communicator ? setup_.communicator->rank() : 0;
  const int64_t end = std::min(batches, first + ranks * setup_.options.update_freq);
  std::vector<int64_t> mine;
  for (int64_t index = first + rank; index < end; index += ranks) mine.push_back(index);
  return mine;
}

int64_t Trainer::batches_per_update() const { return world_size() * setup_.options.update_freq; }

UpdateBatches Trainer::update_batches(const data::BatchPlan& plan,
                                      int64_t first,
                                      bool stop_requested) {
  UpdateBatches update;
  const auto start = Clock::now();
  for (const int64_t index : rank_batches(first, static_cast<int64_t>(plan.size()))) {
    update.mine.push_back(data::collate(train_, plan[static_cast<std::size_t>(index)]));
    update.tokens += update.mine.back().target_tokens;
  }
  update.collate_seconds = seconds_since(start);
  update.is_stop_requested = stop_requested;
  // Rank 0's clock decides: its training time is the one checkpoints record.
  const double budget = setup_.options.max_time_seconds;
  update.is_out_of_time = is_writer() && budget > 0.0 && progress_.train_seconds >= budget;
  if (setup_.communicator) {
    // One small all-reduce: the update's tokens on all ranks, whether any rank was told to stop
    // (a signal reaches one rank or all; either way they stop at the same update), and whether
    // rank 0 has spent the time budget.
    at::Tensor shared = at::tensor({update.tokens, static_cast<int64_t>(stop_requested),
                                    static_cast<int64_t>(update.is_out_of_time)},
                                   at::kLong);
    if (setup_.device.is_cuda()) shared = shared.to(setup_.device);
    setup_.communicator->sum({shared}, "the update's token count");
    shared = shared.cpu();
    update.tokens = shared[0].item<int64_t>();
    update.is_stop_requested = shared[1].item<int64_t>() > 0;
    update.is_out_of_time = shared[2].item<int64_t>() > 0;
  }
  return update;
}

StepResult Trainer::train_step(const data::Batch& batch, bool measure_phases) {
  return train_update({batch}, batch.target_tokens, measure_phases);
}

StepResult Trainer::train_update(const std::vector<data::Batch>& micro_batches,
                                 int64_t update_tokens,
                                 bool measure_phases) {
  StepResult result;
  const bool is_cuda = setup_.device.is_cuda();
  auto mark = [&](double& slot, Clock::time_point& since) {
    if (!measure_phases) return;
    if (is_cuda) torch::cuda::synchronize(setup_.device.index());
    const auto now = Clock::now();
    slot += std::chrono::duration<double>(now - since).count();
    since = now;
  };
  const double divisor = static_cast<double>(std::max<int64_t>(1, update_tokens));
  model_->train();
  auto since = Clock::now();
  for (const data::Batch& batch : micro_batches) {
    const at::Tensor source = batch.source.to(setup_.device, /*non_blocking=*/true);
    const at::Tensor target_in = batch.target_in.to(setup_.device, /*non_blocking=*/true);
    const at::Tensor target_out = batch.target_out.to(setup_.device, /*non_blocking=*/true);
    mark(result.times.data, since);
    LossSum loss;
    {
      AutocastScope autocast(setup_.device.type(), uses_bf16());
      loss = batch_loss(model_, source, target_in, target_out, setup_.options.label_smoothing);
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
    result.loss.sum = at::zeros({}, at::TensorOptions().device(setup_.device));
    result.loss.tokens = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(setup_.device));
  }
  if (setup_.communicator) {
    std::vector<at::Tensor> summed;
    summed.reserve(parameters_.size() + 1);
    for (at::Tensor& parameter : parameters_) {
      if (!parameter.grad().defined()) parameter.mutable_grad() = at::zeros_like(parameter);
      summed.push_back(parameter.grad());
    }
    summed.push_back(result.loss.sum);
    setup_.communicator->sum(summed, "the gradients");
    result.loss.tokens = at::full({}, update_tokens, result.loss.tokens.options());
  }
  if (setup_.options.clip_norm > 0.0) {
    torch::nn::utils::clip_grad_norm_(parameters_, setup_.options.clip_norm);
  }
  optimizer_.step(learning_rate(setup_.options, optimizer_.steps() + 1));
  optimizer_.zero_grad();
  mark(result.times.optimizer, since);
  return result;
}

}  // namespace nmt::train
