// training_curves of nmt/viz/report_page.h.
#include <string>

#include "nmt/viz/report_page.h"

namespace nmt::viz {
namespace {

bool is_number(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_number();
}

bool is_event(const nlohmann::json& record, const char* event) {
  const auto it = record.find("event");
  return it != record.end() && it->is_string() && it->get<std::string>() == event;
}

void add_point(Curve& curve, double step, double seconds, double value) {
  curve.steps.push_back(step);
  curve.seconds.push_back(seconds);
  curve.values.push_back(value);
}

}  // namespace

std::vector<Curve> training_curves(const std::vector<nlohmann::json>& records) {
  Curve train{"train loss", {}, {}, {}};
  Curve valid{"valid loss", {}, {}, {}};
  Curve bleu{"BLEU", {}, {}, {}};
  double step = 0.0;
  double seconds = 0.0;
  for (const nlohmann::json& record : records) {
    if (!record.is_object()) continue;
    if (is_number(record, "step")) step = record["step"].get<double>();
    if (is_number(record, "train_seconds")) seconds = record["train_seconds"].get<double>();
    if (is_event(record, "train") && is_number(record, "loss")) {
      add_point(train, step, seconds, record["loss"].get<double>());
    }
    if (is_event(record, "epoch") && is_number(record, "valid_loss")) {
      add_point(valid, step, seconds, record["valid_loss"].get<double>());
    }
    if (is_number(record, "bleu")) add_point(bleu, step, seconds, record["bleu"].get<double>());
  }
  std::vector<Curve> curves;
  for (Curve* curve : {&train, &valid, &bleu}) {
    if (!curve->values.empty()) curves.push_back(std::move(*curve));
  }
  return curves;
}

}  // namespace nmt::viz
