#include "reports/json_results.h"

#include <cmath>

#include "harness/gate/samples_checksum.h"
#include "harness/history/shards.h"
#include "harness/import/measurement_json.h"
#include "harness/runner/summary_json.h"
#include "reports/comparison_report.h"

namespace trn {
namespace {

using nlohmann::ordered_json;

ordered_json Num(double x) { return JsonNumber(x); }

}  // namespace

ordered_json SpeedupToJson(const Speedup& s) {
  return {{"baseline", s.baseline},
          {"metric", s.metric},
          {"ratio", Num(s.ratio)},
          {"ci_low", Num(s.interval.low)},
          {"ci_high", Num(s.interval.high)},
          {"resamples", s.resamples},
          {"bootstrap_seed", s.bootstrap_seed}};
}

ordered_json SweepRankToJson(const SweepRank& r) {
  return {{"position", r.position},
          {"of", r.of},
          {"metric", r.metric},
          {"median", Num(r.median)},
          {"ci_low", Num(r.interval.low)},
          {"ci_high", Num(r.interval.high)},
          {"fastest", r.fastest},
          {"tied_with_previous", r.tied_with_previous}};
}

ordered_json ResultsToJson(const RunResult& run,
                           const ComparisonReport* comparison) {
  ordered_json j;
  j["schema"] = "trnbench.results";
  j["schema_version"] = run.schema_version;
  j["trnbench_version"] = run.trnbench_version;
  j["model_version"] = run.model_version;
  j["source"] = run.source;
  if (run.measured())
    j["measurement"] = import::MeasurementToJson(run.measurement);
  j["device"] = {{"name", run.device},
                 {"content_hash", run.device_hash},
                 {"calibrated", run.device_calibrated}};
  j["seed"] = run.seed;
  j["schedule"] = ScheduleToJson(run.schedule);
  j["confidence"] = run.confidence;
  ordered_json ws = ordered_json::array();
  for (const auto& w : run.workloads) {
    ordered_json wj;
    SetWorkloadIdentity(w, wj);
    wj["instructions"] = w.instructions;
    wj["dispatches"] = w.dispatches;
    ordered_json ms = ordered_json::object();
    for (const auto& m : w.metrics) {
      ordered_json mj = SummaryToJson(m.summary);
      mj["unit"] = m.unit;
      mj["lower_is_better"] = m.lower_is_better;
      ordered_json samples = ordered_json::array();
      for (double x : m.samples) samples.push_back(Num(x));
      mj["samples"] = std::move(samples);
      if (!m.percentiles.empty()) {
        mj["percentiles"] = import::PercentilesToJson(m.percentiles);
      }
      mj["samples_checksum"] = SamplesChecksum(m.samples);
      ms[m.name] = std::move(mj);
    }
    wj["metrics"] = std::move(ms);
    ordered_json ops = ordered_json::array();
    for (const auto& op : w.ops) {
      ops.push_back({{"name", op.name},
                     {"self_cpu_us", Num(op.self_cpu_us)},
                     {"self_device_us", Num(op.self_device_us)},
                     {"device_total_us", Num(op.device_total_us)},
                     {"calls", Num(op.calls)}});
    }
    wj["ops"] = std::move(ops);
    wj["speedup"] = SpeedupToJson(w.speedup);
    // Only a `--kwarg` sweep's points are ranked: added within schema
    // version 1, absent elsewhere.
    if (w.rank.position > 0) wj["rank"] = SweepRankToJson(w.rank);
    ws.push_back(std::move(wj));
  }
  j["workloads"] = std::move(ws);
  if (run.shard) {
    j["shard"] = {{"version", history::kShardFormatVersion},
                  {"index", run.shard->index},
                  {"count", run.shard->count},
                  {"commit", run.shard->commit},
                  {"configuration", run.shard->configuration},
                  {"selected", run.shard->selected},
                  {"selection", run.shard->selection},
                  {"workloads", run.shard->workloads}};
  }
  if (comparison != nullptr) j["comparison"] = ComparisonToJson(*comparison);
  return j;
}

std::string ResultsToJsonText(const RunResult& run,
                              const ComparisonReport* comparison) {
  return ResultsToJson(run, comparison).dump(2) + "\n";
}

}  // namespace trn
