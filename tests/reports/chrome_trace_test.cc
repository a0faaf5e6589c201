// The Chrome trace: JSON object form, a host and a NeuronCore process per
// workload, a named thread per lane, complete events with non-negative
// durations ordered per thread, the seeds' event names and args, and a
// timeline that is exactly the run whose metrics the results report.
#include "reports/chrome_trace.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Traced {
  RunResult run;
  std::vector<Timeline> timelines;
  json doc;
};

Traced TraceAll(int64_t k) {
  Traced t;
  t.run = report_test::MakeRun(report_test::kSeeds, 6, 21);
  const DeviceProfile profile = report_test::Trn1();
  const auto specs = report_test::Specs(report_test::kSeeds, profile);
  for (const auto& spec : specs) {
    auto tl =
        ReplayRun(spec, profile, t.run.seed, t.run.schedule.IndexOfActive(k));
    EXPECT_TRUE(tl.ok()) << tl.status();
    t.timelines.push_back(*std::move(tl));
  }
  std::vector<TraceInput> in;
  for (size_t i = 0; i < specs.size(); ++i) {
    in.push_back(
        {specs[i].name, k, t.run.schedule.IndexOfActive(k), &t.timelines[i]});
  }
  t.doc = json::parse(ChromeTraceJson(in, t.run));
  return t;
}

TEST(ChromeTraceTest, StructureViewersNeed) {
  const Traced t = TraceAll(0);
  const json& doc = t.doc;
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["generator"], "trnbench");
  EXPECT_EQ(doc["otherData"]["seed"], 21);

  std::map<int, std::string> process_names;
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;
  int complete = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    const int tid = e["tid"];
    if (ph == "M") {
      if (e["name"] == "process_name") process_names[pid] = e["args"]["name"];
      if (e["name"] == "thread_name") {
        thread_names[{pid, tid}] = e["args"]["name"];
      }
      continue;
    }
    ASSERT_EQ(ph, "X") << e.dump();
    ++complete;
    for (const char* k : {"name", "cat", "ts", "dur", "pid", "tid", "args"}) {
      ASSERT_TRUE(e.contains(k)) << k << " in " << e.dump();
    }
    const double ts = e["ts"];
    const double dur = e["dur"];
    EXPECT_GE(ts, 0) << e.dump();
    EXPECT_GE(dur, 0) << e.dump();
    spans[{pid, tid}].push_back({ts, ts + dur});
  }
  EXPECT_GT(complete, 100);
  // Two processes per workload, every one named.
  EXPECT_EQ(process_names.size(), 2 * t.timelines.size());
  EXPECT_EQ(process_names[1], "exp_tiled: host");
  EXPECT_EQ(process_names[2], "exp_tiled: NeuronCore");
  for (const auto& [key, list] : spans) {
    ASSERT_TRUE(thread_names.count(key))
        << "thread " << key.first << "/" << key.second << " has no name";
    ASSERT_TRUE(process_names.count(key.first));
    // Ordered by start, and properly nested or disjoint, as slices must be.
    std::vector<double> open_ends;
    for (size_t i = 0; i < list.size(); ++i) {
      if (i > 0) {
        EXPECT_LE(list[i - 1].first, list[i].first);
      }
      while (!open_ends.empty() && open_ends.back() <= list[i].first) {
        open_ends.pop_back();
      }
      if (!open_ends.empty()) {
        EXPECT_LE(list[i].second, open_ends.back() + 1e-9)
            << "partial overlap on thread " << thread_names[key];
      }
      open_ends.push_back(list[i].second);
    }
  }
  // Every lane is a thread: framework, runtime on the host; hardware,
  // host-to-device, four engines and the DMA queues on the NeuronCore.
  std::set<std::string> lanes;
  for (const auto& [key, name] : thread_names) {
    if (key.first == 3 || key.first == 4) lanes.insert(name);  // 2nd workload
  }
  for (const char* lane : {"framework", "runtime", "hardware", "host_to_device",
                           "tensor", "vector", "scalar", "gpsimd", "dma_q0"}) {
    EXPECT_TRUE(lanes.count(lane)) << lane;
  }
  EXPECT_EQ(lanes.size(), t.timelines[1].lanes.size());
}

// Chrome DevTools' trace engine leaves events at ts 0 out of the trace's
// time window, which cut off the first span of every workload: the model's
// time 0 is at 1 μs in the file, for every workload alike.
TEST(ChromeTraceTest, NoEventAtTimeZero) {
  const Traced t = TraceAll(0);
  std::map<int, double> first;  // per process
  for (const json& e : t.doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const double ts = e["ts"];
    EXPECT_GT(ts, 0) << e.dump();
    const int pid = e["pid"];
    if (!first.count(pid) || ts < first[pid]) first[pid] = ts;
  }
  ASSERT_FALSE(first.empty());
  // Each workload's host process starts at model time 0, now 1 μs.
  EXPECT_EQ(first.at(1), 1.0);
  EXPECT_EQ(first.at(3), 1.0);
}

TEST(ChromeTraceTest, NamesAndArgsFromTheSeeds) {
  const Traced t = TraceAll(0);
  std::set<std::string> names;
  bool engine_args = false;
  bool dma_args = false;
  bool source_args = false;
  for (const json& e : t.doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    names.insert(e["name"].get<std::string>());
    const json& a = e["args"];
    if (e["cat"] == "engine") {
      engine_args =
          engine_args || (a.contains("opcode") && a.contains("engine"));
      if (a.contains("source_line")) {
        source_args = true;
        EXPECT_THAT(a["source"].get<std::string>(), HasSubstr("exp.py:"));
      }
    }
    if (e["cat"] == "dma") {
      dma_args = dma_args || (a.contains("bytes") && a["bytes"] > 0 &&
                              a.contains("opcode") && a.contains("queue"));
    }
  }
  for (const char* n :
       {"aten::mul", "aten::mean", "aten::add", "aten::rsqrt", "aten::copy_",
        "nrta_execute_schedule", "nc_exec_running", "Torch-Compiled Region",
        "aten::rms_norm", "host_to_device_copy"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_TRUE(engine_args);
  EXPECT_TRUE(dma_args);
  EXPECT_TRUE(source_args);
}

TEST(ChromeTraceTest, TheTraceIsTheRunTheResultsReport) {
  const int64_t k = 4;
  const Traced t = TraceAll(k);
  // Sum of hardware-lane time per workload == that workload's device time
  // sample k.
  std::map<int, double> hw;
  std::map<int, std::string> hw_thread;
  for (const json& e : t.doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "hardware") {
      hw[e["pid"].get<int>()] += e["dur"].get<double>();
    }
  }
  for (size_t i = 0; i < t.run.workloads.size(); ++i) {
    const auto* m = t.run.workloads[i].Find("device_time_us");
    ASSERT_NE(m, nullptr);
    EXPECT_NEAR(hw[static_cast<int>(2 * i + 2)], m->samples[k],
                1e-9 * m->samples[k])
        << t.run.workloads[i].name;
  }
  EXPECT_EQ(t.doc["otherData"]["repeat"], k);
  EXPECT_EQ(t.doc["otherData"]["repeat_index"], 1 + k);
}

TEST(ChromeTraceTest, CommandLineWritesOneTracePerWorkloadInOneFile) {
  const std::string dir = report_test::FreshDir("trace_cli");
  const std::string file = dir + "/trace.json";
  auto o = report_test::RunTrnbench("--workload rmsnorm --repeat 5 --trace " +
                                    file + " --trace-repeat 2");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(report_test::Slurp(file));
  std::set<std::string> processes;
  for (const json& e : doc["traceEvents"]) {
    if (e["name"] == "process_name") processes.insert(e["args"]["name"]);
  }
  EXPECT_EQ(processes.size(), 6u);
  EXPECT_TRUE(processes.count("rmsnorm_naive: host"));
  EXPECT_TRUE(processes.count("rmsnorm_compiled: NeuronCore"));
  EXPECT_EQ(doc["otherData"]["repeat"], 2);
  // Same seed, same bytes.
  const std::string first = report_test::Slurp(file);
  o = report_test::RunTrnbench("--workload rmsnorm --repeat 5 --trace " + file +
                               " --trace-repeat 2");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(report_test::Slurp(file), first);

  o = report_test::RunTrnbench("--workload rmsnorm --repeat 5 --trace " + file +
                               " --trace-repeat 5");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--trace-repeat=5: expected a recorded run "
                               "from 0 to 4"));
  o = report_test::RunTrnbench(
      "--workload rmsnorm --repeat 5 --trace /nonexistent-dir/t.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("/nonexistent-dir/t.json"));
  EXPECT_TRUE(o.out.empty());
}

}  // namespace
}  // namespace trn
