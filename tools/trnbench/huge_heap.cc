#include "tools/trnbench/huge_heap.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define TRN_HUGE_HEAP 1
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#undef TRN_HUGE_HEAP
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#undef TRN_HUGE_HEAP
#endif
#endif

namespace trn {

void UseHugePagesForHeap() {
#ifdef TRN_HUGE_HEAP
  constexpr size_t kHuge = size_t{2} << 20;
  // Address space, not memory: pages are made only where written.
  constexpr size_t kReserve = size_t{1} << 30;
  // Blocks up to 32 MB (glibc's own largest threshold) from the heap rather
  // than each from a mapping of its own, and the heap kept, not given back
  // as it shrinks: what is freed is used again without new page faults.
  if (mallopt(M_MMAP_THRESHOLD, 32 << 20) == 0) return;
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  // The heap grown by kReserve at once, so that the whole of it is one
  // range to advise.
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  void* p = std::malloc(kHuge);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default again
  if (p == nullptr) return;
  const auto from = reinterpret_cast<uintptr_t>(p);
  std::free(p);
  const auto to = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t begin = (from + kHuge - 1) / kHuge * kHuge;
  const uintptr_t end = to / kHuge * kHuge;
  // The block did not come from the heap (sbrk refused): nothing to advise.
  if (to < from || end <= begin || to - from > 2 * kReserve) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

}  // namespace trn
