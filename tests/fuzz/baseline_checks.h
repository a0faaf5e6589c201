// The properties the baseline and results targets share: both file kinds go
// through ParseBaselineOrResults, and whatever it accepts is what the
// comparison and the gate then trust.
#ifndef TRNBENCH_TESTS_FUZZ_BASELINE_CHECKS_H_
#define TRNBENCH_TESTS_FUZZ_BASELINE_CHECKS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "reports/comparison_report.h"
#include "tests/fuzz/fuzz_check.h"

namespace trn::fuzz {

inline void CheckBaselineOrResults(const uint8_t* data, size_t size,
                                   const char* label) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<Baseline>> parsed =
      ParseBaselineOrResults(text, label, 0.95);
  if (!parsed.ok()) {
    CheckRefusal(parsed.status(), label);
    return;
  }
  for (const Baseline& b : *parsed) {
    // Anything accepted can be saved as a baseline and read back the same:
    // otherwise `--save-baseline` could write a file the gate refuses.
    const std::string again_text = BaselineToJsonText(b);
    absl::StatusOr<std::vector<Baseline>> again =
        ParseBaselineOrResults(again_text, "round_trip.json", 0.95);
    Require(again.ok() && again->size() == 1,
            "an accepted baseline survives a save and a load",
            again.ok() ? again_text : again.status().ToString());
    const Baseline& c = again->front();
    Require(c.workload == b.workload && c.device == b.device &&
                c.seed == b.seed && c.schedule.repeat == b.schedule.repeat &&
                c.metrics.size() == b.metrics.size(),
            "a round trip keeps the identity and schedule", again_text);
    for (size_t i = 0; i < b.metrics.size(); ++i) {
      Require(c.metrics[i].name == b.metrics[i].name &&
                  c.metrics[i].samples == b.metrics[i].samples,
              "a round trip keeps every sample", b.metrics[i].name);
    }
  }
  // What the reader promises the gate: every accepted sample is finite and
  // not negative, and the times and rates it compares as logarithms are
  // > 0 (a 0 or a negative sample once silenced a metric).
  for (const Baseline& b : *parsed) {
    for (const MetricResult& m : b.metrics) {
      const bool log_scale = m.name == "device_time_us" ||
                             m.name == "wall_time_us" || m.name == "ncl_us" ||
                             m.name == "latency_us" ||
                             m.name == "throughput_per_s";
      for (double x : m.samples) {
        Require(std::isfinite(x) && x >= 0 && (!log_scale || x > 0),
                "accepted samples are finite, >= 0, and > 0 for times and "
                "rates",
                m.name);
      }
    }
  }
  // With --allow-unchecked a file compared with itself is always a report:
  // the same metrics on both sides, so nothing can be missing.
  CompareOptions lenient;
  lenient.allow_unchecked = true;
  absl::StatusOr<ComparisonReport> lenient_report =
      CompareFiles(*parsed, *parsed, lenient);
  Require(lenient_report.ok(), "a file compared with itself is a report",
          lenient_report.ok() ? "" : lenient_report.status().ToString());
  // A file compared with itself is never a regression, whatever its
  // samples; and the report of any comparison renders, also as JSON.
  CompareOptions options;
  absl::StatusOr<ComparisonReport> report =
      CompareFiles(*parsed, *parsed, options);
  if (!report.ok()) {
    CheckRefusal(report.status(), label);
    return;
  }
  Require(!report->AnyRegression(), "a file is no regression of itself",
          std::string(text.substr(0, 300)));
  (void)RenderComparisonReport(*report);
  (void)ComparisonToJson(*report).dump(2);
}

}  // namespace trn::fuzz

#endif  // TRNBENCH_TESTS_FUZZ_BASELINE_CHECKS_H_
