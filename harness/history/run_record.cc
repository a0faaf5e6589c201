#include "harness/history/run_record.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/gate/baseline_store.h"
#include "harness/statistics/statistics.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "support/json_reader.h"
#include "support/status_macros.h"
#include "support/strict_json.h"

namespace trn::history {
namespace {

using nlohmann::json;

// "model" unless the file says it was measured: the field is a string, or
// an object naming its kind (docs/results-format.md).
std::string SourceOf(const json& doc) {
  auto it = doc.find("source");
  if (it == doc.end()) return "model";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) {
    for (const char* key : {"kind", "type"}) {
      auto k = it->find(key);
      if (k != it->end() && k->is_string()) return k->get<std::string>();
    }
    return "measured";
  }
  return "model";
}

}  // namespace

bool IsNight(absl::string_view night) {
  if (night.size() != 10 || night[4] != '-' || night[7] != '-') return false;
  int y = 0;
  int m = 0;
  int d = 0;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (night[i] < '0' || night[i] > '9') return false;
  }
  if (!absl::SimpleAtoi(night.substr(0, 4), &y) ||
      !absl::SimpleAtoi(night.substr(5, 2), &m) ||
      !absl::SimpleAtoi(night.substr(8, 2), &d)) {
    return false;
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  if (y < 1970 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

absl::StatusOr<RunRecord> RunRecordFromResults(absl::string_view text,
                                               absl::string_view label,
                                               const RunContext& context) {
  TRN_ASSIGN_OR_RETURN(
      const json doc,
      ParseStrictJson(std::string_view(text.data(), text.size()),
                      std::string_view(label.data(), label.size())));
  const JsonReader r(std::string_view(label.data(), label.size()));
  TRN_ASSIGN_OR_RETURN(const json* schema, r.Required(doc, "", "schema"));
  if (*schema != "trnbench.results") {
    return r.Expected("/schema",
                      "\"trnbench.results\" (history ingest takes a results "
                      "file: trnbench `output`, gate `output` or merge)",
                      *schema);
  }
  if (auto shard = doc.find("shard"); shard != doc.end()) {
    std::string which;
    if (shard->is_object() && shard->contains("index") &&
        shard->contains("count")) {
      which = absl::StrCat(" ", (*shard)["index"].dump(), "/",
                           (*shard)["count"].dump());
    }
    return r.Error("/shard",
                   absl::StrCat("this is shard", which,
                                " of a split run; expected the whole run: "
                                "trnbench merge shard-*.json `output` FILE, "
                                "then ingest FILE"));
  }
  double confidence = 0.95;
  if (auto c = doc.find("confidence"); c != doc.end() && c->is_number() &&
                                       c->get<double>() > 0 &&
                                       c->get<double>() < 1) {
    confidence = c->get<double>();
  }
  // The same checks as compare and gate: every sample finite, the schema
  // version known, no duplicate workload.
  TRN_ASSIGN_OR_RETURN(std::vector<Baseline> workloads,
                       ParseBaselineOrResults(text, label, confidence));
  RunRecord run;
  run.content_hash = Fnv1a64Hex(std::string_view(text.data(), text.size()));
  run.run_id = context.run_id.empty() ? run.content_hash : context.run_id;
  run.night = context.night;
  run.recorded_at = context.recorded_at;
  run.commit = context.commit;
  run.branch = context.branch;
  run.ci_run = context.ci_run;
  run.source = SourceOf(doc);
  run.confidence = confidence;
  const Baseline& first = workloads.front();
  run.device = first.device;
  run.device_hash = first.device_hash;
  run.trnbench_version = first.trnbench_version;
  run.model_version = first.model_version;
  run.seed = first.seed;
  run.schedule = first.schedule;

  // The gate's baselines, when the file holds a comparison: a change of a
  // baseline's median from one night to the next marks a refresh.
  std::map<std::pair<std::string, std::string>, double> baseline;
  if (auto cmp = doc.find("comparison"); cmp != doc.end() && cmp->is_object() &&
                                         cmp->contains("rows") &&
                                         (*cmp)["rows"].is_array()) {
    for (const json& row : (*cmp)["rows"]) {
      if (!row.is_object() || !row.contains("workload") ||
          !row.contains("metric") || !row.contains("baseline_median")) {
        continue;
      }
      const json& w = row["workload"];
      const json& m = row["metric"];
      const json& b = row["baseline_median"];
      if (w.is_string() && m.is_string() && b.is_number()) {
        baseline[{w.get<std::string>(), m.get<std::string>()}] =
            b.get<double>();
      }
    }
  }
  const json& ws = doc["workloads"];
  for (size_t i = 0; i < workloads.size(); ++i) {
    const Baseline& b = workloads[i];
    RunRecord::Workload w;
    w.name = b.workload;
    w.family = b.family;
    w.mode = b.mode;
    w.spec_hash = b.spec_hash;
    const json& wj = ws[i];
    if (auto n = wj.find("instructions");
        n != wj.end() && n->is_number_integer()) {
      w.instructions = n->get<int64_t>();
    }
    for (const MetricResult& m : b.metrics) {
      RunRecord::Metric rm;
      rm.name = m.name;
      rm.unit = m.unit;
      rm.lower_is_better = m.lower_is_better;
      rm.samples = m.samples;
      rm.median = m.summary.median;
      rm.ci_low = m.summary.median_ci.low;
      rm.ci_high = m.summary.median_ci.high;
      if (auto it = baseline.find({w.name, m.name}); it != baseline.end()) {
        rm.baseline_median = it->second;
      }
      w.metrics.push_back(std::move(rm));
    }
    run.workloads.push_back(std::move(w));
  }
  return run;
}

}  // namespace trn::history
