// Issue 26: `import` must never write what a later command refuses. Every
// importer's output, from the measured fixtures, goes through each reader
// of results: `compare`, the gate on a measurement (`import --baseline`
// against a saved one), `validate --measured` and `calibrate`. None may
// refuse the imported file itself (a message naming it and a JSON pointer)
// or fail inside (exit 3); where the model has the measured metrics the
// command must succeed.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/run_trnbench.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using test::RunTrnbench;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Data(const std::string& rel) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/tests/data/measured/" + rel;
}

struct Importer {
  const char* format;
  std::vector<std::string> files;
  // Named like a shipped spec, so validate and calibrate find the model's.
  const char* workload;
  // The model has a metric the measurement has: validate and calibrate
  // must then succeed, not only leave the file unrefused.
  bool model_metrics;
};

std::vector<Importer> Importers() {
  return {
      {"kineto", {Data("kineto/base.json.gz")}, "exp_tiled", true},
      {"neuron-bench",
       {Data("neuron_bench/exp_tiled/nc_latency_data.json"),
        Data("neuron_bench/exp_tiled/info.json")},
       "exp_tiled",
       true},
      {"neuron-profile",
       {Data("neuron_profile/rmsnorm_compiled_0.json"),
        Data("neuron_profile/rmsnorm_compiled_1.json"),
        Data("neuron_profile/rmsnorm_compiled_2.json")},
       "rmsnorm_compiled",
       true},
      {"nki-benchmark",
       {Data("nki_benchmark/exp_tiled.txt")},
       "exp_tiled",
       true},
      {"gbench", {Data("gbench/test1_run1.json")}, "", false},
      {"hyperfine", {Data("hyperfine/one.json")}, "", false},
  };
}

class ImportContractTest : public ::testing::TestWithParam<Importer> {};

// The imported file is refused by a reader when a message names it with a
// JSON pointer ("m.json: /workloads/0/..."), or a command fails inside.
void ExpectRead(const test::Outcome& o, const std::string& file,
                const std::string& what) {
  EXPECT_NE(o.code, 3) << what << ": " << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr(file + ": /"))) << what;
}

TEST_P(ImportContractTest, EveryReaderTakesWhatImportWrites) {
  const Importer& imp = GetParam();
  const std::string dir = test::FreshDir(std::string("contract_") + imp.format);
  std::string files;
  for (const std::string& f : imp.files) files += " " + f;
  const std::string named =
      *imp.workload ? std::string(" --workload ") + imp.workload : "";
  const std::string m = dir + "/m.json";
  auto o = RunTrnbench("import" + files + " --from " + imp.format + named +
                       " --device trn1 --output " + m);
  ASSERT_EQ(o.code, 0) << o.err;

  o = RunTrnbench("compare " + m + " " + m + " --allow-unchecked");
  ExpectRead(o, m, "compare");
  EXPECT_EQ(o.code, 0) << o.err;

  // The gate on a measurement: a saved baseline read back and compared.
  o = RunTrnbench("import" + files + " --from " + imp.format + named +
                  " --device trn1 --save-baseline " + dir + "/bl");
  ASSERT_EQ(o.code, 0) << o.err;
  o = RunTrnbench("import" + files + " --from " + imp.format + named +
                  " --device trn1 --baseline " + dir + "/bl --allow-unchecked");
  ExpectRead(o, dir + "/bl", "gate");
  EXPECT_EQ(o.code, 0) << o.err;

  if (!imp.model_metrics) return;  // no spec measures a host benchmark
  o = RunTrnbench("validate --measured " + m + " --repeat 5");
  ExpectRead(o, m, "validate --measured");
  EXPECT_EQ(o.code, 0) << o.err;
  std::filesystem::create_directories(dir + "/profiles");
  o = RunTrnbench("calibrate " + m + " --repeat 3 --warmup 0 --output " + dir +
                  "/profiles/trn1.json");
  ExpectRead(o, m, "calibrate");
  EXPECT_EQ(o.code, 0) << o.err;
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, ImportContractTest,
                         ::testing::ValuesIn(Importers()),
                         [](const ::testing::TestParamInfo<Importer>& p) {
                           std::string name = p.param.format;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace trn
