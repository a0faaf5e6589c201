// What the lowering of every mode shares (internal to workloads/lowering/):
// the instruction builder and the shapes it prices.
#ifndef TRNBENCH_WORKLOADS_LOWERING_KERNEL_BUILDER_H_
#define TRNBENCH_WORKLOADS_LOWERING_KERNEL_BUILDER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec.h"

namespace trn::lowering_internal {

// What an instruction waits for: a few ids, most often one or two, kept
// inline (a heap list per op and per tile read was most of lowering's
// allocations; issue 42). Not an absl::InlinedVector: that one keeps
// whether its ids are inline in a bit of its size, so each size(), data()
// and push_back decoded it, a fifth of lowering once the rest was cut
// (issue 42, lower42c); this one's data() always points at its ids.
class Deps {
 public:
  using value_type = uint32_t;
  using size_type = size_t;
  using iterator = uint32_t*;
  using const_iterator = const uint32_t*;
  using reference = uint32_t&;
  using const_reference = const uint32_t&;

  Deps() = default;
  Deps(std::initializer_list<uint32_t> ids) { Add(ids.begin(), ids.size()); }
  Deps(const uint32_t* first, const uint32_t* last) {
    Add(first, static_cast<size_t>(last - first));
  }
  Deps(const Deps& o) { Add(o.data_, o.size_); }
  Deps(Deps&& o) noexcept { Take(o); }
  Deps& operator=(const Deps& o) {
    if (this != &o) {
      size_ = 0;
      Add(o.data_, o.size_);
    }
    return *this;
  }
  Deps& operator=(Deps&& o) noexcept {
    if (this != &o) {
      Free();
      Take(o);
    }
    return *this;
  }
  Deps& operator=(std::initializer_list<uint32_t> ids) {
    size_ = 0;
    Add(ids.begin(), ids.size());
    return *this;
  }
  ~Deps() { Free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  uint32_t* data() { return data_; }
  const uint32_t* data() const { return data_; }
  uint32_t* begin() { return data_; }
  uint32_t* end() { return data_ + size_; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  uint32_t& front() { return data_[0]; }
  uint32_t front() const { return data_[0]; }
  uint32_t& back() { return data_[size_ - 1]; }
  uint32_t back() const { return data_[size_ - 1]; }
  uint32_t& operator[](size_t i) { return data_[i]; }
  uint32_t operator[](size_t i) const { return data_[i]; }

  void push_back(uint32_t id) {
    if (size_ == capacity_) [[unlikely]] {
      Grow(size_ + 1);
    }
    data_[size_++] = id;
  }
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  // [first, last) must be [begin(), end()) or a tail of it; the room stays.
  void erase(const uint32_t* first, const uint32_t* last) {
    const auto at = static_cast<size_t>(first - data_);
    const auto n = static_cast<size_t>(last - first);
    std::copy(last, static_cast<const uint32_t*>(end()), data_ + at);
    size_ -= static_cast<uint32_t>(n);
  }
  // Appends [first, last) (not from this list); `at` must be end().
  void insert(const uint32_t* at, const uint32_t* first, const uint32_t* last) {
    (void)at;
    Add(first, static_cast<size_t>(last - first));
  }
  void clear() { size_ = 0; }
  // Appends n ids from `ids` (not from this list).
  void Add(const uint32_t* ids, size_t n) {
    if (size_ + n > capacity_) [[unlikely]] {
      GrowAndAdd(ids, n);
      return;
    }
    std::copy(ids, ids + n, data_ + size_);
    size_ += static_cast<uint32_t>(n);
  }

  friend bool operator==(const Deps& a, const Deps& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr uint32_t kInline = 4;
  // Room for at least n, at least doubled; and the same with n ids
  // appended (which may be this list's own).
  void Grow(size_t n) { GrowAndAdd(nullptr, n - size_); }
  void GrowAndAdd(const uint32_t* ids, size_t n);
  void Free() {
    if (data_ != inline_) delete[] data_;
  }
  // Takes o's ids, leaving it empty and inline.
  void Take(Deps& o) {
    size_ = o.size_;
    if (o.data_ == o.inline_) {
      data_ = inline_;
      capacity_ = kInline;
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      o.data_ = o.inline_;
      o.capacity_ = kInline;
    }
    o.size_ = 0;
  }
  uint32_t* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  uint32_t inline_[kInline] = {};
};

// Appends `from` to `to`: room made once, then the ids copied.
void AppendMany(Deps& to, const Deps& from);

// Most lists appended are empty or one instruction (what one op made):
// those inline, since a call and the reserve's bookkeeping cost more than
// the copy (lowering appends some four lists per op; issue 42).
inline void Append(Deps& to, const Deps& from) {
  if (from.empty()) return;
  if (from.size() == 1) {
    to.push_back(from.front());
    return;
  }
  AppendMany(to, from);
}

// What a DMA transfer moves: `partitions` SBUF partitions (at most the
// profile's; an HBM copy's rows count as partitions), `runs` contiguous
// HBM runs (descriptors) of `bytes` in all; `whole_rows` when those runs
// are whole rows of the tensor, so one follows another in HBM.
struct DmaShape {
  int64_t partitions = 1;
  int64_t runs = 1;
  int64_t bytes = 0;
  bool whole_rows = false;
  bool transpose = false;
  bool indirect = false;
  bool hbm_to_hbm = false;
  bool on_chip = false;  // SBUF to SBUF
};

// How a compute instruction is priced (device_model/instruction_cost.h).
struct ComputeCost {
  CostRule rule = CostRule::kStream;
  int64_t work = 0;  // N of the rule
  int64_t aux = 0;   // stationary columns / transposed free size
  bool psum_operand = false;
  bool narrow_dtype = false;
};

inline bool IsNarrow(DType t) { return t == DType::kBf16 || t == DType::kFp16; }

class KernelBuilder {
 public:
  KernelBuilder(Kernel& k, const DeviceProfile& profile)
      : k_(k), partitions_(profile.memory.partitions) {}

  // Room for `n` more instructions: growing by doubling would hold up to
  // twice the program (and both copies while it moves) at 100k tiles.
  // Their dependencies too, kDepsPerInstruction each: an NKI kernel's
  // instruction waits for 1 to 50 others (exp_tiled 2, the matmul
  // tutorial's 4 to 38). Grown by doubling, the list was copied at every
  // step, each copy into pages faulted in anew: 2,450 of the 9,880 page
  // faults of exp_tiled at 12800000x512 (perf record -e page-faults), at
  // ~10 us each on a virtual machine. Room reserved and never written
  // costs address space, not memory.
  static constexpr size_t kDepsPerInstruction = 4;
  void Reserve(size_t n) {
    k_.instrs.reserve(k_.instrs.size() + n);
    k_.deps.reserve(k_.deps.size() + kDepsPerInstruction * n);
  }

  // One DMA instruction; the DMA unit splits it over its engines by
  // partition, as the NKI DMA guide describes.
  uint32_t Dma(const std::string& opcode, const std::string& label,
               const DmaShape& shape, const Deps& deps, int line = 0,
               int iteration = -1) {
    const uint32_t opcode_id = k_.Intern(opcode);
    return Dma(opcode_id, k_.Intern(label), shape, deps, line, iteration);
  }

  // The same with the opcode and label already interned (Intern): a loop
  // body's op emits the same two strings on every iteration.
  uint32_t Dma(uint32_t opcode, uint32_t label, const DmaShape& shape,
               const Deps& deps, int line = 0, int iteration = -1) {
    Instruction in;
    in.kind = InstrKind::kDma;
    in.partitions = static_cast<int32_t>(
        std::clamp<int64_t>(shape.partitions, 1, partitions_));
    in.aux = std::max<int64_t>(shape.runs, 1);
    in.work = shape.bytes;
    in.transpose = shape.transpose;
    in.indirect = shape.indirect;
    in.hbm_to_hbm = shape.hbm_to_hbm;
    in.on_chip = shape.on_chip;
    // A gather's rows come through an index, a transpose writes columns and
    // an HBM copy's rows are dealt as rows, not as a block per engine; an
    // SBUF copy's partitions are not one after another in any memory.
    in.contiguous_rows = shape.whole_rows && !shape.transpose &&
                         !shape.indirect && !shape.hbm_to_hbm && !shape.on_chip;
    in.opcode = opcode;
    in.label = label;
    in.source_line = line;
    in.iteration = iteration;
    return k_.Add(in, deps.data(), deps.size());
  }

  uint32_t Compute(Engine engine, const std::string& opcode,
                   const std::string& label, DType dtype, int64_t partitions,
                   const ComputeCost& cost, const Deps& deps, int64_t flops,
                   int line = 0, int iteration = -1) {
    const uint32_t opcode_id = k_.Intern(opcode);
    return Compute(engine, opcode_id, k_.Intern(label), dtype, partitions, cost,
                   deps, flops, line, iteration);
  }

  uint32_t Compute(Engine engine, uint32_t opcode, uint32_t label, DType dtype,
                   int64_t partitions, const ComputeCost& cost,
                   const Deps& deps, int64_t flops, int line = 0,
                   int iteration = -1) {
    Instruction in;
    in.kind = InstrKind::kCompute;
    in.engine = engine;
    in.dtype = dtype;
    in.rule = cost.rule;
    in.work = cost.work;
    in.aux = cost.aux;
    in.psum_operand = cost.psum_operand;
    in.narrow_dtype = cost.narrow_dtype;
    in.partitions = static_cast<int32_t>(partitions);
    in.flops = flops;
    in.opcode = opcode;
    in.label = label;
    in.source_line = line;
    in.iteration = iteration;
    return k_.Add(in, deps.data(), deps.size());
  }

  // Instruction `id`'s form (InstructionList::FormOf), and a new
  // instruction of form `form` waiting for `deps` in `iteration`: what
  // Dma or Compute makes of the same arguments as the instruction that
  // form was first seen with (Kernel::AddForm).
  uint32_t FormOf(uint32_t id) const { return k_.instrs.FormOf(id); }
  uint32_t Again(uint32_t form, const Deps& deps, int iteration) {
    return k_.AddForm(form, iteration, deps.data(), deps.size());
  }

  // The id of an instruction's opcode or label: the strings are numbered
  // in the order they are first interned.
  uint32_t Intern(const std::string& s) { return k_.Intern(s); }

  size_t size() const { return k_.instrs.size(); }

 private:
  Kernel& k_;
  int64_t partitions_;
};

absl::Status TooManyInstructions(const WorkloadSpec& spec);

// Refuses a program of more than kMaxInstructions. Checked after every op,
// so the test is inline and the message built only when it fails.
inline absl::Status CheckSize(const WorkloadSpec& spec, size_t n) {
  if (static_cast<int64_t>(n) > kMaxInstructions) {
    return TooManyInstructions(spec);
  }
  return absl::OkStatus();
}

}  // namespace trn::lowering_internal

#endif  // TRNBENCH_WORKLOADS_LOWERING_KERNEL_BUILDER_H_
