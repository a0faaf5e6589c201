// SpecReader (workloads/loading/spec_reader.h): The optional "published"
// figures (docs/validation.md).
#include "workloads/loading/spec_reader.h"

namespace trn::spec_reader_internal {

// The optional "published" array: measurements of this workload on real
// hardware, for the validation suite (docs/validation.md).
absl::StatusOr<std::vector<PublishedFigure>> SpecReader::Published(
    const Json& v, const WorkloadSpec& spec) const {
  TRN_RETURN_IF_ERROR(r_.Array(v, "/published"));
  std::vector<PublishedFigure> out;
  for (size_t i = 0; i < v.size(); ++i) {
    TRN_ASSIGN_OR_RETURN(PublishedFigure f,
                         Figure(v[i], JsonChild("/published", i), spec));
    out.push_back(std::move(f));
  }
  return out;
}

absl::StatusOr<PublishedFigure> SpecReader::Figure(
    const Json& v, const std::string& path, const WorkloadSpec& spec) const {
  static constexpr std::string_view kKeys[] = {
      "metric", "statistic", "line",  "runs",   "figure",
      "unit",   "tolerance", "range", "device", "hardware",
      "method", "source",    "url",   "order",  "shape"};
  TRN_RETURN_IF_ERROR(r_.CheckKeys(v, path, kKeys, "a published figure"));
  PublishedFigure f;
  f.json_path = path;
  TRN_ASSIGN_OR_RETURN(f.metric, r_.RequiredString(v, path, "metric"));
  const std::string metric_unit = MetricUnit(f.metric);
  if (metric_unit.empty()) {
    std::vector<std::string_view> names;
    for (const MetricInfo& m : AllMetrics()) names.push_back(m.name);
    for (std::string_view m : kEventMetrics) names.push_back(m);
    for (std::string_view m : kCompilerMetrics) names.push_back(m);
    return r_.Error(JsonChild(path, "metric"),
                    absl::StrFormat("unknown metric \"%s\"; expected one of %s",
                                    f.metric, JoinNames(names)));
  }
  TRN_ASSIGN_OR_RETURN(f.statistic, r_.RequiredString(v, path, "statistic"));
  if (!ParseStatistic(f.statistic).has_value()) {
    return r_.Error(JsonChild(path, "statistic"),
                    absl::StrFormat("unknown statistic \"%s\"; expected "
                                    "\"mean\" or \"pN\" with N from 0 to 100 "
                                    "(\"p50\" is the median)",
                                    f.statistic));
  }
  if (const Json* line = JsonReader::Optional(v, "line")) {
    if (!IsEventMetric(f.metric)) {
      return r_.Error(JsonChild(path, "line"),
                      absl::StrFormat("key \"line\" applies only to the event "
                                      "metrics (%s), not to \"%s\"",
                                      JoinNames(kEventMetrics), f.metric));
    }
    TRN_ASSIGN_OR_RETURN(int64_t n, r_.Int(*line, JsonChild(path, "line"), 1,
                                           kInt32Max, "a positive integer"));
    f.line = static_cast<int>(n);
    if (!spec.kernel.has_value() || !HasLine(spec.kernel->loops, f.line)) {
      return r_.Error(
          JsonChild(path, "line"),
          absl::StrFormat("no op of the kernel has line %d", f.line));
    }
  } else if (IsEventMetric(f.metric)) {
    return r_.Error(JsonChild(path, "line"),
                    absl::StrFormat("required key \"line\" is missing: event "
                                    "metric \"%s\" measures the events of one "
                                    "kernel source line",
                                    f.metric));
  }
  if (const Json* runs = JsonReader::Optional(v, "runs")) {
    TRN_ASSIGN_OR_RETURN(
        f.runs, r_.Int(*runs, JsonChild(path, "runs"), 1, kMaxPublishedRuns,
                       "an integer from 1 to 1000000"));
  }
  TRN_ASSIGN_OR_RETURN(f.unit, r_.RequiredString(v, path, "unit"));
  TRN_ASSIGN_OR_RETURN(const Json* figure, r_.Required(v, path, "figure"));
  TRN_ASSIGN_OR_RETURN(
      f.figure, r_.Number(*figure, {path, "figure"},
                          {.min = 0, .min_open = true}, "a positive number"));
  if (!UnitFactor(f.unit, metric_unit).has_value()) {
    return r_.Error(
        JsonChild(path, "unit"),
        absl::StrFormat("unit \"%s\" does not fit metric \"%s\" "
                        "(in %s); expected one of %s",
                        f.unit, f.metric, metric_unit, UnitsFor(metric_unit)));
  }
  const Json* tolerance = JsonReader::Optional(v, "tolerance");
  const Json* range = JsonReader::Optional(v, "range");
  if ((tolerance == nullptr) == (range == nullptr)) {
    return r_.Error(
        JsonChild(path, tolerance == nullptr ? "tolerance" : "range"),
        "expected exactly one of \"tolerance\" (a fraction of the "
        "figure, 0.15 for ±15%) and \"range\" ([low, high] in the "
        "figure's unit)");
  }
  if (tolerance != nullptr) {
    TRN_ASSIGN_OR_RETURN(
        f.tolerance, r_.Number(*tolerance, {path, "tolerance"},
                               {.min = 0, .max = 1, .min_open = true},
                               "a number in (0, 1], such as 0.15 for ±15%"));
  } else {
    const std::string at = JsonChild(path, "range");
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
        !(*range)[1].is_number() || !((*range)[0].get<double>() >= 0) ||
        !((*range)[0].get<double>() <= (*range)[1].get<double>()) ||
        !std::isfinite((*range)[1].get<double>())) {
      return r_.Expected(at, "[low, high] with 0 <= low <= high", *range);
    }
    f.range = {(*range)[0].get<double>(), (*range)[1].get<double>()};
  }
  for (auto [key, out] : {std::pair{"device", &f.device},
                          {"hardware", &f.hardware},
                          {"method", &f.method},
                          {"source", &f.source}}) {
    TRN_ASSIGN_OR_RETURN(const Json* text, r_.Required(v, path, key));
    TRN_ASSIGN_OR_RETURN(*out, r_.NonEmptyString(*text, {path, key}));
  }
  TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "url", f.url));
  TRN_RETURN_IF_ERROR(r_.OptionalString(v, path, "order", f.order));
  if (const Json* shape = JsonReader::Optional(v, "shape")) {
    TRN_ASSIGN_OR_RETURN(f.shape,
                         r_.StringArray(*shape, JsonChild(path, "shape")));
    for (size_t i = 0; i < f.shape.size(); ++i) {
      auto parsed = ParseShapeOverride(f.shape[i]);
      if (!parsed.ok()) {
        return r_.Error(JsonChild(JsonChild(path, "shape"), i),
                        std::string(parsed.status().message()));
      }
      if (parsed->shapes.size() != 1) {
        return r_.Error(JsonChild(JsonChild(path, "shape"), i),
                        "expected one shape: a published figure is measured at "
                        "one point");
      }
    }
  }
  return f;
}

bool SpecReader::HasLine(const std::vector<NkiLoop>& loops, int line) {
  for (const NkiLoop& loop : loops) {
    for (const NkiOp& op : loop.body) {
      if (op.source_line == line || HasLine(op.loop, line)) return true;
    }
  }
  return false;
}

}  // namespace trn::spec_reader_internal
