"""A trace as a workload spec (docs/spec-format.md).

Loops become the format's loops: each walks the tensor dim its variable
indexes in the kernel's loads and stores (`lhsT[k * 128 + i_p, ...]`: k walks
lhsT's dim 0 in tiles of 128), or, where the variable indexes no HBM tensor,
an iteration tensor of its own. Arrays written across loops become blocks,
accumulators and states; what the source does not say (buffers, engines of
nl.* ops) is left out."""

from __future__ import annotations

import math
from builtins import min as builtins_min
import os
from typing import Dict, List, Optional, Set, Tuple, Union

from . import ir
from .errors import TraceError
from .expr import LoopVar
from .tracer import Trace


class Emitter:
    def __init__(self, trace: Trace) -> None:
        self.t = trace
        self.ids: Set[str] = set()
        self.extra_tensors: List[dict] = []

    def fail(self, line: int, message: str) -> TraceError:
        return TraceError(message, f"{self.t.file_label}:{line}")

    def unique(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
        if not base or base[0].isdigit():
            base = "t_" + base
        out, n = base, 2
        while out in self.ids:
            out, n = f"{base}_{n}", n + 1
        self.ids.add(out)
        return out

    # --- names ----------------------------------------------------------
    def name_loops(self, loop: ir.Loop, chain: List[str]) -> None:
        for item in loop.body:
            if isinstance(item, ir.Loop):
                assert item.var is not None
                base = item.var.name
                name, n = base, 2
                while name in chain:
                    name, n = f"{base}_{n}", n + 1
                item.name = name
                item.var.name = name
                self.name_loops(item, chain + [name])

    def name_ops(self) -> None:
        # Ops that write a named array first, in source order (the array's
        # first version, its memset, takes the plain name); then the ops
        # whose results are temporaries, last first, so that the op whose
        # result a statement assigns gets the assigned name.
        named = [op for op in self.t.ops if op.out is not None
                 and op.out.name and not op.out.fresh_name]
        temps = [op for op in self.t.ops if op not in named]
        for op in named + list(reversed(temps)):
            if op.elided or op.kind in ("store", "hbm_copy"):
                continue
            op.id = self.unique(self._base(op))
        self._name_loop_ids(self.t.root)

    def _base(self, op: ir.Op) -> str:
        arr = op.out
        named = arr.name if arr is not None and not arr.fresh_name else None
        if op.role == "acc" and named:
            return f"{named}_mm" if op.kind == "matmul" else f"{named}_sum"
        if op.role == "carried" and named:
            return f"{named}_next"
        if op.role == "slot" and named and getattr(op, "list_slot", False):
            return named
        if op.role == "slot" and named:
            return named[:-1] if named.endswith("s") and len(named) > 2 \
                else f"{named}_tile"
        if named:
            return named
        if op.kind == "iota":
            return "iota"
        if op.kind == "tensor_scalar" and op.target is None and op.inputs \
                and isinstance(op.inputs[0].version, ir.Op) and \
                op.inputs[0].version.kind == "iota":
            return "mask"
        return op.target or op.kind

    def _name_loop_ids(self, loop: ir.Loop) -> None:
        for item in loop.body:
            if isinstance(item, ir.Loop):
                if item.id_for is not None:
                    base = item.id_for.name or "block"
                    item.id = self.unique(base if base not in self.ids
                                          else f"{base}_{item.name}")
                self._name_loop_ids(item)

    # --- loop walks -----------------------------------------------------
    def index_of(self, op: ir.Op) -> List[str]:
        assert op.tensor is not None and op.access is not None
        entries: List[str] = []
        for d, acc in enumerate(op.access):
            size = op.tensor.shape[d]
            lt = acc.start.loop_terms()
            if not lt:
                if acc.start.const == 0 and acc.extent == size:
                    entries.append(":")
                    continue
                if 0 <= acc.start.const and \
                        acc.start.const + acc.extent <= size:
                    # A constant block (attention v11's epilogue stores
                    # `kernel_out[nl.ds((n - 2) * 128, 128), :]`), or an
                    # integer index, a block of one (`g[i * 4 + j]` in an
                    # iteration traced on its own).
                    entries.append(f"{acc.start.const}:"
                                   f"{acc.start.const + acc.extent}")
                    continue
                raise self.fail(op.line, (
                    f"{op.kind} of {op.tensor.name}: dim {d} at a constant "
                    f"offset {acc.start.const} (extent {acc.extent} of "
                    f"{size}) is not yet expressible; an index is a loop "
                    "variable's tile or the whole dim"))
            v, c = min(lt.items(), key=lambda kv: kv[1])
            if c != acc.extent or acc.start.const != 0:
                raise self.fail(op.line, (
                    f"{op.kind} of {op.tensor.name}: dim {d} moves "
                    f"{acc.extent} elements per step of {c} (index "
                    f"{acc.start!r}); only tiles that follow one another "
                    "(step = tile size, no constant offset) are supported"))
            for u, cu in lt.items():
                if u is v:
                    continue
                assert isinstance(u.loop, ir.Loop) and isinstance(
                    v.loop, ir.Loop)
                if not u.loop.encloses(v.loop) or cu % c:
                    raise self.fail(op.line, (
                        f"{op.kind} of {op.tensor.name}: dim {d} combines "
                        f"{u.name} and {v.name} in an order the format "
                        "cannot express (the finer loop must be inside the "
                        "coarser one)"))
            walk = v.loop.walk if isinstance(v.loop, ir.Loop) else None
            walked = self.shape_of(walk[0]) if walk else None
            if walked is not None and walked[walk[1]] != size and not (
                    size == v.loop.trip and acc.extent == 1):
                # The format's index names the loop's tile of a dim of the
                # walked dim's size (docs/spec-format.md, loop nests).
                raise self.fail(op.line, (
                    f"{op.kind} of {op.tensor.name}: dim {d} ({size}) "
                    f"moves {c} elements per iteration of {v.name}, which "
                    f"walks {walk[0]} ({walked[walk[1]]}) in tiles of "
                    f"{walk[2]}: one loop variable indexing dims of two "
                    "sizes is not yet expressible"))
            entries.append(v.name)
        return entries

    def shape_of(self, name: str) -> Optional[Tuple[int, ...]]:
        for x in self.t.tensors:
            if x.name == name:
                return tuple(x.shape)
        return None

    def collect_candidates(self) -> None:
        for op in self.t.ops:
            if op.tensor is None or op.access is None:
                continue
            for d, acc in enumerate(op.access):
                lt = acc.start.loop_terms()
                for v, c in lt.items():
                    assert isinstance(v.loop, ir.Loop)
                    # The next coarser loop of the same index: this loop
                    # walks the tile that one walks (`(m * 2 + bm) * 128`).
                    coarser = [(cu, u.loop) for u, cu in lt.items()
                               if cu > c and u.loop.encloses(v.loop)]
                    outer = min(coarser, key=lambda x: x[0])[1] \
                        if coarser else None
                    v.loop.candidates.append((op.tensor, d, c, outer))

    def decide_walks(self, loop: ir.Loop) -> None:
        for item in loop.body:
            if isinstance(item, ir.Loop):
                item.walk = self._walk(item)
                self.decide_walks(item)

    def _walk(self, loop: ir.Loop) -> Tuple[str, int, int]:
        shapes = {x.name: x.shape for x in self.t.tensors}
        # A dim the loop tiles is its walk rather than one it indexes an
        # element at a time (`scores_t[k, ...]`), which a loop may index
        # when the dim has one element per iteration (spec format, "Loop
        # nests"); the other way round the tiled dim could not be indexed.
        candidates = sorted(loop.candidates, key=lambda c: c[2] == 1)
        loop.candidates = candidates
        for tensor, d, step, outer in loop.candidates:
            if outer is not None and outer.walk is not None:
                ot, od, os_ = outer.walk
                if ot in shapes and shapes[ot][od] == tensor.shape[d] and \
                        math.ceil(builtins_min(os_, shapes[ot][od]) / step) \
                        == loop.trip:
                    return (ot, od, step)
        for tensor, d, step, _ in loop.candidates:
            extent = tensor.shape[d]
            p = loop.parent
            while p is not None and p.kind != "root":
                if p.walk is not None:
                    pt, pd, ps = p.walk
                    same = pd == d and (pt == tensor.name or (
                        d == 0 and pt in shapes
                        and shapes[pt][0] == tensor.shape[0]))
                    if same:
                        extent = min(ps, shapes[pt][pd]) if pt in shapes \
                            else ps
                        break
                p = p.parent
            if math.ceil(extent / step) == loop.trip:
                return (tensor.name, d, step)
        # A loop over the first tiles of a dim only (attention v11's
        # `i_tile_q` loop stores `kernel_out` tiles 0 to num_tile_q - 3,
        # its epilogue the last two): it walks an iteration tensor of
        # that many tiles, and indexes the larger dim by its tile.
        prefix = [c for t2, d2, c, _ in loop.candidates
                  if c > 1 and loop.trip * c < t2.shape[d2]]
        step = prefix[0] if prefix else 1
        name = self.unique(f"iter_{loop.name}")
        self.extra_tensors.append({"name": name,
                                   "shape": [1, loop.trip * step],
                                   "dtype": "int8"})
        return (name, 1, step)

    # --- JSON -----------------------------------------------------------
    def ref(self, r: ir.Ref, reader: ir.Op, what: str = "input") -> str:
        v = r.version
        if isinstance(v, ir.Op):
            if v.elided:
                raise self.fail(reader.line, "reads a PSUM tile that only "
                                "an accumulating matmul initialises")
            if not v.loop.encloses(reader.loop) and not _exported(v, reader):
                raise self.fail(reader.line, (
                    f"reads {v.id} (made inside the loop at line "
                    f"{v.loop.line}) outside that loop: not yet supported"))
            # A reduction of a block loop is read by slot as the block is.
            return v.id + "".join(f"[{s.name}]" for s in r.slots)
        assert v.id, "a loop read as a version has an id"
        if v.parent is not None and not v.parent.encloses(reader.loop) \
                and not _exported(v, reader):
            raise self.fail(reader.line, f"reads {v.id} outside its scope")
        return v.id + "".join(f"[{s.name}]" for s in r.slots)

    def op_json(self, op: ir.Op) -> dict:
        j: dict = {}
        if op.kind not in ("store", "hbm_copy"):
            j["id"] = op.id
        j["op"] = op.kind
        if op.engine:
            j["engine"] = op.engine
        if op.func:
            j["func"] = op.func
        if op.alu and op.kind == "tensor_scalar":
            j["alu"] = list(op.alu)
        if op.inputs:
            j["inputs"] = [self.ref(r, op) for r in op.inputs]
        # A store moves the block its index names, whatever part of the
        # tile that is (`nl.store(out, t[:, 0:n:2])`) and from however many
        # partitions (a DMA reads a broadcast row as rows): no "slices" or
        # "broadcasts" on it, which the format does not take.
        if op.inputs and op.kind != "store":
            if any(r.part is not None for r in op.inputs):
                j["slices"] = [list(r.part) if r.part else None
                               for r in op.inputs]
            if any(r.broadcast is not None for r in op.inputs):
                j["broadcasts"] = [r.broadcast for r in op.inputs]
        if op.kind in ("load", "store", "hbm_copy"):
            assert op.tensor is not None
            j["tensor"] = op.tensor.name
            if op.source is not None:
                j["from"] = op.source.name
            j["index"] = self.index_of(op)
        if op.mask is not None:
            j["mask"] = op.mask.id
        if op.predicate:
            j["affine_mask"] = True
        if op.kind not in ("store", "hbm_copy"):
            j["tile"] = [op.tile[0], op.tile[1]]
            j["dtype"] = op.dtype
        if op.buffer == "psum":
            j["buffer"] = "psum"
        if op.transpose:
            j["transpose"] = True
        if op.insert_transpose:
            j["insert_transpose"] = True
        if op.accumulate:
            j["accumulate"] = True  # its reduce_res=, a "reduction" op
        if op.kind != "reduction":
            if op.tile_buffers >= 2:
                j["tile_buffers"] = op.tile_buffers
            elif op.one_buffer:
                j["one_buffer"] = True
        if op.kind == "matmul" and op.role != "acc":
            # `qk[i] = nc_matmul(...)`: a PSUM tile of its own, not `+=`.
            j["overwrite"] = True
        carry = ([op.id] if op.carry_self else []) + [c.id for c in
                                                        op.carries]
        carry += [self.ref(r, op) for r in op.carry_refs]
        if carry:
            j["carry"] = carry
        if op.after:
            j["after"] = [self.ref(r, op) for r in op.after]
        if op.indirect is not None:
            j["indirect"] = self.ref(op.indirect, op)
        j["line"] = op.line
        return j

    def loop_json(self, loop: ir.Loop, top: bool) -> Optional[dict]:
        body = self.body_json(loop)
        if not body:
            return None
        assert loop.walk is not None
        tensor, d, step = loop.walk
        j: dict = {}
        if not top:
            if loop.id:
                j["id"] = loop.id
                if loop.tile_buffers >= 2:
                    j["tile_buffers"] = loop.tile_buffers
                elif loop.one_buffer:
                    j["one_buffer"] = True
            j["op"] = "loop"
        j["var"] = loop.name
        j["range"] = loop.kind
        j["tensor"] = tensor
        if d == 0 and step <= 128:
            j["tile_partitions"] = step
        else:
            if d:
                j["dim"] = d
            j["step"] = step
        if loop.no_reorder:
            j["no_reorder"] = True
        if loop.results and not top:
            j["results"] = [v.id for v in loop.results]
        if not top:
            j["line"] = loop.line
        j["body"] = body
        return j

    def body_json(self, loop: ir.Loop) -> List[dict]:
        out: List[dict] = []
        for item in loop.body:
            if isinstance(item, ir.Loop):
                j = self.loop_json(item, False)
                if j is not None:
                    out.append(j)
            elif not item.elided:
                out.append(self.op_json(item))
        return out

    def kernel_loops(self) -> List[dict]:
        root = self.t.root
        if any((isinstance(x, ir.Op) and not x.elided) or
               (isinstance(x, ir.Loop) and (x.id_for is not None or
                                            x.results))
               for x in root.body):
            # Ops outside every loop, or a loop whose result (or results)
            # a later loop reads (kernel loops do not see one another's
            # ids): one loop that runs once holds them all.
            once = ir.Loop(LoopVar("once", None), "affine", 1, 0, None)
            once.name = "once"
            name = self.unique("iter_once")
            self.extra_tensors.append({"name": name, "shape": [1, 1],
                                       "dtype": "int8"})
            once.walk = (name, 1, 1)
            once.body = root.body
            for item in root.body:
                if isinstance(item, (ir.Loop,)):
                    item.parent = once
                else:
                    item.loop = once
            once.parent = root
            return [self.loop_json(once, True) or {}]
        loops = [self.loop_json(l, True) for l in root.body
                 if isinstance(l, ir.Loop)]
        return [l for l in loops if l is not None]


def _exported(v: Union[ir.Op, ir.Loop], reader: ir.Op) -> bool:
    """Whether `v`, made in the body of a loop the reader is not in, is one
    of that loop's results, which the body around it reads."""
    made_in = v.loop if isinstance(v, ir.Op) else v.parent
    # Passed on by every loop from there out to one the reader is beside
    # (a result of a nest, fission.keep_as_results).
    while made_in is not None and any(x is v for x in made_in.results):
        if made_in.parent is not None and \
                made_in.parent.encloses(reader.loop):
            return True
        made_in = made_in.parent
    return False


def emit(trace: Trace, name: str, description: str,
         provenance: dict) -> dict:
    e = Emitter(trace)
    e.name_loops(trace.root, [])
    e.name_ops()
    e.collect_candidates()
    e.decide_walks(trace.root)
    loops = e.kernel_loops()
    if not loops:
        raise TraceError("the kernel makes no loads, stores or compute: "
                         "nothing to model", trace.file_label)
    tensors = [{"name": x.name, "shape": list(x.shape), "dtype": x.dtype}
               for x in trace.tensors] + e.extra_tensors
    return {
        "schema_version": 1,
        "name": name,
        "family": name,
        "description": description,
        "mode": "nki",
        "tensors": tensors,
        "kernel": {"source_file": os.path.basename(trace.kernel_path),
                   "loops": loops},
        "kernel_source": provenance,
    }
