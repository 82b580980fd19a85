// training_curves of nmt/viz/report_page.h.
#include <string>
#include <variant>

#include "nmt/viz/report_page.h"

namespace nmt::viz {
namespace {

void add_point(Curve& curve, double step, double seconds, double value) {
  curve.steps.push_back(step);
  curve.seconds.push_back(seconds);
  curve.values.push_back(value);
}

// The step and training time a record was written at, when it carries them.
struct Position {
  double step;
  double seconds;
};

std::optional<Position> position_of(const MetricsRecord& record) {
  if (const auto* train = std::get_if<TrainRecord>(&record)) {
    return Position{static_cast<double>(train->step), train->train_seconds};
  }
  if (const auto* epoch = std::get_if<EpochRecord>(&record)) {
    return Position{static_cast<double>(epoch->step), epoch->train_seconds};
  }
  if (const auto* end = std::get_if<EndRecord>(&record)) {
    return Position{static_cast<double>(end->step), end->train_seconds};
  }
  if (const auto* valid = std::get_if<ValidRecord>(&record)) {
    return Position{static_cast<double>(valid->step), valid->train_seconds};
  }
  if (const auto* start = std::get_if<StartRecord>(&record)) {
    return Position{static_cast<double>(start->step), 0.0};
  }
  return std::nullopt;
}

}  // namespace

std::vector<Curve> training_curves(const std::vector<MetricsRecord>& records) {
  Curve train{CurveKind::kTrainLoss, "train loss", {}, {}, {}};
  Curve valid{CurveKind::kValidLoss, "valid loss", {}, {}, {}};
  Curve bleu{CurveKind::kEvalBleu, "BLEU", {}, {}, {}};
  Curve valid_bleu{CurveKind::kValidBleu, "valid BLEU", {}, {}, {}};
  Curve valid_chrf{CurveKind::kValidChrf, "valid chrF", {}, {}, {}};
  Position at{0.0, 0.0};
  const auto add_validation = [&](const std::optional<double>& loss,
                                  const std::optional<double>& bleu_score,
                                  const std::optional<double>& chrf_score) {
    if (loss) add_point(valid, at.step, at.seconds, *loss);
    if (bleu_score) add_point(valid_bleu, at.step, at.seconds, *bleu_score);
    if (chrf_score) add_point(valid_chrf, at.step, at.seconds, *chrf_score);
  };
  for (const MetricsRecord& record : records) {
    if (const std::optional<Position> position = position_of(record)) {
      at.step = position->step;
      // A start record has no training time of its own: keep the one seen before.
      if (!std::holds_alternative<StartRecord>(record)) at.seconds = position->seconds;
    }
    if (const auto* step = std::get_if<TrainRecord>(&record)) {
      add_point(train, at.step, at.seconds, step->loss);
    } else if (const auto* epoch = std::get_if<EpochRecord>(&record)) {
      add_validation(epoch->valid_loss, epoch->valid_bleu, epoch->valid_chrf);
    } else if (const auto* validation = std::get_if<ValidRecord>(&record)) {
      add_validation(validation->valid_loss, validation->valid_bleu, validation->valid_chrf);
    } else if (const auto* eval = std::get_if<EvalRecord>(&record)) {
      add_point(bleu, at.step, at.seconds, eval->bleu);
    }
  }
  std::vector<Curve> curves;
  for (Curve* curve : {&train, &valid, &bleu, &valid_bleu, &valid_chrf}) {
    if (!curve->values.empty()) curves.push_back(std::move(*curve));
  }
  return curves;
}

}  // namespace nmt::viz
