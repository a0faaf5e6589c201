// The simulator's pending events, earliest first. Events are ordered by a
// total order (time, then push order), so any correct queue pops the same
// sequence; this one replaces std::push_heap / std::pop_heap because a
// tiled kernel keeps only one or two events in flight, and there the
// standard algorithms' general code cost more than handling the events.
#ifndef TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_
#define TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace trn {

struct QueuedEvent {
  double time;
  uint64_t payload;  // what the event is, opaque to the queue
};

// Each field in an array of its own, so every read and write of a field is
// one scalar access. With events stored whole, the compiler copied them 16
// bytes at a time out of slots that had been written 8 bytes at a time, so
// an event popped soon after its push waited for those stores to retire (a
// failed store-to-load forward). Measured: runs 5% faster; earlier variants
// that moved whole events differently ran up to 20% slower, most likely
// for this reason.
//
// The queue numbers the pushes itself, so an event pushed is later than
// every event queued with the same time: a push compares times only, and
// while the queue is small and sorted (nearly always) the push order is
// the order of the array and is not stored at all. The sorted form never
// needs more than 2 * kSortedMax slots (below), which the arrays always
// have, so its pushes check no capacity either; only the heap grows them
// (issue 42: together a third fewer instructions per push, callgrind).
//
// TopTime() of an empty queue is +infinity: an empty queue is always in the
// sorted form with head_ 0 (a pop that empties it clears it, and so does a
// heap that empties), and its first slot then holds +infinity (written by
// those and the constructor), so the event loop asks "is the next event
// due?" with one load and one compare, not a test of emptiness first
// (issue 42, sim42j).
class EventQueue {
 public:
  EventQueue() {
    Grow(2 * kSortedMax);
    time_[0] = kNever;
  }

  bool Empty() const { return head_ == size_; }
  // No event, as constructed, keeping the storage (a simulator's scratch
  // queue is reused run after run).
  void Clear() {
    head_ = 0;
    size_ = 0;
    heap_ = false;
    pushes_ = 0;
    time_[0] = kNever;
  }
  // The earliest event's time; +infinity when the queue is empty.
  double TopTime() const { return time_[head_]; }

  void Push(double time, uint64_t payload) {
    ++pushes_;
    const size_t live = size_ - head_;
    // The heap and the switch to it out of line: the sorted form's path
    // then saves no registers (callgrind: 10 fewer instructions a push).
    if (heap_ || live >= kSortedMax) return PushToHeap(time, payload);
    // Earlier than every event: into the slot before the first, if any.
    // (At the same time as the first it is later: it was pushed after.)
    if (head_ > 0 && (live == 0 || time < time_[head_])) {
      --head_;
      time_[head_] = time;
      payload_[head_] = payload;
      return;
    }
    // Otherwise from the back, moving the later events up a slot. Pop
    // keeps head_ below kSortedMax and this form holds at most kSortedMax
    // events, so size_ stays below 2 * kSortedMax.
    // In locals: a payload (uint64_t) written may alias a member as far as
    // the compiler knows, which made it reload head_ every step.
    const size_t head = head_;
    double* const times = time_.data();
    uint64_t* const payloads = payload_.data();
    size_t hole = size_++;
    while (hole > head && time < times[hole - 1]) {
      times[hole] = times[hole - 1];
      payloads[hole] = payloads[hole - 1];
      --hole;
    }
    times[hole] = time;
    payloads[hole] = payload;
  }

  // Push(time, payload) then Push(later, later_payload), for `later` no
  // earlier than `time`: one call, and one walk from the back for both
  // (a compute instruction's issue end and completion).
  void PushPair(double time, uint64_t payload, double later,
                uint64_t later_payload) {
    const size_t live = size_ - head_;
    if (heap_ || live + 2 > kSortedMax || !(time <= later)) {
      Push(time, payload);
      Push(later, later_payload);
      return;
    }
    pushes_ += 2;
    // As in Push: the later event goes after every event of its time or
    // earlier, then the first likewise below it, so each is later than
    // the events of its time queued before (and the first before the
    // second). head_ < kSortedMax and live + 2 <= kSortedMax keep size_
    // below 2 * kSortedMax.
    const size_t head = head_;
    double* const times = time_.data();
    uint64_t* const payloads = payload_.data();
    size_t k = size_;
    size_ += 2;
    while (k > head && later < times[k - 1]) {
      times[k + 1] = times[k - 1];
      payloads[k + 1] = payloads[k - 1];
      --k;
    }
    times[k + 1] = later;
    payloads[k + 1] = later_payload;
    while (k > head && time < times[k - 1]) {
      times[k] = times[k - 1];
      payloads[k] = payloads[k - 1];
      --k;
    }
    times[k] = time;
    payloads[k] = payload;
  }

  // Removes and returns the earliest event; the queue must not be empty.
  QueuedEvent Pop() {
    if (heap_) return HeapPop();
    const QueuedEvent top{time_[head_], payload_[head_]};
    ++head_;
    if (head_ == size_) {
      Clear();
    } else if (head_ >= kSortedMax) {
      // At most kSortedMax events live: moving them down keeps the arrays
      // at twice that, every kSortedMax pops or more.
      Compact();
    }
    return top;
  }

 private:
  // Up to this many events are kept sorted; more go in a binary heap
  // until the queue empties. 64 rather than 32: the fully optimized
  // matmul's queue often held more than 32 (17,806 heap pops in one run)
  // and went back and forth between the forms (callgrind, Ir of one
  // steady run: 39.4 M at 32, 38.2 M at 64, 38.2 M at 128; the other
  // matmul versions 0.1-0.2% fewer; 16 cost the tiled matmul 20% more).
  static constexpr size_t kSortedMax = 64;
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  static bool Earlier(double time, uint64_t seq, double other_time,
                      uint64_t other_seq) {
    return time != other_time ? time < other_time : seq < other_seq;
  }
  void Move(size_t from, size_t to) {
    time_[to] = time_[from];
    seq_[to] = seq_[from];
    payload_[to] = payload_[from];
  }
  // Room for n events (out of line: the heap's growth, rare).
  __attribute__((noinline)) void Grow(size_t n) {
    time_.resize(n);
    seq_.resize(n);
    payload_.resize(n);
  }
  // Moves the live events [head_, size_) of the sorted form to the front.
  void Compact() {
    const size_t live = size_ - head_;
    for (size_t i = 0; i < live; ++i) {
      time_[i] = time_[head_ + i];
      payload_[i] = payload_[head_ + i];
    }
    size_ = live;
    head_ = 0;
  }
  // A sorted array is a binary min-heap as it stands. Its events are in
  // push order where their times tie, so their ranks order them as their
  // push numbers would, and every later push is numbered past them.
  void ToHeap() {
    Compact();
    for (size_t i = 0; i < size_; ++i) seq_[i] = i;
    heap_ = true;
  }

  __attribute__((noinline)) void PushToHeap(double time, uint64_t payload) {
    if (!heap_) ToHeap();
    HeapPush(time, payload);
  }

  // Moves a hole up rather than swapping. The event is later than every
  // queued one of its time.
  void HeapPush(double time, uint64_t payload) {
    const uint64_t seq = pushes_ + kSortedMax;
    if (size_ == time_.size()) Grow(2 * size_);
    size_t hole = size_++;
    while (hole > 0) {
      const size_t parent = (hole - 1) / 2;
      if (!(time < time_[parent])) break;
      Move(parent, hole);
      hole = parent;
    }
    time_[hole] = time;
    seq_[hole] = seq;
    payload_[hole] = payload;
  }

  QueuedEvent HeapPop() {
    const QueuedEvent top{time_[0], payload_[0]};
    const size_t n = --size_;
    const double time = time_[n];
    const uint64_t seq = seq_[n];
    const uint64_t payload = payload_[n];
    if (n > 0) {
      size_t hole = 0;
      for (size_t child = 1; child < n; child = 2 * hole + 1) {
        if (child + 1 < n && Earlier(time_[child + 1], seq_[child + 1],
                                     time_[child], seq_[child])) {
          ++child;
        }
        if (!Earlier(time_[child], seq_[child], time, seq)) break;
        Move(child, hole);
        hole = child;
      }
      time_[hole] = time;
      seq_[hole] = seq;
      payload_[hole] = payload;
    } else {
      heap_ = false;  // empty: sorted again
      time_[0] = kNever;
    }
    return top;
  }

  // Sorted (heap_ false): the events in [head_, size_) of time_ and
  // payload_, earliest first (seq_ unused). Heap (heap_ true): a binary
  // min-heap in [0, size_) of all three, head_ 0, ordered by (time, seq).
  // The arrays' size is their capacity, at least 2 * kSortedMax.
  std::vector<double> time_;
  std::vector<uint64_t> seq_;
  std::vector<uint64_t> payload_;
  size_t head_ = 0;
  size_t size_ = 0;
  bool heap_ = false;
  uint64_t pushes_ = 0;  // since the queue was last empty and sorted
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_
