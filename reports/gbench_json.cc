#include "reports/gbench_json.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device_model/unit.h"
#include "nlohmann/json.hpp"

namespace trn {
namespace {

using nlohmann::ordered_json;

// Google Benchmark's time_unit: the model's microseconds times 1000.
constexpr char kTimeUnit[] = "ns";
constexpr double kPerMicrosecond = 1000.0;

struct Aggregate {
  const char* name;
  const char* unit;  // aggregate_unit: "time", or "percentage" for cv
  double (*get)(const stats::Summary&);
  bool is_time;  // scaled to kTimeUnit
};
constexpr Aggregate kAggregates[] = {
    {"mean", "time", [](const stats::Summary& s) { return s.mean; }, true},
    {"median", "time", [](const stats::Summary& s) { return s.median; }, true},
    {"stddev", "time", [](const stats::Summary& s) { return s.stddev; }, true},
    // Google Benchmark's cv is a fraction despite the unit's name.
    {"cv", "percentage", [](const stats::Summary& s) { return s.cv; }, false},
};

bool IsTimeMetric(const MetricResult& m) {
  return UnitFromSymbol(m.unit) == Unit::kMicroseconds;
}

// A time metric that is zero in every run (an engine the workload never
// uses) is no benchmark: nothing ran.
bool NeverRan(const MetricResult& m) {
  for (double x : m.samples) {
    if (x != 0) return false;
  }
  return true;
}

void AddCounters(ordered_json& j, const WorkloadResult& w, size_t k) {
  for (const MetricResult& m : w.metrics) {
    if (IsTimeMetric(m) || k >= m.samples.size()) continue;
    if (std::isfinite(m.samples[k])) j[m.name] = m.samples[k];
  }
}

void AddAggregateCounters(ordered_json& j, const WorkloadResult& w,
                          const Aggregate& a) {
  for (const MetricResult& m : w.metrics) {
    if (IsTimeMetric(m)) continue;
    const double v = a.get(m.summary);
    if (std::isfinite(v)) j[m.name] = v;
  }
}

// The metric that stands for the workload in compare.py's table.
const MetricResult* Primary(const WorkloadResult& w) {
  for (const char* name : {"device_time_us", "ncl_us"}) {
    const MetricResult* m = w.Find(name);
    if (m != nullptr && IsTimeMetric(*m) && !NeverRan(*m)) return m;
  }
  for (const MetricResult& m : w.metrics) {
    if (IsTimeMetric(m) && !NeverRan(m)) return &m;
  }
  return nullptr;
}

bool Exported(const WorkloadResult& w, const MetricResult& m,
              const std::vector<std::string>& metrics) {
  if (!IsTimeMetric(m) || NeverRan(m)) return false;
  if (&m == Primary(w)) return true;
  for (const std::string& name : metrics) {
    if (name == "all" || name == m.name) return true;
  }
  return false;
}

}  // namespace

std::string GbenchJson(const RunResult& run,
                       const std::vector<std::string>& metrics) {
  ordered_json doc;
  // Google Benchmark's context describes the machine that ran; here that is
  // the timing model. "date", "host_name" and "load_avg" would make the
  // file differ between identical runs, so they are left out or empty.
  ordered_json context;
  context["executable"] = "trnbench";
  context["num_cpus"] = 1;
  context["mhz_per_cpu"] = 0;
  context["cpu_scaling_enabled"] = false;
  context["caches"] = ordered_json::array();
  context["load_avg"] = ordered_json::array();
  context["library_build_type"] = "release";
  // How this file maps results onto the format (docs/reports.md).
  context["trnbench_format_version"] = 2;
  context["trnbench_version"] = run.trnbench_version;
  context["model_version"] = run.model_version;
  context["device"] = run.device;
  context["device_hash"] = run.device_hash;
  context["seed"] = run.seed;
  context["wait"] = run.schedule.wait;
  context["warmup"] = run.schedule.warmup;
  context["repeat"] = run.schedule.repeat;
  context["confidence"] = run.confidence;
  doc["context"] = std::move(context);

  ordered_json benchmarks = ordered_json::array();
  int family = 0;
  for (const WorkloadResult& w : run.workloads) {
    int instance = 0;
    const MetricResult* primary = Primary(w);
    for (const MetricResult& m : w.metrics) {
      if (!Exported(w, m, metrics)) continue;
      const std::string name = absl::StrCat(w.name, "/", m.name);
      const bool counters = &m == primary;
      const auto reps = static_cast<int64_t>(m.samples.size());
      auto common = [&](ordered_json& j, const std::string& shown,
                        const char* run_type) {
        j["name"] = shown;
        j["family_index"] = family;
        j["per_family_instance_index"] = instance;
        j["run_name"] = name;
        j["run_type"] = run_type;
        j["repetitions"] = reps;
      };
      for (int64_t k = 0; k < reps; ++k) {
        const double v = m.samples[static_cast<size_t>(k)];
        // compare.py's overall geometric mean is over every iteration's
        // time: one zero makes it zero, and compare.py drops the row.
        if (!std::isfinite(v) || v <= 0) continue;
        ordered_json j;
        common(j, name, "iteration");
        j["repetition_index"] = k;
        j["threads"] = 1;
        j["iterations"] = 1;
        // The model has no CPU time distinct from the figure itself.
        j["real_time"] = v * kPerMicrosecond;
        j["cpu_time"] = v * kPerMicrosecond;
        j["time_unit"] = kTimeUnit;
        if (counters) AddCounters(j, w, static_cast<size_t>(k));
        benchmarks.push_back(std::move(j));
      }
      if (reps >= 2) {
        for (const Aggregate& a : kAggregates) {
          const double v = a.get(m.summary);
          if (!std::isfinite(v)) continue;
          ordered_json j;
          common(j, absl::StrCat(name, "_", a.name), "aggregate");
          j["threads"] = 1;
          j["aggregate_name"] = a.name;
          j["aggregate_unit"] = a.unit;
          j["iterations"] = reps;
          j["real_time"] = a.is_time ? v * kPerMicrosecond : v;
          j["cpu_time"] = a.is_time ? v * kPerMicrosecond : v;
          j["time_unit"] = kTimeUnit;
          if (counters) AddAggregateCounters(j, w, a);
          benchmarks.push_back(std::move(j));
        }
      }
      ++instance;
    }
    ++family;
  }
  doc["benchmarks"] = std::move(benchmarks);
  return doc.dump(2) + "\n";
}

}  // namespace trn
