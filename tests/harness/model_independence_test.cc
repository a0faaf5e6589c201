// The model's repeats are independent by construction (each draws from its
// own counter-based stream, keyed by seed, workload and repeat index); this
// checks that the serial-dependence pretest agrees (issue 26): over the
// shipped suite at n = 200, the share of series flagged autocorrelated is
// within the binomial range of the test's 1% level. Before the pretest
// ignored series that vary only by rounding (kSeriesResolution), 122 of
// 1771 such series (busy times, DMA figures: relative spread ~1e-15) were
// flagged with "rho" 0.2-0.5.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "harness/statistics/serial_dependence.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

TEST(ModelIndependence, ShippedSuiteFlagsAtTheTestsLevel) {
  const std::string root = TRNBENCH_SOURCE_DIR;
  auto profile = LoadDeviceProfile(root + "/device_model/profiles/trn1.json");
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto specs = LoadSpecDir(root + "/workloads/specs", profile->memory);
  ASSERT_TRUE(specs.ok()) << specs.status();
  int diagnosed = 0;
  int flagged = 0;
  int drifting = 0;
  int shifted = 0;
  for (uint64_t seed : {1, 2, 3, 4}) {
    RunOptions o;
    o.seed = seed;
    o.schedule.repeat = 200;
    for (const WorkloadSpec& s : *specs) {
      auto r = RunWorkload(s, *profile, o);
      ASSERT_TRUE(r.ok()) << r.status();
      for (const MetricResult& m : r->metrics) {
        const stats::SeriesDiagnostics d = stats::DiagnoseSeries(m.samples);
        if (std::isnan(d.p_autocorrelation)) continue;  // not diagnosed
        ++diagnosed;
        flagged += d.autocorrelated;
        drifting += d.drifting;
        shifted += d.shifted;
        if (d.autocorrelated) {
          std::printf("  flagged: seed %d %s %s rho %.3f p %.2g\n",
                      static_cast<int>(seed), s.name.c_str(), m.name.c_str(),
                      d.rho, d.p_autocorrelation);
        }
      }
    }
  }
  // Binomial(diagnosed, 0.01): mean + 3 sd. Metrics of one workload are
  // correlated with each other (ncl_us is device_time_us on NKI), so flags
  // come in small clusters; 3 sd leaves room for that and still fails at
  // the rate the issue found (3.6%).
  const double mean = 0.01 * diagnosed;
  const double bound = mean + 3 * std::sqrt(mean * 0.99);
  std::printf(
      "model series at n = 200, 4 seeds: %d diagnosed, %d autocorrelated "
      "(%.2f%%, bound %.1f), %d drifting, %d level-shifted\n",
      diagnosed, flagged, 100.0 * flagged / diagnosed, bound, drifting,
      shifted);
  EXPECT_GE(diagnosed, 200);
  EXPECT_LE(flagged, bound);
  EXPECT_LE(drifting, bound);
  EXPECT_LE(shifted, bound);
}

}  // namespace
}  // namespace trn
