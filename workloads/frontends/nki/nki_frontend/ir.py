"""What a trace records: loops, ops, HBM tensors and on-chip arrays."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

from .expr import Affine, LoopVar


class Loop:
    """One traced loop (the root is a loop that runs once)."""

    def __init__(self, var: Optional[LoopVar], kind: str, trip: int,
                 line: int, parent: Optional["Loop"]) -> None:
        self.var = var
        self.kind = kind  # affine, sequential, static; root
        self.trip = trip
        self.line = line
        self.parent = parent
        self.body: List[Union["Op", "Loop"]] = []
        self.id_for: Optional["Array"] = None  # the array this loop's id is
        # How the loop writes it: "set", each iteration its own slot (a
        # block), or "acc", every iteration updating the same tiles (an
        # accumulator or a state, which has no slots).
        self.id_kind = ""
        self.outer_writes: List[Tuple["Array", "Op", str]] = []
        # reduce_res= slots of arrays allocated around the loop, by the
        # accumulate op that writes them (core.write_reduction).
        self.reductions: List[Tuple["Array", "Op"]] = []
        self.candidates: List[tuple] = []
        self.depth = 0 if parent is None else parent.depth + 1
        # Decided by the emitter.
        self.name = ""
        self.id = ""
        self.walk: Optional[Tuple[str, int, int]] = None
        self.one_buffer = False  # its id's tiles: see Op.one_buffer
        self.tile_buffers = 0  # its id's tiles: see Op.tile_buffers
        # NKI's no_reorder: the scheduler keeps the source's order in the
        # loop and the loops nested in it ("no_reorder" in the spec).
        self.no_reorder = False
        # A sequential loop's versions of arrays allocated around it that
        # the body around reads after it: ops and loops of its own body,
        # each standing for the last iteration's tile ("results").
        self.results: List[Union["Op", "Loop"]] = []
        # Reads in it of a version made before it, of an array it may write
        # later in its body: (array, reader, ref, buffer key or None),
        # resolved when it closes (core._close_versions).
        self.carried_reads: List[tuple] = []
        # Arrays written anew in each iteration, taken to be its own
        # (core._privatize, no block dim): handed back when it closes.
        self.privatized: List["Array"] = []
        # A Python `range` loop whose variable the kernel may compute with
        # (loops.LoopRange): its source line, and where this piece of it
        # starts among the range's iterations.
        self.splittable = False
        self.key = line
        self.offset = 0

    def encloses(self, other: Optional["Loop"]) -> bool:
        while other is not None:
            if other is self:
                return True
            other = other.parent
        return False

    def chain(self) -> List["Loop"]:
        out: List[Loop] = []
        l: Optional[Loop] = self
        while l is not None and l.kind != "root":
            out.append(l)
            l = l.parent
        return list(reversed(out))


class HbmTensor:
    def __init__(self, name: str, shape: Tuple[int, ...], dtype: str) -> None:
        self.name = name
        self.shape = shape
        self.dtype = dtype


class DimAccess:
    """One dim of an access: start (affine in loop vars), extent, and
    whether an integer index removed the dim (`A[c, i_state]`)."""

    def __init__(self, start: Affine, extent: int, squeezed: bool,
                 axis_position: int = -1) -> None:
        self.start = start
        self.extent = extent
        self.squeezed = squeezed
        self.axis_position = axis_position


# The operators a tensor_scalar's "alu" may name (the NKI reference's
# "Supported Math Operators for NKI ISA", and nl.divide).
ALU_NAMES = frozenset((
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "equal",
    "not_equal", "greater_equal", "greater", "less_equal", "less",
    "logical_not", "logical_and", "logical_or", "logical_xor", "rsqrt",
    "reciprocal", "abs", "power", "invert", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift"))


class Op:
    def __init__(self, kind: str, line: int, loop: Loop, stmt: int,
                 target: Optional[str]) -> None:
        self.kind = kind
        self.line = line
        self.loop = loop
        self.stmt = stmt
        self.target = target
        self.inputs: List["Ref"] = []
        self.engine: Optional[str] = None
        self.func: Optional[str] = None
        # tensor_scalar's operators, op0 then op1 (the spec's "alu"); None
        # when a name is not one the front end knows.
        self.alu: Optional[List[str]] = None
        self.tile: Tuple[int, int] = (1, 1)
        self.dtype: Optional[str] = None
        self.buffer: Optional[str] = None
        self.tensor: Optional[HbmTensor] = None
        self.source: Optional[HbmTensor] = None  # hbm_copy's from
        self.access: Optional[List[DimAccess]] = None
        self.mask: Optional["Op"] = None
        # NKI's mask=: a predicate of the instruction, no tile to wait for.
        self.predicate = False
        self.accumulate = False
        self.transpose = False
        self.insert_transpose = False  # nl.matmul with transpose_x=False
        self.carry_self = False
        # Tiles of the same body this op reads as the previous iteration
        # made them (`scan(initial=s)` then `s[...] = ...` in the loop).
        self.carries: List["Op"] = []
        # Versions a sequential loop around the op makes, read as its
        # previous iteration made them (core._close_versions); the op's
        # inputs name what the first iteration reads.
        self.carry_refs: List["Ref"] = []
        self.after: List["Ref"] = []
        # A gather's or scatter's index tile (a load from or store to an
        # HBM view indexed by a tile, indexing.IndirectIndex): "indirect".
        self.indirect: Optional["Ref"] = None
        self.role = "tile"  # tile, slot, acc
        self.out: Optional["Array"] = None  # the array the op writes
        self.id = ""
        self.elided = False
        # Its tile is one buffer every iteration of its loop overwrites (an
        # array allocated outside the loop, core._privatize).
        self.one_buffer = False
        # Or it has this many buffers (2 or more) over those iterations: a
        # buffer index `i % n`, or mod_alloc's physical tiles.
        self.tile_buffers = 0
        # A reduction op (the reduce_res= of an accumulate op): the loop
        # whose block of reductions it stands for, or None for one op's.
        self.view_of: Optional["Loop"] = None


class Array:
    """An on-chip tensor: an `nl.ndarray`/`nl.zeros` allocation or an op's
    result. Shape is the logical shape; `pdim` the partition dim's index
    (dims before it are block dims)."""

    def __init__(self, name: Optional[str], shape: Tuple[int, ...],
                 dtype: str, buffer: str, pdim: int, loop: Loop,
                 line: int) -> None:
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.buffer = buffer
        self.pdim = pdim
        self.loop = loop
        self.home = loop  # where it is allocated (loop changes: _privatize)
        self.line = line
        self.current: Optional[Union[Op, Loop]] = None
        # The latest version written at a constant index of a free dim,
        # by (dim, index): the buffers a rotation dim holds before and
        # after the loop that rotates them ("_STALE": not expressible).
        self.by_const: Dict[Tuple[int, int], object] = {}
        # The buffer key ((i + c) % n: c % n) the rotating loop writes.
        self.rot_write_key: Optional[int] = None
        self.pending_memset: Optional[Op] = None
        self.block_dims: List[int] = []  # per block level, the dim written
        self.fresh = False  # an op's result not yet stored anywhere
        self.fresh_name = name is None  # named by its op's statement
        # Ops that read a version of this array made before their loop.
        self.outer_readers: List["Op"] = []
        # The free dim a kernel indexes `(i + c) % n` to rotate n buffers by
        # hand, and that index (core._rotation); it is not part of the tile.
        self.rotation: Optional[Tuple[int, object]] = None
        # mod_alloc's physical tile count per block dim, when it places the
        # array (language.ndarray).
        self.mod_tiles: Optional[Tuple[int, ...]] = None
        # Physical buffers across the loop it is private to (core._privatize):
        # 1 is one_buffer; 0 leaves it to the loop's depth.
        self.tile_buffers = 0

    def whole_tile(self) -> Tuple[int, int]:
        """All of the array as one tile: its block dims side by side."""
        p, free = self.tile()
        for d in self.shape[:self.pdim]:
            free *= d
        return (p, free)

    def tile(self) -> Tuple[int, int]:
        rest = self.shape[self.pdim:]
        if not rest:
            return (1, 1)
        free = 1
        for i, d in enumerate(rest[1:], self.pdim + 1):
            if self.rotation is None or i != self.rotation[0]:
                free *= d
        return (rest[0], free)


class SlotSum:
    """A slot picked by several loop variables, `t[:, kb * 4 + ki, :]` (the
    2026-02 attention v11's `scores_sbuf_t`): written "kb*4+ki"."""

    def __init__(self, terms: List[Tuple[LoopVar, int]]) -> None:
        self.terms = terms

    @property
    def name(self) -> str:
        return "+".join(v.name if c == 1 else f"{v.name}*{c}"
                        for v, c in self.terms)

    def subst(self, old: LoopVar, new: LoopVar) -> "SlotSum":
        return SlotSum([(new if v is old else v, c) for v, c in self.terms])


class Ref:
    """An input: a version of an array (the op or loop that made it), and
    for a block the loop variables of the slot read."""

    def __init__(self, version: Union[Op, Loop],
                 slots: List[Union[LoopVar, SlotSum]],
                 part: Optional[Tuple[int, int]] = None) -> None:
        self.version = version
        self.array: Optional[Array] = None  # the array read, if on chip
        self.slots = slots
        self.part = part  # [partitions, free] read of a bigger tile
        # The partitions a one-partition tile is broadcast to before the
        # op reads it (`x.broadcast_to((P, n))`), or None.
        self.broadcast: Optional[int] = None
