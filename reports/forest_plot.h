// The summary picture at the top of a report with a baseline: a forest
// plot, one row per comparison, its change with the interval drawn against
// the ±threshold band and coloured by verdict, so a reader sees in one
// glance what moved (docs/reports.md).
#ifndef TRNBENCH_REPORTS_FOREST_PLOT_H_
#define TRNBENCH_REPORTS_FOREST_PLOT_H_

#include <string>

#include "harness/gate/comparison.h"

namespace trn {

// The file the forest plot is written to in a report folder. The
// distribution plots are plots/<family>-<metric>.svg, always with a '-', so
// no family can take this name.
inline constexpr char kForestPlotFile[] = "plots/forest.svg";

// A standalone SVG 1.1 document like the distribution plots (no ids, no
// <style>), so it works as a file and inlined in HTML alike. An empty
// comparison gives a plot that says so.
std::string RenderForestSvg(const ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_FOREST_PLOT_H_
