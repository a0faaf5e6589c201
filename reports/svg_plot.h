// Distribution plots as standalone SVG: per row (a workload) a box plot with
// every sample drawn as a dot, and with a baseline, the baseline's
// distribution beside the current one.
//
// Hand-written rather than drawn by a plotting library: Debian's C++ options
// (PLplot, cairo) do not give byte-identical output we control, cairo's SVG
// names glyphs with ids that collide when several plots are inlined in one
// HTML page, and a box plot is a few rectangles, lines and circles.
#ifndef TRNBENCH_REPORTS_SVG_PLOT_H_
#define TRNBENCH_REPORTS_SVG_PLOT_H_

#include <span>
#include <string>
#include <vector>

#include "device_model/unit.h"

namespace trn {

struct PlotRow {
  std::string label;
  std::span<const double> current;   // empty: the metric was not measured
  std::span<const double> baseline;  // empty: no baseline for this row
};

struct DistributionPlot {
  std::string title;
  std::string metric;               // e.g. device_time_us
  Unit unit = Unit::kMicroseconds;  // the metric's unit
  // Draw a baseline sub-row under every row, and a legend.
  bool with_baseline = false;
  std::string baseline_label = "baseline";
  std::vector<PlotRow> rows;
};

// At most this many dots per box; beyond it every k-th sample is drawn (the
// box and whiskers always use every sample) and the subtitle says so.
inline constexpr size_t kMaxPlotDots = 1000;

// A complete <svg> element with xmlns, width, height and viewBox, no ids and
// no <style>, so it works as a file and inlined in HTML alike.
std::string RenderDistributionSvg(const DistributionPlot& plot);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_SVG_PLOT_H_
