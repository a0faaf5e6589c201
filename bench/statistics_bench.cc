// Cost of the per-series diagnostics (every summary computes them) and of
// one comparison, at the sizes people run: 100 repeats and far more.
#include <cmath>
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/serial_dependence.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

std::vector<double> Samples(int64_t n, uint64_t key) {
  CounterRng rng(CounterRng::KeyFor(key, 1, 0));
  std::vector<double> x(static_cast<size_t>(n));
  double e = 0.0;
  for (double& v : x) {
    e = 0.5 * e + (rng.NextUniform() - 0.5);
    v = 100.0 * std::exp(0.02 * e);
  }
  return x;
}

void BM_DiagnoseSeries(benchmark::State& state) {
  const std::vector<double> x = Samples(state.range(0), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(stats::DiagnoseSeries(x));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DiagnoseSeries)->Arg(100)->Arg(10'000)->Arg(1'000'000);

void BM_CompareSamples(benchmark::State& state) {
  const std::vector<double> a = Samples(state.range(0), 2);
  const std::vector<double> b = Samples(state.range(0), 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(CompareSamples(a, b, false, 0.95));
  }
}
BENCHMARK(BM_CompareSamples)->Arg(100)->Arg(10'000);

}  // namespace
}  // namespace trn
