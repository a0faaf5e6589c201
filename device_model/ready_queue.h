// An engine's instructions that may issue, smallest program index first.
// They become ready nearly in program order (a tile loop's instructions
// one after the other), so they are kept sorted, with the earliest at a
// moving head: a new index nearly always goes at the back with no move,
// and taking the first moves nothing, where a binary heap sifted at both
// ends (std::push_heap / std::pop_heap, 5% of a compute-bound run's
// instructions, callgrind).
#ifndef TRNBENCH_DEVICE_MODEL_READY_QUEUE_H_
#define TRNBENCH_DEVICE_MODEL_READY_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trn {

class ReadyQueue {
 public:
  // The storage a queue first takes. An engine's queue in a compute-bound
  // run holds a few indices at a time and never empties, so its head moves
  // on through the storage, which is compacted when it is full: at 16 slots
  // that was every ten pushes or so (ReadyQueue::Grow, 1% of the fully
  // optimized matmul's steady run, callgrind); at 256 (1 KB) every 250.
  static constexpr size_t kFirstCapacity = 256;

  bool empty() const { return head_ == size_; }
  // The smallest index; the queue must not be empty.
  uint32_t front() const { return items_[head_]; }
  // Indices it has room for without growing.
  size_t capacity() const { return items_.size(); }
  // No index, keeping the storage.
  void clear() { head_ = size_ = 0; }
  // How often any queue of this thread compacted its storage (for tests;
  // not a member, which made the queue larger and the run slower).
  static size_t& CompactionsOnThisThread() {
    thread_local size_t compactions = 0;
    return compactions;
  }

  // Adds an index not already queued.
  void push(uint32_t i) {
    if (size_ == items_.size()) Grow();
    // In locals: an index written (a uint32_t) may alias the members as
    // far as the compiler knows.
    uint32_t* const items = items_.data();
    const size_t head = head_;
    size_t hole = size_++;
    while (hole > head && i < items[hole - 1]) {
      items[hole] = items[hole - 1];
      --hole;
    }
    items[hole] = i;
  }
  // Removes and returns the smallest index; the queue must not be empty.
  uint32_t pop() {
    const uint32_t i = items_[head_++];
    if (head_ == size_) clear();
    return i;
  }

 private:
  // Room for more: the live indices moved down to the front first, and
  // the storage doubled only when they fill half of it, so a queue that
  // never empties stays as large as twice its most indices at once.
  __attribute__((noinline)) void Grow() {
    const size_t live = size_ - head_;
    if (head_ > 0 && live <= items_.size() / 2) {
      for (size_t k = 0; k < live; ++k) items_[k] = items_[head_ + k];
      head_ = 0;
      size_ = live;
      ++CompactionsOnThisThread();
      return;
    }
    items_.resize(items_.empty() ? kFirstCapacity : 2 * items_.size());
  }

  // [head_, size_) of items_, ascending; items_'s size is its capacity.
  std::vector<uint32_t> items_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_READY_QUEUE_H_
