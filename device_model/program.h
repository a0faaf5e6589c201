// What the timing model runs: host-level dispatches, each one hardware
// execution of a kernel of engine instructions and DMA transfers.
#ifndef TRNBENCH_DEVICE_MODEL_PROGRAM_H_
#define TRNBENCH_DEVICE_MODEL_PROGRAM_H_

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/exec_mode.h"

namespace trn {

enum class InstrKind : uint8_t { kCompute, kDma };

// Which published cost rule prices a compute instruction (NKI ISA reference,
// "estimated instruction cost"; docs/device-profile.md lists each). The model
// knows rules, not workload op names: lowering picks the rule.
enum class CostRule : uint8_t {
  kStream,       // one input tile: N cycles (tensor_scalar, copy, reduce)
  kStream2,      // two input tiles: 2N, or N with one operand in PSUM
  kActivation,   // ScalarE activation: N
  kAccumulate,   // activation/tensor_scalar with reduce: N + MIN_II
  kIndexGen,     // iota, affine_select on GpSimd: fixed + N
  kReciprocal,   // VectorE reciprocal: 8N
  kBnAggr,       // bn_aggr: 13N/3
  kMatmul,       // TensorE: max(min(64, stationary cols), moving cols)
  kTransposePe,  // TensorE transpose: max(partitions, min(64, free))
};

struct Instruction {
  InstrKind kind = InstrKind::kCompute;
  Engine engine = Engine::kVector;  // compute: which engine runs it
  CostRule rule = CostRule::kStream;
  DType dtype = DType::kFp32;  // compute: the dtype its cost depends on
  // Compute: the instruction reads an operand from PSUM (tensor_tensor's
  // 1x rule) / streams bf16 or fp16 only (trn2 VectorE performance mode).
  bool psum_operand = false;
  bool narrow_dtype = false;
  // DMA: a transpose on the fly / the rows are gathered through an index.
  bool transpose = false;
  bool indirect = false;
  // DMA: an HBM-to-HBM copy. Its rows are dealt to the engines as an SBUF
  // transfer's partitions are (`partitions` counts them), and it reads and
  // writes HBM, so it draws twice its bytes from HBM bandwidth.
  bool hbm_to_hbm = false;
  // DMA: an SBUF-to-SBUF copy. Its partitions are dealt to the engines as
  // a load's are, one descriptor each, and it draws nothing from HBM
  // bandwidth.
  bool on_chip = false;
  // DMA: its rows follow one another in HBM (a block of whole rows of an
  // SBUF load or store), so an engine's rows may share one descriptor
  // (DeviceProfile::dma_rows_per_descriptor).
  bool contiguous_rows = false;
  int32_t partitions = 1;  // partitions touched (DMA: SBUF side, <= 128)
  // Compute: elements per partition N of the rule (a matmul's moving
  // columns). DMA: bytes moved.
  int64_t work = 0;
  // Compute: a matmul's stationary columns, a transpose's free size.
  // DMA: contiguous HBM runs (rows) the transfer is made of; each is one
  // descriptor on the DMA engine that serves its partition.
  int64_t aux = 0;
  // Arithmetic the instruction performs, set by lowering (a matmul of a
  // K x M stationary and K x N moving tile is 2*K*M*N; elementwise and
  // reduction ops about one per element; copies and DMA none). Timing never
  // reads it: it is what rooflines and FLOP utilisation are made of.
  int64_t flops = 0;
  uint32_t opcode = 0;      // index into Kernel::strings
  uint32_t label = 0;       // index into Kernel::strings (tile, tensor)
  int32_t source_line = 0;  // kernel source line, 0 if none
  int32_t iteration = -1;   // tile-loop iteration, -1 if none
  uint32_t deps_begin = 0;  // [deps_begin, deps_end) in Kernel::deps
  uint32_t deps_end = 0;

  // Field by field, so that InstructionList's forms follow every field
  // without a list of them to keep in step.
  auto operator<=>(const Instruction&) const = default;
};

// A kernel's instructions in program order, stored compactly. A tiled
// kernel repeats a handful of instruction forms (everything but the
// iteration and the dependencies) thousands of times, so each form is kept
// once and an instruction takes 12 bytes, not the 64 of an Instruction
// (32 MB at 100k tiles). Reading one gives the whole Instruction back, by
// value; Kernel::Add is the only way in.
class InstructionList {
 public:
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  Instruction operator[](size_t i) const;
  Instruction back() const { return (*this)[size() - 1]; }
  void reserve(size_t n) { entries_.reserve(n); }
  // How many distinct forms the instructions have.
  size_t forms() const { return forms_.size(); }
  // Instruction i's form, numbered in order of first appearance: what
  // depends on the fields of an instruction but not on its iteration or
  // dependencies is worked out once per form (KernelSim, Simulator::Create;
  // rebuilding every instruction was 11% of Simulator::Create for a tiled
  // kernel, issue 42). i < size().
  uint32_t FormOf(size_t i) const { return entries_[i].form; }
  // Form f as an Instruction, its iteration -1 and no dependencies.
  const Instruction& Form(uint32_t f) const { return forms_[f]; }
  // Instruction i's dependencies are [DepsBegin(i), DepsEnd(i)) of
  // Kernel::deps. i < size().
  uint32_t DepsBegin(size_t i) const { return entries_[i].deps_begin; }
  uint32_t DepsEnd(size_t i) const {
    return i + 1 < entries_.size() ? entries_[i + 1].deps_begin : deps_end_;
  }
  // Frees the storage; size() is then 0 and reading one is an internal
  // error (Program::ReleaseInstructions says when that is safe).
  void Release();

  class const_iterator {
   public:
    using value_type = Instruction;
    using difference_type = std::ptrdiff_t;
    const_iterator() = default;
    const_iterator(const InstructionList* list, size_t i)
        : list_(list), i_(i) {}
    Instruction operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator was = *this;
      ++i_;
      return was;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const InstructionList* list_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  friend struct Kernel;
  // Appends `in` (its iteration and [deps_begin, deps_end) included).
  void Append(const Instruction& in);
  // Appends an instruction of form `form` (< forms()): what Append does
  // for an instruction equal to Form(form) but for these three.
  void AppendForm(uint32_t form, int32_t iteration, uint32_t deps_begin,
                  uint32_t deps_end) {
    entries_.push_back({form, iteration, deps_begin});
    deps_end_ = deps_end;
  }
  // Whether the next append grows the entries (Kernel::AddForm).
  bool Full() const { return entries_.size() == entries_.capacity(); }
  // AppendForm when !Full(), giving the new instruction's index.
  uint32_t AppendFormWithRoom(uint32_t form, int32_t iteration,
                              uint32_t deps_begin, uint32_t deps_end) {
    if (Full()) __builtin_unreachable();
    const auto index = static_cast<uint32_t>(entries_.size());
    entries_.push_back({form, iteration, deps_begin});
    deps_end_ = deps_end;
    return index;
  }

  struct Entry {
    uint32_t form;
    int32_t iteration;
    uint32_t deps_begin;  // deps_end is the next one's deps_begin
  };
  std::vector<Entry> entries_;
  // Each form is an Instruction without iteration and dependencies.
  std::vector<Instruction> forms_;
  // Hashed on the fields that tell a loop body's instructions apart (a
  // hash may leave fields out: equal forms still hash alike); the map
  // compared whole Instructions field by field, some 300 instructions of
  // lowering per append (issue 42).
  struct FormHash {
    size_t operator()(const Instruction& in) const;
  };
  std::unordered_map<Instruction, uint32_t, FormHash> form_ids_;
  // The form last appended per (opcode, label, line) slot, tried before
  // the hash table: a loop body appends the same few forms in turn, and
  // comparing one form cost a fraction of hashing and probing (issue 42).
  // kNoForm: none yet.
  static constexpr uint32_t kNoForm = 0xffffffffu;
  static constexpr size_t kRecent = 64;
  std::array<uint32_t, kRecent> recent_ = Empty();
  static constexpr std::array<uint32_t, kRecent> Empty() {
    std::array<uint32_t, kRecent> a{};
    a.fill(kNoForm);
    return a;
  }
  uint32_t deps_end_ = 0;  // the last instruction's deps_end
};

// Instructions are in program order; every dependency names an earlier
// instruction, so program order is a topological order.
struct Kernel {
  std::string name;
  std::string source_file;
  InstructionList instrs;
  std::vector<uint32_t> deps;
  std::vector<std::string> strings;

  uint32_t Intern(const std::string& s);
  // Appends `instr` depending on `dep_ids` (indices of earlier instructions).
  uint32_t Add(Instruction instr, const std::vector<uint32_t>& dep_ids) {
    return Add(instr, dep_ids.data(), dep_ids.size());
  }
  // The same from `n` ids at `dep_ids` (lowering keeps short lists inline).
  uint32_t Add(Instruction instr, const uint32_t* dep_ids, size_t n);
  // Appends an instruction equal to instrs.Form(form) but for its
  // iteration and dependencies: the program is what Add of that
  // instruction makes. A loop body's op appends the same form on every
  // iteration; building the Instruction and finding its form again was a
  // fifth of lowering (issue 42). form < instrs.forms().
  // With room for both lists' appends (lowering reserves it) no growth
  // path is compiled in: with push_back's inline, AddForm saved and
  // restored six registers and spilled its arguments, ~15 of its ~68
  // instructions (issue 42, lower42g); AddFormGrowing makes the room.
  uint32_t AddForm(uint32_t form, int32_t iteration, const uint32_t* dep_ids,
                   size_t n) {
    if (deps.capacity() - deps.size() < n || instrs.Full()) [[unlikely]] {
      return AddFormGrowing(form, iteration, dep_ids, n);
    }
    const auto begin = static_cast<uint32_t>(deps.size());
    for (size_t i = 0; i < n; ++i) {
      if (deps.size() == deps.capacity()) __builtin_unreachable();
      deps.push_back(dep_ids[i]);
    }
    const uint32_t end = begin + static_cast<uint32_t>(n);
    return instrs.AppendFormWithRoom(form, iteration, begin, end);
  }
  // Frees the instructions and their dependencies; name, source file and
  // strings stay.
  void ReleaseInstructions();

 private:
  // AddForm once room is made for its appends, as push_back grows.
  uint32_t AddFormGrowing(uint32_t form, int32_t iteration,
                          const uint32_t* dep_ids, size_t n);
  // One by one: an instruction has a few (lowering reserves the room), and
  // vector's range insert cost 55 instructions an append (issue 42).
  void AppendDeps(const uint32_t* dep_ids, size_t n) {
    for (size_t i = 0; i < n; ++i) deps.push_back(dep_ids[i]);
  }
};

// A copy from host memory that must land before the dispatch runs, such as
// a CPU scalar operand.
struct HostCopy {
  std::string tensor;
  int64_t bytes = 0;
};

struct Dispatch {
  std::string name;  // aten::mul, Torch-Compiled Region, kernel name
  std::vector<HostCopy> host_copies;
  Kernel kernel;
};

struct Program {
  std::string name;
  ExecMode mode = ExecMode::kEager;
  std::vector<Dispatch> dispatches;

  int64_t InstructionCount() const;
  // Frees every kernel's instructions, keeping the dispatches (names, host
  // copies) and the mode. A Simulator built from the program keeps what its
  // runs need, so it may still run with a listener that reads no
  // instruction (MetricsAccumulator); a TimelineRecorder reads them. The
  // runner's repeats do this: the instructions were a third of the memory
  // of a 100k-tile run.
  void ReleaseInstructions();
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_PROGRAM_H_
