#include "harness/gate/baseline_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "harness/gate/samples_checksum.h"
#include "harness/import/measurement_json.h"
#include "harness/runner/measured_metrics.h"
#include "harness/runner/summary_json.h"
#include "nlohmann/json.hpp"
#include "support/input_error.h"
#include "support/input_file.h"
#include "support/json_reader.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr char kBaselineSchema[] = "trnbench.baseline";
constexpr char kResultsSchema[] = "trnbench.results";

// What the reader uses of a baseline or results file; everything else (the
// stored summaries, op tables, a comparison, fields of later versions) is
// parsed but never stored, so memory follows what is read, not what the
// file holds.
const JsonShape kScalar{.scalar = true};
const JsonShape kSamples{.elements = &kScalar};
const JsonShape kMetric{{{"unit", &kScalar},
                         {"lower_is_better", &kScalar},
                         {"samples", &kSamples},
                         {"samples_checksum", &kScalar},
                         // A measured summary without samples (import).
                         {"percentiles", nullptr}}};
const JsonShape kMetrics{.any_key = true, .any = &kMetric};
const JsonShape kSchedule{
    {{"wait", &kScalar}, {"warmup", &kScalar}, {"repeat", &kScalar}}};
// A baseline's profile parameters (device.params): any name, a number.
const JsonShape kDeviceParams{.any_key = true, .any = &kScalar};
const JsonShape kDevice{{{"name", &kScalar},
                         {"content_hash", &kScalar},
                         {"params", &kDeviceParams}}};
const JsonShape kProvenance{{{"spec_file", &kScalar},
                             {"spec_hash", &kScalar},
                             {"trnbench_version", &kScalar},
                             {"model_version", &kScalar},
                             {"seed", &kScalar},
                             {"schedule", &kSchedule},
                             {"created", &kScalar},
                             {"git_commit", &kScalar},
                             {"noise_threshold", &kScalar}}};
const JsonShape kWorkload{{{"name", &kScalar},
                           {"family", &kScalar},
                           {"mode", &kScalar},
                           {"spec_file", &kScalar},
                           {"spec_hash", &kScalar},
                           {"noise_threshold", &kScalar},
                           {"metrics", &kMetrics}}};
const JsonShape kWorkloads{.elements = &kWorkload};
const JsonShape kDocument{{{"schema", &kScalar},
                           {"source", &kScalar},
                           {"measurement", nullptr},
                           {"schema_version", &kScalar},
                           {"workload", &kScalar},
                           {"family", &kScalar},
                           {"mode", &kScalar},
                           {"device", &kDevice},
                           {"provenance", &kProvenance},
                           {"metrics", &kMetrics},
                           {"trnbench_version", &kScalar},
                           {"model_version", &kScalar},
                           {"seed", &kScalar},
                           {"schedule", &kSchedule},
                           {"workloads", &kWorkloads}}};

// Workload names reach file names (`<name>.json` under --save-baseline) and
// one-line messages. trnbench writes spec names ([a-z][a-z0-9_]*), sweep
// points (`name[tensor=dims]`) and imported names (letters, digits, '_',
// '-', '.'), so anything else in a file was not written by it.
absl::Status CheckWorkloadName(const JsonReader& r, const JsonLocation& at,
                               const std::string& name) {
  constexpr size_t kMaxName = 256;
  bool ok = !name.empty() && name.size() <= kMaxName && name[0] != '.';
  for (char c : name) {
    // Printable ASCII apart from space, '/' and '\\'.
    ok = ok && c > ' ' && c < 0x7f && c != '/' && c != '\\';
  }
  if (ok) return absl::OkStatus();
  return r.Error(
      at, absl::StrCat("workload name \"", EscapeControl(name),
                       "\" is not one trnbench writes; expected 1 to 256 "
                       "printable ASCII characters, no space, '/' or "
                       "'\\', not starting with '.'"));
}

absl::StatusOr<Schedule> ReadSchedule(const JsonReader& r, const json& obj,
                                      std::string_view path) {
  TRN_ASSIGN_OR_RETURN(const json* s, r.Required(obj, path, "schedule"));
  const std::string sp = JsonChild(path, "schedule");
  Schedule out;
  for (auto [key, min, field] : {std::tuple{"wait", 0, &out.wait},
                                 {"warmup", 0, &out.warmup},
                                 {"repeat", 1, &out.repeat}}) {
    TRN_ASSIGN_OR_RETURN(const json* v, r.Required(*s, sp, key));
    TRN_ASSIGN_OR_RETURN(*field, r.Int(*v, {sp, key}, min, int64_t{1} << 40));
  }
  return out;
}

// Optional: files of specs without a noise_threshold (and files written
// before it was recorded) have none.
absl::StatusOr<double> ReadThreshold(const JsonReader& r, const json& obj,
                                     std::string_view path) {
  const json* t = JsonReader::Optional(obj, "noise_threshold");
  if (t == nullptr) return std::numeric_limits<double>::quiet_NaN();
  return r.Number(*t, {path, "noise_threshold"},
                  {.min = 0, .max = 1, .max_open = true},
                  "a number in [0, 1), such as 0.02 for 2%");
}

// A measured file's metrics each hold their own samples (any count), or no
// samples and the "percentiles" of a summary without samples; the model's
// hold schedule.repeat samples.
absl::Status ReadMetrics(const JsonReader& r, const json& obj,
                         std::string_view path, int64_t repeat, bool measured,
                         double confidence, std::vector<MetricResult>& out) {
  TRN_ASSIGN_OR_RETURN(const json* ms, r.Required(obj, path, "metrics"));
  const std::string mp = JsonChild(path, "metrics");
  constexpr std::string_view kMetricsExpected = "a non-empty object of metrics";
  TRN_RETURN_IF_ERROR(r.Object(*ms, mp, kMetricsExpected));
  if (ms->empty()) return r.Expected(mp, kMetricsExpected, *ms);
  for (const auto& [name, m] : ms->items()) {
    const std::string p = JsonChild(mp, name);
    const MetricInfo* info = FindAnyMetric(name);
    if (info == nullptr) {
      return r.Error(p, "unknown metric (this trnbench does not know it)");
    }
    TRN_ASSIGN_OR_RETURN(const json* samples, r.Required(m, p, "samples"));
    TRN_RETURN_IF_ERROR(
        r.Array(*samples, {p, "samples"}, "an array of numbers"));
    std::vector<std::pair<double, double>> percentiles;
    if (auto pc = m.find("percentiles"); measured && pc != m.end()) {
      TRN_ASSIGN_OR_RETURN(percentiles,
                           import::PercentilesFromJson(
                               *pc, r.file(), JsonChild(p, "percentiles")));
    }
    // A percentile is a value of the metric: the samples' rule applies
    // (> 0 for times and rates, >= 0 for the others).
    for (const auto& [pct, value] : percentiles) {
      if (!(value > 0) && (MustBePositive(name) || value < 0)) {
        return r.Error(
            JsonChild(JsonChild(p, "percentiles"), absl::StrFormat("%g", pct)),
            absl::StrCat("expected a ",
                         MustBePositive(name) ? "" : "non-negative ",
                         MustBePositive(name) ? "time or rate > 0" : "value",
                         " (a percentile of ", name, "), found ",
                         absl::StrFormat("%g", value)));
      }
    }
    if (measured && samples->empty() && percentiles.empty()) {
      return r.Error({p, "samples"},
                     "expected at least one sample, or the percentiles of a "
                     "summary without samples");
    }
    if (!measured && static_cast<int64_t>(samples->size()) != repeat) {
      return r.Error(
          {p, "samples"},
          absl::StrCat("expected ", repeat,
                       " samples (schedule.repeat), found ", samples->size()));
    }
    // Checked when given (trnbench always writes it): a file that says "ms"
    // is refused rather than read as microseconds.
    const auto unit = m.is_object() ? m.find("unit") : m.end();
    if (unit != m.end() &&
        (!unit->is_string() || *unit != std::string(UnitSymbol(info->unit)))) {
      return r.Error(
          {p, "unit"},
          absl::StrCat("expected \"", std::string(UnitSymbol(info->unit)),
                       "\" (the unit of ", name, "), found ", unit->dump()));
    }
    MetricResult mr;
    mr.name = name;
    mr.unit = std::string(UnitSymbol(info->unit));
    mr.lower_is_better = info->lower_is_better;
    mr.samples.reserve(samples->size());
    const bool positive = MustBePositive(name);
    const NumberBounds bounds{.min = 0, .min_open = positive};
    for (size_t i = 0; i < samples->size(); ++i) {
      const json& x = (*samples)[i];
      // Checked here so that the pointer is written only for a bad sample:
      // a file holds millions.
      if (!x.is_number() || !std::isfinite(x.get<double>()) ||
          !bounds.Contain(x.get<double>())) {
        return r
            .Number(
                x, {JsonChild(p, "samples"), i}, bounds,
                positive ? "a number > 0 (a time or rate)" : "a number >= 0")
            .status();
      }
      mr.samples.push_back(x.get<double>());
    }
    // Written since the checksum exists; files written before have none
    // and are read as they always were.
    if (auto sum = m.find("samples_checksum"); sum != m.end()) {
      const std::string computed = SamplesChecksum(mr.samples);
      if (!sum->is_string() || *sum != computed) {
        return r.Error(
            {p, "samples"},
            absl::StrCat(
                "the samples do not match samples_checksum (",
                sum->is_string() ? sum->get<std::string>() : sum->dump(),
                " recorded, ", computed,
                " computed): the file is corrupt or was "
                "edited; restore it or save it again"));
      }
    }
    // The stored summary is for people; comparisons use the samples.
    mr.percentiles = std::move(percentiles);
    mr.summary = mr.samples.empty()
                     ? import::SummaryFromPercentiles(mr.percentiles)
                     : stats::Summarize(mr.samples, confidence);
    out.push_back(std::move(mr));
  }
  return absl::OkStatus();
}

// "source" and, for a measurement, its "measurement" provenance. A file
// written before measurements could be imported has neither: the model.
absl::Status ReadSource(const JsonReader& r, const json& j, Baseline& b) {
  const json* source = JsonReader::Optional(j, "source");
  if (source == nullptr) return absl::OkStatus();
  static constexpr std::string_view kSources[] = {kSourceModel,
                                                  kSourceMeasured};
  TRN_ASSIGN_OR_RETURN(const size_t i,
                       r.Enum(*source, "/source", "source", kSources));
  b.source = std::string(kSources[i]);
  if (!b.measured()) return absl::OkStatus();
  TRN_ASSIGN_OR_RETURN(const json* m, r.Required(j, "", "measurement"));
  TRN_ASSIGN_OR_RETURN(
      b.measurement, import::MeasurementFromJson(*m, r.file(), "/measurement"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Baseline>> ParseBaselineDoc(const JsonReader& r,
                                                       const json& j,
                                                       double confidence) {
  Baseline b;
  b.schema_version = kBaselineSchemaVersion;
  TRN_ASSIGN_OR_RETURN(b.workload, r.RequiredString(j, "", "workload"));
  TRN_RETURN_IF_ERROR(CheckWorkloadName(r, "/workload", b.workload));
  TRN_ASSIGN_OR_RETURN(b.family, r.RequiredString(j, "", "family"));
  TRN_ASSIGN_OR_RETURN(b.mode, r.RequiredString(j, "", "mode"));
  TRN_ASSIGN_OR_RETURN(const json* dev, r.Required(j, "", "device"));
  TRN_ASSIGN_OR_RETURN(b.device, r.RequiredString(*dev, "/device", "name"));
  TRN_ASSIGN_OR_RETURN(b.device_hash,
                       r.RequiredString(*dev, "/device", "content_hash"));
  if (const json* params = JsonReader::Optional(*dev, "params")) {
    TRN_RETURN_IF_ERROR(
        r.Object(*params, "/device/params",
                 "an object of profile parameter medians (numbers)"));
    for (const auto& [key, value] : params->items()) {
      TRN_ASSIGN_OR_RETURN(
          const double x, r.Number(value, JsonLocation("/device/params", key)));
      b.device_params.emplace_back(key, x);
    }
  }
  TRN_ASSIGN_OR_RETURN(const json* prov, r.Required(j, "", "provenance"));
  const std::string pp = "/provenance";
  TRN_ASSIGN_OR_RETURN(b.spec_file, r.RequiredString(*prov, pp, "spec_file"));
  TRN_ASSIGN_OR_RETURN(b.spec_hash, r.RequiredString(*prov, pp, "spec_hash"));
  TRN_ASSIGN_OR_RETURN(b.noise_threshold, ReadThreshold(r, *prov, pp));
  TRN_ASSIGN_OR_RETURN(b.trnbench_version,
                       r.RequiredString(*prov, pp, "trnbench_version"));
  TRN_ASSIGN_OR_RETURN(b.model_version,
                       r.RequiredString(*prov, pp, "model_version"));
  TRN_ASSIGN_OR_RETURN(const json* seed, r.Required(*prov, pp, "seed"));
  TRN_ASSIGN_OR_RETURN(b.seed, r.Uint(*seed, {pp, "seed"}));
  TRN_ASSIGN_OR_RETURN(b.schedule, ReadSchedule(r, *prov, pp));
  TRN_ASSIGN_OR_RETURN(b.created, r.RequiredString(*prov, pp, "created"));
  TRN_ASSIGN_OR_RETURN(const json* commit, r.Required(*prov, pp, "git_commit"));
  if (commit->is_string()) {
    b.git_commit = commit->get<std::string>();
  } else if (!commit->is_null()) {
    return r.Expected({pp, "git_commit"}, "a string or null", *commit);
  }
  TRN_RETURN_IF_ERROR(ReadSource(r, j, b));
  TRN_RETURN_IF_ERROR(ReadMetrics(r, j, "", b.schedule.repeat, b.measured(),
                                  confidence, b.metrics));
  b.file = r.file();
  return std::vector<Baseline>{std::move(b)};
}

// What every workload of a results file shares: all that is read before
// the workloads.
absl::StatusOr<Baseline> ReadResultsCommon(const JsonReader& r, const json& j) {
  Baseline common;
  TRN_ASSIGN_OR_RETURN(const json* dev, r.Required(j, "", "device"));
  TRN_ASSIGN_OR_RETURN(common.device,
                       r.RequiredString(*dev, "/device", "name"));
  TRN_ASSIGN_OR_RETURN(common.device_hash,
                       r.RequiredString(*dev, "/device", "content_hash"));
  TRN_ASSIGN_OR_RETURN(common.trnbench_version,
                       r.RequiredString(j, "", "trnbench_version"));
  TRN_ASSIGN_OR_RETURN(common.model_version,
                       r.RequiredString(j, "", "model_version"));
  TRN_ASSIGN_OR_RETURN(const json* seed, r.Required(j, "", "seed"));
  TRN_ASSIGN_OR_RETURN(common.seed, r.Uint(*seed, {"", "seed"}));
  TRN_ASSIGN_OR_RETURN(common.schedule, ReadSchedule(r, j, ""));
  common.file = r.file();
  TRN_RETURN_IF_ERROR(ReadSource(r, j, common));
  return common;
}

// Workload `i` of a results file; `names` holds the names of the workloads
// before it.
absl::StatusOr<Baseline> ReadWorkload(const JsonReader& r, const json& w,
                                      size_t i, const Baseline& common,
                                      double confidence,
                                      absl::flat_hash_set<std::string>& names) {
  const std::string p = JsonChild("/workloads", i);
  Baseline b = common;
  TRN_ASSIGN_OR_RETURN(b.workload, r.RequiredString(w, p, "name"));
  TRN_RETURN_IF_ERROR(CheckWorkloadName(r, {p, "name"}, b.workload));
  TRN_ASSIGN_OR_RETURN(b.family, r.RequiredString(w, p, "family"));
  TRN_ASSIGN_OR_RETURN(b.mode, r.RequiredString(w, p, "mode"));
  TRN_ASSIGN_OR_RETURN(b.spec_file, r.RequiredString(w, p, "spec_file"));
  TRN_ASSIGN_OR_RETURN(b.spec_hash, r.RequiredString(w, p, "spec_hash"));
  TRN_ASSIGN_OR_RETURN(b.noise_threshold, ReadThreshold(r, w, p));
  TRN_RETURN_IF_ERROR(ReadMetrics(r, w, p, b.schedule.repeat, b.measured(),
                                  confidence, b.metrics));
  if (!names.insert(b.workload).second) {
    return r.Error({p, "name"},
                   absl::StrCat("workload ", b.workload, " appears twice"));
  }
  b.pointer = p;
  return b;
}

// trnbench never writes an empty one; read as "nothing to compare", it
// would let a gate pass on a file that lost its content.
absl::Status EmptyWorkloads(const JsonReader& r) {
  return r.Error("/workloads",
                 "expected at least one workload, found an empty array");
}

absl::StatusOr<std::vector<Baseline>> ParseResultsDoc(const JsonReader& r,
                                                      const json& j,
                                                      double confidence) {
  TRN_ASSIGN_OR_RETURN(const Baseline common, ReadResultsCommon(r, j));
  TRN_ASSIGN_OR_RETURN(const json* ws, r.Required(j, "", "workloads"));
  TRN_RETURN_IF_ERROR(r.Array(*ws, "/workloads"));
  if (ws->empty()) return EmptyWorkloads(r);
  std::vector<Baseline> out;
  out.reserve(ws->size());
  absl::flat_hash_set<std::string> names;
  for (size_t i = 0; i < ws->size(); ++i) {
    TRN_ASSIGN_OR_RETURN(
        Baseline b, ReadWorkload(r, (*ws)[i], i, common, confidence, names));
    out.push_back(std::move(b));
  }
  return out;
}

// The schema of a parsed file: true for a baseline, false for results.
absl::StatusOr<bool> ReadSchema(const JsonReader& r, const json& j) {
  TRN_ASSIGN_OR_RETURN(const json* schema, r.Required(j, "", "schema"));
  static constexpr std::string_view kSchemas[] = {kBaselineSchema,
                                                  kResultsSchema};
  TRN_ASSIGN_OR_RETURN(const size_t i,
                       r.Enum(*schema, "/schema", "schema", kSchemas));
  const bool baseline = i == 0;
  TRN_RETURN_IF_ERROR(r.SchemaVersion(
      j, "", baseline ? kBaselineSchemaVersion : kResultsSchemaVersion));
  return baseline;
}

// The typed reading of a parsed file.
absl::StatusOr<std::vector<Baseline>> ParseDocument(const JsonReader& r,
                                                    const json& j,
                                                    double confidence) {
  TRN_RETURN_IF_ERROR(r.Object(j, ""));
  TRN_ASSIGN_OR_RETURN(const bool baseline, ReadSchema(r, j));
  return baseline ? ParseBaselineDoc(r, j, confidence)
                  : ParseResultsDoc(r, j, confidence);
}

// Reads the workloads of a results file one at a time as they are parsed,
// when what they depend on came before them (trnbench writes them last),
// with the checks and the messages of ParseResultsDoc.
class WorkloadStream : public JsonElementSink {
 public:
  WorkloadStream(const JsonReader& r, double confidence)
      : r_(r), confidence_(confidence) {}

  std::string_view key() const override { return "workloads"; }

  bool Open(const json& root) override {
    // Anything missing or wrong before the workloads may yet be set right
    // by a key after them: then the file is read as a whole.
    const auto baseline = ReadSchema(r_, root);
    if (!baseline.ok() || *baseline) return false;
    auto common = ReadResultsCommon(r_, root);
    if (!common.ok()) return false;
    common_ = *std::move(common);
    root_keys_ = root.size();
    open_ = true;
    return true;
  }

  void Element(size_t index, json&& element) override {
    ++count_;
    if (status_.ok()) {
      auto b = ReadWorkload(r_, element, index, common_, confidence_, names_);
      if (b.ok()) {
        out_.push_back(*std::move(b));
      } else {
        status_ = b.status();
        out_.clear();
      }
    }
    ReleaseJsonTree(element);
  }

  // Whether the workloads were read here from `root`, the parsed file:
  // only if no key came after them, as one could change how they read
  // (a "source" says they were measured).
  bool Used(const json& root) const {
    return open_ && root.size() == root_keys_;
  }
  // Whether it took the workloads (the tree has an empty array instead).
  bool opened() const { return open_; }

  absl::StatusOr<std::vector<Baseline>> Take() {
    if (count_ == 0) return EmptyWorkloads(r_);
    if (!status_.ok()) return status_;
    return std::move(out_);
  }

 private:
  const JsonReader& r_;
  double confidence_;
  bool open_ = false;
  size_t root_keys_ = 0;
  Baseline common_;
  size_t count_ = 0;
  absl::Status status_;
  absl::flat_hash_set<std::string> names_;
  std::vector<Baseline> out_;
};

}  // namespace

const MetricResult* Baseline::Find(absl::string_view metric) const {
  for (const auto& m : metrics) {
    if (m.name == metric) return &m;
  }
  return nullptr;
}

std::vector<Baseline> BaselinesFromRun(const RunResult& run,
                                       const std::string& created,
                                       const std::string& git_commit) {
  std::vector<Baseline> out;
  for (const auto& w : run.workloads) {
    Baseline b;
    b.workload = w.name;
    b.family = w.family;
    b.mode = w.mode;
    b.device = run.device;
    b.device_hash = run.device_hash;
    b.device_params = run.device_params;
    b.spec_file = w.spec_file;
    b.spec_hash = w.spec_hash;
    b.noise_threshold = w.noise_threshold;
    b.trnbench_version = run.trnbench_version;
    b.model_version = run.model_version;
    b.seed = run.seed;
    b.schedule = run.schedule;
    b.created = created;
    b.git_commit = git_commit;
    b.metrics = w.metrics;
    b.source = run.source;
    b.measurement = run.measurement;
    out.push_back(std::move(b));
  }
  return out;
}

std::string BaselineToJsonText(const Baseline& b) {
  ordered_json j;
  j["schema"] = kBaselineSchema;
  j["schema_version"] = kBaselineSchemaVersion;
  j["workload"] = b.workload;
  j["family"] = b.family;
  j["mode"] = b.mode;
  j["device"] = {{"name", b.device}, {"content_hash", b.device_hash}};
  if (!b.device_params.empty()) {
    ordered_json params = ordered_json::object();
    for (const auto& [key, value] : b.device_params) params[key] = value;
    j["device"]["params"] = std::move(params);
  }
  ordered_json prov;
  prov["spec_file"] = b.spec_file;
  prov["spec_hash"] = b.spec_hash;
  if (std::isfinite(b.noise_threshold)) {
    prov["noise_threshold"] = b.noise_threshold;
  }
  prov["trnbench_version"] = b.trnbench_version;
  prov["model_version"] = b.model_version;
  prov["seed"] = b.seed;
  prov["schedule"] = {{"wait", b.schedule.wait},
                      {"warmup", b.schedule.warmup},
                      {"repeat", b.schedule.repeat}};
  prov["created"] = b.created;
  prov["git_commit"] =
      b.git_commit.empty() ? ordered_json(nullptr) : ordered_json(b.git_commit);
  j["provenance"] = std::move(prov);
  // Only a measurement says where it came from: baselines of the model
  // keep the bytes they had before measurements could be imported.
  if (b.measured()) {
    j["source"] = b.source;
    j["measurement"] = import::MeasurementToJson(b.measurement);
  }
  ordered_json ms = ordered_json::object();
  for (const auto& m : b.metrics) {
    ordered_json mj;
    mj["unit"] = m.unit;
    mj["lower_is_better"] = m.lower_is_better;
    mj["summary"] = SummaryToJson(m.summary);
    ordered_json samples = ordered_json::array();
    for (double x : m.samples) samples.push_back(JsonNumber(x));
    mj["samples"] = std::move(samples);
    if (!m.percentiles.empty()) {
      mj["percentiles"] = import::PercentilesToJson(m.percentiles);
    }
    mj["samples_checksum"] = SamplesChecksum(m.samples);
    ms[m.name] = std::move(mj);
  }
  j["metrics"] = std::move(ms);
  return j.dump(2) + "\n";
}

absl::StatusOr<std::vector<Baseline>> ParseBaselineOrResults(
    absl::string_view text, absl::string_view label, double confidence) {
  if (static_cast<int64_t>(text.size()) > kMaxBaselineBytes) {
    return InputError(
        std::string_view(label.data(), label.size()), "",
        absl::StrCat("file is larger than ", kMaxBaselineBytes >> 20, " MiB"));
  }
  const std::string_view doc(text.data(), text.size());
  const std::string_view name(label.data(), label.size());
  const JsonReader r(name);
  WorkloadStream stream(r, confidence);
  TRN_ASSIGN_OR_RETURN(json j,
                       ParseStrictJson(doc, name, {}, &kDocument, &stream));
  if (stream.Used(j)) {
    ReleaseJsonTree(j);
    return stream.Take();
  }
  if (stream.opened()) {
    // The workloads were read too early: read the file again, whole.
    ReleaseJsonTree(j);
    TRN_ASSIGN_OR_RETURN(j, ParseStrictJson(doc, name, {}, &kDocument));
  }
  auto out = ParseDocument(r, j, confidence);
  ReleaseJsonTree(j);
  return out;
}

absl::StatusOr<std::vector<Baseline>> LoadBaselineOrResults(
    const std::string& path, double confidence) {
  TRN_ASSIGN_OR_RETURN(
      const std::string text,
      ReadInputFile(path, kMaxBaselineBytes, "baseline or results file"));
  return ParseBaselineOrResults(text, path, confidence);
}

std::string BaselinePath(const std::string& dir, const std::string& workload) {
  return (std::filesystem::path(dir) / (workload + ".json")).string();
}

absl::StatusOr<std::vector<std::string>> BaselineFolderWorkloads(
    const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> out;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    const std::string name = p.filename().string();
    if (p.extension() != ".json" || name.front() == '.') continue;
    out.push_back(p.stem().string());
  }
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat(EscapeControl(dir),
                     ": cannot list the baseline folder: ", ec.message()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// True when `old_text` is the baseline `new_text` but for when and from
// which commit it was made: a refresh that changed nothing else leaves the
// file alone, so that it shows no diff in version control.
bool SameBaselineApartFromWhenAndWhere(const std::string& old_text,
                                       const std::string& new_text) {
  json a = json::parse(old_text, nullptr, /*allow_exceptions=*/false);
  json b = json::parse(new_text, nullptr, /*allow_exceptions=*/false);
  if (a.is_discarded() || b.is_discarded()) return false;
  for (json* doc : {&a, &b}) {
    auto p = doc->find("provenance");
    if (p == doc->end() || !p->is_object()) return false;
    p->erase("created");
    p->erase("git_commit");
  }
  return a == b;
}

}  // namespace

std::vector<std::string> BaselineFileNames(
    const std::vector<Baseline>& baselines) {
  std::vector<std::string> names;
  names.reserve(baselines.size());
  for (const auto& b : baselines) names.push_back(b.workload + ".json");
  return names;
}

absl::Status StageBaselines(const std::vector<Baseline>& baselines,
                            const std::string& dir, OutputTransaction& out,
                            int* unchanged) {
  std::vector<OutputFile> files;
  files.reserve(baselines.size());
  for (const auto& b : baselines) {
    std::string text = BaselineToJsonText(b);
    // Never write a baseline that the gate would refuse to read.
    if (static_cast<int64_t>(text.size()) > kMaxBaselineBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          BaselinePath(dir, b.workload), ": the baseline would be ",
          text.size() >> 20, " MiB; expected at most ", kMaxBaselineBytes >> 20,
          " MiB, which the gate can read back: lower `repeat`"));
    }
    // Read with the limits of any input: the old file may be anything.
    if (auto old_text = ReadInputFile(BaselinePath(dir, b.workload),
                                      kMaxBaselineBytes, "baseline file");
        old_text.ok() && SameBaselineApartFromWhenAndWhere(*old_text, text)) {
      if (unchanged != nullptr) ++*unchanged;
      continue;
    }
    files.push_back({b.workload + ".json", std::move(text)});
  }
  return out.StageFolder(dir, files);
}

absl::Status SaveBaselines(const std::vector<Baseline>& baselines,
                           const std::string& dir) {
  OutputTransaction out;
  out.PlanFolder("baseline folder", dir, BaselineFileNames(baselines));
  TRN_RETURN_IF_ERROR(out.Check());
  TRN_RETURN_IF_ERROR(StageBaselines(baselines, dir, out));
  return out.Commit();
}

std::string NowUtcIso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string CurrentGitCommit(const std::string& source_dir) {
  for (const char* var : {"TRNBENCH_GIT_COMMIT", "GITHUB_SHA"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return v;
  }
  std::string cmd =
      absl::StrCat("git -C '", source_dir, "' rev-parse HEAD 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  char buf[64] = {0};
  std::string out;
  if (std::fgets(buf, sizeof(buf), p) != nullptr) out = buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
    out.pop_back();
  return out.size() == 40 ? out : "";
}

}  // namespace trn
