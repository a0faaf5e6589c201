// UseHugePagesForHeap: what the program allocates after it comes from the
// part of the heap advised for 2 MB pages.
#include "support/huge_heap.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace trn {
namespace {

// The ranges of the heap (the "[heap]" mappings of /proc/self/smaps)
// advised for huge pages ("hg" among their VmFlags). Only the heap's: a
// sanitizer's allocator maps memory of its own, which may carry the flag.
std::vector<std::pair<uintptr_t, uintptr_t>> AdvisedHeapRanges() {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  bool heap = false;
  while (std::getline(smaps, line)) {
    if (line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(8));
      std::string flag;
      while (flags >> flag) {
        if (flag == "hg" && heap) ranges.emplace_back(lo, hi);
      }
      continue;
    }
    // A mapping's first line: "lo-hi perms ...", in hexadecimal.
    const size_t dash = line.find('-');
    const size_t space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos ||
        dash > space || line.find(':') < dash) {
      continue;
    }
    lo = std::stoull(line.substr(0, dash), nullptr, 16);
    hi = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
    heap = line.size() >= 6 && line.compare(line.size() - 6, 6, "[heap]") == 0;
  }
  return ranges;
}

TEST(HugeHeapTest, LaterBlocksComeFromTheAdvisedRange) {
  UseHugePagesForHeap();
  const auto ranges = AdvisedHeapRanges();
  if (ranges.empty()) {
    // Not glibc on Linux, a sanitizer's allocator, or a kernel without
    // transparent huge pages: nothing of the heap is advised, by design.
    GTEST_SKIP() << "no heap range advised for huge pages here";
  }
  // A block the size of a large kernel's lists. Before the space below the
  // advice was held (and when the compiler dropped the block that holds
  // it, its address unused), the first megabytes came from below the
  // advised range, in 4 KB pages.
  constexpr size_t kBytes = size_t{1} << 20;
  char* block = static_cast<char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  const auto first = reinterpret_cast<uintptr_t>(block);
  bool inside = false;
  for (const auto& [lo, hi] : ranges) {
    inside = inside || (first >= lo && first + kBytes <= hi);
  }
  EXPECT_TRUE(inside) << "block at 0x" << std::hex << first
                      << " outside the advised ranges, the first from 0x"
                      << ranges.front().first;
  std::free(block);
}

}  // namespace
}  // namespace trn
