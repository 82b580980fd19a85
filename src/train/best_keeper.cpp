// What follows from a validation for the run's files and its end: best.pt, early stopping, and
// which epochs' weights stay.
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "nmt/train/training_observers.h"

namespace nmt::train {

double metric_value(BestMetric metric, const ValidationResult& result) {
  constexpr double kUnmeasured = std::numeric_limits<double>::quiet_NaN();
  switch (metric) {
    case BestMetric::kLoss:
      return result.tokens > 0 ? result.loss : kUnmeasured;
    case BestMetric::kBleu:
      return result.translation ? result.translation->bleu : kUnmeasured;
    case BestMetric::kChrf:
      return result.translation ? result.translation->chrf : kUnmeasured;
  }
  return kUnmeasured;
}

bool improves(BestMetric metric, double value, double best) {
  if (!std::isfinite(value)) return false;
  if (!std::isfinite(best)) return true;
  return metric == BestMetric::kLoss ? value < best : value > best;
}

const char* metric_label(BestMetric metric) {
  switch (metric) {
    case BestMetric::kLoss:
      return "validation loss";
    case BestMetric::kBleu:
      return "validation BLEU";
    case BestMetric::kChrf:
      return "validation chrF";
  }
  return "?";
}

BestKeeper::BestKeeper(BestMetric metric, State state, std::function<void()> save_best)
    : metric_(metric), state_(state), save_best_(std::move(save_best)) {}

void BestKeeper::judge(ValidationDone& validation) {
  const ValidationResult& result = validation.result;
  if (result.tokens > 0 && std::isfinite(result.loss)) {
    const double value = metric_value(metric_, result);
    validation.is_best = improves(metric_, value, state_.best_score);
    if (validation.is_best) {
      state_.best_score = value;
      state_.best_step = validation.step;
      state_.validations_without_improvement = 0;
      save_best_();
    } else {
      ++state_.validations_without_improvement;
    }
  }
  validation.validations_without_improvement = state_.validations_without_improvement;
}

std::optional<BestSoFar> BestKeeper::best() const {
  if (!std::isfinite(state_.best_score)) return std::nullopt;
  return BestSoFar{metric_, state_.best_score, state_.best_step};
}

EarlyStopping::EarlyStopping(int64_t patience, BestMetric metric, bool counts_validations)
    : patience_(patience), metric_(metric), counts_validations_(counts_validations) {}

std::optional<TrainStop> EarlyStopping::validation_done(const ValidationDone& event) {
  const int64_t waited = event.validations_without_improvement;
  if (patience_ == 0 || waited < patience_) return std::nullopt;
  return TrainStop{StopReason::kEarlyStopped,
                   std::string("no better ") + metric_label(metric_) + " for " +
                       std::to_string(waited) + (counts_validations_ ? " validations" : " epochs") +
                       ": stopped early"};
}

std::optional<TrainStop> EarlyStopping::epoch_done(const EpochDone& event) {
  if (!event.validation) return std::nullopt;
  return validation_done(*event.validation);
}

EpochWeightsKept::EpochWeightsKept(RunDir run, int64_t kept) : run_(std::move(run)), kept_(kept) {}

void EpochWeightsKept::checkpoint_saved(const CheckpointSaved& event) {
  if (event.kind != CheckpointKind::kEpochWeights) return;
  std::error_code ignored;  // the first epochs have no older file to remove
  std::filesystem::remove(run_.epoch_weights(event.epoch - kept_), ignored);
}

}  // namespace nmt::train
