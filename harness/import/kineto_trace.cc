#include "harness/import/kineto_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/input_error.h"
#include "support/json_reader.h"
#include "support/status_macros.h"

namespace trn::import {
namespace {

struct Event {
  double ts = 0;  // microseconds; absolute, or relative to
                  // baseTimeNanoseconds: only differences are used
  double dur = 0;
  std::string cat;
  std::string name;
  std::string thread;  // pid/tid, numbers or strings
  int64_t external_id = -1;
  int64_t correlation = -1;
};

int64_t IntArg(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) return -1;
  return it->get<int64_t>();
}

std::string IdText(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  if (it == e.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// The complete ("X") events of one trace.
absl::StatusOr<std::vector<Event>> CompleteEvents(const ParsedInput& in) {
  const std::string& file = in.file->path;
  const JsonReader r(file);
  auto it = in.json.find("traceEvents");
  if (!in.json.is_object() || it == in.json.end() || !it->is_array()) {
    return BadInput(file, "/traceEvents",
                    "expected the array of trace events (a torch.profiler "
                    "/ Kineto trace)");
  }
  std::vector<Event> out;
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& e = (*it)[i];
    const std::string p = JsonChild("/traceEvents", i);
    TRN_RETURN_IF_ERROR(r.Object(e, p));
    auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string() || ph->get<std::string>() != "X") {
      continue;  // metadata, instants and flow arrows carry no duration
    }
    Event ev;
    TRN_ASSIGN_OR_RETURN(ev.ts, NumberField(e, file, p, "ts"));
    TRN_ASSIGN_OR_RETURN(ev.dur, NumberField(e, file, p, "dur", {.min = 0},
                                             "a duration of at least 0"));
    if (auto c = e.find("cat"); c != e.end() && c->is_string()) {
      ev.cat = c->get<std::string>();
    }
    if (auto n = e.find("name"); n != e.end() && n->is_string()) {
      ev.name = n->get<std::string>();
    }
    ev.thread = IdText(e, "pid") + "/" + IdText(e, "tid");
    if (auto a = e.find("args"); a != e.end() && a->is_object()) {
      ev.external_id = IntArg(*a, "External id");
      ev.correlation = IntArg(*a, "correlation");
    }
    out.push_back(std::move(ev));
  }
  return out;
}

bool IsStep(const Event& e, const ImportOptions& o, bool device) {
  // The device-side copy of a step annotation is not the step.
  if (device || e.cat == "gpu_user_annotation") return false;
  return o.step_span.empty() ? absl::StartsWith(e.name, "ProfilerStep#")
                             : e.name == o.step_span;
}

struct OpTotals {
  double self_cpu = 0;
  double self_device = 0;
  double device_total = 0;
  double calls = 0;
};

}  // namespace

bool LooksLikeKineto(const nlohmann::json& json) {
  return json.is_object() && json.contains("traceEvents");
}

absl::StatusOr<Imported> ReadKinetoTraces(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options) {
  Imported out;
  out.tool = "torch.profiler (kineto)";
  std::vector<double> host;
  std::vector<double> device;
  bool any_device = false;
  std::map<std::string, OpTotals> ops;
  for (const ParsedInput& in : inputs) {
    if (auto v = in.json.find("schemaVersion");
        v != in.json.end() && out.tool_version.empty()) {
      out.tool_version = absl::StrCat("trace schema ", v->dump());
    }
    TRN_ASSIGN_OR_RETURN(std::vector<Event> events, CompleteEvents(in));
    auto is_device = [&](const Event& e) {
      return std::find(options.device_categories.begin(),
                       options.device_categories.end(),
                       e.cat) != options.device_categories.end();
    };
    std::vector<const Event*> steps;
    std::unordered_map<int64_t, double> launch_by_correlation;
    std::unordered_map<int64_t, size_t> op_by_external_id;
    std::vector<const Event*> cpu_ops;
    for (const Event& e : events) {
      const bool dev = is_device(e);
      if (IsStep(e, options, dev)) {
        steps.push_back(&e);
      } else if (!dev && (e.cat == "cpu_op" || e.cat == "operator")) {
        cpu_ops.push_back(&e);
      } else if (!dev && e.correlation >= 0) {
        launch_by_correlation.emplace(e.correlation, e.ts);
      }
    }
    if (steps.empty()) {
      return BadInput(
          in.file->path, "/traceEvents",
          options.step_span.empty()
              ? "expected ProfilerStep#N spans, one per iteration (record "
                "with torch.profiler.schedule and prof.step(), or name your "
                "own record_function span with `span` NAME)"
              : absl::StrCat("expected spans named \"", options.step_span,
                             "\" (`span`), one per iteration"));
    }
    std::stable_sort(
        steps.begin(), steps.end(),
        [](const Event* a, const Event* b) { return a->ts < b->ts; });
    // The step holding time t, or -1.
    auto step_of = [&](double t) -> int64_t {
      auto it =
          std::upper_bound(steps.begin(), steps.end(), t,
                           [](double x, const Event* s) { return x < s->ts; });
      if (it == steps.begin()) return -1;
      const Event* s = *(it - 1);
      return t <= s->ts + s->dur ? (it - 1) - steps.begin() : -1;
    };

    // Operators: nesting per thread gives self time, as key_averages() does.
    std::stable_sort(cpu_ops.begin(), cpu_ops.end(),
                     [](const Event* a, const Event* b) {
                       if (a->thread != b->thread) return a->thread < b->thread;
                       if (a->ts != b->ts) return a->ts < b->ts;
                       return a->dur > b->dur;
                     });
    std::vector<int64_t> parent(cpu_ops.size(), -1);
    std::vector<double> self_cpu(cpu_ops.size());
    std::vector<double> self_dev(cpu_ops.size(), 0.0);
    std::vector<bool> in_step(cpu_ops.size());
    std::vector<size_t> stack;
    for (size_t i = 0; i < cpu_ops.size(); ++i) {
      const Event& e = *cpu_ops[i];
      while (!stack.empty() &&
             (cpu_ops[stack.back()]->thread != e.thread ||
              cpu_ops[stack.back()]->ts + cpu_ops[stack.back()]->dur <= e.ts)) {
        stack.pop_back();
      }
      if (!stack.empty()) parent[i] = static_cast<int64_t>(stack.back());
      stack.push_back(i);
      self_cpu[i] = e.dur;
      in_step[i] = step_of(e.ts) >= 0;
      if (e.external_id >= 0) op_by_external_id.emplace(e.external_id, i);
    }
    for (size_t i = 0; i < cpu_ops.size(); ++i) {
      if (parent[i] >= 0) self_cpu[parent[i]] -= cpu_ops[i]->dur;
    }

    std::vector<double> step_device(steps.size(), 0.0);
    for (const Event& e : events) {
      if (!is_device(e)) continue;
      // A kernel runs after its launch, possibly after the step's span
      // ends: it belongs to the step that launched it.
      double launched = e.ts;
      if (auto c = launch_by_correlation.find(e.correlation);
          e.correlation >= 0 && c != launch_by_correlation.end()) {
        launched = c->second;
      } else if (auto o = op_by_external_id.find(e.external_id);
                 e.external_id >= 0 && o != op_by_external_id.end()) {
        launched = cpu_ops[o->second]->ts;
      }
      const int64_t s = step_of(launched);
      if (s < 0) continue;
      any_device = true;
      step_device[s] += e.dur;
      if (auto o = op_by_external_id.find(e.external_id);
          e.external_id >= 0 && o != op_by_external_id.end()) {
        self_dev[o->second] += e.dur;
      }
    }
    std::vector<double> dev_total = self_dev;
    for (size_t i = cpu_ops.size(); i-- > 0;) {
      if (parent[i] >= 0) dev_total[parent[i]] += dev_total[i];
    }
    for (size_t i = 0; i < cpu_ops.size(); ++i) {
      if (!in_step[i]) continue;
      OpTotals& t = ops[cpu_ops[i]->name];
      t.self_cpu += self_cpu[i];
      t.self_device += self_dev[i];
      t.device_total += dev_total[i];
      t.calls += 1;
    }
    for (size_t s = 0; s < steps.size(); ++s) {
      host.push_back(steps[s]->dur);
      // A step that launched no device work (the profiler's warm-up, a
      // step of host work only) has no device time to sample: it is left
      // out of device_time_us rather than written as 0, which no reader
      // takes as a time (docs/import.md).
      if (step_device[s] > 0) device.push_back(step_device[s]);
    }
  }
  ImportedWorkload w;
  w.name = options.workload;
  if (any_device && !device.empty()) {
    w.metrics.push_back(MeasuredMetric("device_time_us", device));
  }
  w.metrics.push_back(MeasuredMetric("wall_time_us", host));
  const double n = static_cast<double>(host.size());
  for (const auto& [name, t] : ops) {
    w.ops.push_back({name, t.self_cpu / n, t.self_device / n,
                     t.device_total / n, t.calls / n});
  }
  std::stable_sort(w.ops.begin(), w.ops.end(),
                   [](const OpResult& a, const OpResult& b) {
                     if (a.self_device_us != b.self_device_us) {
                       return a.self_device_us > b.self_device_us;
                     }
                     return a.self_cpu_us > b.self_cpu_us;
                   });
  out.workloads.push_back(std::move(w));
  return out;
}

}  // namespace trn::import
