#include "workloads/spec/published_figure.h"

#include <algorithm>
#include <cstddef>

#include "device_model/metrics.h"

namespace trn {
namespace {

struct UnitScale {
  std::string_view unit;
  std::string_view metric_unit;
  double factor;  // metric_unit per unit
};

constexpr UnitScale kUnits[] = {
    {"ns", "us", 1e-3},
    {"us", "us", 1.0},
    {"ms", "us", 1e3},
    {"s", "us", 1e6},
    {"GB/s", "GB/s", 1.0},
    {"1/s", "1/s", 1.0},
    {"B", "B", 1.0},
    {"KiB", "B", 1024.0},
    {"MiB", "B", 1048576.0},
    {"GiB", "B", 1073741824.0},
    {"fraction", "fraction", 1.0},
    {"%", "fraction", 0.01},
};

}  // namespace

bool IsEventMetric(std::string_view metric) {
  return std::find(std::begin(kEventMetrics), std::end(kEventMetrics),
                   metric) != std::end(kEventMetrics);
}

bool IsCompilerMetric(std::string_view metric) {
  return std::find(std::begin(kCompilerMetrics), std::end(kCompilerMetrics),
                   metric) != std::end(kCompilerMetrics);
}

std::string MetricUnit(std::string_view metric) {
  if (IsEventMetric(metric)) return "us";
  if (IsCompilerMetric(metric)) return "B";
  if (const MetricInfo* info = FindMetric(metric)) {
    return std::string(UnitSymbol(info->unit));
  }
  return "";
}

std::optional<double> UnitFactor(std::string_view unit,
                                 std::string_view metric_unit) {
  for (const UnitScale& u : kUnits) {
    if (u.unit == unit && u.metric_unit == metric_unit) return u.factor;
  }
  return std::nullopt;
}

std::string UnitsFor(std::string_view metric_unit) {
  std::string out;
  for (const UnitScale& u : kUnits) {
    if (u.metric_unit != metric_unit) continue;
    if (!out.empty()) out += ", ";
    out.append(u.unit);
  }
  return out;
}

std::optional<Statistic> ParseStatistic(std::string_view text) {
  if (text == "mean") return Statistic{true, 0};
  // "p" and one to three digits, no leading zero but "p0", at most 100.
  if (text.size() < 2 || text.size() > 4 || text[0] != 'p') {
    return std::nullopt;
  }
  int value = 0;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  if ((text[1] == '0' && text.size() > 2) || value > 100) return std::nullopt;
  return Statistic{false, static_cast<double>(value)};
}

}  // namespace trn
