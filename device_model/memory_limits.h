#ifndef TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_
#define TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_

#include <cstdint>

namespace trn {

// What the compiler stage knows of one NeuronCore: its on-chip memory
// geometry (what a tile must fit in) and the engine figures placement
// weighs.
struct MemoryLimits {
  int partitions = 128;
  int64_t sbuf_bytes_per_partition = 192 * 1024;
  int64_t psum_bytes_per_partition = 16 * 1024;
  int psum_banks = 8;
  // What the compiler stage weighs engines by besides memory (engine
  // placement, docs/calibration.md, model 12): the VectorE and GpSimdE
  // clocks and GpSimdE's instruction startup overhead (GPSIMD_START, the
  // NKI ISA reference's "roughly 150 engine cycles"). Defaults: trn1.
  double vector_clock_ghz = 1.12;
  double gpsimd_clock_ghz = 1.4;
  double gpsimd_start_cycles = 150;
  double min_ii_cycles = 64;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_
