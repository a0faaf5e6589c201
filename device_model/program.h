// What the timing model runs: host-level dispatches, each one hardware
// execution of a kernel of engine instructions and DMA transfers.
#ifndef TRNBENCH_DEVICE_MODEL_PROGRAM_H_
#define TRNBENCH_DEVICE_MODEL_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/exec_mode.h"

namespace trn {

enum class InstrKind : uint8_t { kCompute, kDma };

struct Instruction {
  InstrKind kind = InstrKind::kCompute;
  Engine engine = Engine::kVector;  // compute: which engine runs it
  DType dtype = DType::kFp32;
  int32_t queue = 0;       // DMA: which queue carries it
  int32_t partitions = 1;  // partitions touched
  int64_t work = 0;        // compute: elements per partition; DMA: bytes
  // Arithmetic the instruction performs, set by lowering (a matmul of a
  // K x M stationary and K x N moving tile is 2*K*M*N; elementwise and
  // reduction ops about one per element; copies and DMA none). Timing never
  // reads it: it is what rooflines and FLOP utilisation are made of.
  int64_t flops = 0;
  uint32_t opcode = 0;      // index into Kernel::strings
  uint32_t label = 0;       // index into Kernel::strings (tile, tensor)
  int32_t source_line = 0;  // kernel source line, 0 if none
  int32_t iteration = -1;   // tile-loop iteration, -1 if none
  // DMA: index of the first chunk of the transfer this chunk belongs to.
  // The chunks of one transfer share one trigger and one completion
  // semaphore, so they share one latency draw.
  uint32_t transfer = 0;
  uint32_t deps_begin = 0;  // [deps_begin, deps_end) in Kernel::deps
  uint32_t deps_end = 0;
};

// Instructions are in program order; every dependency names an earlier
// instruction, so program order is a topological order.
struct Kernel {
  std::string name;
  std::string source_file;
  std::vector<Instruction> instrs;
  std::vector<uint32_t> deps;
  std::vector<std::string> strings;

  uint32_t Intern(const std::string& s);
  // Appends `instr` depending on `dep_ids` (indices of earlier instructions).
  uint32_t Add(Instruction instr, const std::vector<uint32_t>& dep_ids);
};

// A copy from host memory that must land before the dispatch runs, such as
// a CPU scalar operand.
struct HostCopy {
  std::string tensor;
  int64_t bytes = 0;
};

struct Dispatch {
  std::string name;  // aten::mul, Torch-Compiled Region, kernel name
  std::vector<HostCopy> host_copies;
  Kernel kernel;
};

struct Program {
  std::string name;
  ExecMode mode = ExecMode::kEager;
  std::vector<Dispatch> dispatches;

  int64_t InstructionCount() const;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_PROGRAM_H_
