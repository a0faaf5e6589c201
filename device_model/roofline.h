// Peak rates of a NeuronCore derived from its profile, what a program asks
// of the device, and where the two put the program on a roofline.
#ifndef TRNBENCH_DEVICE_MODEL_ROOFLINE_H_
#define TRNBENCH_DEVICE_MODEL_ROOFLINE_H_

#include <array>
#include <cstdint>

#include "device_model/device_profile.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/program.h"

namespace trn {

// Derived, not stored: a peak is a product of profile parameters the timing
// model already uses, so the roofline can never disagree with the model.
// Rates are per second.
struct DevicePeaks {
  // At the engine's best dtype: TensorE streams one moving column of a
  // partitions x partitions stationary tile per cycle (2 FLOPs per PE); the
  // other engines do one operation per element per partition per cycle.
  std::array<double, kNumEngines> flops_per_s{};
  double tensor_fp32_flops_per_s = 0;
  double hbm_bytes_per_s = 0;        // the core's share of HBM
  double dma_queue_bytes_per_s = 0;  // one queue, large transfers
  // All queues together: min(HBM, queues x queue peak).
  double dma_bytes_per_s = 0;
};

DevicePeaks ComputePeaks(const DeviceProfile& profile);

// Peak FLOP/s of `engine` on data of type `dtype`.
double EnginePeakFlopsPerS(const DeviceProfile& profile, Engine engine,
                           DType dtype);

struct EngineCost {
  int64_t instructions = 0;
  int64_t flops = 0;
  // Time the instructions take at full throughput (work / rate), and the
  // fixed issue overhead they add on top.
  double work_us = 0;
  double overhead_us = 0;
  // Time the FLOPs would take at the engine's peak: every partition (every
  // PE) busy. Less than work_us when tiles leave partitions idle.
  double peak_us = 0;
};

// What a program asks of the device, whatever the schedule.
struct ProgramCost {
  std::array<EngineCost, kNumEngines> engines{};
  int64_t flops = 0;
  int64_t dma_bytes = 0;  // bytes the DMA engines move
  // HBM traffic: the DMA bytes, an HBM-to-HBM copy's twice (read, write).
  int64_t hbm_bytes = 0;
  int64_t dma_transfers = 0;  // DMA instructions as lowered (nl.load, ...)
  int64_t dma_chunks = 0;     // their pieces, one per queue used
  // Lower bounds on time: the FLOPs of the busiest engine at its peak, and
  // the bytes at the DMA peak. Neither counts overheads, dependencies or
  // partitions a tile leaves idle; that is what keeps a program below its
  // roofs.
  double compute_floor_us = 0;
  double memory_floor_us = 0;
};

ProgramCost ComputeProgramCost(const Program& program,
                               const DeviceProfile& profile);

struct Roofline {
  double flops = 0;
  double hbm_bytes = 0;
  // FLOP per HBM byte; +infinity when the program moves no bytes.
  double arithmetic_intensity = 0;
  // The compute roof of this program: its FLOPs over the compute floor,
  // i.e. the peaks of the engines it uses, weighted by its FLOPs on each.
  // For a program whose arithmetic is all on TensorE it is the device peak
  // below; for a VectorE kernel, VectorE's peak.
  double compute_roof_flops_per_s = 0;
  double device_peak_flops_per_s = 0;  // TensorE, bf16
  double memory_roof_bytes_per_s = 0;  // DevicePeaks::dma_bytes_per_s
  // Intensity at which the two roofs meet.
  double ridge_point = 0;
  double attainable_flops_per_s = 0;  // min(compute roof, AI x memory roof)
  double achieved_flops_per_s = 0;    // FLOPs over the measured time
  double attained_fraction = 0;       // achieved / attainable
  // The memory floor exceeds the compute floor.
  bool memory_bound = false;
};

// `time_us` is the measured time of one run (NCL, or device time).
Roofline ComputeRoofline(const ProgramCost& cost, const DevicePeaks& peaks,
                         double time_us);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_ROOFLINE_H_
