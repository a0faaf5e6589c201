// The result model: one versioned structure that every writer reads
// (docs/results-format.md).
#ifndef TRNBENCH_HARNESS_RUNNER_RESULTS_H_
#define TRNBENCH_HARNESS_RUNNER_RESULTS_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/statistics/statistics.h"

namespace trn {

inline constexpr int kResultsSchemaVersion = 1;
// Bumped whenever a change to the timing model can move any figure.
inline constexpr std::string_view kModelVersion = "16";

// Like torch.profiler.schedule: `wait` runs are skipped, `warmup` runs are
// discarded, `repeat` runs are recorded. Neither a skipped nor a warm-up run
// is simulated: Simulator::Run makes a run from its key alone, so a warm-up
// run could change no recorded one. Both move the recorded runs' keys, as
// on hardware they move the recorded runs' place in the sequence.
struct Schedule {
  int64_t wait = 0;
  int64_t warmup = 1;
  int64_t repeat = 100;
  // Repeat index of the k-th recorded run: the key of its random stream.
  int64_t IndexOfActive(int64_t k) const { return wait + warmup + k; }
  // Runs the simulator performs for the schedule: the recorded ones. Warm-up
  // runs were simulated and thrown away until issue 42: one run in 21 of
  // `--repeat 20`, and on two threads one more run on one of them than on
  // the other.
  int64_t SimulatedRuns() const { return repeat; }
};

struct MetricResult {
  std::string name;
  std::string unit;
  bool lower_is_better = true;
  std::vector<double> samples;  // in repeat order
  stats::Summary summary;
  // A measured summary without samples (nki.benchmark's table, neuron-bench
  // info.json): (percent, value) pairs, ascending; `samples` is then empty
  // and `summary` holds these percentiles where it has a field for them.
  std::vector<std::pair<double, double>> percentiles;
};

// Per-op averages per recorded iteration, like key_averages() / steps.
struct OpResult {
  std::string name;
  double self_cpu_us = 0;
  double self_device_us = 0;
  double device_total_us = 0;
  double calls = 0;
};

// Speed-up of a variant over the first variant of its family of the same
// size: the ratio of median device times, with a bootstrap interval.
struct Speedup {
  std::string baseline;  // empty when no earlier variant has the same size
  std::string metric;
  double ratio = 1.0;
  stats::Interval interval;
  int resamples = 0;
  uint64_t bootstrap_seed = 0;
};

// A point's place in its `--kwarg` sweep: the sweep's points (the family's
// sweep points of one size) ordered by the median of `metric`, fastest
// first, each with the median's distribution-free interval its summary
// already holds. Adjacent ranks whose intervals overlap are not separated:
// the data do not say which is faster, and `tied_with_previous` says so.
struct SweepRank {
  int position = 0;  // 1-based; 0 when the workload is not a sweep point
  int of = 0;        // points ranked together
  std::string metric;
  double median = NAN;
  stats::Interval interval;
  bool fastest = false;             // position 1
  bool tied_with_previous = false;  // interval overlaps the rank above's
};

struct WorkloadResult {
  std::string name;
  std::string family;
  std::string mode;
  std::string description;
  std::string spec_file;
  std::string spec_hash;
  // The spec's noise_threshold, NaN when the spec sets none: recorded so
  // that `compare OLD NEW` applies the same threshold as the run did.
  double noise_threshold = NAN;
  int64_t instructions = 0;  // per run
  int64_t dispatches = 0;    // hardware executions per run
  std::vector<MetricResult> metrics;
  std::vector<OpResult> ops;  // sorted by self device time, descending
  // The spec's tensors and their shapes, in spec order (not written to the
  // results file): two variants solve the same problem, and a speed-up
  // between them means something, when every tensor both declare has the
  // same shape.
  std::vector<std::pair<std::string, std::vector<int64_t>>> tensor_shapes;
  // A point of a `--kwarg` sweep (a traced kernel with meta-parameters, in
  // a family named after its function): the family table ranks these by
  // median device time (not written to the results file).
  bool sweep_point = false;
  Speedup speedup;
  SweepRank rank;  // position 0 unless a ranked sweep point

  const MetricResult* Find(std::string_view metric) const {
    for (const auto& m : metrics) {
      if (m.name == metric) return &m;
    }
    return nullptr;
  }
};

// Where a measured results document came from (docs/results-format.md).
struct MeasuredInput {
  std::string file;     // as given on the command line
  std::string fnv1a64;  // of its bytes, hex
  int64_t bytes = 0;
};
struct Measurement {
  std::string format;         // as `trnbench import --format` names it
  std::string tool;           // the tool that measured
  std::string tool_version;   // empty when the files do not say
  std::string instance_type;  // empty when the files do not say
  std::vector<MeasuredInput> inputs;
};

inline constexpr std::string_view kSourceModel = "model";
inline constexpr std::string_view kSourceMeasured = "measured";

// Set when the run is one shard of a suite split across CI jobs
// (`--shard K/N`, docs/history.md): what `trnbench merge` checks.
struct ShardInfo {
  int index = 1;  // K, 1-based
  int count = 1;  // N
  std::string commit;
  std::string configuration;          // hash of the flags that matter
  std::vector<std::string> selected;  // every workload of the split
  std::string selection;  // history::SelectionDigest(configuration, selected)
  std::vector<std::string> workloads;  // this shard's
};

// Who ran what, where and how: the identity every document of one run
// carries (the results, the profile), filled in one place (ContextFor in
// runner.h) so the two cannot disagree.
struct RunContext {
  std::string trnbench_version;
  std::string model_version{kModelVersion};
  std::string device;
  std::string device_hash;
  // Each parameter of the profile as the run used it (after --set): its
  // median, by name. Written into baselines (`device.params`), so that a
  // later gate can name the parameters that differ; not in results files.
  std::vector<std::pair<std::string, double>> device_params;
  // The profile's "calibrated" flag: false means no measurement pins its
  // figures, and every output says so.
  bool device_calibrated = true;
  uint64_t seed = 0;
  Schedule schedule;
  double confidence = 0.95;
};

struct RunResult : RunContext {
  int schema_version = kResultsSchemaVersion;
  std::vector<WorkloadResult> workloads;
  // "model" (the timing model ran) or "measured" (`trnbench import`).
  std::string source{kSourceModel};
  Measurement measurement;  // only for measured results

  bool measured() const { return source == kSourceMeasured; }
  std::optional<ShardInfo> shard;
};

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_RESULTS_H_
