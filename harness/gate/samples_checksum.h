// A checksum of a metric's samples, recorded in baselines and results when
// they are written and checked when they are read, so that a flipped byte
// is detected as corruption instead of being read as data
// (docs/baseline-format.md says what it does and does not protect).
#ifndef TRNBENCH_HARNESS_GATE_SAMPLES_CHECKSUM_H_
#define TRNBENCH_HARNESS_GATE_SAMPLES_CHECKSUM_H_

#include <span>
#include <string>

namespace trn {

// "fnv1a64:" and 16 hex digits: FNV-1a 64 over each sample's IEEE-754
// binary64 bytes, least significant first, in order. JSON numbers as
// trnbench writes them read back to the same doubles, so the text's
// formatting does not matter, only the values and their order.
std::string SamplesChecksum(std::span<const double> samples);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_GATE_SAMPLES_CHECKSUM_H_
