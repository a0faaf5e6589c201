// Simulator::Create's passes over a long kernel split into contiguous
// ranges of program order, one thread each (issue 42): the command that
// lowers one large kernel and runs it twenty times waited for its setup on
// one core while the others idled. Each pass's chunks write disjoint
// entries, or their own partial results merged in chunk order afterwards,
// so the simulator built is the same for any number of threads.
#ifndef TRNBENCH_DEVICE_MODEL_CHUNKS_H_
#define TRNBENCH_DEVICE_MODEL_CHUNKS_H_

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace trn {

// [0, n) cut into at most `threads` ranges of at least `min_chunk` entries
// each (one range when n is smaller): bounds[k] to bounds[k + 1] is range
// k, bounds.front() 0 and bounds.back() n.
inline std::vector<size_t> ChunkBounds(size_t n, int threads,
                                       size_t min_chunk) {
  size_t count = std::max(1, threads);
  if (min_chunk > 0)
    count = std::min(count, std::max<size_t>(1, n / min_chunk));
  std::vector<size_t> bounds(count + 1);
  for (size_t k = 0; k <= count; ++k) bounds[k] = n * k / count;
  return bounds;
}

// fn(k, begin, end) for every range k of `bounds`, at once: range 0 on the
// calling thread, each other on a thread of its own, all joined before it
// returns (a thread costs tens of microseconds; the ranges are long).
template <typename Fn>
void ForEachChunk(const std::vector<size_t>& bounds, Fn&& fn) {
  const size_t count = bounds.size() - 1;
  std::vector<std::thread> others;
  others.reserve(count > 0 ? count - 1 : 0);
  for (size_t k = 1; k < count; ++k) {
    others.emplace_back([&fn, &bounds, k] { fn(k, bounds[k], bounds[k + 1]); });
  }
  if (count > 0) fn(size_t{0}, bounds[0], bounds[1]);
  for (std::thread& t : others) t.join();
}

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_CHUNKS_H_
