// render_report_html of nmt/viz/report_page.h.
#include "nmt/viz/report_page.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "nmt/format.h"
#include "viz/html.h"
#include "viz/svg_chart.h"

namespace nmt::viz {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kTrainColour = "#1f6feb";
constexpr const char* kValidColour = "#e8590c";
constexpr const char* kBleuColour = "#1a7f37";
constexpr const char* kValidBleuColour = "#e8590c";
constexpr const char* kValidChrfColour = "#8250df";

constexpr std::string_view kReportStyle =
    R"css(.stats { display: flex; flex-wrap: wrap; gap: 12px; margin: 18px 0 4px; }
.stat { min-width: 130px; padding: 10px 14px; border: 1px solid var(--line); border-radius: 8px; background: var(--soft); }
.stat .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.stat .name { font-size: 13px; color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.chart { margin: 0; padding: 10px 12px 4px; border: 1px solid var(--line); border-radius: 8px; }
.chart figcaption { font-weight: 600; font-size: 14px; }
.chart-svg { max-width: 100%; height: auto; display: block; }
.chart-svg .grid { stroke: #eaeef2; }
.chart-svg .axis-line { stroke: #8c959f; }
.chart-svg text { font-size: 12px; fill: var(--muted); }
.chart-svg .axis-label, .chart-svg .legend { font-size: 13px; fill: var(--fg); }
.chart-svg .line { stroke-linejoin: round; stroke-linecap: round; }
.sections { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
table.kv th { background: none; font-weight: normal; color: var(--muted); }
)css";

// The run at a glance, from the records.
struct Summary {
  double steps = kNaN;
  double epochs = kNaN;
  double seconds = kNaN;
  double best_valid_loss = kNaN;
  double best_valid_ppl = kNaN;
  double best_valid_bleu = kNaN;
  std::string best_metric;  // of best.pt, from the end record
  double best_score = kNaN;
  double best_step = kNaN;
  std::string end_reason;
  std::optional<EvalRecord> latest_eval;
};

void note_validation(Summary& summary,
                     const std::optional<double>& loss,
                     const std::optional<double>& ppl,
                     const std::optional<double>& bleu) {
  if (loss && !(*loss >= summary.best_valid_loss)) {
    summary.best_valid_loss = *loss;
    summary.best_valid_ppl = ppl.value_or(kNaN);
  }
  if (bleu && !(*bleu <= summary.best_valid_bleu)) summary.best_valid_bleu = *bleu;
}

Summary summarize(const std::vector<MetricsRecord>& records) {
  Summary summary;
  for (const MetricsRecord& record : records) {
    if (const auto* train = std::get_if<TrainRecord>(&record)) {
      summary.steps = static_cast<double>(train->step);
      summary.seconds = train->train_seconds;
    } else if (const auto* epoch = std::get_if<EpochRecord>(&record)) {
      summary.steps = static_cast<double>(epoch->step);
      summary.seconds = epoch->train_seconds;
      summary.epochs = static_cast<double>(epoch->epoch);
      note_validation(summary, epoch->valid_loss, epoch->valid_ppl, epoch->valid_bleu);
    } else if (const auto* valid = std::get_if<ValidRecord>(&record)) {
      note_validation(summary, valid->valid_loss, valid->valid_ppl, valid->valid_bleu);
    } else if (const auto* end = std::get_if<EndRecord>(&record)) {
      summary.steps = static_cast<double>(end->step);
      summary.seconds = end->train_seconds;
      summary.end_reason = end->reason;
      summary.best_metric = end->best_metric.value_or("");
      summary.best_score = end->best_score.value_or(kNaN);
      summary.best_step = end->best_step.value_or(kNaN);
    } else if (const auto* start = std::get_if<StartRecord>(&record)) {
      summary.steps = static_cast<double>(start->step);
    } else if (const auto* eval = std::get_if<EvalRecord>(&record)) {
      summary.latest_eval = *eval;  // evaluations come after training and carry no step
    }
  }
  return summary;
}

std::string stat(const std::string& value, const std::string& name) {
  return "<div class=\"stat\"><div class=\"value\">" + escape_html(value) +
         "</div><div class=\"name\">" + escape_html(name) + "</div></div>";
}

std::string summary_section(const Summary& summary) {
  std::string out = "<div class=\"stats\">";
  out += stat(format_number(summary.steps, 12), "steps");
  out += stat(format_number(summary.epochs, 6), "epochs");
  out += stat(format_duration(summary.seconds), "training time");
  out += stat(format_number(summary.best_valid_loss, 4), "best valid loss");
  if (std::isfinite(summary.best_valid_ppl))
    out += stat(format_number(summary.best_valid_ppl, 4), "valid ppl");
  if (std::isfinite(summary.best_valid_bleu))
    out += stat(format_number(summary.best_valid_bleu, 4), "best valid BLEU");
  if (std::isfinite(summary.best_step)) {
    const std::string metric = summary.best_metric == "bleu"   ? "BLEU"
                               : summary.best_metric == "chrf" ? "chrF"
                                                               : "loss";
    out += stat(format_number(summary.best_step, 12),
                "best.pt step (valid " + metric + " " + format_number(summary.best_score, 4) + ")");
  }
  if (summary.latest_eval) {
    out += stat(format_number(summary.latest_eval->bleu, 4), "BLEU, latest evaluation");
    out += stat(format_number(summary.latest_eval->chrf, 4), "chrF, latest evaluation");
  }
  if (!summary.end_reason.empty()) out += stat(summary.end_reason, "ended");
  return out + "</div>\n";
}

const Curve* find_curve(const std::vector<Curve>& curves, CurveKind kind) {
  const auto it =
      std::find_if(curves.begin(), curves.end(), [&](const Curve& c) { return c.kind == kind; });
  return it == curves.end() ? nullptr : &*it;
}

// x in steps, or in training time expressed in `unit_seconds` units.
ChartSeries series_of(const Curve& curve, const char* colour, double unit_seconds) {
  ChartSeries series{curve.name, colour, curve.steps, curve.values};
  if (unit_seconds > 0) {
    series.xs = curve.seconds;
    for (double& x : series.xs) x /= unit_seconds;
  }
  return series;
}

std::string loss_charts(const std::vector<Curve>& curves, double largest_seconds) {
  const double unit = largest_seconds < 120 ? 1 : largest_seconds < 7200 ? 60 : 3600;
  const std::string unit_name = unit == 1 ? "s" : unit == 60 ? "min" : "h";
  std::vector<ChartSeries> by_step;
  std::vector<ChartSeries> by_time;
  for (const auto& [kind, colour] : {std::pair{CurveKind::kTrainLoss, kTrainColour},
                                     std::pair{CurveKind::kValidLoss, kValidColour}}) {
    if (const Curve* curve = find_curve(curves, kind)) {
      by_step.push_back(series_of(*curve, colour, 0));
      by_time.push_back(series_of(*curve, colour, unit));
    }
  }
  if (by_step.empty()) return "";
  std::string out = "<h2>Loss</h2>\n<div class=\"charts\">";
  out += render_line_chart(by_step, {"Loss against steps", "step", "loss"});
  out += render_line_chart(
      by_time, {"Loss against training time", "training time (" + unit_name + ")", "loss"});
  return out + "</div>\n";
}

// BLEU and chrF of the validation translations, and of evaluations at different training steps
// (several evaluations of the final model are listed in the evaluations table instead).
std::string bleu_chart(const std::vector<Curve>& curves) {
  std::vector<ChartSeries> series;
  for (const auto& [kind, colour] : {std::pair{CurveKind::kValidBleu, kValidBleuColour},
                                     std::pair{CurveKind::kValidChrf, kValidChrfColour}}) {
    if (const Curve* curve = find_curve(curves, kind))
      series.push_back(series_of(*curve, colour, 0));
  }
  const Curve* eval = find_curve(curves, CurveKind::kEvalBleu);
  if (eval && std::set<double>(eval->steps.begin(), eval->steps.end()).size() >= 2) {
    series.push_back(series_of(*eval, kBleuColour, 0));
    series.back().name = "BLEU of nmt eval";
  }
  std::size_t points = 0;
  for (const ChartSeries& one : series) points += one.xs.size();
  if (points < 2) return "";
  return "<h2>Translation quality</h2>\n<div class=\"charts\">" +
         render_line_chart(series, {"BLEU and chrF against steps", "step", "score"}) + "</div>\n";
}

std::string cell(double value, int significant) {
  return "<td class=\"num\">" + (std::isfinite(value) ? format_number(value, significant) : "") +
         "</td>";
}

std::string epoch_table(const std::vector<MetricsRecord>& records) {
  bool has_validation = false;
  for (const MetricsRecord& record : records) {
    const auto* epoch = std::get_if<EpochRecord>(&record);
    has_validation = has_validation || (epoch && epoch->valid_loss);
  }
  std::string rows;
  for (const MetricsRecord& record : records) {
    const auto* epoch = std::get_if<EpochRecord>(&record);
    if (!epoch) continue;
    rows += "<tr>" + cell(static_cast<double>(epoch->epoch), 6) +
            cell(static_cast<double>(epoch->step), 12) + cell(epoch->train_loss, 4);
    if (has_validation) {
      rows += cell(epoch->valid_loss.value_or(kNaN), 4) + cell(epoch->valid_ppl.value_or(kNaN), 4) +
              cell(epoch->valid_bleu.value_or(kNaN), 4);
    }
    rows += "<td class=\"num\">" + format_duration(epoch->train_seconds) + "</td>";
    if (has_validation) rows += std::string("<td>") + (epoch->is_best ? "best" : "") + "</td>";
    rows += "</tr>\n";
  }
  if (rows.empty()) return "";
  const std::string validation_headers =
      has_validation ? "<th class=\"num\">valid loss</th><th class=\"num\">valid ppl</th>"
                       "<th class=\"num\">valid BLEU</th>"
                     : "";
  return "<h2>Epochs</h2>\n<table><tr><th class=\"num\">epoch</th><th class=\"num\">step</th>"
         "<th class=\"num\">train loss</th>" +
         validation_headers + "<th class=\"num\">training time</th>" +
         (has_validation ? "<th></th>" : "") + "</tr>\n" + rows + "</table>\n";
}

// Validations between epoch ends (train.valid_every).
std::string validation_table(const std::vector<MetricsRecord>& records) {
  std::string rows;
  for (const MetricsRecord& record : records) {
    const auto* valid = std::get_if<ValidRecord>(&record);
    if (!valid) continue;
    rows += "<tr>" + cell(static_cast<double>(valid->step), 12) +
            cell(static_cast<double>(valid->epoch), 6) + cell(valid->valid_loss, 4) +
            cell(valid->valid_ppl, 4) + cell(valid->valid_bleu.value_or(kNaN), 4) +
            cell(valid->valid_chrf.value_or(kNaN), 4) + "<td class=\"num\">" +
            format_duration(valid->train_seconds) + "</td><td>" + (valid->is_best ? "best" : "") +
            "</td></tr>\n";
  }
  if (rows.empty()) return "";
  return "<h2>Validations</h2>\n<table><tr><th class=\"num\">step</th><th "
         "class=\"num\">epoch</th><th class=\"num\">valid loss</th><th class=\"num\">valid "
         "ppl</th><th class=\"num\">BLEU</th><th class=\"num\">chrF</th><th "
         "class=\"num\">training time</th><th></th></tr>\n" +
         rows + "</table>\n";
}

std::string text_cell(const std::string& text) { return "<td>" + escape_html(text) + "</td>"; }

std::string evaluation_table(const std::vector<MetricsRecord>& records) {
  std::string rows;
  for (const MetricsRecord& record : records) {
    const auto* eval = std::get_if<EvalRecord>(&record);
    if (!eval) continue;
    rows += "<tr>" + text_cell(eval->data) + text_cell(eval->checkpoint) +
            text_cell(eval->decoding) + text_cell(eval->notebook_form ? "yes" : "no") +
            cell(eval->bleu, 4) + cell(eval->chrf, 4) + cell(eval->loss, 4) +
            cell(eval->perplexity, 4) + "</tr>\n";
  }
  if (rows.empty()) return "";
  return "<h2>Evaluations</h2>\n<table><tr><th>data</th><th>checkpoint</th><th>decoding</th>"
         "<th>notebook form</th><th class=\"num\">BLEU</th><th class=\"num\">chrF</th>"
         "<th class=\"num\">loss</th><th class=\"num\">perplexity</th></tr>\n" +
         rows + "</table>\n";
}

// BLEU and chrF of each evaluation by source length (records that have them), one column per
// length range: "41.2 / 60.3" over the sentence count, "empty" where no sentence fell in the range.
std::string length_table(const std::vector<MetricsRecord>& records) {
  std::vector<std::string> ranges;
  for (const MetricsRecord& record : records) {
    const auto* eval = std::get_if<EvalRecord>(&record);
    if (!eval) continue;
    for (const LengthScore& bucket : eval->by_source_length) {
      if (std::find(ranges.begin(), ranges.end(), bucket.words) == ranges.end())
        ranges.push_back(bucket.words);
    }
  }
  std::string rows;
  for (const MetricsRecord& record : records) {
    const auto* eval = std::get_if<EvalRecord>(&record);
    if (!eval || eval->by_source_length.empty()) continue;
    rows +=
        "<tr>" + text_cell(eval->data) + text_cell(eval->checkpoint) + text_cell(eval->decoding);
    for (const std::string& range : ranges) {
      const auto bucket =
          std::find_if(eval->by_source_length.begin(), eval->by_source_length.end(),
                       [&range](const LengthScore& one) { return one.words == range; });
      if (bucket == eval->by_source_length.end()) {
        rows += "<td></td>";
      } else if (!bucket->bleu || !bucket->chrf) {
        rows += "<td class=\"num note\">empty</td>";
      } else {
        rows += "<td class=\"num\">" + format_number(*bucket->bleu, 4) + " / " +
                format_number(*bucket->chrf, 4) + "<br><span class=\"note\">" +
                std::to_string(bucket->sentences) + " sentences</span></td>";
      }
    }
    rows += "</tr>\n";
  }
  if (rows.empty()) return "";
  std::string headers;
  for (const std::string& range : ranges) {
    headers += "<th class=\"num\">" + escape_html(range) + " words</th>";
  }
  return "<h2>BLEU / chrF by source length</h2>\n<table><tr><th>data</th><th>checkpoint</th>"
         "<th>decoding</th>" +
         headers + "</tr>\n" + rows + "</table>\n";
}

std::string json_value(const nlohmann::json& value) {
  if (value.is_string()) return "<code>" + escape_html(value.get<std::string>()) + "</code>";
  if (value.is_null()) return "<span class=\"note\">none</span>";
  return "<code>" +
         escape_html(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "</code>";
}

// One row per leaf of value; nested objects give dotted keys.
void json_rows(const nlohmann::json& value, const std::string& prefix, std::string& out) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, child] : value.items())
      json_rows(child, prefix.empty() ? key : prefix + "." + key, out);
    return;
  }
  out += "<tr><th>" + escape_html(prefix) + "</th><td>" + json_value(value) + "</td></tr>\n";
}

std::string json_table(const nlohmann::json& value) {
  std::string rows;
  json_rows(value, "", rows);
  return "<table class=\"kv\">\n" + rows + "</table>\n";
}

std::string config_section(const nlohmann::json& config) {
  std::string out = "<h2>Configuration</h2>\n";
  if (!config.is_object() || config.empty())
    return out + "<p class=\"empty\">No configuration was given.</p>\n";
  // The sections in pipeline order, then any others in key order.
  std::vector<std::string> sections;
  for (const char* known : {"data", "text", "model", "train", "decode"}) {
    if (config.contains(known)) sections.emplace_back(known);
  }
  for (const auto& [section, value] : config.items()) {
    if (std::find(sections.begin(), sections.end(), section) == sections.end())
      sections.push_back(section);
  }
  out += "<div class=\"sections\">";
  for (const std::string& section : sections) {
    out += "<div class=\"section\"><h3>" + escape_html(section) + "</h3>" +
           json_table(config[section]) + "</div>";
  }
  return out + "</div>\n";
}

}  // namespace

std::string render_report_html(const ReportInput& input) {
  const std::vector<Curve> curves = training_curves(input.records);
  const Summary summary = summarize(input.records);
  std::string out = page_begin("Training report: " + input.title, kReportStyle);
  out += "<h1>Training report</h1>\n<div class=\"sub\"><code>" + escape_html(input.title) +
         "</code></div>\n";
  if (input.records.empty()) {
    out +=
        "<p class=\"empty\">No metrics yet: metrics.jsonl holds no records, so there is nothing to "
        "plot.</p>\n";
  } else {
    out += summary_section(summary);
    if (find_curve(curves, CurveKind::kTrainLoss) == nullptr &&
        find_curve(curves, CurveKind::kValidLoss) == nullptr) {
      out +=
          "<p class=\"empty\">No loss recorded yet: the metrics hold no \"train\" or \"epoch\" "
          "records.</p>\n";
    }
    out += loss_charts(curves, std::isfinite(summary.seconds) ? summary.seconds : 0.0);
    out += bleu_chart(curves);
    out += validation_table(input.records);
    out += epoch_table(input.records);
    out += evaluation_table(input.records);
    out += length_table(input.records);
  }
  out += config_section(input.config);
  out += page_end();
  return out;
}

}  // namespace nmt::viz
