// A published hardware measurement attached to a spec (its "published"
// array): what was measured, how and on which hardware, where it was
// published, and how close the model must come. The validation suite
// (workloads/validation/, `trnbench validate`) is made of such specs.
#ifndef TRNBENCH_WORKLOADS_SPEC_PUBLISHED_FIGURE_H_
#define TRNBENCH_WORKLOADS_SPEC_PUBLISHED_FIGURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn {

struct PublishedFigure {
  // A results metric (docs/results-format.md, such as "ncl_us") or an event
  // metric measured on one run's timeline (kEventMetrics).
  std::string metric;
  // Over the metric's samples, or for an event metric over the events of
  // `line` in one run: "mean" or "pN" (N from 0 to 100, Hyndman-Fan 7).
  std::string statistic;
  int line = 0;  // event metrics: the kernel source line measured
  // The number of measured runs the statistic was taken over, when the
  // source says (nki.benchmark's iters): the model's statistic is then
  // taken over as many runs, the same estimator. 0: the command's --repeat.
  int64_t runs = 0;
  double figure = 0;
  std::string unit;  // of `figure` and `range`, such as "ms" or "GB/s"
  // Exactly one is set: a relative tolerance around `figure` (0.15 =
  // ±15%), or the range a qualitative statement allows, in `unit`.
  std::optional<double> tolerance;
  std::optional<std::pair<double, double>> range;
  std::string device;    // the device profile that models the hardware
  std::string hardware;  // instance / NeuronCore generation, as published
  std::string method;    // the measuring tool and statistic
  std::string source;    // title of the publication and where in it
  std::string url;       // may be empty when the source has no stable URL
  // Entries sharing a group must rank in the model as they do published.
  std::string order;
  std::vector<std::string> shape;  // --shape texts of the measured point
  std::string json_path;           // e.g. "/published/0", for messages
};

// Event metrics, in microseconds, read from the timeline of one run:
//   dma_transfer_us          duration of each DMA-queue event of `line`
//   instruction_us           duration of each engine event of `line`
//   instruction_interval_us  start-to-start time of consecutive engine
//                            events of `line` on one engine
inline constexpr std::string_view kEventMetrics[] = {
    "dma_transfer_us", "instruction_us", "instruction_interval_us"};

bool IsEventMetric(std::string_view metric);

// Compiler metrics, read from what the compiler stage decided for the
// figure's device, not from a run:
//   spill_bytes  bytes the compiler's spills save to HBM and reload, over
//                the kernel (neuron-profile's spill_save_bytes +
//                spill_reload_bytes), in B
inline constexpr std::string_view kCompilerMetrics[] = {"spill_bytes"};

bool IsCompilerMetric(std::string_view metric);

// The unit a metric's values are in ("us", "GB/s", "1/s", "B",
// "fraction"); empty for an unknown metric.
std::string MetricUnit(std::string_view metric);

// How many `metric_unit` one `unit` is (1000 for "ms" in "us"), or nullopt
// when `unit` does not measure the same quantity.
std::optional<double> UnitFactor(std::string_view unit,
                                 std::string_view metric_unit);

// The units a figure may be given in for `metric_unit`, for messages.
std::string UnitsFor(std::string_view metric_unit);

// A statistic as written: "mean", or "pN" with N an integer from 0 to 100.
struct Statistic {
  bool mean = false;
  double percent = 50;  // when !mean
};
std::optional<Statistic> ParseStatistic(std::string_view text);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_PUBLISHED_FIGURE_H_
