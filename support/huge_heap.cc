#include "support/huge_heap.h"

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
#ifdef TRN_HUGE_HEAP
namespace {
// Written through a volatile pointer: a block whose address is never read
// may be left out by the compiler (malloc without a use is dead code to
// g++), and then nothing holds the space below the advice.
void* volatile below_advice = nullptr;
}  // namespace
#endif

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
  // Advised from the first 2 MB boundary past the block's end, not past its
  // start. Below its start the heap's first 2 MB range is not all heap, so
  // it cannot be one 2 MB page; and taking the block wrote glibc's header
  // of the free space after it, a 4 KB page fault before the advice, which
  // leaves that 2 MB range in 4 KB pages for good. With the advice from the
  // block's start, the first ~2 MB the program wrote were 4 KB faults
  // either way: 466 of them in a large kernel's lowering (exp_tiled at
  // 12800000x512, perf record -e page-faults -d: the addresses, all in the
  // heap's first two 2 MB ranges), ~12 us each on this project's virtual
  // machines.
  const uintptr_t begin = (from + kHuge + 64 + kHuge - 1) / kHuge * kHuge;
  const uintptr_t end = to / kHuge * kHuge;
  // The block did not come from the heap (sbrk refused): nothing to advise.
  if (to < from || end <= begin || to - from > 2 * kReserve) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  // The heap's free space still starts where the block did. A block taken
  // up to `begin` and never freed moves every later one into the advised
  // range. Its pages are never written, so it costs address space (2-4 MB),
  // not memory. (A glibc chunk is its request plus its 8-byte size word,
  // rounded up to 16 bytes, from 16 bytes below the address returned: 16
  // bytes less than the gap puts the next chunk's size word just below
  // `begin` and the next block at `begin`.)
  below_advice = std::malloc(begin - from - 16);
#endif
}

}  // namespace trn
