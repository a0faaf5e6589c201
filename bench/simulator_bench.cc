// Microbenchmarks of the timing model itself. Targets (see the README):
// >= 20 M simulated instructions per second on one core, cost linear in
// repeats x instructions.
#include <string>

#include "bench/heap_meter.h"
#include "benchmark/benchmark.h"
#include "device_model/device_profile.h"
#include "device_model/metrics.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/simulator.h"
#include "harness/runner/runner.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec.h"

namespace trn {
namespace {

const DeviceProfile& Profile() {
  static const DeviceProfile* p = [] {
    auto r = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                               "/device_model/profiles/trn1.json");
    if (!r.ok()) std::abort();
    return new DeviceProfile(*std::move(r));
  }();
  return *p;
}

// The seed's tiled exp kernel at any height: iota and mask, a masked load,
// exp on ScalarE, a masked store, per 128-row tile.
WorkloadSpec ExpSpec(int64_t rows, int64_t cols, int buffers) {
  WorkloadSpec s;
  s.name = "exp_bench";
  s.family = "exp";
  s.mode = ExecMode::kNki;
  s.tensors = {{"in_tensor", {rows, cols}, DType::kFp32, Placement::kDevice},
               {"out_tensor", {rows, cols}, DType::kFp32, Placement::kDevice}};
  NkiKernel k;
  k.source_file = "exp.py";
  NkiLoop l;
  l.var = "p";
  l.tensor = "in_tensor";
  l.tile_partitions = 128;
  l.buffers = buffers;
  l.buffers_stated = true;  // the bench's depth, not the compiler stage's
  NkiOp iota;
  iota.id = "i_p";
  iota.op = "iota";
  iota.engine = Engine::kGpSimd;
  iota.engine_stated = true;
  iota.tile = {128, 1};
  NkiOp mask;
  mask.id = "mask";
  mask.op = "tensor_scalar";
  mask.engine = Engine::kVector;
  mask.engine_stated = true;
  mask.inputs = {"i_p"};
  mask.tile = {128, 1};
  NkiOp load;
  load.id = "in_tile";
  load.op = "load";
  load.tensor = "in_tensor";
  load.mask = "mask";
  NkiOp exp;
  exp.id = "out_tile";
  exp.op = "activation";
  exp.engine = Engine::kScalar;
  exp.engine_stated = true;
  exp.func = "exp";
  exp.inputs = {"in_tile"};
  NkiOp store;
  store.op = "store";
  store.tensor = "out_tensor";
  store.inputs = {"out_tile"};
  store.mask = "mask";
  // Lines as in the seed's source: the compiler stage validates them.
  iota.source_line = mask.source_line = 20;
  load.source_line = 24;
  exp.source_line = 26;
  store.source_line = 29;
  l.body = {iota, mask, load, exp, store};
  k.loops = {l};
  s.kernel = k;
  return s;
}

// One simulated run of exp over (rows, 512); reports simulated
// instructions per second of host time.
void BM_SimulateExp(benchmark::State& state) {
  const WorkloadSpec spec = ExpSpec(state.range(0), 512, 1);
  auto program = Lower(spec, Profile());
  auto sim = Simulator::Create(*program, Profile());
  const auto instrs = static_cast<double>(program->InstructionCount());
  uint64_t index = 0;
  for (auto _ : state) {
    Timeline tl = sim->Run(1, index++);
    benchmark::DoNotOptimize(tl.events.data());
  }
  state.counters["instructions"] = instrs;
  state.counters["instructions_per_s"] =
      benchmark::Counter(instrs, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SimulateExp)
    ->Arg(250)
    ->Arg(8192)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond);

// What the runner pays per repeat: the metrics accumulated as the events
// arrive, no timeline kept.
void BM_SimulateAndMeasureExp(benchmark::State& state) {
  const WorkloadSpec spec = ExpSpec(state.range(0), 512, 1);
  auto program = Lower(spec, Profile());
  auto sim = Simulator::Create(*program, Profile());
  const auto instrs = static_cast<double>(program->InstructionCount());
  uint64_t index = 0;
  MetricsAccumulator acc;
  for (auto _ : state) {
    sim->Run(1, index++, acc);
    auto m = acc.Metrics();
    benchmark::DoNotOptimize(m.data());
  }
  state.counters["instructions_per_s"] =
      benchmark::Counter(instrs, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SimulateAndMeasureExp)
    ->Arg(131072)
    ->Arg(12800000)
    ->Unit(benchmark::kMillisecond);

// The 100k-tile case as the command line runs it:
// `trnbench --workload exp_tiled --shape in_tensor,out_tensor=12800000x512
// --repeat 100` (lowering once, 100 accumulated runs, statistics).
// peak_heap_MB: the most heap the run held at once beyond what was live
// before it (heap_meter.h), which is what grows with the program.
void BM_Exp100kTilesRepeat100(benchmark::State& state) {
  const WorkloadSpec spec = ExpSpec(12800000, 512, 1);
  RunOptions opts;
  opts.schedule.repeat = 100;
  Profile();
  const size_t before = bench::HeapLiveBytes();
  bench::ResetHeapPeak();
  for (auto _ : state) {
    auto r = RunWorkload(spec, Profile(), opts);
    benchmark::DoNotOptimize(r->metrics.data());
  }
  state.counters["peak_heap_MB"] =
      static_cast<double>(bench::HeapPeakBytes() - before) / 1e6;
}
BENCHMARK(BM_Exp100kTilesRepeat100)->Iterations(1)->Unit(benchmark::kSecond);

// Whole workload runs at growing repeat counts: time per repeat should stay
// flat (linear total cost).
void BM_RunWorkloadRepeats(benchmark::State& state) {
  const WorkloadSpec spec = ExpSpec(8192, 512, 1);
  RunOptions opts;
  opts.schedule.repeat = state.range(0);
  for (auto _ : state) {
    auto r = RunWorkload(spec, Profile(), opts);
    benchmark::DoNotOptimize(r->metrics.data());
  }
  state.counters["repeats_per_s"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RunWorkloadRepeats)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trn
