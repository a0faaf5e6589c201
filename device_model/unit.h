// Units of the figures trnbench reports. Each has one symbol, the string
// the results, baseline and profile files carry (docs/results-format.md);
// code compares units as this enum, never as strings.
#ifndef TRNBENCH_DEVICE_MODEL_UNIT_H_
#define TRNBENCH_DEVICE_MODEL_UNIT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn {

enum class Unit : uint8_t {
  kMicroseconds,        // "us"
  kFraction,            // "fraction": 0.25 is 25%
  kBytes,               // "B"
  kGigabytesPerSecond,  // "GB/s", 1e9 bytes a second
  kPerSecond,           // "1/s"
  kFlops,               // "FLOP": floating-point operations
  kFlopsPerSecond,      // "FLOP/s"
  kFlopsPerByte,        // "FLOP/B": arithmetic intensity
  kCount,               // "": a plain number of things
};

// The symbol written in files ("us", "fraction", "B", ...).
std::string_view UnitSymbol(Unit unit);

// The unit a file's symbol names; nullopt for a symbol trnbench does not
// know (a file from a newer version).
std::optional<Unit> UnitFromSymbol(std::string_view symbol);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_UNIT_H_
