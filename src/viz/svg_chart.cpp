#include "viz/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "viz/html.h"

namespace nmt::viz {
namespace {

constexpr double kLeft = 64;
constexpr double kRight = 20;
constexpr double kTop = 36;
constexpr double kBottom = 48;
constexpr std::size_t kMarkerLimit = 60;
constexpr double kLegendCharWidth = 7.2;

// Maps data coordinates to pixels inside the plot area.
struct Frame {
  std::vector<double> x_ticks;
  std::vector<double> y_ticks;
  double left, top, width, height;

  double px(double x) const {
    return left + (x - x_ticks.front()) / (x_ticks.back() - x_ticks.front()) * width;
  }
  double py(double y) const {
    return top + height - (y - y_ticks.front()) / (y_ticks.back() - y_ticks.front()) * height;
  }
};

bool is_point(const ChartSeries& series, std::size_t i) {
  return i < series.ys.size() && std::isfinite(series.xs[i]) && std::isfinite(series.ys[i]);
}

// The smallest and largest finite x (or y) over all series; false when there is no finite point.
bool data_range(const std::vector<ChartSeries>& series, bool of_x, double& lo, double& hi) {
  lo = INFINITY;
  hi = -INFINITY;
  for (const ChartSeries& s : series) {
    for (std::size_t i = 0; i < s.xs.size(); ++i) {
      if (!is_point(s, i)) continue;
      const double v = of_x ? s.xs[i] : s.ys[i];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return lo <= hi;
}

std::string num(double value) { return format_number(std::round(value * 10) / 10, 7); }

std::string text(double x, double y, const std::string& attributes, const std::string& content) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + attributes + ">" + content +
         "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& css_class) {
  return "<line class=\"" + css_class + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" +
         num(x2) + "\" y2=\"" + num(y2) + "\"/>";
}

std::string axes(const Frame& f, const ChartOptions& options) {
  std::string out;
  const double bottom = f.top + f.height;
  for (const double y : f.y_ticks) {
    out += line(f.left, f.py(y), f.left + f.width, f.py(y), "grid");
    out += text(f.left - 8, f.py(y),
                "class=\"tick\" text-anchor=\"end\" dominant-baseline=\"central\"",
                format_number(y, 4));
  }
  for (const double x : f.x_ticks) {
    out += line(f.px(x), f.top, f.px(x), bottom, "grid");
    out += line(f.px(x), bottom, f.px(x), bottom + 5, "axis-line");
    out += text(f.px(x), bottom + 18, "class=\"tick\" text-anchor=\"middle\"", format_number(x, 4));
  }
  out += line(f.left, bottom, f.left + f.width, bottom, "axis-line");
  out += line(f.left, f.top, f.left, bottom, "axis-line");
  out += text(f.left + f.width / 2, bottom + 40, "class=\"axis-label\" text-anchor=\"middle\"",
              escape_html(options.x_label));
  out += "<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(16," +
         num(f.top + f.height / 2) + ") rotate(-90)\">" + escape_html(options.y_label) + "</text>";
  return out;
}

// Polylines, one per run of points whose x does not go back, and markers for short series.
std::string series_marks(const Frame& f, const ChartSeries& s) {
  std::vector<std::vector<std::pair<double, double>>> pieces(1);
  std::size_t points = 0;
  for (std::size_t i = 0; i < s.xs.size(); ++i) {
    if (!is_point(s, i)) continue;
    if (!pieces.back().empty() && s.xs[i] < pieces.back().back().first) pieces.emplace_back();
    pieces.back().emplace_back(s.xs[i], s.ys[i]);
    ++points;
  }
  std::string out;
  for (const auto& piece : pieces) {
    if (piece.size() < 2) continue;
    out += "<polyline class=\"line\" fill=\"none\" stroke-width=\"2\" stroke=\"" +
           escape_html(s.colour) + "\" points=\"";
    for (const auto& [x, y] : piece) out += num(f.px(x)) + "," + num(f.py(y)) + " ";
    out.back() = '"';
    out += "/>";
  }
  if (points > kMarkerLimit) return out;
  for (const auto& piece : pieces) {
    for (const auto& [x, y] : piece) {
      out += "<circle class=\"marker\" r=\"3.5\" cx=\"" + num(f.px(x)) + "\" cy=\"" + num(f.py(y)) +
             "\" fill=\"" + escape_html(s.colour) + "\"><title>" + escape_html(s.name) + ": " +
             format_number(y, 5) + " at " + format_number(x, 6) + "</title></circle>";
    }
  }
  return out;
}

std::string legend(const std::vector<ChartSeries>& series, double left) {
  std::string out;
  double x = left;
  for (const ChartSeries& s : series) {
    out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x + 22) +
           "\" y1=\"16\" y2=\"16\" stroke-width=\"3\" stroke=\"" + escape_html(s.colour) + "\"/>";
    out += text(x + 28, 16, "class=\"legend\" dominant-baseline=\"central\"", escape_html(s.name));
    x += 48 + kLegendCharWidth * static_cast<double>(s.name.size());
  }
  return out;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(1.0, std::abs(hi))) {
    const double pad = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, count);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * power;
  for (const double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * power >= raw * (1 - 1e-9)) {
      step = multiple * power;
      break;
    }
  }
  const double first = std::floor(lo / step + 1e-9);
  const double last = std::ceil(hi / step - 1e-9);
  std::vector<double> ticks;
  for (double i = first; i <= last; i += 1) ticks.push_back(i * step);
  return ticks;
}

std::string render_line_chart(const std::vector<ChartSeries>& series, const ChartOptions& options) {
  double x_lo, x_hi, y_lo, y_hi;
  if (!data_range(series, /*of_x=*/true, x_lo, x_hi) ||
      !data_range(series, /*of_x=*/false, y_lo, y_hi))
    return "";
  const double width = options.width;
  const double height = options.height;
  const Frame frame{nice_ticks(x_lo, x_hi, 6), nice_ticks(y_lo, y_hi, 5), kLeft, kTop,
                    width - kLeft - kRight,    height - kTop - kBottom};
  std::string out =
      "<figure class=\"chart\"><figcaption>" + escape_html(options.title) + "</figcaption>";
  out += "<svg class=\"chart-svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" role=\"img\" aria-label=\"" +
         escape_html(options.title) + "\">";
  out += axes(frame, options);
  for (const ChartSeries& s : series) out += series_marks(frame, s);
  out += legend(series, kLeft);
  return out + "</svg></figure>\n";
}

}  // namespace nmt::viz
