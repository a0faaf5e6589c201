"""Which version of an on-chip array a read sees and which loop owns its
tiles: buffers a kernel rotates by hand (`t[:, i % 2]`), block slots named
by loop variables, reads carried from the previous iteration of a
sequential loop, and arrays private to the loop that writes them anew
(the block-dimension migration guide)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from . import ir, location
from .expr import Modulo
from .location import err


def slot_sum_fits(terms: dict, slots: int) -> bool:
    """Whether sum(c * v) over the loops' iterations picks distinct slots
    below `slots`: each scale at least the reach of the smaller terms."""
    reach = 0
    for v, c in sorted(terms.items(), key=lambda kv: kv[1]):
        if c < 1 or not isinstance(v.loop, ir.Loop) or c <= reach:
            return False
        reach += c * (v.loop.trip - 1)
    return reach < slots


STALE = "stale"  # a buffer an earlier iteration than the last one wrote


def rotated_version(arr: ir.Array, dims: Optional[List[ir.DimAccess]],
                     loop: ir.Loop) -> object:
    """The version a read of a rotating array's buffer reads, or None when
    the array does not rotate (or the read is of the buffer written in this
    iteration). In the rotating loop, `(i + c) % n` that this iteration has
    not written is the buffer the previous iteration wrote: the read gets
    the version before the loop (what iteration 0 reads, buffer c % n) and
    is carried from the loop's own write when it closes. Outside it, a
    constant index reads the version last written at that index."""
    if arr.rotation is None or dims is None:
        return None
    d, first = arr.rotation
    m = getattr(dims[d], "modulo", None)
    name = arr.name or "an array"
    if m is None:
        b = dims[d].start.const
        v = arr.by_const.get((d, b))
        if v is STALE:
            raise err(f"reads buffer {b} of {name}, which an iteration "
                      f"before the last one of the loop at line "
                      f"{first.var.loop.line} wrote: not yet supported")
        if v is None:
            raise err(f"reads buffer {b} of {name} before anything writes "
                      "it")
        return v
    key = m.offset % m.n
    rotating = first.var.loop
    if arr.rot_write_key == key:
        return None  # written earlier in this iteration
    v = arr.by_const.get((d, key))
    if v is None or v is STALE:
        raise err(f"reads buffer {m!r} of {name}, which the loop at line "
                  f"{rotating.line} does not write earlier in the iteration, "
                  f"and which nothing wrote (at index {key}) before that "
                  "loop: not yet supported")
    return (v, (rotating, key))


def before_loop(arr: ir.Array, v: object,
                 loop: ir.Loop) -> Optional[List[Tuple[ir.Loop, None]]]:
    """A read in sequential loops L (inside the array's allocation) of a
    version made before them: if an L writes the array later in its body,
    its later iterations read what the previous one wrote
    (_close_versions)."""
    made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent", None)
    out: List[Tuple[ir.Loop, None]] = []
    l: Optional[ir.Loop] = loop
    while l is not None and l is not arr.loop:
        if l.kind == "sequential" and not (isinstance(made_in, ir.Loop)
                                           and l.encloses(made_in)):
            out.append((l, None))
        l = l.parent
    return out if out and l is not None else None


def note_export(v: object, loop: ir.Loop) -> None:
    """A read, after a sequential loop, of a version its body made: the
    loop's last iteration's tile, one of its results ("results")."""
    made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent", None)
    if not isinstance(made_in, ir.Loop) or made_in.encloses(loop):
        return
    if made_in.kind != "sequential" or made_in.parent is None or \
            not made_in.parent.encloses(loop):
        return
    if not any(x is v for x in made_in.results):
        made_in.results.append(v)  # type: ignore[arg-type]


def access_rotation(arr: ir.Array, dims: Optional[List[ir.DimAccess]],
              write: bool = False) -> Optional[int]:
    """An access of `arr`: one that indexes a free dim `(i + c) % n`, where
    the dim has n elements, makes that dim n buffers the kernel rotates by
    hand over loop i (NKI's `qk_sbuf[:, i_tile_q % 2, ...]`); the dim is
    then not part of the tile, and privatize gives the array n buffers
    over i ("tile_buffers"). Before the loop, the kernel may fill buffers
    at constant indices (attention v11's prologue, `qk_max(0)`,
    `qk_max(1)`); in a sequential loop it may read a buffer this iteration
    has not written, the one the previous iteration wrote (`(i + 1) % 2`
    where `(i + 2) % 2` is written; rotated_version); after it, read a
    buffer at a constant index. Returns the buffer key (c % n) of an access
    in the loop; a write there records it: one buffer per iteration."""
    mods = [(d, getattr(da, "modulo")) for d, da in enumerate(dims or [])
            if getattr(da, "modulo", None) is not None]
    name = arr.name or "an array"
    if arr.rotation is None:
        if not mods:
            return None
        if len(mods) > 1:
            raise err(f"indexes {name} by two buffer indices (i % n): not "
                      "yet supported")
        d, m = mods[0]
        if d <= arr.pdim:
            raise err(f"index {m!r} of a block or partition dim of {name}: "
                      "a buffer index (i % n) is supported on a free dim "
                      "(mod_alloc rotates block dims)")
        if arr.shape[d] != m.n:
            raise err(f"index {m!r} of dim {d} of {name}, which has "
                      f"{arr.shape[d]} elements: a buffer index (i % n) "
                      "takes a dim of n buffers")
        if arr.current is not None and not any(k[0] == d
                                               for k in arr.by_const):
            raise err(f"{name} is written whole before line "
                      f"{location.current_line()} indexes one of its buffers "
                      f"by {m!r}: not yet supported")
        if not (m.var.loop is not arr.loop and arr.loop.encloses(m.var.loop)):
            raise err(f"buffer index {m!r} of {name} over a loop that does "
                      "not run inside the array's allocation: each "
                      "iteration of it has an array of its own")
        arr.rotation = (d, m)
        return _rotation_key(arr, m, write)
    d, first = arr.rotation
    got = next((m for dd, m in mods if dd == d), None)
    loop = location.active().loop
    inside = first.var.loop.encloses(loop)
    if got is None and len(mods) == 0 and dims and not inside and \
            first.var.loop.kind == "sequential":
        da = dims[d]
        if da.squeezed and not da.start.loop_terms() and not da.start.axes():
            return None  # a buffer at a constant index, outside the loop
    if got is None or len(mods) > 1 or got.var is not first.var or \
            got.n != first.n or (not got.same(first) and
                                 first.var.loop.kind != "sequential"):
        what = f"by {got!r}" if got is not None else "without a buffer index"
        raise err(f"accesses {name} {what}, while it rotates its buffers by "
                  f"{first!r}: reading another iteration's buffer outside "
                  "a sequential loop, or all of them, is not yet supported")
    return _rotation_key(arr, got, write)


def _rotation_key(arr: ir.Array, m: Modulo, write: bool) -> int:
    key = m.offset % m.n
    if write:
        if arr.rot_write_key is not None and arr.rot_write_key != key:
            raise err(f"writes two buffers of {arr.name or 'an array'} "
                      f"({m!r} and another) in one iteration of the loop at "
                      f"line {m.var.loop.line}: not yet supported")
        arr.rot_write_key = key
    return key


def const_dims(arr: ir.Array,
                dims: List[ir.DimAccess]) -> List[Tuple[int, int]]:
    """The free dims a write indexes by a constant (a buffer index of a
    rotation dim outside its loop), with the index."""
    return [(d, da.start.const) for d, da in enumerate(dims)
            if d > arr.pdim and da.squeezed and not da.start.loop_terms()
            and not da.start.axes() and getattr(da, "modulo", None) is None]


def set_version(arr: ir.Array, version: object,
                 const_dims: Sequence[Tuple[int, int]]) -> None:
    arr.current = version  # type: ignore[assignment]
    for k in const_dims:
        arr.by_const[k] = version


def chain_below(arr: ir.Array, loop: ir.Loop) -> List[ir.Loop]:
    chain: List[ir.Loop] = []
    l: Optional[ir.Loop] = loop
    while l is not None and l is not arr.loop:
        chain.append(l)
        l = l.parent
    if l is None:
        raise err(f"writes {arr.name or 'an array'} outside the loop that "
                  "allocated it")
    return list(reversed(chain))


class Unprivatize(Exception):
    """A read or write of an array outside a loop privatize took it to be
    private to: the trace runs again with the array kept whole at that
    loop (cli.trace_kernel)."""

    def __init__(self, key: Tuple[int, int]) -> None:
        super().__init__(key)
        self.key = key


def privatize(arr: ir.Array, dims: List[ir.DimAccess], loop: ir.Loop,
               kind: str = "set") -> None:
    """An array allocated outside the loops around this write, that one of
    them (L, from the outermost in) writes anew in each iteration, is L's
    own: each iteration's tiles of it die in that iteration. Two cases,
    from the NKI block dimension migration guide: L indexes a block
    dimension of it (one before nl.par_dim, `qk[i_tile_q, i_tile_kv]`),
    which is logical, so the array is allocated in L as if the kernel had
    hoisted it there; or no dimension of it follows L (`qk_sbuf[:,
    i_tile_kv, :]` in each `i_tile_q`), so it is one buffer that every
    iteration of L overwrites ("one_buffer"). Not when an op in L read it
    before this write, or the write accumulates into all of it (`acc +=
    x`: a tile carried across L's iterations), nor when L indexes a free
    dimension of it (each iteration keeps its own slot, a block). Whether the array is used only inside L is known later: a use
    outside raises Unprivatize, and the kernel is traced again with the
    array kept whole at L."""
    t = location.active()
    while True:
        chain = chain_below(arr, loop)
        if not chain:
            return
        outer = chain[0]
        key = (arr.line, outer.line)
        if key in t.keep_whole:
            return
        dim = next((i for i, d in enumerate(dims)
                    if outer.var in d.start.loop_terms()), None)
        if dim is None and kind == "acc":
            return
        if dim is not None:
            d = dims[dim]
            lt = d.start.loop_terms()
            # `qk[i_tile_q + 2, ...]` (attention v11) is one logical tile
            # per iteration as `qk[i_tile_q, ...]` is.
            if not (dim < arr.pdim and d.extent == 1 and len(lt) == 1
                    and lt[outer.var] == 1 and
                    (d.start.const == 0 or outer.kind == "sequential")):
                return
        # A sequential loop that rotates the array's buffers reads the
        # buffer an earlier iteration wrote before writing its own: those
        # reads are carried (_close_versions), the write is still L's.
        rotates = arr.rotation is not None and outer.kind == "sequential" \
            and arr.rotation[1].var.loop is outer
        if not rotates and any(outer.encloses(r.loop)
                               for r in arr.outer_readers):
            return
        if arr.tile_buffers >= 2:
            raise err(f"{arr.name} has {arr.tile_buffers} buffers over the "
                      f"loop at line {arr.loop.line} and the loop at line "
                      f"{outer.line} inside it indexes a block dim of it: "
                      "not yet supported (several buffers over the "
                      "innermost loop only)")
        arr.loop = outer
        # Its physical buffers over L's iterations: one for a whole array
        # written anew (the migration guide), n for a buffer index i % n
        # over L, and for a block dim placed by mod_alloc its count there;
        # otherwise L's depth decides.
        rot = arr.rotation[1] if arr.rotation is not None else None
        count = 0
        if dim is None:
            count = rot.n if rot is not None and rot.var.loop is outer else 1
        elif arr.mod_tiles:
            count = arr.mod_tiles[dim]
        arr.one_buffer = count == 1  # type: ignore[attr-defined]
        arr.tile_buffers = count if count >= 2 else 0
        private = getattr(arr, "private", [])
        private.append((key, outer))
        arr.private = private  # type: ignore[attr-defined]
        if dim is None and outer.kind == "sequential":
            outer.privatized.append(arr)


def check_private(arr: ir.Array, loop: ir.Loop) -> None:
    """A use of `arr` in `loop`: outside a loop it was taken to be private
    to, the trace starts again with it kept whole there."""
    for key, level in getattr(arr, "private", ()):
        if not level.encloses(loop):
            raise Unprivatize(key)


def rehome(arr: ir.Array, loop: ir.Loop) -> None:
    """A write of `arr` in `loop`, outside the loop it was taken to be
    private to: the private tiles are dead (a read of them outside would
    have started the trace again, check_private), so this write starts
    the array anew where it is allocated. So the same helper may write an
    array at several call sites (attention v11's `qk_max(0)`, `qk_max(1)`
    and `qk_max` inside its loop each fill `qk` anew)."""
    private = getattr(arr, "private", [])
    if not private or all(level.encloses(loop) for _, level in private):
        return
    arr.private = []  # type: ignore[attr-defined]
    arr.loop = arr.home
    arr.one_buffer = False  # type: ignore[attr-defined]
    arr.tile_buffers = 0
