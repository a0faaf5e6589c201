// Does `--jobs` pay? A fixed set of runs (the NKI matmul tutorial's four
// versions, as the validation suite ships them, 12 recorded runs each on
// trn1, through RunAll as `trnbench --spec ... --repeat 12 --warmup 0`
// runs them; and, as BM_Jobs/exp_tiled, 48 runs of exp_tiled at
// 1280000x512) on 1, 2 and 4 threads. Counters: wall and CPU time (of the
// whole process, every thread) per run, and the speed-up in wall time over
// the 1-thread case measured just before (speedup is 0 when that case did
// not run). On 2 idle cores, jobs 2 should show a speed-up near 2 with CPU
// per run as at jobs 1; jobs 4 shows what oversubscription costs. Heap
// counting (heap_meter.h) adds two atomic updates per allocation, and a
// run allocates a few dozen times: not enough to matter here.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "bench/bench_support.h"
#include "benchmark/benchmark.h"
#include "device_model/device_profile.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/simulator.h"
#include "harness/runner/runner.h"
#include "support/ordered_parallel.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

using bench::LoadBenchSpec;
using bench::Trn1;

// The fixed sets of runs: the matmul tutorial's four versions, 12 recorded
// runs each (compute-bound to DMA-bound), and exp_tiled at 1280000x512, 48
// runs (a DMA span every few events: where the runner's accumulators
// shared a prefetcher's reach, issue 42; bench/README.md).
enum class RunSet { kMatmuls, kExpTiled };

template <RunSet kSet>
void BM_Jobs(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  std::vector<WorkloadSpec> specs;
  std::vector<std::pair<std::string, const char*>> files;
  if (kSet == RunSet::kMatmuls) {
    for (const char* name :
         {"nki_matmul_tiled", "nki_matmul_hoist_load", "nki_matmul_block_free",
          "nki_matmul_fully_optimized"}) {
      files.emplace_back(std::string("/workloads/validation/") + name + ".json",
                         "");
    }
  } else {
    files.emplace_back("/workloads/specs/exp_tiled.json",
                       "in_tensor,out_tensor=1280000x512");
  }
  for (const auto& [path, shape] : files) {
    auto spec = LoadBenchSpec(path, shape);
    if (!spec.ok()) {
      state.SkipWithError(std::string(spec.status().message()).c_str());
      return;
    }
    specs.push_back(*std::move(spec));
  }
  const int64_t repeat = kSet == RunSet::kMatmuls ? 12 : 48;
  RunOptions opts;
  opts.schedule.repeat = repeat;
  opts.schedule.warmup = 0;
  opts.jobs = jobs;
  const double runs = static_cast<double>(specs.size()) * repeat;
  double wall = 0;
  double cpu = 0;
  for (auto _ : state) {
    const double c0 = bench::CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = RunAll(specs, Trn1(), opts, "bench");
    const auto t1 = std::chrono::steady_clock::now();
    cpu += bench::CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    wall += std::chrono::duration<double>(t1 - t0).count();
    if (!r.ok()) state.SkipWithError("run");
    benchmark::DoNotOptimize(r);
  }
  // Wall seconds per run at jobs 1, for the speed-up of the cases after it.
  static double one_job_wall_per_run = 0;
  const double iters = static_cast<double>(state.iterations());
  const double wall_per_run = wall / iters / runs;
  if (jobs == 1) one_job_wall_per_run = wall_per_run;
  state.counters["runs"] = runs;
  state.counters["wall_ms_per_run"] = wall_per_run * 1e3;
  state.counters["cpu_ms_per_run"] = cpu / iters / runs * 1e3;
  state.counters["speedup"] =
      one_job_wall_per_run > 0 ? one_job_wall_per_run / wall_per_run : 0.0;
}
// Both sets at 1, 2 and 4 jobs, three iterations each, wall time.
void JobsCases(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(2)->Arg(4)->Iterations(3)->UseRealTime()->Unit(
      benchmark::kMillisecond);
}
BENCHMARK(BM_Jobs<RunSet::kMatmuls>)->Name("BM_Jobs")->Apply(JobsCases);
BENCHMARK(BM_Jobs<RunSet::kExpTiled>)
    ->Name("BM_Jobs/exp_tiled")
    ->Apply(JobsCases);

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// The serialisation issue 42 found, alone: two threads simulating runs of
// the tiled matmul on one Simulator, each delivering to its own metrics
// accumulator, the two accumulators side by side in one vector (as the
// runner first kept them: they share a line), each on a 128-byte pair of
// lines of its own (as it kept them next: the L2 streamer still fetched
// one's last line for the other), or each on a page of its own
// (kNoFalseSharing, as it keeps them now). Counters: CPU time per run of
// both threads, and of the slower one (the sharing costs one side more
// than the other). Pages should be about the CPU time of one thread
// alone; the difference is the false sharing.
// The kernels: the tiled matmul, and exp_tiled at 1280000x512 (10,000
// tiles, a DMA span every few events: there the 128-byte pairs cost the
// most, issue 42).
struct TwoAccumulatorsKernel {
  const char* spec;
  const char* shape;  // a --shape override, or empty
};
constexpr TwoAccumulatorsKernel kTiledMatmul{
    "/workloads/validation/nki_matmul_tiled.json", ""};
constexpr TwoAccumulatorsKernel kExpTiled{"/workloads/specs/exp_tiled.json",
                                          "in_tensor,out_tensor=1280000x512"};

template <size_t kAlign, const TwoAccumulatorsKernel& kKernel>
void BM_TwoAccumulators(benchmark::State& state) {
  auto spec = LoadBenchSpec(kKernel.spec, kKernel.shape);
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  auto program = Lower(*spec, Trn1());
  if (!program.ok()) {
    state.SkipWithError("lowering");
    return;
  }
  auto sim = Simulator::Create(*program, Trn1());
  if (!sim.ok()) {
    state.SkipWithError("simulator");
    return;
  }
  struct alignas(kAlign) Slot {
    MetricsAccumulator acc;
  };
  std::vector<Slot> slots(2);
  constexpr int kRuns = 16;
  double cpu = 0;
  double slower = 0;
  for (auto _ : state) {
    double spent[2] = {0, 0};
    std::vector<std::thread> threads;
    for (int w = 0; w < 2; ++w) {
      threads.emplace_back([&, w] {
        MetricsAccumulator& acc = slots[static_cast<size_t>(w)].acc;
        const double c0 = ThreadCpuSeconds();
        for (int k = 0; k < kRuns; ++k) {
          sim->Run(1, static_cast<uint64_t>(2 * k + w), acc);
        }
        spent[w] = ThreadCpuSeconds() - c0;
      });
    }
    for (std::thread& t : threads) t.join();
    cpu += spent[0] + spent[1];
    slower += std::max(spent[0], spent[1]);
  }
  const double runs = kRuns * static_cast<double>(state.iterations());
  state.counters["cpu_ms_per_run"] = cpu / (2.0 * runs) * 1e3;
  state.counters["slower_cpu_ms_per_run"] = slower / runs * 1e3;
}
// Every layout's case alike: five iterations, wall time.
void TwoAccumulatorsCase(benchmark::internal::Benchmark* b) {
  b->Iterations(5)->UseRealTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_TwoAccumulators<alignof(MetricsAccumulator), kTiledMatmul>)
    ->Name("BM_TwoAccumulators/tiled_matmul/packed")
    ->Apply(TwoAccumulatorsCase);
BENCHMARK(BM_TwoAccumulators<128, kTiledMatmul>)
    ->Name("BM_TwoAccumulators/tiled_matmul/lines")
    ->Apply(TwoAccumulatorsCase);
BENCHMARK(BM_TwoAccumulators<kNoFalseSharing, kTiledMatmul>)
    ->Name("BM_TwoAccumulators/tiled_matmul/pages")
    ->Apply(TwoAccumulatorsCase);
BENCHMARK(BM_TwoAccumulators<alignof(MetricsAccumulator), kExpTiled>)
    ->Name("BM_TwoAccumulators/exp_tiled/packed")
    ->Apply(TwoAccumulatorsCase);
BENCHMARK(BM_TwoAccumulators<128, kExpTiled>)
    ->Name("BM_TwoAccumulators/exp_tiled/lines")
    ->Apply(TwoAccumulatorsCase);
BENCHMARK(BM_TwoAccumulators<kNoFalseSharing, kExpTiled>)
    ->Name("BM_TwoAccumulators/exp_tiled/pages")
    ->Apply(TwoAccumulatorsCase);

}  // namespace
}  // namespace trn
