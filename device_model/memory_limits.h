#ifndef TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_
#define TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_

#include <cstdint>

namespace trn {

// On-chip memory geometry of one NeuronCore: what a tile must fit in.
struct MemoryLimits {
  int partitions = 128;
  int64_t sbuf_bytes_per_partition = 192 * 1024;
  int64_t psum_bytes_per_partition = 16 * 1024;
  int psum_banks = 8;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_MEMORY_LIMITS_H_
