// An ordered parallel map: items 0 .. n - 1 are produced on up to `jobs`
// threads, in any order, and consumed on the calling thread strictly in
// index order. Whatever a consumer computes from the results (sums,
// samples, documents) is then the same to the bit for every `jobs`, as long
// as each item depends on its index alone. At most a bounded window of
// produced items waits to be consumed, so memory does not grow with n.
#ifndef TRNBENCH_SUPPORT_ORDERED_PARALLEL_H_
#define TRNBENCH_SUPPORT_ORDERED_PARALLEL_H_

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trn {

// The alignment that keeps two workers' hot state apart, so that no cache
// line is written by one while the other uses it (false sharing): a 4 KB
// page. Not a line or a 128-byte pair: besides the spatial prefetcher
// (which completes a line's 128-byte pair), Intel's L2 streamer follows
// ascending and descending runs of accesses and fetches lines ahead of
// them anywhere in the same 4 KB page, and no further (Intel 64 and IA-32
// Architectures Optimization Reference Manual, "Data Prefetching"). With
// two metrics accumulators 128-byte aligned side by side, the second
// worker's accesses to its own state pulled the first's last line (its
// byte count, added to on every DMA span) away from it: 13% of the first
// worker's CPU samples fell on that one add, and at --jobs 2 the runs of
// exp_tiled 1280000x512 took about a fifth more CPU than at --jobs 1
// (perf record -e cpu-clock, samples per thread; issue 42). Give each
// worker's state alignas(kNoFalseSharing): it then fills pages of its own.
inline constexpr size_t kNoFalseSharing = 4096;

// The machine's cores, at least 1: the default of `--jobs`.
inline int HardwareJobs() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// Calls produce(worker, k) -> absl::StatusOr<T> for every k in [0, n), on
// `jobs` threads (worker in [0, jobs), fixed per thread, so a worker may
// keep state of its own between items), and consume(k, T&&) -> absl::Status
// on the calling thread for k = 0, 1, ... in order. Stops at the first
// error in index order and returns it: the error a serial loop would have
// returned, since items after it are dropped unconsumed (an item after a
// failed one may already have been produced; it must have no effect
// outside its result). With jobs <= 1, or n <= 1, it is that serial loop
// on the calling thread. At most `window` items (default 2 per job) are
// produced and not yet consumed.
template <typename T, typename Produce, typename Consume>
absl::Status OrderedParallelMap(size_t n, int jobs, Produce&& produce,
                                Consume&& consume, size_t window = 0) {
  const size_t workers = std::min(n, static_cast<size_t>(std::max(jobs, 1)));
  if (workers <= 1) {
    for (size_t k = 0; k < n; ++k) {
      absl::StatusOr<T> r = produce(size_t{0}, k);
      if (!r.ok()) return r.status();
      if (absl::Status s = consume(k, *std::move(r)); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (window < workers) window = 2 * workers;
  // Slot k % window holds item k from its production to its consumption.
  std::vector<std::optional<absl::StatusOr<T>>> slots(window);
  std::mutex mu;
  std::condition_variable produced;  // a slot was filled
  std::condition_variable consumed;  // a slot was freed, or the map stops
  size_t next = 0;                   // the next item to hand out
  size_t done = 0;                   // items consumed
  bool stop = false;
  auto work = [&](size_t worker) {
    for (;;) {
      size_t k;
      {
        std::unique_lock<std::mutex> lock(mu);
        consumed.wait(lock, [&] { return stop || next < done + window; });
        if (stop || next >= n) return;
        k = next++;
      }
      absl::StatusOr<T> r = produce(worker, k);
      {
        std::lock_guard<std::mutex> lock(mu);
        slots[k % window].emplace(std::move(r));
      }
      produced.notify_all();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) threads.emplace_back(work, w);
  absl::Status status = absl::OkStatus();
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<T> r = absl::UnknownError("unset");
    {
      std::unique_lock<std::mutex> lock(mu);
      produced.wait(lock, [&] { return slots[k % window].has_value(); });
      r = std::move(*slots[k % window]);
      slots[k % window].reset();
    }
    if (r.ok())
      status = consume(k, *std::move(r));
    else
      status = r.status();
    {
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      if (!status.ok()) stop = true;
    }
    consumed.notify_all();
    if (!status.ok()) break;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  consumed.notify_all();
  for (std::thread& t : threads) t.join();
  return status;
}

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_ORDERED_PARALLEL_H_
