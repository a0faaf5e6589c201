"""Passes over the traced graph, in the order `run` applies them:

1. lower: each traced op becomes the spec op of its cost rule (ops.py), or
   is refused in one line naming it and its source line; views become
   aten::view, free; an in-place op on an argument is refused.
2. scalars: a Python number an op reads. Eager: the 0-d CPU tensor
   torch.jit records is a host tensor, copied to the device before the op
   (the seed's aten::add). Compiled: a constant of the graph, folded into
   the ScalarE activation that reads the op's result as its bias or scale
   where nki.isa.activation's f(data * scale + bias) allows (docs/
   torch-source.md, "Fusion"), else a 0-d device constant.
3. dead code (compiled only: eager runs every op it dispatches).
4. names: spec tensor names, from the Python variables jit recorded."""

from __future__ import annotations

from typing import Dict, List, Optional

from . import ops
from .errors import TraceError
from .ir import Graph, Node, Value


def run(g: Graph) -> Graph:
    lower(g)
    if g.mode == "compiled":
        fold_scalars(g)
        dead_code(g)
    constants(g)
    drop_identity_views(g)
    name(g)
    return g


# ---- 1. lower ----

def lower(g: Graph) -> None:
    args_of = {id(v) for v in g.inputs}
    base_of: Dict[int, Value] = {}  # view -> the argument it views
    out: List[Node] = []
    for n in g.nodes:
        name, inplace = ops.split(n.target)
        where = g.where(n.line)
        if not ops.known(name):
            raise TraceError(f"{n.target} is not supported by the torch "
                             f"front end (supported: {ops.supported_text()})",
                             where)
        if any(a is None for a in n.args[:1]) or any(
                isinstance(a, Node) for a in n.args):
            raise TraceError(f"{n.target} reads a result the front end does "
                             "not model (a statistic of a norm)", where)
        tensors = [a for a in n.args if isinstance(a, Value)]
        if inplace and tensors:
            target = base_of.get(id(tensors[0]), tensors[0])
            if id(target) in args_of:
                raise TraceError(
                    f"in-place {n.target} on the argument {target.name}: "
                    "the front end does not model writes to a caller's "
                    "tensor; write out = ... instead", where)
        new = _lower_one(g, n, name, where, out)
        if new is not None and new.op == "aten::view" and new.inputs:
            src = new.inputs[0]
            if id(src) in args_of or id(src) in base_of:
                base_of[id(new.output)] = base_of.get(id(src), src)
    g.nodes = out


def _numbers(n: Node) -> List[object]:
    return [a for a in n.args if not isinstance(a, (Value, tuple))]


def _kw(n: Node, key: str, default=None):
    for a in n.args:
        if isinstance(a, tuple) and len(a) == 2 and a[0] == key:
            return a[1]
    return default


def _positional(n: Node) -> List[object]:
    return [a for a in n.args if not isinstance(a, tuple)]


def _add(out: List[Node], n: Node, op: str, inputs: List[object],
         output: Optional[Value] = None) -> Node:
    node = Node(n.target, n.args, output or n.output, n.line, op,
                list(inputs))
    out.append(node)
    return node


def _last_dim(dims, rank: int) -> bool:
    if dims is None or dims == []:
        return rank <= 1
    if isinstance(dims, int):
        dims = [dims]
    return len(dims) == 1 and dims[0] in (-1, rank - 1)


def _lower_one(g: Graph, n: Node, name: str, where: str,
               out: List[Node]) -> Optional[Node]:
    p = _positional(n)
    x = p[0] if p else None
    if name in ops.VIEWS:
        return _add(out, n, "aten::view", [x])
    if name in ops.CASTS:
        if isinstance(x, Value) and x.dtype == n.output.dtype:
            return _add(out, n, "aten::view", [x])
        return _add(out, n, "aten::to", [x])
    if name in ops.BINARY:
        a, b = p[0], p[1]
        if name == "rsub":
            a, b = b, a
        if not isinstance(a, Value) and not isinstance(b, Value):
            raise TraceError(f"{n.target} of two numbers", where)
        return _add(out, n, ops.BINARY[name], [a, b])
    if name in ops.UNARY:
        if name == "pow":
            if len(p) < 2 or isinstance(p[1], Value) or \
                    not isinstance(x, Value):
                raise TraceError(f"{n.target}: the front end takes pow of a "
                                 "tensor by a number", where)
            if isinstance(x, Value) and p[1] == 1:
                return _add(out, n, "aten::view", [x])
        return _add(out, n, ops.UNARY[name], [x])
    if name in ops.REDUCE:
        dims = p[1] if len(p) > 1 else None
        keep = bool(p[2]) if len(p) > 2 and p[2] is not None else \
            bool(_kw(n, "keepdim", False))
        if not _last_dim(dims, len(x.shape)):
            raise TraceError(f"{n.target} over dims {dims}: the front end "
                             "reduces the last dim only", where)
        if keep or len(x.shape) == 0:
            return _add(out, n, ops.REDUCE[name], [x])
        kept = Value("", x.shape[:-1] + (1,), n.output.dtype)
        _add(out, n, ops.REDUCE[name], [x], kept)
        return _add(out, n, "aten::view", [kept])
    if name in ops.MATMUL:
        a, b = p[0], p[1]
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise TraceError(f"{n.target} of a vector ({list(a.shape)} x "
                             f"{list(b.shape)}): the front end takes "
                             "matrices", where)
        return _add(out, n, ops.MATMUL[name], [a, b])
    if name == "linear":
        w, b = p[1], p[2] if len(p) > 2 else None
        return _add(out, n, "aten::linear",
                    [x, w] + ([b] if isinstance(b, Value) else []))
    if name == "addmm":
        bias, a, b = p[0], p[1], p[2]
        beta, alpha = _kw(n, "beta", 1), _kw(n, "alpha", 1)
        if len(p) > 3 or beta != 1 or alpha != 1:
            raise TraceError(f"{n.target} with beta or alpha", where)
        # linear decomposes to addmm(bias, x, t(w)): the traced t() is a
        # view of the weight, read by one linear op again.
        w = _transposed_source(out, b)
        if w is not None:
            return _add(out, n, "aten::linear", [a, w, bias])
        mm = Value("", n.output.shape, n.output.dtype)
        _add(out, n, "aten::mm", [a, b], mm)
        return _add(out, n, "aten::add", [mm, bias])
    if name in ("softmax", "_softmax"):
        if not _last_dim(p[1], len(x.shape)):
            raise TraceError(f"{n.target} over dim {p[1]}: the front end "
                             "takes softmax over the last dim", where)
        return _add(out, n, "aten::softmax", [x])
    if name in ("layer_norm", "native_layer_norm", "rms_norm"):
        shape = list(p[1])
        if shape != [x.shape[-1]]:
            raise TraceError(f"{n.target} over {shape}: the front end "
                             "normalises over the last dim", where)
        rest = [a for a in p[2:4 if name != "rms_norm" else 3]
                if isinstance(a, Value)]
        op = "aten::rms_norm" if name == "rms_norm" else "aten::layer_norm"
        return _add(out, n, op, [x] + rest)
    if name == "embedding":
        return _add(out, n, "aten::embedding", [p[0], p[1]])
    raise TraceError(f"{n.target} is not supported", where)


def _transposed_source(out: List[Node], v: Value) -> Optional[Value]:
    """The 2-d tensor `v` is the t() of, when a view made it so."""
    for n in reversed(out):
        if n.output is v:
            name = ops.split(n.target)[0]
            if n.op == "aten::view" and name in ("t", "transpose", "permute",
                                                 "numpy_T", "mT"):
                src = n.inputs[0]
                if len(src.shape) == 2 and src.shape[::-1] == v.shape:
                    return src
            return None
    return None


# ---- 2. scalars ----

def fold_scalars(g: Graph) -> None:
    """A compile-time number added to, subtracted from, multiplied into or
    divided into a tensor whose one reader is a ScalarE activation: the
    activation takes it as its bias (add, sub) or scale (mul, div), free
    (nki.isa.activation: f(data * scale + bias))."""
    outputs = {id(v) for v in g.outputs}
    changed = True
    while changed:
        changed = False
        uses = g.uses()
        for n in list(g.nodes):
            if n.op not in ("aten::add", "aten::sub", "aten::mul",
                            "aten::div"):
                continue
            tensors = [a for a in n.inputs if isinstance(a, Value)]
            numbers = [a for a in n.inputs if not isinstance(a, Value)]
            if len(tensors) != 1 or len(numbers) != 1 \
                    or id(n.output) in outputs:
                continue
            if n.op == "aten::div" and n.inputs[0] is not tensors[0]:
                continue  # c / x is a reciprocal, not a scale
            readers = uses.get(id(n.output), [])
            if len(readers) != 1 or readers[0].op not in ops.ACTIVATIONS:
                continue
            act = readers[0]
            kind = "bias" if n.op in ("aten::add", "aten::sub") else "scale"
            if any(f.startswith(kind) for f in act.folded):
                continue
            act.inputs = [tensors[0] if a is n.output else a
                          for a in act.inputs]
            act.folded.append(f"{kind} from {n.target}")
            g.nodes.remove(n)
            changed = True
            break


def constants(g: Graph) -> None:
    """Numbers left as op operands become 0-d tensors: host tensors in
    eager mode (torch copies them to the device), constants of the NEFF in
    a compiled graph."""
    for n in g.nodes:
        for i, a in enumerate(n.inputs):
            if isinstance(a, Value):
                continue
            if not isinstance(a, (int, float)) or isinstance(a, bool):
                raise TraceError(f"{n.target} reads {a!r} as a tensor",
                                 g.where(n.line))
            placement = "host" if g.mode == "eager" else "device"
            n.inputs[i] = Value("const" if g.mode == "compiled" else "scalar",
                                (), "fp32", placement, float(a))


# ---- 3. dead code ----

def dead_code(g: Graph) -> None:
    live = {id(v) for v in g.outputs}
    kept: List[Node] = []
    for n in reversed(g.nodes):
        if id(n.output) in live:
            kept.append(n)
            live.update(id(v) for v in n.inputs)
    g.nodes = list(reversed(kept))


def drop_identity_views(g: Graph) -> None:
    """A view that keeps the shape (expand to the same shape, contiguous,
    detach) is the tensor itself."""
    outputs = {id(v) for v in g.outputs}
    alias: Dict[int, Value] = {}
    kept: List[Node] = []
    for n in g.nodes:
        n.inputs = [alias.get(id(v), v) for v in n.inputs]
        if n.op == "aten::view" and n.inputs[0].shape == n.output.shape \
                and id(n.output) not in outputs:
            alias[id(n.output)] = n.inputs[0]
            continue
        kept.append(n)
    g.nodes = kept


# ---- 4. names ----

def name(g: Graph) -> None:
    used = set()

    def unique(base: str) -> str:
        if base not in used:
            used.add(base)
            return base
        k = 1
        while f"{base}_{k}" in used:
            k += 1
        used.add(f"{base}_{k}")
        return f"{base}_{k}"

    for v in g.inputs:
        used.add(v.name)
    seen = {id(v) for v in g.inputs}
    outs = {id(v): i for i, v in enumerate(g.outputs)}
    for n in g.nodes:
        for v in n.inputs:
            if id(v) not in seen:
                seen.add(id(v))
                v.name = unique(v.name or "scalar")
        if id(n.output) not in seen:
            seen.add(id(n.output))
            if id(n.output) in outs:
                k = outs[id(n.output)]
                n.output.name = unique("out" if k == 0 else f"out_{k}")
            else:
                base = n.output.name or n.op.split("::")[1]
                if base == "out" or base.startswith("out_"):
                    base = "t_" + base
                n.output.name = unique(base)
