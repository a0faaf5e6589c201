#include "bench/heap_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace trn::bench {
namespace {

std::atomic<size_t> live{0};
std::atomic<size_t> peak{0};

void* Counted(void* p) {
  if (p == nullptr) return nullptr;
  const size_t now =
      live.fetch_add(malloc_usable_size(p), std::memory_order_relaxed) +
      malloc_usable_size(p);
  size_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen &&
         !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return p;
}

void* Allocate(size_t n) {
  void* p = Counted(std::malloc(n == 0 ? 1 : n));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* AllocateAligned(size_t n, std::align_val_t al) {
  const size_t a = static_cast<size_t>(al);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = ((n == 0 ? 1 : n) + a - 1) / a * a;
  void* p = Counted(std::aligned_alloc(a, rounded));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void Free(void* p) {
  if (p == nullptr) return;
  live.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

size_t HeapLiveBytes() { return live.load(std::memory_order_relaxed); }
size_t HeapPeakBytes() { return peak.load(std::memory_order_relaxed); }
void ResetHeapPeak() { peak.store(HeapLiveBytes(), std::memory_order_relaxed); }

}  // namespace trn::bench

// The replaceable global allocation and deallocation functions
// ([new.delete]). Every form is replaced, so that no block is counted by
// one and freed by a library default that does not count it.
void* operator new(size_t n) { return trn::bench::Allocate(n); }
void* operator new[](size_t n) { return trn::bench::Allocate(n); }
void* operator new(size_t n, std::align_val_t al) {
  return trn::bench::AllocateAligned(n, al);
}
void* operator new[](size_t n, std::align_val_t al) {
  return trn::bench::AllocateAligned(n, al);
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return trn::bench::Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    return trn::bench::Allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { trn::bench::Free(p); }
void operator delete[](void* p) noexcept { trn::bench::Free(p); }
void operator delete(void* p, size_t) noexcept { trn::bench::Free(p); }
void operator delete[](void* p, size_t) noexcept { trn::bench::Free(p); }
void operator delete(void* p, std::align_val_t) noexcept {
  trn::bench::Free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  trn::bench::Free(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  trn::bench::Free(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  trn::bench::Free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  trn::bench::Free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  trn::bench::Free(p);
}
