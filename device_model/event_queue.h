// The simulator's pending events as a binary min-heap. Events are ordered by
// a total order (time, then push order), so any correct heap pops the same
// sequence; this one replaces std::push_heap / std::pop_heap because a
// tiled kernel keeps only one or two events in flight, and there the
// standard algorithms' general code cost more than handling the events.
#ifndef TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_
#define TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_

#include <cstddef>
#include <vector>

namespace trn {

// `Ev` needs a strict total order `operator<` (the earliest first).
template <typename Ev>
class EventQueue {
 public:
  bool Empty() const { return v_.empty(); }
  const Ev& Top() const { return v_.front(); }

  // Moves a hole up rather than swapping. Measured: a variant with its own
  // size and capacity (growth out of line) executed 9% fewer instructions
  // than this but ran 5-10% slower, so storage stays a std::vector.
  void Push(const Ev& e) {
    size_t hole = v_.size();
    v_.push_back(e);
    while (hole > 0) {
      const size_t parent = (hole - 1) / 2;
      if (!(e < v_[parent])) break;
      v_[hole] = v_[parent];
      hole = parent;
    }
    v_[hole] = e;
  }

  // Removes and returns the earliest event; the queue must not be empty.
  Ev Pop() {
    const Ev top = v_.front();
    const Ev last = v_.back();
    v_.pop_back();
    const size_t n = v_.size();
    if (n > 0) {
      size_t hole = 0;
      for (size_t child = 1; child < n; child = 2 * hole + 1) {
        if (child + 1 < n && v_[child + 1] < v_[child]) ++child;
        if (!(v_[child] < last)) break;
        v_[hole] = v_[child];
        hole = child;
      }
      v_[hole] = last;
    }
    return top;
  }

 private:
  std::vector<Ev> v_;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_EVENT_QUEUE_H_
