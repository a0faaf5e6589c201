#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/import/importer.h"
#include "tests/harness/import_test_util.h"

namespace trn::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ImportKinetoTest, OldTraceOneSamplePerProfilerStep) {
  // Integer ts, no schemaVersion: ProfilerStep#1009 and #1010 on the CPU,
  // kernels, memcpys and memsets on the GPU linked by correlation.
  RunResult run = ImportFixtures({"kineto/base.json.gz"});
  ASSERT_EQ(run.workloads.size(), 1u);
  const WorkloadResult& w = run.workloads[0];
  EXPECT_EQ(w.name, "base");
  EXPECT_EQ(run.source, "measured");
  EXPECT_EQ(run.measurement.format, "kineto");
  EXPECT_EQ(run.device, "unknown");
  ASSERT_NE(w.Find("wall_time_us"), nullptr);
  EXPECT_THAT(w.Find("wall_time_us")->samples, ElementsAre(100298, 122149));
  ASSERT_NE(w.Find("device_time_us"), nullptr);
  // The sum of the kernel, memcpy and memset durations launched in each
  // step (checked by hand against the trace).
  EXPECT_THAT(w.Find("device_time_us")->samples, ElementsAre(727, 959));
  EXPECT_EQ(run.schedule.repeat, 2);
  ASSERT_EQ(run.measurement.inputs.size(), 1u);
  EXPECT_EQ(run.measurement.inputs[0].bytes, 1594);
  EXPECT_EQ(run.measurement.inputs[0].fnv1a64.size(), 16u);
}

TEST(ImportKinetoTest, NewLayoutFloatTimesStringIdsAndDeviceStepCopies) {
  // ts relative to baseTimeNanoseconds as floats; each ProfilerStep also
  // appears as a gpu_user_annotation, which is not a step.
  RunResult run =
      ImportFixtures({"kineto/mi250_minitoy_train_ROCm6_2_kineto.json.gz"});
  ASSERT_EQ(run.workloads.size(), 1u);
  const WorkloadResult& w = run.workloads[0];
  EXPECT_THAT(w.Find("wall_time_us")->samples, ElementsAre(9288.291, 49.073));
  const auto& dev = w.Find("device_time_us")->samples;
  // The second step launched no device work: left out of device_time_us,
  // never written as a time of 0 (docs/import.md).
  ASSERT_EQ(dev.size(), 1u);
  EXPECT_NEAR(dev[0], 149.042, 1e-9);
  EXPECT_EQ(run.measurement.tool_version, "trace schema 1");
}

TEST(ImportKinetoTest, NamedSpanInsteadOfProfilerSteps) {
  ImportRequest r;
  r.options.step_span = "[param|torch.add|0|0|0|measure|forward]";
  r.options.workload = "torch_add";
  RunResult run =
      ImportFixtures({"kineto/benchmark_simple_add_trace.json.gz"}, r);
  ASSERT_EQ(run.workloads.size(), 1u);
  EXPECT_EQ(run.workloads[0].name, "torch_add");
  EXPECT_THAT(run.workloads[0].Find("wall_time_us")->samples,
              ElementsAre(54192, 6247));
}

TEST(ImportKinetoTest, WithoutStepsTheRefusalNamesTheSpanFlag) {
  auto f = ReadMeasuredFile(
      MeasuredPath("kineto/benchmark_simple_add_trace.json.gz"));
  ASSERT_TRUE(f.ok());
  auto run = ImportMeasured({*f}, {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(run.status().message(), HasSubstr("/traceEvents"));
  EXPECT_THAT(run.status().message(), HasSubstr("`span` NAME"));
}

TEST(ImportKinetoTest, DeviceCategoriesAreConfigurable) {
  ImportRequest r;
  r.options.device_categories = {"kernel"};
  RunResult run = ImportFixtures({"kineto/base.json.gz"}, r);
  const auto& only_kernels = run.workloads[0].Find("device_time_us")->samples;
  RunResult all = ImportFixtures({"kineto/base.json.gz"});
  const auto& every = all.workloads[0].Find("device_time_us")->samples;
  ASSERT_EQ(only_kernels.size(), 2u);
  EXPECT_LT(only_kernels[0], every[0]);
  EXPECT_GT(only_kernels[0], 0);
}

TEST(ImportKinetoTest, KeyAveragesTableFromCpuOpsAndLinkedDeviceEvents) {
  // A small trace: two steps, aten::add (launching one kernel of 10 us)
  // inside aten::linear, and a kernel launched by the runtime.
  const std::string trace = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 20, "args": {"External id": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 25, "dur": 5, "args": {"External id": 2, "correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"External id": 2, "correlation": 7}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 80},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 210, "dur": 30, "args": {"External id": 3}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 300, "dur": 6, "args": {"External id": 3}}
  ]})";
  auto run = ImportText("two_steps.json", trace);
  ASSERT_TRUE(run.ok()) << run.status();
  const WorkloadResult& w = run->workloads[0];
  // The first kernel ends after its step's span: it still belongs to the
  // step that launched it.
  EXPECT_THAT(w.Find("device_time_us")->samples, ElementsAre(10, 6));
  EXPECT_THAT(w.Find("wall_time_us")->samples, ElementsAre(100, 80));
  ASSERT_EQ(w.ops.size(), 2u);
  // Per step (2 steps): aten::linear self CPU (50 - 20 + 30) / 2, its own
  // device time 6 / 2, total with aten::add's kernel (10 + 6) / 2.
  EXPECT_EQ(w.ops[0].name, "aten::add");
  EXPECT_DOUBLE_EQ(w.ops[0].self_device_us, 5);
  EXPECT_DOUBLE_EQ(w.ops[0].calls, 0.5);
  EXPECT_EQ(w.ops[1].name, "aten::linear");
  EXPECT_DOUBLE_EQ(w.ops[1].self_cpu_us, 30);
  EXPECT_DOUBLE_EQ(w.ops[1].self_device_us, 3);
  EXPECT_DOUBLE_EQ(w.ops[1].device_total_us, 8);
  EXPECT_DOUBLE_EQ(w.ops[1].calls, 1);
}

TEST(ImportKinetoTest, AStringTimestampIsRefusedWithItsPointer) {
  auto run = ImportText(
      "bad.json",
      R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#1", "ts": "0", "dur": 1}]})");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "bad.json: /traceEvents/0/ts: expected a number, got string "
            "\"0\"");
}

TEST(ImportKinetoTest, ANegativeDurationIsRefusedWithItsPointer) {
  auto run = ImportText(
      "bad.json",
      R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#1", "ts": 0, "dur": -1}]})");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "bad.json: /traceEvents/0/dur: expected a duration of at least 0, "
            "got number -1");
}

TEST(ImportKinetoTest, SeveralTracesPoolTheirSteps) {
  RunResult run =
      ImportFixtures({"kineto/base.json.gz", "kineto/base.json.gz"});
  EXPECT_THAT(run.workloads[0].Find("wall_time_us")->samples,
              ElementsAre(100298, 122149, 100298, 122149));
  EXPECT_EQ(run.measurement.inputs.size(), 2u);
}

}  // namespace
}  // namespace trn::import
