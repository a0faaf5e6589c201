// The serial part of a command that simulates one large kernel: lowering
// and Simulator::Create, which no `--jobs` value shares out, against one
// simulated run. Amdahl's law bounds the speed-up of R runs on J threads at
// (S + R r) / (S + ceil(R / J) r) for a serial part S and a run r: with
// exp_tiled at 12800000x512, `--repeat 20` (21 runs with the warm-up) needs
// S at most ~1.3 runs for 1.8x at two jobs (issue 42; bench/README.md, "The
// serial part against the run"). Counters: host ns per lowered instruction
// (lower, create, run) and serial_runs = (lower + create) / run, CPU time
// of this thread. Memory is reused across iterations, so first-touch page
// faults (which a fresh process pays, and which vary a lot on a virtual
// machine) are not in these figures. The argument is the threads
// Simulator::Create may use (the runner gives it `--jobs`); with more than
// one, its CPU time on this thread is only its first chunk's, so
// create_wall_ns (elapsed) and serial_wall_runs = (lower + create wall) /
// run say what it holds the runs back.
#include <time.h>

#include <cstdint>

#include "bench/bench_support.h"
#include "benchmark/benchmark.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/simulator.h"
#include "workloads/lowering/lowering.h"

namespace trn {
namespace {

using bench::LoadBenchSpec;
using bench::Trn1;

// Each iteration lowers the spec, creates its simulator and simulates one
// run (steady: the thread's scratch is sized by the first iteration, which
// the benchmark's warm-up pays), timing the three apart.
void BM_SerialPart(benchmark::State& state, const char* path,
                   const char* shape) {
  auto spec = LoadBenchSpec(path, shape);
  if (!spec.ok()) {
    state.SkipWithError(spec.status().ToString().c_str());
    return;
  }
  double lower_s = 0;
  double create_s = 0;
  double run_s = 0;
  double create_wall_s = 0;
  const int threads = static_cast<int>(state.range(0));
  int64_t instructions = 0;
  uint64_t index = 0;
  for (auto _ : state) {
    const double t0 = bench::CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    auto program = Lower(*spec, Trn1());
    const double t1 = bench::CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    if (!program.ok()) {
      state.SkipWithError(program.status().ToString().c_str());
      return;
    }
    const double w1 = bench::CpuSeconds(CLOCK_MONOTONIC);
    auto sim = Simulator::Create(*program, Trn1(), {.threads = threads});
    const double t2 = bench::CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    const double w2 = bench::CpuSeconds(CLOCK_MONOTONIC);
    if (!sim.ok()) {
      state.SkipWithError(sim.status().ToString().c_str());
      return;
    }
    MetricsAccumulator acc;
    sim->Run(1, index++, acc);
    const double t3 = bench::CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    benchmark::DoNotOptimize(acc.Metrics());
    lower_s += t1 - t0;
    create_s += t2 - t1;
    create_wall_s += w2 - w1;
    run_s += t3 - t2;
    instructions = program->InstructionCount();
  }
  const double n = static_cast<double>(state.iterations());
  const double per = 1e9 / (n * static_cast<double>(instructions));
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["lower_ns"] = lower_s * per;
  state.counters["create_ns"] = create_s * per;
  state.counters["run_ns"] = run_s * per;
  state.counters["create_wall_ns"] = create_wall_s * per;
  state.counters["serial_runs"] = run_s > 0 ? (lower_s + create_s) / run_s : 0;
  state.counters["serial_wall_runs"] =
      run_s > 0 ? (lower_s + create_wall_s) / run_s : 0;
}

BENCHMARK_CAPTURE(BM_SerialPart, exp_tiled_1280000x512,
                  "/workloads/specs/exp_tiled.json",
                  "in_tensor,out_tensor=1280000x512")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SerialPart, exp_tiled_12800000x512,
                  "/workloads/specs/exp_tiled.json",
                  "in_tensor,out_tensor=12800000x512")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_SerialPart, matmul_tiled,
                  "/workloads/validation/nki_matmul_tiled.json", "")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SerialPart, matmul_fully_optimized,
                  "/workloads/validation/nki_matmul_fully_optimized.json", "")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trn
