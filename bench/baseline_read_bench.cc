// Reading results and baselines: time linear in the file (issue 14: a
// results file of 50k workloads took 25 s and 300 MB, 100k over a minute).
//   ./build/bench/trnbench_bench --benchmark_filter=Read
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/gate/samples_checksum.h"

namespace trn {
namespace {

constexpr int kSamples = 10;

// A results file of `workloads` eager workloads, one gated metric each with
// kSamples samples, as trnbench writes them (checksums included).
std::string MakeResults(int workloads, double scale) {
  std::string out = absl::StrCat(
      R"({"schema": "trnbench.results", "schema_version": 1,)"
      R"( "trnbench_version": "0.1.0", "model_version": "1",)"
      R"( "device": {"name": "trn1", "content_hash": "abc"}, "seed": 1,)"
      R"( "schedule": {"wait": 0, "warmup": 1, "repeat": )",
      kSamples, R"(}, "workloads": [)");
  std::vector<double> samples(kSamples);
  for (int w = 0; w < workloads; ++w) {
    for (int i = 0; i < kSamples; ++i) {
      samples[i] = scale * (100.0 + w % 97 + 0.37 * i + 0.011 * (w % 13));
    }
    absl::StrAppend(
        &out, w == 0 ? "" : ",", R"({"name": "wl)", w,
        R"(", "family": "f", "mode": "eager", "spec_file": "wl.json",)"
        R"( "spec_hash": "h", "metrics": {"device_time_us": {"unit": "us",)"
        R"( "lower_is_better": true, "samples": [)");
    for (int i = 0; i < kSamples; ++i) {
      absl::StrAppendFormat(&out, "%s%.17g", i == 0 ? "" : ", ", samples[i]);
    }
    absl::StrAppend(&out, R"(], "samples_checksum": ")",
                    SamplesChecksum(samples), R"("}}})");
  }
  out += "]}\n";
  return out;
}

void BM_ReadResults(benchmark::State& state) {
  const std::string text = MakeResults(static_cast<int>(state.range(0)), 1.0);
  for (auto _ : state) {
    auto r = ParseBaselineOrResults(text, "results.json", 0.95);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadResults)
    ->Arg(10'000)
    ->Arg(50'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);

// `trnbench compare OLD NEW` of two such files, reading included.
void BM_ReadAndCompareResults(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string old_text = MakeResults(n, 1.0);
  const std::string new_text = MakeResults(n, 1.01);
  for (auto _ : state) {
    auto a = ParseBaselineOrResults(old_text, "old.json", 0.95);
    auto b = ParseBaselineOrResults(new_text, "new.json", 0.95);
    if (!a.ok() || !b.ok()) state.SkipWithError("read failed");
    auto c = CompareFiles(*a, *b, CompareOptions{});
    if (!c.ok()) state.SkipWithError(std::string(c.status().message()).c_str());
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_ReadAndCompareResults)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trn
