"""Recording ops: an API call becomes an ir.Op in the innermost open loop,
reading ir.Refs of the arrays it takes (the version each read sees, from
versions) and writing its result, a whole tile or a slot of a block
allocated outside its loops."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from . import ir, location
from .dtypes import dtype_obj
from .expr import Affine, LoopVar
from .indexing import normalize, tile_of, view_tile
from .location import err
from .tiles import (OPS, ApView, Broadcast, LoopReduce, Tile, TileView,
                    is_tile, unlist, waits_of)
from .versions import (access_rotation, before_loop, chain_below,
                       check_private, const_dims, note_export, privatize,
                       rehome, rotated_version, set_version, slot_sum_fits)


# How many calls with a mask= are open: every op they record is predicated
# (NKI's mask= is a predicate of the instruction, ir.Op.predicate).
_predicated = 0


class predicated:
    """`with predicated(on):` the ops recorded inside carry the predicate."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __enter__(self) -> None:
        global _predicated
        _predicated += self.on

    def __exit__(self, *exc: object) -> None:
        global _predicated
        _predicated -= self.on


def new_array(name: Optional[str], shape: Tuple[int, ...], dtype: str,
              buffer: str, pdim: int = 0) -> ir.Array:
    t = location.active()
    return ir.Array(name, shape, dtype, buffer, pdim, t.loop,
                    location.current_line())


# A spec op takes at least ~90 bytes of JSON: more than this many cannot
# fit the format's 1 MiB.
MAX_TRACED_OPS = 12000


def make_op(kind: str, inputs: Sequence[object] = (), *,
            shape: Sequence[int] = (1, 1), dtype: str = "fp32",
            buffer: Optional[str] = None, engine: Optional[str] = None,
            func: Optional[str] = None, result: bool = True) -> ir.Op:
    t = location.active()
    line = location.current_line()
    op = ir.Op(kind, line, t.loop, line, location.current_target())
    for x in inputs:
        op.inputs.append(ref_of(x))
        # An .ap view from a runtime offset: its scalar_offset= tile.
        op.after.extend(ref_of(w) for w in waits_of(x))
    note_readers(op)
    op.engine = engine
    op.func = func
    op.tile = tile_of(shape)
    # A DMA between HBM tensors has no on-chip tile: no partition limit.
    if op.tile[0] > 128 and kind != "hbm_copy":
        raise err(f"a {kind} tile of {op.tile[0]} partitions; a tile has at "
                  "most 128 (nl.tile_size.pmax)")
    op.dtype = dtype
    op.buffer = buffer
    op.predicate = _predicated > 0
    if len(t.ops) >= MAX_TRACED_OPS:
        # Loops traced one iteration at a time (Python ranges where the
        # kernel needs their values) can multiply without bound; a spec
        # of this many ops is over the format's 1 MiB anyway, so stop
        # here rather than after minutes.
        raise err(f"the kernel unrolls too far: more than {MAX_TRACED_OPS} "
                  "ops traced (a spec may be at most 1 MiB); Python range "
                  "loops whose values the kernel needs are traced one "
                  "iteration at a time (docs/nki-source.md)")
    t.loop.body.append(op)
    t.ops.append(op)
    if result:
        arr = new_array(None, tuple(shape), dtype, buffer or "sbuf")
        arr.current = op
        arr.fresh = True
        op.out = arr
    return op


def indirect_ref(dims: Sequence[ir.DimAccess]) -> Optional[ir.Ref]:
    """The index tile of a gather (an HBM view indexed by a tile), read by
    the load as its "indirect"; None for a direct access."""
    sources = [getattr(d, "indirect") for d in dims
               if getattr(d, "indirect", None) is not None]
    if not sources:
        return None
    if len(sources) > 1:
        raise err("an HBM tensor indexed by two tiles: one indirect dim "
                  "per access is supported")
    return ref_of(sources[0])


def note_readers(op: ir.Op) -> None:
    """Records, on each array the op reads, that it reads a version made
    before the op's loop (what a whole write later in the loop carries),
    and, on a sequential loop around it, a read of a version made before
    that loop which the loop may write later (_close_versions)."""
    for r in op.inputs:
        v = r.version
        if r.array is not None and isinstance(v, ir.Op) and \
                v.loop is not op.loop and v.loop.encloses(op.loop):
            r.array.outer_readers.append(op)
        for loop, key in getattr(r, "pending_carry", ()):
            loop.carried_reads.append((r.array, op, r, key))


def result_tile(op: ir.Op) -> Tile:
    assert op.out is not None
    return Tile(op.out, dtype_obj(op.out.dtype))


def ref_of(x: object) -> ir.Ref:
    x = unlist(x)
    if isinstance(x, Broadcast):
        r = ref_of(x.source)
        if x.partitions is not None:
            if r.part is not None:
                raise err("broadcast_to of part of a tile across partitions "
                          "is not yet supported (load the row on its own)")
            r.broadcast = x.partitions
        return r
    if isinstance(x, LoopReduce):
        raise err("nl.loop_reduce's result is written into the tile it "
                  "reduces into (`dst[...] = nl.loop_reduce(x, ...)`), "
                  "which it reads as its other operand")
    if isinstance(x, TileView):
        arr = x.tile._a
        dims = x.dims
        if any(getattr(d, "indirect", None) is not None for d in dims):
            raise err("a tile indexed by a tile (its partitions picked by "
                      "an index tile) is read by a DMA: nisa.dma_copy or "
                      "nisa.dma_transpose")
    elif isinstance(x, Tile):
        arr = x._a
        dims = None
    else:
        raise err(f"expected a tile, got {type(x).__name__}")
    arr.fresh = False
    inner = getattr(arr, "inner", None)
    t = location.active()
    access_rotation(arr, dims)
    check_private(arr, t.loop)
    reducing = getattr(arr, "reduced_in", None)
    if reducing is not None and reducing.encloses(t.loop):
        raise err(f"reads the reduce_res= tile {arr.name or ''} in the loop "
                  f"iteration (line {reducing.line}) that writes it: not "
                  "yet supported (read it after the loop)")
    part = None
    if isinstance(x, ApView):
        # An access pattern reads its own shape's elements of the tile
        # (counted in the tile's dtype where it is a reinterpret cast).
        seen = tile_of(x.read_shape)
        if seen != arr.tile():
            part = seen
        dims = None  # its version is the whole tile's
    elif dims is not None:
        seen = tile_of(view_tile(arr, dims))
        if seen != arr.tile():
            part = seen  # a slice of the tile ("slices", compiler stage)
    pending: Optional[List[Tuple[ir.Loop, Optional[int]]]] = None
    v = rotated_version(arr, dims, t.loop)
    if isinstance(v, tuple):
        v, one = v
        pending = [one]
    elif v is None:
        if inner is not None and inner.loop.encloses(t.loop):
            r = ir.Ref(inner, [], part)  # written earlier in this iteration
            r.array = arr
            # The indices read, for loop fission (fission.split) to name
            # the slot if this iteration's write becomes another loop's.
            r.dims = dims  # type: ignore[attr-defined]
            return r
        v = arr.current
        if v is None and getattr(arr, "lazy_zero", False):
            _initial_fill(arr)  # nl.zeros(..., lazy_initialization=True)
            v = arr.current
        if v is None:
            raise err(f"reads {arr.name or 'an array'} (allocated at line "
                      f"{arr.line}) before anything writes it")
        pending = before_loop(arr, v, t.loop)
    note_export(v, t.loop)
    slots: List[LoopVar] = []
    # A block's slot is named by its loop variables; an accumulator or a
    # state has no slots: its loop updates the same tiles in every
    # iteration (`result_tmps[m][bm][bn]` updated in place over `k` is the
    # state of all of them, read whole).
    # A reduction op of a block loop is a block with the loop's slots.
    block = v.view_of if isinstance(v, ir.Op) else v
    if isinstance(block, ir.Loop) and dims is not None and \
            block.id_kind == "set":
        for d in arr.block_dims:
            e = dims[d].start
            lt = e.loop_terms()
            if (dims[d].extent == 1 and len(lt) == 1 and e.const == 0
                    and not e.axes() and list(lt.values())[0] == 1):
                slots.append(list(lt.keys())[0])
            elif (dims[d].extent == 1 and len(lt) > 1 and e.const == 0
                  and not e.axes() and
                  slot_sum_fits(lt, arr.shape[d])):
                # `t[:, kb * 4 + ki, :]`: one slot, picked by two loops.
                slots.append(ir.SlotSum(sorted(lt.items(),
                                               key=lambda kv: -kv[1])))
            else:
                break
        if len(slots) < len(arr.block_dims):
            part = None  # a whole block or sub-block
        elif part == tile_of([d for i, d in enumerate(arr.shape)
                              if i >= arr.pdim and i not in arr.block_dims
                              and (arr.rotation is None
                                   or i != arr.rotation[0])]):
            part = None  # one slot, whole (`tt[:, j, :]`)
    r = ir.Ref(v, slots, part)
    r.array = arr
    if pending is not None:
        r.pending_carry = pending  # type: ignore[attr-defined]
    return r


def write(dst: Tile, dims: List[ir.DimAccess], value: object,
          kind: str) -> None:
    """`dst[dims] = value` (kind set) or `dst[dims] += value` (acc)."""
    arr = dst._a
    if isinstance(value, LoopReduce):
        # `dst[...] = nl.loop_reduce(x, op, ...)`: dst = op(dst, x) in each
        # iteration, an accumulation (the engine's op does not change the
        # cost of a tensor_tensor).
        if kind != "set":
            raise err("nl.loop_reduce's result is assigned (`dst[...] = "
                      "nl.loop_reduce(x, ...)`), not added")
        value, kind = value.source, "acc"
        if arr.current is None:
            _initial_fill(arr)
    t = location.active()
    access_rotation(arr, dims, write=True)
    if kind == "set" or arr.buffer == "psum":
        rehome(arr, t.loop)  # a PSUM `+=` starts from its first matmul
    else:
        check_private(arr, t.loop)  # `acc += x` reads what was there
    privatize(arr, dims, t.loop, kind)
    if kind == "set" and (isinstance(value, (int, float)) or (
            isinstance(value, Affine) and not value.axes())):
        # A number, or one a loop variable makes (`t[i, j] = j * 5` in a
        # static_range): a constant the instruction is given, a memset.
        op = make_op("memset", (), shape=arr.tile(), dtype=arr.dtype,
                     result=False)
    elif isinstance(value, Broadcast):
        op = make_op("tensor_copy", [value], shape=arr.tile(),
                     dtype=arr.dtype, result=False) if kind == "set" else None
    elif is_tile(value):
        src = value.tile._a if isinstance(value, TileView) else value._a
        src_op = src.current
        # Only the whole of a fresh result is the op writing into dst
        # (`dst[...] = nl.exp(x)`); a part of one (`s[...] = r[:, 511]`,
        # one column) is a copy of that part.
        whole = not isinstance(value, TileView) or (
            tile_of(view_tile(src, value.dims)) == src.tile())
        # A PSUM result (TensorE writes PSUM only) stored into an SBUF
        # array is copied there, as the compiler does.
        psum_to_sbuf = isinstance(src_op, ir.Op) and \
            src_op.buffer == "psum" and arr.buffer != "psum"
        if (kind == "set" and whole and src.fresh and not psum_to_sbuf
                and isinstance(src_op, ir.Op) and src_op.loop is t.loop
                and src_op.out is src):
            op = src_op  # the op writes straight into dst
        elif kind == "acc" and src.fresh and isinstance(src_op, ir.Op) \
                and src_op.kind == "matmul" and arr.buffer == "psum" \
                and src_op.loop is t.loop:
            op = src_op
        elif kind == "set":
            # The part of dst written: one slot of a block, or all of it.
            op = make_op("tensor_copy", [value], shape=view_tile(arr, dims),
                         dtype=arr.dtype, result=False)
        else:
            op = None  # an SBUF accumulation, below
    else:
        raise err(f"cannot write a {type(value).__name__} into an on-chip "
                  "tile")
    chain = chain_below(arr, t.loop)
    if kind == "acc" and (op is None or op.kind != "matmul"):
        old = ref_of(dst)
        # NKI-language arithmetic (`acc += x`): the compiler picks the
        # engine by workload (docs/spec-format.md, "Engines left to the
        # compiler").
        op = make_op("tensor_tensor", [value], shape=view_tile(arr, dims),
                     dtype=arr.dtype, engine="auto", result=False)
        op.inputs.append(old)
        op.role = "acc"
        op.carry_self = bool(chain) and all(l.kind != "sequential"
                                            for l in chain)
    elif kind == "acc":
        op.role = "acc"
        op.buffer = "psum"
        if arr.pending_memset is not None:
            arr.pending_memset.elided = True  # the matmul zeroes the bank
            arr.pending_memset = None
    assert op is not None
    op.out = arr
    op.const_dims = const_dims(arr, dims)  # type: ignore[attr-defined]
    if not chain:
        op.role = op.role if op.role == "acc" else "tile"
        op.one_buffer = getattr(arr, "one_buffer", False)
        op.tile_buffers = arr.tile_buffers
        prev = arr.current
        if (isinstance(prev, ir.Op) and prev is not op and prev.loop is t.loop
                and tile_of(view_tile(arr, dims)) != arr.tile()):
            # A write of part of the tile (RoPE's `out[64:128, :] = ...`
            # after `out[0:64, :] = ...`, or a part after a memset): the
            # rest of the tile is what the version before wrote, yet a
            # reader of the whole tile names this op alone, so this op
            # waits for that version (and orders the two writes, as the
            # hardware must).
            op.after.append(ir.Ref(prev, []))
        set_version(arr, op, op.const_dims)  # type: ignore[attr-defined]
        return
    if kind == "set" and arr.current is not None and any(
            r.version is arr.current for r in op.inputs):
        # `dst=x, data1=x` across loops: an update in place, as `x += y`.
        op.role = "acc"
        op.carry_self = all(l.kind != "sequential" for l in chain)
        kind = "acc"
    if kind == "set" and _carried(arr, dims, op, chain, t.loop):
        return
    if kind == "set":
        op.role = "slot"
        levels: List[int] = []
        for l in chain:
            dim = next((i for i, d in enumerate(dims)
                        if l.var in d.start.loop_terms()), None)
            if dim is None:
                raise err(f"writes {arr.name} whole in every iteration of "
                          f"the loop at line {l.line}, which it is "
                          "allocated outside: not yet supported (allocate "
                          "it inside the loop)")
            levels.append(dim)
        for d in levels:
            if arr.mod_tiles and d < arr.pdim and \
                    arr.mod_tiles[d] < arr.shape[d]:
                raise err(f"mod_alloc gives {arr.name} {arr.mod_tiles[d]} "
                          f"physical tiles along block dim {d} of "
                          f"{arr.shape[d]}, and the loop keeps them all "
                          "after it: not yet supported")
        if arr.block_dims and arr.block_dims != levels:
            raise err(f"{arr.name} is written at different block positions "
                      "by two ops: not yet supported")
        arr.block_dims = levels
    t.loop.outer_writes.append((arr, op, kind))
    arr.pending_memset = None
    if kind == "set":
        arr.inner = op  # type: ignore[attr-defined]


def _initial_fill(arr: ir.Array) -> None:
    """A loop_reduce into an array nothing wrote yet (compiler-style NKI,
    NKIBench's `v8[...] = nl.loop_reduce(...)` with no nl.zeros before):
    its first iteration reduces into the op's identity, a memset of the
    array where it is allocated, as `nl.zeros` would have made it."""
    t = location.active()
    op = make_op("memset", (), shape=arr.whole_tile(), dtype=arr.dtype,
                 result=False)
    t.loop.body.remove(op)
    chain = chain_below(arr, t.loop)
    body = arr.loop.body
    body.insert(body.index(chain[0]) if chain else len(body), op)
    op.loop = arr.loop
    op.out = arr
    arr.current = op


def write_reduction(res: object, op: ir.Op) -> None:
    """`reduce_res=res` of `op` (nisa.activation, activation_reduce,
    tensor_scalar_reduce): the op also reduces its result along the free
    axis into `res`, one element per partition, in the same instruction
    ("accumulate": true). The spec names that second output with a
    "reduction" op (docs/spec-format.md): right after `op` when `res` is
    allocated in the op's own loop, or after the op's loop when each
    iteration fills a slot of `res` (`sum_row_tiles[:, i]`), where it
    stands for the block of them."""
    res = unlist(res)
    if isinstance(res, TileView):
        tile, dims = res.tile, res.dims
    elif isinstance(res, Tile):
        tile, dims = res, normalize(res._a.shape, ())
    else:
        raise err("reduce_res= is an on-chip tile")
    arr = tile._a
    access_rotation(arr, dims, write=True)
    rehome(arr, location.active().loop)
    privatize(arr, dims, location.active().loop)
    seen = tile_of(view_tile(arr, dims))
    if seen != (op.tile[0], 1):
        raise err(f"reduce_res= is a [{op.tile[0]}, 1] tile (one element per "
                  f"partition of the result), got {list(seen)}")
    t = location.active()
    op.accumulate = True
    chain = chain_below(arr, t.loop)
    if not chain:
        red = make_op("reduction", (), shape=seen, dtype=arr.dtype,
                      result=False)
        red.inputs.append(ir.Ref(op, []))
        red.out = arr
        set_version(arr, red, const_dims(arr, dims))
        arr.pending_memset = None
        return
    if len(chain) > 1:
        raise err("reduce_res= into a tile allocated more than one loop "
                  "out is not yet supported")
    loop = chain[0]
    levels = [i for i, d in enumerate(dims) if loop.var in
              d.start.loop_terms()]
    if len(levels) != 1 or dims[levels[0]].extent != 1:
        raise err(f"reduce_res= writes {arr.name} whole in every iteration "
                  f"of the loop at line {loop.line}: not yet supported "
                  "(one slot per iteration, `t[:, i]`)")
    arr.block_dims = levels
    arr.pending_memset = None
    arr.reduced_in = loop  # type: ignore[attr-defined]
    op.reduce_const = const_dims(arr, dims)  # type: ignore[attr-defined]
    loop.reductions.append((arr, op))


def _carried(arr: ir.Array, dims: List[ir.DimAccess], op: ir.Op,
             chain: List[ir.Loop], loop: ir.Loop) -> bool:
    """`s[...] = x` of a whole array allocated just outside the loop, after
    an op of the same body read it (`scan(initial=s)`): the next iteration
    reads what this one wrote, a loop-carried tile (docs/spec-format.md,
    "Loop-carried tiles"). The op is a tile of the body, and the readers
    carry it; the loop gets no id for the array."""
    if len(chain) != 1 or any(d.start.loop_terms() for d in dims):
        return False
    if arr.rotation is not None:
        return False  # its own buffer each iteration: not carried
    # In a sequential loop, also readers in loops nested in it (attention
    # v11's `row_max`, read by each `exp_row_sum` iteration, written after).
    readers = [r for r in arr.outer_readers if r.loop is loop or
               (loop.kind == "sequential" and loop.encloses(r.loop))]
    if not readers:
        return False
    op.role = "carried"
    for r in readers:
        if op not in r.carries:
            r.carries.append(op)
    arr.current = op
    arr.pending_memset = None
    return True


OPS.write = write
