// Line charts as inline SVG (private to src/viz), for the training report: axes with "nice" ticks
// (1, 2 or 5 times a power of ten), light grid lines, axis labels and a legend. A series whose x
// goes back (a run resumed from an earlier checkpoint logs those steps again) is drawn as separate
// line pieces; every point is kept. Points that are not finite are left out. Series with few points
// also get markers whose hover text gives the exact values.
// Torch-free; never throws; never logs.
#pragma once

#include <string>
#include <vector>

namespace nmt::viz {

// One line of a chart; xs and ys have the same length.
struct ChartSeries {
  std::string name;    // legend text
  std::string colour;  // CSS colour, e.g. "#1f6feb"
  std::vector<double> xs;
  std::vector<double> ys;
};

// What a chart looks like.
struct ChartOptions {
  std::string title;    // above the chart
  std::string x_label;  // e.g. "step"
  std::string y_label;  // e.g. "loss"
  int width = 560;      // pixels (the SVG scales down on narrow screens)
  int height = 320;     // pixels
};

// Tick values that cover [lo, hi] with about `count` steps of 1, 2 or 5 times a power of ten: the
// first is <= lo and the last >= hi. lo == hi gives a range around the value.
std::vector<double> nice_ticks(double lo, double hi, int count = 5);

// The chart as an <svg> element with a <figure> around it; "" when no series has a finite point.
std::string render_line_chart(const std::vector<ChartSeries>& series, const ChartOptions& options);

}  // namespace nmt::viz
