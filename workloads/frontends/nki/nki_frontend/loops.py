"""Traced loops: `nl.affine_range` and friends run their body once with a
symbolic variable; closing a loop splits it per array it fills
(fission), turns the arrays it fills into its blocks and resolves what
its reads carry from the previous iteration."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple, Union

from . import fission, ir, location
from .errors import TraceError
from .expr import MAX_UNROLL, Affine, LoopVar, unroll
from .location import err
from .versions import STALE, set_version


class NoReorder:
    """NKI's no_reorder: `directives=nki.compiler.no_reorder()` on a loop
    range, or `with nl.no_reorder():` around a region. The NKI API reference
    says the scheduler then keeps the program order of the ops in it; the
    spec says so with `"no_reorder": true` on the loop (and the loops nested
    in it keep that order too). A region marks every loop opened in it and,
    where it is inside a loop's body, that loop: a whole body in source
    order is the nearest the format states (conservative)."""

    def __enter__(self) -> "NoReorder":
        t = location.active()
        t.no_reorder += 1
        if t.loop is not t.root:
            t.loop.no_reorder = True
        return self

    def __exit__(self, *exc: object) -> None:
        location.active().no_reorder -= 1


def no_reorder() -> NoReorder:
    return NoReorder()


class LoopRange:
    """`nl.affine_range(n)` and friends: iterates once, symbolically."""

    def __init__(self, kind: str, args: Tuple[object, ...], api: str,
                 directives: object = None, int_valued: bool = False) -> None:
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise err(f"{api} takes 1 to 3 arguments")
        try:
            start, stop, step = (Affine.of(a).__index__()
                                 for a in (start, stop, step))
        except TraceError:
            raise err(f"{api} with a trip count that depends on another "
                      "loop's variable (a triangular loop) is not yet "
                      "supported")
        if step == 0:
            raise err(f"{api} with step 0")
        # A stepped range (`range(0, S, 512)`) is a loop of its trip count
        # whose variable v stands for start + step * v: an affine index.
        self.start, self.step = start, step
        self.kind = kind
        self.trip = max(0, -((start - stop) // step)) if step > 0 \
            else max(0, -((stop - start) // -step))
        self.api = api
        dirs = directives if isinstance(directives, (list, tuple)) else \
            [directives] if directives is not None else []
        for d in dirs:
            if not isinstance(d, NoReorder):
                raise err(f"{api}(directives={d!r}): only "
                          "nki.compiler.no_reorder() is supported")
        self.no_reorder = bool(dirs)
        # A Python `range` (and nl.static_range, which the reference says
        # unrolls): its variable is an int the kernel may compute with. So
        # is every range of today's `nki`, whose reference makes
        # affine_range and sequential_range aliases of Python's `range`
        # (`int_valued`; generations.py).
        self.splittable = int_valued or api in ("range", "nl.static_range")

    def __len__(self) -> int:
        return self.trip

    def __iter__(self) -> Iterator[object]:
        t = location.active()
        if self.trip == 0:
            return
        line = location.current_line()
        # Cut where the kernel needed a value (expr.unroll) or, in a
        # Python range, decided something (expr._decide).
        splits = getattr(t, "splits", {}).get(line)
        for offset, trip in pieces(self.trip, splits):
            if trip == 1 and splits:
                # An iteration of its own: its variable is an int.
                yield self.start + self.step * offset
                continue
            yield from self._piece(t, line, offset, trip)

    def _piece(self, t: object, line: int, offset: int,
               trip: int) -> Iterator[Affine]:
        """The iterations offset .. offset + trip - 1 as one traced loop."""
        name = location.current_loop_var() or "i"
        loop = ir.Loop(None, self.kind, trip, line, t.loop)
        loop.no_reorder = self.no_reorder or t.no_reorder > 0
        loop.splittable = self.splittable
        loop.offset = offset
        var = LoopVar(name, loop)
        loop.var = var
        t.loop.body.append(loop)
        t.stack.append(loop)
        try:
            yield Affine({var: self.step}, self.start + self.step * offset)
        except GeneratorExit:
            # Abandoned: the body raised (the trace is refused), or it
            # broke out of the loop; there is no loop to close.
            if t.stack and t.stack[-1] is loop:
                t.stack.pop()
            raise
        if t.stack and t.stack[-1] is loop:
            t.stack.pop()
            close_loop(loop)


def pieces(trip: int, splits: Optional[set]) -> List[Tuple[int, int]]:
    """(first iteration, count) of each piece of a loop of `trip`
    iterations cut before each index of `splits`."""
    cuts = sorted(s for s in (splits or ()) if 0 < s < trip)
    bounds = [0] + cuts + [trip]
    return [(a, b - a) for a, b in zip(bounds, bounds[1:])]


def close_loop(loop: ir.Loop) -> None:
    parent = loop.parent
    assert parent is not None
    writers: dict = {}
    for arr, op, _ in loop.outer_writes:
        if arr.loop is parent:
            writers.setdefault(id(arr), (arr, op))
    if len(writers) > 1 and fission.keep_as_results(
            loop, [a for a, _ in writers.values()],
            {k: op for k, (_, op) in writers.items()}):
        writers = {}  # one block, the other arrays its results
    if len(writers) > 1:
        # One loop per array (fission.py).
        try:
            parts = fission.split(
                loop, [a for a, _ in writers.values()],
                {k: op for k, (_, op) in writers.items()},
                f"{location.active().file_label}:{loop.line}")
        except TraceError:
            if loop.splittable and loop.var is not None and \
                    loop.trip <= MAX_UNROLL:
                # A Python range (and every range of today's `nki`) runs
                # its iterations as the reference unrolls them: where the
                # spec's loop cannot say what it does, its iterations are
                # traced one by one (at most expr.MAX_UNROLL).
                unroll(loop.var, f"the loop at line {loop.line}")
            raise
        reductions = loop.reductions
        for part in parts:
            part.reductions = [(a, op) for a, op in reductions
                               if fission._item_of(op, part) is not None]
        for part in parts:
            _close_one(part)
            _close_reductions(part)
        return
    _close_one(loop)
    _close_reductions(loop)
    if loop.kind == "sequential":
        _close_versions(loop)


def _close_versions(loop: ir.Loop) -> None:
    """After a sequential loop: each read in it of a version made before it
    (its first iteration's), of an array its own body writes later, reads
    in every later iteration what the iteration before left: the reader
    carries the loop's version ("carry", which may name a tile of a body
    around the reader and a block's slot; docs/spec-format.md). A rotating
    array's buffer `(i + c) % n` not written in the iteration is the one
    the previous iteration wrote as `(i + c + 1) % n`. After the loop, its
    last iteration's versions are what the body around reads (a read
    notes the loop's "results", note_export): for a rotating array, the
    buffer that iteration wrote; an earlier iteration's buffer is refused.
    The arrays taken to be the loop's own go back to where they are
    allocated."""
    label = f"{location.active().file_label}"
    # Arrays an op of the loop updates in place (reads and writes): a state
    # or an accumulator, which keeps its own rules.
    in_place = [op.out for op in _walk_ops(loop) if op.out is not None and
                (op.role == "acc" or
                 any(r.array is op.out for r in op.inputs))]
    for arr, reader, ref, key in loop.carried_reads:
        if any(a is arr for a in in_place):
            continue  # updated in place: a state or an accumulator
        v = arr.current
        made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent",
                                                               None)
        if not isinstance(made_in, ir.Loop) or not loop.encloses(made_in):
            continue  # the loop does not write it: a plain read
        name = arr.name or "an array"
        if made_in is not loop:
            raise TraceError(
                f"{name} is read before it is written in the loop at line "
                f"{loop.line}, which writes it in a loop nested in it (line "
                f"{made_in.line}): carrying it from one iteration to the "
                "next is not yet supported (the loop's own body must write "
                "it)", f"{label}:{reader.line}")
        if key is not None:
            d, m = arr.rotation  # type: ignore[misc]
            wkey = arr.rot_write_key
            if wkey is None or (wkey - key) % m.n != 1:
                raise TraceError(
                    f"reads a buffer of {name} that the loop at line "
                    f"{loop.line} wrote more than one iteration before: not "
                    "yet supported (the previous iteration's only)",
                    f"{label}:{reader.line}")
        if isinstance(v, ir.Op) and v in reader.carries:
            continue  # a tile carried in its own body (_carried)
        if any(c.version is v for c in reader.carry_refs):
            continue
        c = ir.Ref(v, list(ref.slots))  # type: ignore[arg-type]
        c.array = arr
        reader.carry_refs.append(c)
    loop.carried_reads = []
    for arr in _rotating_in(loop):
        d, m = arr.rotation  # type: ignore[misc]
        wkey = arr.rot_write_key
        arr.rot_write_key = None
        if wkey is None:
            continue
        last = (loop.trip - 1 + wkey) % m.n
        for b in range(m.n):
            arr.by_const[(d, b)] = arr.current if b == last else STALE
    for arr in loop.privatized:
        if any(a is arr for a in in_place):
            continue  # a state: a read after the loop reads it whole
        arr.private = [(k, l) for k, l in getattr(arr, "private", [])
                       if l is not loop]  # type: ignore[attr-defined]
        if arr.loop is loop:
            arr.loop = loop.parent  # type: ignore[assignment]
            arr.one_buffer = False  # type: ignore[attr-defined]
            arr.tile_buffers = 0
    loop.privatized = []


def _rotating_in(loop: ir.Loop) -> List[ir.Array]:
    """The arrays whose buffers `loop` rotates and writes."""
    out: List[ir.Array] = []
    for item in _walk_ops(loop):
        arr = item.out
        if arr is not None and arr.rotation is not None and \
                arr.rotation[1].var.loop is loop and \
                arr.rot_write_key is not None and \
                not any(a is arr for a in out):
            out.append(arr)
    return out


def _walk_ops(loop: ir.Loop) -> Iterator[ir.Op]:
    for item in loop.body:
        if isinstance(item, ir.Loop):
            yield from _walk_ops(item)
        else:
            yield item


def _close_one(loop: ir.Loop) -> None:
    parent = loop.parent
    assert parent is not None
    seen = set()
    for arr, op, kind in loop.outer_writes:
        if id(arr) in seen:
            continue
        seen.add(id(arr))
        if arr.loop is parent:
            # close_loop split a loop with two such arrays.
            assert loop.id_for is None or loop.id_for is arr
            loop.id_for = arr
            loop.one_buffer = getattr(arr, "one_buffer", False)
            loop.tile_buffers = arr.tile_buffers
            loop.id_kind = kind
            set_version(arr, loop, getattr(op, "const_dims", []))
            arr.inner = None  # type: ignore[attr-defined]
        else:
            parent.outer_writes.append((arr, op, kind))


def _close_reductions(loop: ir.Loop) -> None:
    """After `loop` (one of the loops close_loop made of it) is closed:
    each reduce_res= block it filled becomes a "reduction" op after it."""
    parent = loop.parent
    assert parent is not None
    for arr, op in loop.reductions:
        arr.reduced_in = None  # type: ignore[attr-defined]
        label = f"{location.active().file_label}:{op.line}"
        if loop.id_for is None or _last_result(loop) is not op:
            raise TraceError(
                "reduce_res= of an op whose result is not what its loop "
                "keeps (the last tile the loop writes into an array "
                "allocated outside it) is not yet supported", label)
        red = ir.Op("reduction", op.line, parent, op.line, None)
        red.inputs.append(ir.Ref(loop, []))
        red.tile = (op.tile[0], 1)
        red.dtype = arr.dtype
        red.out = arr
        red.view_of = loop
        parent.body.insert(parent.body.index(loop) + 1, red)
        location.active().ops.append(red)
        set_version(arr, red, getattr(op, "reduce_const", []))
    loop.reductions = []


def _last_result(loop: ir.Loop) -> Optional[ir.Op]:
    """The op whose tile the loop's id stands for: the last item of its
    body that makes one (nki_loops.h, LoopResultIndex), if it is an op."""

    def makes_tile(item: Union[ir.Op, ir.Loop]) -> bool:
        if isinstance(item, ir.Loop):
            return any(makes_tile(x) for x in item.body)
        return not item.elided and item.kind not in ("store", "hbm_copy")

    for item in reversed(loop.body):
        if makes_tile(item):
            return item if isinstance(item, ir.Op) else None
    return None
