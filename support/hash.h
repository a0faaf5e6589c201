#ifndef TRNBENCH_SUPPORT_HASH_H_
#define TRNBENCH_SUPPORT_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"

namespace trn {

// FNV-1a, 64 bit: a stable hash of bytes, the same on every platform, for
// content hashes and for keying the random streams by workload name.
constexpr uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

inline std::string Fnv1a64Hex(std::string_view bytes) {
  return absl::StrFormat("%016x", Fnv1a64(bytes));
}

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_HASH_H_
