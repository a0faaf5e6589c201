// What one compute instruction costs on its engine, by the published rule
// its CostRule names (NKI ISA reference and architecture guides; each rule
// and constant is listed with its source in docs/device-profile.md).
#ifndef TRNBENCH_DEVICE_MODEL_INSTRUCTION_COST_H_
#define TRNBENCH_DEVICE_MODEL_INSTRUCTION_COST_H_

#include "device_model/device_profile.h"
#include "device_model/program.h"

namespace trn {

struct InstructionTiming {
  // The engine can issue its next instruction this long after this one
  // starts: the rule's cycles, at least the minimum initiation interval.
  double interval_us = 0;
  // The result is committed this long after the start: the interval plus
  // the engine's static overhead (pipeline and SBUF access). An instruction
  // that reads the result waits for it, which is why dependent back-to-back
  // instructions run far slower than independent ones.
  double latency_us = 0;
  // The engine is active this long for an instruction whose result no
  // instruction of its own engine reads: the interval plus the tensor
  // access overhead (architecture guide: "initiating a tensor access ...
  // incurs a static overhead approximately 60 cycles"). The static
  // instruction overhead, the rest of the latency, is the engine's only
  // when it waits for the result ("every instruction depending on the
  // output tile of the previous instruction"); then the whole latency is
  // active. TensorE: the latency.
  double active_us = 0;
};

// The rule's engine cycles for `in` before the minimum interval applies.
double RuleCycles(const Instruction& in, const DeviceProfile& profile);

// `in` must be a compute instruction.
InstructionTiming ComputeTiming(const Instruction& in,
                                const DeviceProfile& profile);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_INSTRUCTION_COST_H_
