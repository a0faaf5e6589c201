#include "reports/chrome_trace.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace trn {
namespace {

using nlohmann::ordered_json;

// Every timeline starts at model time 0, but Chrome DevTools' trace engine
// leaves events at ts 0 out when it finds the trace's time window, which
// cuts off each workload's first span. The trace therefore puts model time
// 0 at 1 μs; durations and the alignment of workloads are unchanged.
constexpr double kTraceOriginUs = 1.0;

bool OnHost(LaneKind k) {
  return k == LaneKind::kFramework || k == LaneKind::kRuntime;
}

const char* Category(LaneKind k) {
  switch (k) {
    case LaneKind::kFramework:
      return "framework";
    case LaneKind::kRuntime:
      return "runtime";
    case LaneKind::kHardware:
      return "hardware";
    case LaneKind::kHostToDevice:
      return "host_to_device";
    case LaneKind::kEngine:
      return "engine";
    case LaneKind::kDmaQueue:
      return "dma";
  }
  return "other";
}

// What an event's detail string is on each lane.
const char* DetailKey(LaneKind k) {
  switch (k) {
    case LaneKind::kEngine:
    case LaneKind::kDmaQueue:
      return "tile";
    case LaneKind::kFramework:
    case LaneKind::kHostToDevice:
      return "tensor";
    case LaneKind::kRuntime:
    case LaneKind::kHardware:
      return "op";
  }
  return "detail";
}

ordered_json Metadata(const char* what, int pid, int tid, ordered_json args) {
  ordered_json e;
  e["name"] = what;
  e["ph"] = "M";
  e["pid"] = pid;
  e["tid"] = tid;
  e["args"] = std::move(args);
  return e;
}

ordered_json EventArgs(const Timeline& tl, const Lane& lane, const Event& e) {
  ordered_json a = ordered_json::object();
  if (lane.kind == LaneKind::kEngine || lane.kind == LaneKind::kDmaQueue) {
    a["opcode"] = tl.str(e.name);
  }
  if (lane.kind == LaneKind::kEngine) a["engine"] = lane.name;
  if (lane.kind == LaneKind::kDmaQueue) a["queue"] = lane.index;
  if (e.bytes > 0 || lane.kind == LaneKind::kDmaQueue ||
      lane.kind == LaneKind::kHostToDevice) {
    a["bytes"] = e.bytes;
  }
  if (e.detail < tl.strings.size() && !tl.str(e.detail).empty()) {
    a[DetailKey(lane.kind)] = tl.str(e.detail);
  }
  if (e.dispatch >= 0) {
    a["dispatch_index"] = e.dispatch;
    const auto d = static_cast<size_t>(e.dispatch);
    if (d < tl.dispatch_names.size()) a["dispatch"] = tl.dispatch_names[d];
  }
  if (e.source_line > 0) {
    a["source_line"] = e.source_line;
    if (!tl.source_file.empty()) {
      a["source"] = absl::StrCat(tl.source_file, ":", e.source_line);
    }
  }
  if (e.iteration >= 0) a["iteration"] = e.iteration;
  return a;
}

}  // namespace

std::string ChromeTraceJson(const std::vector<TraceInput>& traces,
                            const RunResult& run) {
  ordered_json events = ordered_json::array();
  for (size_t i = 0; i < traces.size(); ++i) {
    const TraceInput& in = traces[i];
    const Timeline& tl = *in.timeline;
    const int host_pid = static_cast<int>(2 * i + 1);
    const int device_pid = host_pid + 1;
    const int order = static_cast<int>(2 * i);
    events.push_back(Metadata("process_name", host_pid, 0,
                              {{"name", absl::StrCat(in.workload, ": host")}}));
    events.push_back(
        Metadata("process_sort_index", host_pid, 0, {{"sort_index", order}}));
    events.push_back(
        Metadata("process_name", device_pid, 0,
                 {{"name", absl::StrCat(in.workload, ": NeuronCore")}}));
    events.push_back(Metadata("process_sort_index", device_pid, 0,
                              {{"sort_index", order + 1}}));

    // Bucket events by lane, then order each lane by start; an enclosing
    // event (same start, later end) comes first, as viewers nest by order.
    std::vector<std::vector<const Event*>> by_lane(tl.lanes.size());
    for (const Event& e : tl.events) {
      if (e.lane < by_lane.size()) by_lane[e.lane].push_back(&e);
    }
    for (size_t l = 0; l < tl.lanes.size(); ++l) {
      const Lane& lane = tl.lanes[l];
      const int pid = OnHost(lane.kind) ? host_pid : device_pid;
      const int tid = static_cast<int>(l) + 1;
      events.push_back(
          Metadata("thread_name", pid, tid, {{"name", lane.name}}));
      events.push_back(Metadata("thread_sort_index", pid, tid,
                                {{"sort_index", static_cast<int>(l)}}));
      auto& lane_events = by_lane[l];
      std::stable_sort(lane_events.begin(), lane_events.end(),
                       [](const Event* a, const Event* b) {
                         if (a->start_us != b->start_us) {
                           return a->start_us < b->start_us;
                         }
                         return a->end_us > b->end_us;
                       });
      for (const Event* e : lane_events) {
        ordered_json j;
        j["name"] = tl.str(e->name);
        j["cat"] = Category(lane.kind);
        j["ph"] = "X";
        j["ts"] = e->start_us + kTraceOriginUs;
        j["dur"] = std::max(0.0, e->dur_us());
        j["pid"] = pid;
        j["tid"] = tid;
        j["args"] = EventArgs(tl, lane, *e);
        events.push_back(std::move(j));
      }
    }
  }
  // One event per line: small diffs between traces, and still one JSON
  // object that every viewer reads.
  std::string out = "{\"traceEvents\":[\n";
  for (size_t i = 0; i < events.size(); ++i) {
    absl::StrAppend(&out, events[i].dump(),
                    i + 1 < events.size() ? ",\n" : "\n");
  }
  // Events last microseconds; nanosecond display keeps them readable.
  // otherData stays flat (strings and numbers), as some viewers expect.
  ordered_json other = {{"generator", "trnbench"},
                        {"schema", "trnbench.trace"},
                        {"schema_version", 1},
                        {"trnbench_version", run.trnbench_version},
                        {"model_version", run.model_version},
                        {"device", run.device},
                        {"seed", run.seed}};
  if (!traces.empty()) {
    other["repeat"] = traces.front().repeat;
    other["repeat_index"] = traces.front().repeat_index;
  }
  absl::StrAppend(&out, "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":",
                  other.dump(), "\n}\n");
  return out;
}

}  // namespace trn
