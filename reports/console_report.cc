#include "reports/console_report.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/comparison.h"
#include "harness/serial_dependence.h"
#include "reports/measurement_text.h"
#include "reports/profile_report.h"
#include "reports/terminal.h"
#include "reports/text_table.h"

namespace trn {
namespace {

std::string Pct(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return absl::StrFormat("%.2f%%", fraction * 100.0);
}

std::string Interval(const stats::Interval& iv, std::string (*fmt)(double)) {
  if (!std::isfinite(iv.low) || !std::isfinite(iv.high)) return "n/a";
  return absl::StrCat("[", fmt(iv.low), ", ", fmt(iv.high), "]");
}

std::string Outliers(const stats::OutlierCounts& o) {
  int64_t severe = o.low_severe + o.high_severe;
  int64_t total = o.total();
  if (total == 0) return "0";
  return severe > 0 ? absl::StrFormat("%d (%d severe)", total, severe)
                    : absl::StrFormat("%d", total);
}

std::string Ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  return absl::StrFormat("%.2fx", r);
}

std::string Plain(double x) {
  if (!std::isfinite(x)) return "n/a";
  return absl::StrFormat("%.2f", x);
}

// Every metric of every measured workload: which ones a tool gives varies
// (steps of a trace, per-iteration latencies, a summary's percentiles).
std::string MeasuredTables(const RunResult& run, const std::string& level,
                           bool color) {
  std::string out;
  for (const auto& w : run.workloads) {
    absl::StrAppend(
        &out, "\n",
        Colorize(absl::StrCat(w.name, " · ", w.description, " (median, ", level,
                              " interval of the median)"),
                 Color::kBold, color),
        "\n");
    TextTable t({"metric", "n", "median", level + " interval", "p1", "p50",
                 "p99", "CV", "outliers"});
    for (const auto& m : w.metrics) {
      const auto& s = m.summary;
      auto f = [&m](double x) { return FormatInUnit(m.unit, x); };
      const bool summary_only = m.samples.empty();
      std::string iv = "n/a";
      if (summary_only) {
        iv = "none: percentiles only";
      } else if (std::isfinite(s.median_ci.low) &&
                 std::isfinite(s.median_ci.high)) {
        iv = absl::StrCat("[", f(s.median_ci.low), ", ", f(s.median_ci.high),
                          "]");
      }
      t.AddRow({m.name, summary_only ? "-" : absl::StrCat(s.n), f(s.median), iv,
                f(s.p01), f(s.p50), f(s.p99), Pct(s.cv),
                summary_only ? "-" : Outliers(s.outliers)});
    }
    out += t.Render("  ");
  }
  return out;
}

}  // namespace

std::string FormatInUnit(const std::string& unit, double x) {
  if (!std::isfinite(x)) return "n/a";
  if (unit == "us") return FormatMicros(x);
  if (unit == "fraction") return Pct(x);
  if (unit == "1/s") return absl::StrFormat("%.1f /s", x);
  return absl::StrFormat("%.4g %s", x, unit);
}

std::string FormatMicros(double us) {
  if (!std::isfinite(us)) return "n/a";
  double a = std::fabs(us);
  if (a >= 1e6) return absl::StrFormat("%.3f s", us / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.3f ms", us / 1e3);
  if (a >= 100) return absl::StrFormat("%.1f μs", us);
  return absl::StrFormat("%.2f μs", us);
}

std::string RenderConsoleReport(const RunResult& run, bool color) {
  std::string out;
  if (run.measured()) {
    absl::StrAppendFormat(&out, "trnbench %s · %s · %.0f%% intervals\n",
                          run.trnbench_version, MeasurementLine(run),
                          run.confidence * 100);
  } else {
    absl::StrAppendFormat(
        &out,
        "trnbench %s · device %s · seed %d · wait %d / warmup %d / repeat %d "
        "· %.0f%% intervals\n",
        run.trnbench_version, run.device, run.seed, run.schedule.wait,
        run.schedule.warmup, run.schedule.repeat, run.confidence * 100);
  }
  if (!run.device_calibrated) {
    absl::StrAppend(&out, UncalibratedWarning(run.device), "\n");
  }
  if (run.measured()) {
    out += MeasuredTables(run, absl::StrFormat("%.0f%%", run.confidence * 100),
                          color);
  }

  std::vector<std::string> families;
  for (const auto& w : run.workloads) {
    bool seen = false;
    for (const auto& f : families) seen = seen || f == w.family;
    if (!seen) families.push_back(w.family);
  }
  const std::string level = absl::StrFormat("%.0f%%", run.confidence * 100);
  for (const auto& family : families) {
    if (run.measured()) break;  // MeasuredTables showed every metric
    absl::StrAppend(&out, "\n",
                    Colorize(absl::StrCat(family,
                                          " · device time per iteration "
                                          "(median, ",
                                          level, " interval of the median)"),
                             Color::kBold, color),
                    "\n");
    TextTable t({"workload", "mode", "median", level + " interval", "p1", "p50",
                 "p99", "CV", "outliers", "speed-up", level + " interval"});
    bool any_nki = false;
    for (const auto& w : run.workloads) {
      if (w.family != family) continue;
      any_nki = any_nki || w.mode == "nki";
      const MetricResult* m = w.Find("device_time_us");
      if (m == nullptr) continue;
      const auto& s = m->summary;
      std::string speed =
          w.speedup.baseline.empty() ? "1.00x" : Ratio(w.speedup.ratio);
      std::string speed_iv = w.speedup.baseline.empty()
                                 ? "(reference)"
                                 : Interval(w.speedup.interval, Ratio);
      t.AddRow({w.name, w.mode, FormatMicros(s.median),
                Interval(s.median_ci, FormatMicros), FormatMicros(s.p01),
                FormatMicros(s.p50), FormatMicros(s.p99), Pct(s.cv),
                Outliers(s.outliers), speed, speed_iv});
    }
    out += t.Render("  ");
    for (const auto& w : run.workloads) {
      if (w.family == family && !w.speedup.baseline.empty()) {
        absl::StrAppendFormat(
            &out,
            "  speed-up = median device time of %s / median of the variant; "
            "percentile bootstrap, %d resamples, seed %d\n",
            w.speedup.baseline, w.speedup.resamples, w.speedup.bootstrap_seed);
        break;
      }
    }
    if (any_nki) {
      absl::StrAppend(
          &out, "\n",
          Colorize(absl::StrCat(
                       family, " · NKI benchmark figures (like nki.benchmark)"),
                   Color::kBold, color),
          "\n");
      TextTable n({"workload", "NCL p1", "NCL p50", "NCL p99", "L p1", "L p50",
                   "L p99", "throughput (median)", level + " interval"});
      for (const auto& w : run.workloads) {
        if (w.family != family || w.mode != "nki") continue;
        const MetricResult* ncl = w.Find("ncl_us");
        const MetricResult* lat = w.Find("latency_us");
        const MetricResult* thr = w.Find("throughput_per_s");
        if (ncl == nullptr || lat == nullptr || thr == nullptr) continue;
        n.AddRow(
            {w.name, FormatMicros(ncl->summary.p01),
             FormatMicros(ncl->summary.p50), FormatMicros(ncl->summary.p99),
             FormatMicros(lat->summary.p01), FormatMicros(lat->summary.p50),
             FormatMicros(lat->summary.p99),
             absl::StrFormat("%.1f /s", thr->summary.median),
             Interval(thr->summary.median_ci, Plain)});
      }
      out += n.Render("  ");
    }
    for (const auto& w : run.workloads) {
      if (w.family != family) continue;
      for (const auto& m : w.metrics) {
        if (!IsGatedMetric(m.name)) continue;  // the tables' metrics
        for (const auto& note : stats::DiagnosticNotes(m.summary.series)) {
          absl::StrAppend(&out, "  note: ", w.name, " ", m.name, " ", note,
                          "\n");
        }
      }
    }
  }

  for (const auto& w : run.workloads) {
    if (run.measured() && w.ops.empty()) continue;
    absl::StrAppend(
        &out, "\n",
        Colorize(run.measured()
                     ? absl::StrCat(w.name,
                                    " · per-op averages per step, sorted by "
                                    "self device time (recomputed from the "
                                    "trace's events)")
                     : absl::StrFormat(
                           "%s · per-op averages per iteration, sorted by "
                           "self device time (%d hardware execution%s, %d "
                           "instructions per run)",
                           w.name, w.dispatches, w.dispatches == 1 ? "" : "s",
                           w.instructions),
                 Color::kBold, color),
        "\n");
    TextTable t(
        {"Name", "Self CPU", "Self device", "Device total", "# of Calls"});
    for (const auto& op : w.ops) {
      t.AddRow({op.name, FormatMicros(op.self_cpu_us),
                FormatMicros(op.self_device_us),
                FormatMicros(op.device_total_us),
                absl::StrFormat("%g", op.calls)});
    }
    out += t.Render("  ");
  }
  return out;
}

}  // namespace trn
