"""A loop that fills two arrays allocated outside it, as two loops.

The spec format gives a loop one result, its id (docs/spec-format.md, "Loop
nests"). The SD attention tutorial's `i_k_seq_tile` loop fills two blocks,
`qk_res_buf` (a PSUM copy per iteration) and `neg_max_res` (the max of that
copy). Such a loop is traced as one loop per array, in the order the arrays
are first written, when the ops of each later array read the earlier ones
only through the slot the same iteration wrote: that read becomes a block
slot read (`qk_res_buf[i_k_seq_tile]`), which waits for exactly the
instructions it waited for in the source. Every op, tile, dependency and
byte of on-chip memory is the source's; what differs is the order an engine
that runs ops of both loops receives them in (the first loop's, then the
second's, where the source interleaves them), which docs/nki-source.md
states. Anything else shared between the arrays' ops (a tile both read, a
carried tile, a sequential loop) keeps the refusal."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Union

from . import ir
from .errors import TraceError
from .expr import Affine, LoopVar

Item = Union[ir.Op, ir.Loop]


def _item_of(x: Item, loop: ir.Loop) -> Optional[Item]:
    """The item of `loop.body` that is or holds `x`, or None."""
    while True:
        parent = x.loop if isinstance(x, ir.Op) else x.parent
        if parent is loop:
            return x
        if parent is None:
            return None
        x = parent


def _ops_of(item: Item) -> List[ir.Op]:
    if isinstance(item, ir.Op):
        return [item]
    out: List[ir.Op] = []
    for x in item.body:
        out.extend(_ops_of(x))
    return out


def _refs(op: ir.Op) -> List[ir.Ref]:
    return list(op.inputs) + list(op.after)


def _producers(op: ir.Op) -> List[Item]:
    """What `op` reads: versions, carried tiles and its mask."""
    out: List[Item] = [r.version for r in _refs(op)]
    out.extend(op.carries)
    if op.mask is not None:
        out.append(op.mask)
    return out


def split(loop: ir.Loop, arrays: List[ir.Array],
          writers: Dict[int, ir.Op], where: str) -> List[ir.Loop]:
    """`loop` as one loop per array of `arrays` (written by `writers`, by
    array id), replacing it in its parent's body; raises TraceError at
    `where` if that would change what the source computes."""
    names = ", ".join(a.name or "an array" for a in arrays)

    def refuse(why: str) -> TraceError:
        return TraceError(
            f"the loop writes two arrays allocated outside it ({names}): "
            f"{why}: not yet supported (a spec loop has one result, its "
            "id; allocate one of them inside the loop, or write it in a "
            "loop of its own)", where)

    if loop.kind == "sequential":
        raise refuse("its iterations are ordered (sequential_range)")
    body = loop.body
    pos = {id(x): i for i, x in enumerate(body)}
    # Per body item, the body items it reads in the same iteration.
    deps: Dict[int, Set[int]] = {}
    for i, item in enumerate(body):
        d: Set[int] = set()
        for op in _ops_of(item):
            if op.carries or op.carry_self:
                raise refuse("an op carries a tile from one iteration to "
                             "the next")
            for p in _producers(op):
                top = _item_of(p, loop)
                if top is not None and top is not item:
                    d.add(pos[id(top)])
        deps[i] = d
    writer_items = []
    for arr in arrays:
        top = _item_of(writers[id(arr)], loop)
        assert top is not None
        writer_items.append(pos[id(top)])
    order = sorted(range(len(arrays)), key=lambda k: writer_items[k])
    arrays = [arrays[k] for k in order]
    writer_items = [writer_items[k] for k in order]
    # Each item goes with the first array whose writer needs it; an item
    # no writer needs (a store) goes with the latest group it reads.
    group: Dict[int, int] = {}
    for g, w in enumerate(writer_items):
        stack = [w]
        while stack:
            i = stack.pop()
            if i in group:
                if group[i] != g and i not in writer_items:
                    raise refuse(f"the op at line {_line(body[i])} is read "
                                 "by the ops of both")
                continue
            group[i] = g
            stack.extend(j for j in deps[i] if j not in writer_items
                         or j == i)
    for i in range(len(body)):
        if i not in group:
            group[i] = max((group[j] for j in deps[i] if j in group),
                           default=0)
    for i in range(len(body)):
        for j in deps[i]:
            if group[j] > group[i]:
                raise refuse(f"the op at line {_line(body[i])} reads one "
                             "made after it for the other array")
            if group[j] < group[i] and j not in writer_items:
                raise refuse(f"the op at line {_line(body[j])} is read "
                             "by the ops of both")
    parent = loop.parent
    assert parent is not None and loop.var is not None
    loops: List[ir.Loop] = [loop]
    for g in range(1, len(arrays)):
        part = ir.Loop(None, loop.kind, loop.trip, loop.line, parent)
        part.no_reorder = loop.no_reorder
        part.var = LoopVar(loop.var.name, part)
        loops.append(part)
    for i, item in enumerate(body):
        g = group[i]
        if g == 0:
            continue
        target = loops[g]
        target.body.append(item)
        if isinstance(item, ir.Op):
            item.loop = target
        else:
            item.parent = target
    loop.body = [x for i, x in enumerate(body) if group[i] == 0]
    at = parent.body.index(loop)
    parent.body[at + 1:at + 1] = loops[1:]
    writer_of = {writer_items[g]: g for g in range(len(arrays))}
    # A later loop may read an earlier one's slot only where that slot is
    # one tile the body's own op set (a block of one level).
    kinds = {id(a): k for a, _, k in loop.outer_writes}
    slot_read_ok = [kinds.get(id(a)) == "set" and len(a.block_dims) == 1
                    and isinstance(body[writer_items[g]], ir.Op)
                    for g, a in enumerate(arrays)]
    for g in range(1, len(arrays)):
        _rename(loops[g], loop.var, loops[g].var)
        for item in loops[g].body:
            for op in _ops_of(item):
                for r in _refs(op):
                    top = _item_of(r.version, loop)
                    if top is None or id(top) not in pos:
                        continue
                    w = writer_of.get(pos[id(top)])
                    if w is not None and w < g:
                        if not slot_read_ok[w]:
                            raise refuse(
                                f"the op at line {op.line} reads "
                                f"{arrays[w].name} while the loop "
                                "accumulates into it or fills it from a "
                                "loop nested in it")
                        # The slot this iteration wrote, read from the
                        # block the earlier loop keeps.
                        r.version = loops[w]
                        r.slots = [loops[g].var]
                        if r.part == writers[id(arrays[w])].tile:
                            r.part = None
    # Writes to arrays allocated further out go with their writer's loop.
    for l in loops[1:]:
        l.outer_writes = []
    writes, loop.outer_writes = loop.outer_writes, []
    for arr, op, kind in writes:
        g = next(g for g, l in enumerate(loops)
                 if _item_of(op, l) is not None)
        loops[g].outer_writes.append((arr, op, kind))
    return loops


def _line(item: Item) -> int:
    return item.line


def _rename(loop: ir.Loop, old: LoopVar, new: LoopVar) -> None:
    """The variable of `loop`'s body as `new` where it was `old`."""

    def subst(a: Affine) -> Affine:
        if old not in a.terms:
            return a
        return Affine({(new if k is old else k): c
                       for k, c in a.terms.items()}, a.const)

    for item in loop.body:
        for op in _ops_of(item):
            if op.access is not None:
                op.access = [ir.DimAccess(subst(d.start), d.extent,
                                          d.squeezed, d.axis_position)
                             for d in op.access]
            for r in _refs(op):
                r.slots = [s.subst(old, new) if isinstance(s, ir.SlotSum)
                           else new if s is old else s for s in r.slots]
