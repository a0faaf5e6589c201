#include "device_model/roofline.h"

#include <algorithm>
#include <limits>

#include "device_model/instruction_cost.h"

namespace trn {

double EnginePeakFlopsPerS(const DeviceProfile& profile, Engine engine,
                           DType dtype) {
  const double elements_per_s = profile.ElementsPerUs(engine, dtype) * 1e6;
  const auto partitions = static_cast<double>(profile.memory.partitions);
  if (engine == Engine::kVector &&
      (dtype == DType::kBf16 || dtype == DType::kFp16)) {
    // trn2's VectorE performance mode: bf16/fp16 streams up to 4x faster.
    return partitions * elements_per_s *
           std::max(profile.cost.vector_narrow_speedup_1input,
                    profile.cost.vector_narrow_speedup_2input);
  }
  if (engine == Engine::kTensor) {
    // One moving column meets a full stationary tile: partitions x
    // partitions multiply-adds.
    return 2.0 * partitions * partitions * elements_per_s;
  }
  return partitions * elements_per_s;
}

DevicePeaks ComputePeaks(const DeviceProfile& profile) {
  DevicePeaks p;
  for (int e = 0; e < kNumEngines; ++e) {
    p.flops_per_s[static_cast<size_t>(e)] =
        EnginePeakFlopsPerS(profile, static_cast<Engine>(e), DType::kBf16);
  }
  p.tensor_fp32_flops_per_s =
      EnginePeakFlopsPerS(profile, Engine::kTensor, DType::kFp32);
  p.hbm_bytes_per_s = profile.hbm_gbps * 1e9;
  p.dma_queue_bytes_per_s = profile.dma_queue_gbps * 1e9;
  p.dma_bytes_per_s =
      std::min(p.hbm_bytes_per_s, p.dma_queue_bytes_per_s *
                                      static_cast<double>(profile.dma_queues));
  return p;
}

ProgramCost ComputeProgramCost(const Program& program,
                               const DeviceProfile& profile) {
  ProgramCost c;
  for (const Dispatch& d : program.dispatches) {
    const Kernel& k = d.kernel;
    for (size_t i = 0; i < k.instrs.size(); ++i) {
      const Instruction& in = k.instrs[i];
      if (in.kind == InstrKind::kDma) {
        c.dma_bytes += in.work;
        c.hbm_bytes += in.hbm_to_hbm ? 2 * in.work : in.on_chip ? 0 : in.work;
        ++c.dma_transfers;
        // One piece per DMA engine whose partitions the transfer touches.
        const int64_t pmax = std::max(1, profile.memory.partitions);
        const int64_t ppe =
            std::max<int64_t>(1, (pmax + profile.dma_queues - 1) /
                                     std::max(1, profile.dma_queues));
        const int64_t parts = std::clamp<int64_t>(in.partitions, 1, pmax);
        c.dma_chunks += (parts + ppe - 1) / ppe;
        continue;
      }
      EngineCost& e = c.engines[static_cast<size_t>(in.engine)];
      const auto& params = profile.engines[static_cast<size_t>(in.engine)];
      ++e.instructions;
      e.flops += in.flops;
      // The rule's own cycles are work; what the minimum initiation
      // interval adds on top is overhead.
      const double per_us = params.clock_ghz * 1e3;
      const double rule_us = RuleCycles(in, profile) / per_us;
      const double interval_us = ComputeTiming(in, profile).interval_us;
      e.work_us += rule_us;
      e.overhead_us += std::max(0.0, interval_us - rule_us);
      e.peak_us += static_cast<double>(in.flops) /
                   EnginePeakFlopsPerS(profile, in.engine, in.dtype) * 1e6;
      c.flops += in.flops;
    }
  }
  for (const EngineCost& e : c.engines) {
    c.compute_floor_us = std::max(c.compute_floor_us, e.peak_us);
  }
  // The engines move every byte once; HBM serves an HBM copy's twice.
  const DevicePeaks peaks = ComputePeaks(profile);
  c.memory_floor_us = std::max(
      static_cast<double>(c.dma_bytes) / (peaks.dma_bytes_per_s / 1e6),
      static_cast<double>(c.hbm_bytes) / (peaks.hbm_bytes_per_s / 1e6));
  return c;
}

Roofline ComputeRoofline(const ProgramCost& cost, const DevicePeaks& peaks,
                         double time_us) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Roofline r;
  r.flops = static_cast<double>(cost.flops);
  r.hbm_bytes = static_cast<double>(cost.hbm_bytes);
  r.arithmetic_intensity = r.hbm_bytes > 0 ? r.flops / r.hbm_bytes : kInf;
  r.device_peak_flops_per_s =
      peaks.flops_per_s[static_cast<size_t>(Engine::kTensor)];
  // A program without arithmetic has no compute roof of its own; the
  // device's peak is the honest ceiling to draw.
  r.compute_roof_flops_per_s = cost.compute_floor_us > 0 && r.flops > 0
                                   ? r.flops / (cost.compute_floor_us * 1e-6)
                                   : r.device_peak_flops_per_s;
  r.memory_roof_bytes_per_s = peaks.dma_bytes_per_s;
  r.ridge_point = r.compute_roof_flops_per_s / r.memory_roof_bytes_per_s;
  r.attainable_flops_per_s =
      std::min(r.compute_roof_flops_per_s,
               r.arithmetic_intensity * r.memory_roof_bytes_per_s);
  r.achieved_flops_per_s = time_us > 0 ? r.flops / (time_us * 1e-6) : 0.0;
  r.attained_fraction = r.attainable_flops_per_s > 0
                            ? r.achieved_flops_per_s / r.attainable_flops_per_s
                            : 0.0;
  r.memory_bound = cost.memory_floor_us > cost.compute_floor_us;
  return r;
}

}  // namespace trn
