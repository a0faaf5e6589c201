// The properties the baseline and results targets share: both file kinds go
// through ParseBaselineOrResults, and whatever it accepts is what the
// comparison and the gate then trust.
#ifndef TRNBENCH_TESTS_FUZZ_BASELINE_CHECKS_H_
#define TRNBENCH_TESTS_FUZZ_BASELINE_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/baseline_store.h"
#include "harness/comparison.h"
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
