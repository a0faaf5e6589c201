#include "device_model/instruction_cost.h"

#include <algorithm>

namespace trn {
namespace {

bool IsWide(DType t) { return t == DType::kFp32 || t == DType::kInt32; }

}  // namespace

double RuleCycles(const Instruction& in, const DeviceProfile& p) {
  const EngineParams& e = p.engines[static_cast<size_t>(in.engine)];
  const double n = static_cast<double>(in.work) / e.elements_per_cycle;
  const double min_ii = p.cost.min_ii_cycles;
  // trn2's VectorE performance mode: bf16/fp16 streams run 2-4x faster.
  const bool fast = in.engine == Engine::kVector && in.narrow_dtype;
  switch (in.rule) {
    case CostRule::kStream:
      return fast ? n / p.cost.vector_narrow_speedup_1input : n;
    case CostRule::kStream2: {
      const double c = in.psum_operand ? n : p.cost.two_input_factor * n;
      return fast ? c / p.cost.vector_narrow_speedup_2input : c;
    }
    case CostRule::kActivation:
      return n;
    case CostRule::kAccumulate:
      // The reduction rides along; reading the accumulator out costs
      // about one minimum interval more.
      return std::max(min_ii, n) + min_ii;
    case CostRule::kIndexGen:
      return p.cost.index_gen_fixed_cycles + n;
    case CostRule::kReciprocal:
      return p.cost.reciprocal_factor * n;
    case CostRule::kBnAggr:
      return p.cost.bn_aggr_factor * n;
    case CostRule::kMatmul: {
      // LoadStationary is fast and runs in the background: only a very
      // narrow moving tile leaves the stationary load exposed.
      const double stationary = std::min(min_ii, static_cast<double>(in.aux));
      const double c = std::max(stationary, n);
      return IsWide(in.dtype) ? c / p.tensor_fp32_rate : c;
    }
    case CostRule::kTransposePe: {
      const double c = std::max(static_cast<double>(in.partitions),
                                std::min(min_ii, static_cast<double>(in.aux)));
      return IsWide(in.dtype) ? c / p.cost.tensor_fp32_transpose_rate : c;
    }
  }
  return n;
}

InstructionTiming ComputeTiming(const Instruction& in, const DeviceProfile& p) {
  const EngineParams& e = p.engines[static_cast<size_t>(in.engine)];
  const double per_us = e.clock_ghz * 1e3;  // cycles per microsecond
  double cycles = RuleCycles(in, p);
  if (in.rule != CostRule::kIndexGen) {
    cycles = std::max(cycles, p.cost.min_ii_cycles);
  }
  InstructionTiming t;
  t.interval_us = cycles / per_us;
  double tail = e.static_overhead_cycles;
  // The PE array's result leaves after the data crosses its columns.
  if (in.rule == CostRule::kMatmul) tail += static_cast<double>(in.aux);
  t.latency_us = (cycles + tail) / per_us;
  t.active_us =
      in.engine == Engine::kTensor
          ? t.latency_us
          : (cycles + std::min(p.cost.access_overhead_cycles, tail)) / per_us;
  return t;
}

}  // namespace trn
