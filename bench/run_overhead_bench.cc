// What one simulated run costs beyond its instructions, the figure behind
// kRunOverheadInstructions (harness/runner/runner.h): every shipped
// workload run many times through RunWorkload on one thread, its host time
// per run less its instructions at the host time per instruction of a
// large tiled exp kernel, in units of that time. The counter
// overhead_instructions of each workload; the constant is the largest,
// rounded up with room for a slower machine. Host time here is what the
// bound protects; the model never reads a clock.
#include <chrono>
#include <cstdint>
#include <string>

#include "bench/bench_support.h"
#include "benchmark/benchmark.h"
#include "device_model/device_profile.h"
#include "harness/runner/runner.h"
#include "workloads/loading/spec_catalog.h"

namespace trn {
namespace {

using bench::SourcePath;
using bench::Trn1;

double SecondsOf(const WorkloadSpec& spec, int64_t runs) {
  RunOptions o;
  o.jobs = 1;
  o.schedule.warmup = runs - 1;
  o.schedule.repeat = 1;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = RunWorkload(spec, Trn1(), o);
  const auto t1 = std::chrono::steady_clock::now();
  if (!r.ok()) std::abort();
  benchmark::DoNotOptimize(r->metrics.data());
  return std::chrono::duration<double>(t1 - t0).count();
}

void BM_RunOverhead(benchmark::State& state, const char* name) {
  auto specs = LoadSpecDir(SourcePath("/workloads/specs"), Trn1().memory);
  if (!specs.ok()) {
    state.SkipWithError("specs");
    return;
  }
  const WorkloadSpec* spec = nullptr;
  const WorkloadSpec* exp = nullptr;
  for (const WorkloadSpec& s : *specs) {
    if (s.name == name) spec = &s;
    if (s.name == "exp_size4_32768x2048") exp = &s;
  }
  if (spec == nullptr || exp == nullptr) {
    state.SkipWithError("no such shipped spec");
    return;
  }
  // The exp kernel's 1280 instructions a run: per-run work is < 1% of it.
  constexpr int64_t kExpRuns = 200;
  constexpr int64_t kRuns = 20000;
  const double exp_instructions = 1280;
  double overhead = 0;
  double instructions = 0;
  for (auto _ : state) {
    const double per_instruction =
        SecondsOf(*exp, kExpRuns) / (kExpRuns * exp_instructions);
    RunOptions one;
    one.jobs = 1;
    one.schedule.repeat = 1;
    auto r = RunWorkload(*spec, Trn1(), one);
    if (!r.ok()) std::abort();
    instructions = static_cast<double>(r->instructions);
    const double per_run = SecondsOf(*spec, kRuns) / kRuns;
    overhead = per_run / per_instruction - instructions;
  }
  state.counters["instructions"] = instructions;
  state.counters["overhead_instructions"] = overhead;
}

BENCHMARK_CAPTURE(BM_RunOverhead, exp_tiled, "exp_tiled")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_RunOverhead, rmsnorm_naive, "rmsnorm_naive")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_RunOverhead, rmsnorm_fused, "rmsnorm_fused")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_RunOverhead, rmsnorm_llm_naive, "rmsnorm_llm_naive")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_RunOverhead, rmsnorm_llm_fused, "rmsnorm_llm_fused")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_RunOverhead, softmax_nki, "softmax_nki")
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace trn
