"""A loop that fills two arrays allocated outside it, as two loops.

The spec format gives a loop one result, its id (docs/spec-format.md, "Loop
nests"). The SD attention tutorial's `i_k_seq_tile` loop fills two blocks,
`qk_res_buf` (a PSUM copy per iteration) and `neg_max_res` (the max of that
copy). Such a loop is traced as one loop per array, in the order the arrays
are first written, when the ops of each later array read the earlier ones
only through the slot the same iteration wrote: that read becomes a block
slot read (`qk_res_buf[i_k_seq_tile]`), which waits for exactly the
instructions it waited for in the source.

The arrays may be written in loops nested in it (NKIBench's bmm_softmax
fills the block `v11[i2, i4, i0, i1, i5]` and reduces into
`v12[i0, i2, i4]` over `i1` and `i5`, both in its innermost loop): each
nested loop whose ops go to several arrays is split the same way, its part
for a later array a loop of its own inside that array's part of the loop
around (loop fission of a perfect nest, as a compiler distributes affine
loops), and a later array's read of the slot this iteration wrote names
the block by one loop variable per level (`v11[i1][i2][i4][i5]`). An op
that carries its own tile from one iteration to the next (an accumulation,
`nl.loop_reduce`) goes with its array. Every op, tile, dependency and byte
of on-chip memory is the source's; what differs is the order an engine
that runs ops of both loops receives them in (the first loop's, then the
second's, where the source interleaves them), which docs/nki-source.md
states. Anything else shared between the arrays' ops (a tile both read, a
tile one carries from the other's ops, a sequential loop, a nested loop
with an id of its own holding ops of both) keeps the refusal."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple, Union

from . import ir
from .errors import TraceError
from .expr import Affine, LoopVar
from .versions import set_version

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


def _loops_of(item: Item) -> List[ir.Loop]:
    """`item` and the loops nested in it, if it is a loop."""
    if isinstance(item, ir.Op):
        return []
    out = [item]
    for x in item.body:
        out.extend(_loops_of(x))
    return out


def _refs(op: ir.Op) -> List[ir.Ref]:
    return list(op.inputs) + list(op.after) + (
        [op.indirect] if op.indirect is not None else [])


def _producers(op: ir.Op) -> List[Item]:
    """What `op` reads: versions, carried tiles and its mask."""
    out: List[Item] = [r.version for r in _refs(op)]
    out.extend(r.version for r in op.carry_refs)
    out.extend(op.carries)
    if op.mask is not None:
        out.append(op.mask)
    return out


def _twin(orig: ir.Loop, parent: ir.Loop) -> ir.Loop:
    """A loop like `orig` in `parent`, with a variable of its own."""
    assert orig.var is not None
    part = ir.Loop(None, orig.kind, orig.trip, orig.line, parent)
    part.no_reorder = orig.no_reorder
    part.splittable = orig.splittable
    part.offset = orig.offset
    part.key = orig.key
    part.var = LoopVar(orig.var.name, part)
    return part


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
    leaves = _ops_of(loop)
    index = {id(op): i for i, op in enumerate(leaves)}
    # Per op, the ops of the loop it reads in the same iteration (a nested
    # loop's id read: every op of that loop).
    deps: Dict[int, Set[int]] = {}
    for i, op in enumerate(leaves):
        d: Set[int] = set()
        for p in _producers(op):
            if _item_of(p, loop) is None:
                continue  # made before the loop
            for q in _ops_of(p):
                if id(q) in index and index[id(q)] != i:
                    d.add(index[id(q)])
        deps[i] = d
    writer_ops = [index[id(writers[id(arr)])] for arr in arrays]
    order = sorted(range(len(arrays)), key=lambda k: writer_ops[k])
    arrays = [arrays[k] for k in order]
    writer_ops = [writer_ops[k] for k in order]
    writer_set = set(writer_ops)
    # Each op goes with the first array whose writer needs it; an op no
    # writer needs (a store) goes with the latest group it reads.
    group: Dict[int, int] = {}
    for g, w in enumerate(writer_ops):
        stack = [w]
        while stack:
            i = stack.pop()
            if i in group:
                if group[i] != g and i not in writer_set:
                    raise refuse(f"the op at line {leaves[i].line} is read "
                                 "by the ops of both")
                continue
            group[i] = g
            stack.extend(j for j in deps[i] if j not in writer_set
                         or j == i)
    for i in range(len(leaves)):
        if i not in group:
            group[i] = max((group[j] for j in deps[i] if j in group),
                           default=0)
    for i, op in enumerate(leaves):
        for j in deps[i]:
            if group[j] > group[i]:
                raise refuse(f"the op at line {op.line} reads one made "
                             "after it for the other array")
            if group[j] < group[i] and j not in writer_set:
                raise refuse(f"the op at line {leaves[j].line} is read "
                             "by the ops of both")
        carried = list(op.carries) + [r.version for r in op.carry_refs]
        for c in carried:
            if isinstance(c, ir.Op) and id(c) in index and \
                    group[index[id(c)]] != group[i]:
                raise refuse(f"the op at line {op.line} carries a tile the "
                             "ops of the other array make")

    def groups_of(item: Item) -> Set[int]:
        return {group[index[id(op)]] for op in _ops_of(item)} or {0}

    # The loops of each group: twin[(id(orig), g)] is the loop that holds
    # group g's part of `orig` (orig itself for its first group).
    parent = loop.parent
    assert parent is not None and loop.var is not None
    orig_loop_of = {id(op): op.loop for op in leaves}
    twin: Dict[Tuple[int, int], ir.Loop] = {(id(loop), 0): loop}
    loops: List[ir.Loop] = [loop]
    renames: List[Tuple[ir.Loop, LoopVar]] = []
    for g in range(1, len(arrays)):
        part = _twin(loop, parent)
        twin[(id(loop), g)] = part
        loops.append(part)
        renames.append((part, loop.var))

    def distribute(orig: ir.Loop, gs: Set[int]) -> None:
        bodies: Dict[int, List[Item]] = {g: [] for g in gs}
        for item in orig.body:
            ig = groups_of(item)
            if len(ig) == 1:
                g = next(iter(ig))
                target = twin[(id(orig), g)]
                bodies[g].append(item)
                if isinstance(item, ir.Op):
                    item.loop = target
                else:
                    item.parent = target
                continue
            assert isinstance(item, ir.Loop)
            if item.id_for is not None or item.reductions or \
                    item.kind == "sequential" or item.results:
                raise refuse(f"the loop at line {item.line} holds ops of "
                             "both and " + (
                                 "is ordered (sequential_range)"
                                 if item.kind == "sequential" else
                                 "keeps an array of its own"))
            first = min(ig)
            for g in sorted(ig):
                if g == first:
                    twin[(id(item), g)] = item
                    item.parent = twin[(id(orig), g)]
                    bodies[g].append(item)
                    continue
                part = _twin(item, twin[(id(orig), g)])
                twin[(id(item), g)] = part
                bodies[g].append(part)
                renames.append((part, item.var))
            distribute(item, ig)
        for g, body in bodies.items():
            twin[(id(orig), g)].body = body

    distribute(loop, set(range(len(arrays))))
    at = parent.body.index(loop)
    parent.body[at + 1:at + 1] = loops[1:]
    # A later loop may read an earlier one's slot only where that slot is
    # the tile the writer set in this iteration of every loop down to it,
    # read at the same block indices: a block read by slot, one loop
    # variable per level.
    kinds = {id(a): k for a, _, k in loop.outer_writes}
    writer_of = {writer_ops[g]: g for g in range(len(arrays))}
    for i, op in enumerate(leaves):
        g = group[i]
        for r in _refs(op):
            if not isinstance(r.version, ir.Op) or \
                    id(r.version) not in index:
                continue
            w = writer_of.get(index[id(r.version)])
            if w is None or w >= g:
                continue
            arr = arrays[w]
            wop = writers[id(arr)]
            wloop = orig_loop_of[id(wop)]
            chain: List[ir.Loop] = []
            l: Optional[ir.Loop] = wloop
            while l is not None and l is not parent:
                chain.append(l)
                l = l.parent
            chain.reverse()
            dims = getattr(r, "dims", None)
            levels = arr.block_dims
            same_slot = (
                kinds.get(id(arr)) == "set" and len(levels) == len(chain)
                and dims is not None and
                wloop.encloses(orig_loop_of[id(op)]) and all(
                    _one_slot(dims[d], c.var)
                    for d, c in zip(levels, chain)))
            if not same_slot:
                raise refuse(
                    f"the op at line {op.line} reads {arr.name} other "
                    "than by the slot the same iteration wrote")
            # The slot this iteration wrote, read from the block the
            # earlier loop keeps.
            r.version = loops[w]
            r.slots = [twin[(id(c), g)].var for c in chain]
            if r.part == wop.tile:
                r.part = None
    for part, old in renames:
        _rename(part, old, part.var)  # type: ignore[arg-type]
    # Writes to arrays allocated further out go with their writer's loop.
    for l in loops[1:]:
        l.outer_writes = []
    writes, loop.outer_writes = loop.outer_writes, []
    for arr, op, kind in writes:
        g = next(g for g, l in enumerate(loops)
                 if _item_of(op, l) is not None)
        loops[g].outer_writes.append((arr, op, kind))
    return loops


def _one_slot(d: ir.DimAccess, var: LoopVar) -> bool:
    """Whether `d` takes the slot of `var`'s iteration along its dim, as
    the block's writer does: `t[i, ...]` on a block dim, or the i-th tile
    `t[:, i * n:(i + 1) * n]` of a free dim of n-wide slots."""
    lt = d.start.loop_terms()
    return (d.start.const == 0 and list(lt) == [var] and
            d.extent == lt[var])


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


def keep_as_results(loop: ir.Loop, arrays: List[ir.Array],
                    writers: Dict[int, ir.Op]) -> bool:
    """A loop that fills one block and accumulates into the other arrays
    (NKIBench's bmm_softmax: `v11[..., i1, i5] = copy` and `v12[...] =
    nl.loop_reduce(max(v11 slot), loop_indices=[i1, i5])` in its innermost
    loop) stays one loop, unsplit: its id is the block, and each
    accumulated array is one of its results (docs/spec-format.md, "Loop
    results"), passed on by every loop from it down to the accumulating
    op, which the body around reads after the loop. So the source's order
    and live ranges are kept: the block's slot is read in the iteration
    that writes it. When it does not apply (returns False, nothing
    changed): two blocks, a PSUM accumulation, an accumulated array read
    by another op of the loop, or an op after the block's writer, in a
    body on the way down to it, that does not read it (the writer must be
    the last op making a tile there, which is what the loop's id stands
    for, and moving it last would reorder that op)."""
    kinds = {id(a): k for a, _, k in loop.outer_writes}
    blocks = [a for a in arrays if kinds.get(id(a)) == "set"]
    accs = [a for a in arrays if kinds.get(id(a)) == "acc"]
    if loop.kind == "sequential" or len(blocks) != 1 or \
            len(blocks) + len(accs) != len(arrays):
        return False
    leaves = _ops_of(loop)
    for a in accs:
        w = writers[id(a)]
        if not w.carry_self or w.kind == "matmul" or w.buffer == "psum":
            return False
        if any(arr is a and op is not w for arr, op, _ in loop.outer_writes):
            return False
        for op in leaves:
            if op is w:
                continue
            if w in op.carries or any(
                    r.array is a or r.version is w
                    for r in _refs(op) + list(op.carry_refs)):
                return False
    block_writer = writers[id(blocks[0])]
    # Reads of the block in the loop read the tile this iteration wrote:
    # the same slot, at every level down to the writer.
    levels = blocks[0].block_dims
    chain: List[ir.Loop] = []
    lp: Optional[ir.Loop] = block_writer.loop
    while lp is not None and lp is not loop.parent:
        chain.insert(0, lp)
        lp = lp.parent
    for op in leaves:
        for r in _refs(op):
            if r.array is not blocks[0] or op is block_writer:
                continue
            dims = getattr(r, "dims", None)
            if r.version is not block_writer or dims is None or \
                    len(levels) != len(chain) or not all(
                        _one_slot(dims[d], c.var)
                        for d, c in zip(levels, chain)):
                return False
    moves: List[Tuple[ir.Loop, int]] = []
    level: Optional[ir.Loop] = block_writer.loop
    holder: Item = block_writer
    while level is not None:
        top = _item_of(holder, level)
        assert top is not None
        at = next(i for i, x in enumerate(level.body) if x is top)
        if not _all_read(level, at):
            return False
        moves.append((level, at))
        if level is loop:
            break
        holder, level = level, level.parent
    for body_loop, at in moves:
        item = body_loop.body.pop(at)
        body_loop.body.append(item)
    for a in accs:
        w = writers[id(a)]
        l: Optional[ir.Loop] = w.loop
        while l is not None:
            if not any(x is w for x in l.results):
                l.results.append(w)
            if l is loop:
                break
            l = l.parent
        set_version(a, w, getattr(w, "const_dims", []))
    loop.outer_writes = [(a, op, k) for a, op, k in loop.outer_writes
                         if not any(a is x for x in accs)]
    return True


def _all_read(loop: ir.Loop, at: int) -> bool:
    """Whether every item of `loop.body` after item `at` reads it, directly
    or through the items between."""
    body = loop.body
    reached = {at}
    for j in range(at + 1, len(body)):
        reads = False
        for op in _ops_of(body[j]):
            for p in _producers(op):
                top = _item_of(p, loop)
                if top is not None and any(body[i] is top for i in reached):
                    reads = True
        if not reads:
            return False
        reached.add(j)
    return True
