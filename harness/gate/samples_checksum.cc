#include "harness/gate/samples_checksum.h"

#include <bit>
#include <cstdint>

#include "absl/strings/str_format.h"

namespace trn {

std::string SamplesChecksum(std::span<const double> samples) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64, as support/hash.h
  for (double x : samples) {
    const auto bits = std::bit_cast<uint64_t>(x);
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (bits >> (8 * byte)) & 0xff;
      h *= 0x100000001b3ULL;
    }
  }
  return absl::StrFormat("fnv1a64:%016x", h);
}

}  // namespace trn
