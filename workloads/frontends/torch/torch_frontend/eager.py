"""The eager tracer: torch.jit.trace on meta tensors.

Meta tensors have shapes and dtypes and no data, so every ATen op the
function dispatches is recorded with its shapes and nothing is computed.
A Python number an op takes as a tensor (`mean_sq + eps`) is recorded as a
0-d CPU tensor constant: on the device, eager execution copies it from
the host first, which is what the seed's profile shows for aten::add."""

from __future__ import annotations

import warnings
from typing import Callable, Dict, List, Tuple

from . import dtypes, ir, loader, source_line
from .errors import TraceError


def trace(func: Callable, path: str, function: str,
          tensors: List[Tuple[str, Tuple[int, ...], str]],
          scalars: Dict[str, object]) -> ir.Graph:
    import torch

    names = [t[0] for t in tensors]
    call = loader.bind(func, names, scalars)
    examples = tuple(torch.empty(shape, dtype=getattr(torch, dtype),
                                 device="meta")
                     for _, shape, dtype in tensors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            traced = torch.jit.trace(call, examples, check_trace=False)
        except TraceError:
            raise
        except Exception as e:  # the user's code, run on meta tensors
            raise loader.refusal(e, path, "tracing eagerly") from None
    return _graph_of(traced.graph, path, function, tensors,
                     loader.scalar_names(func, scalars))


def _tensor_type(v) -> object:
    import torch

    t = v.type()
    return t if isinstance(t, torch._C.TensorType) else None


def _value(v, name: str, where: str) -> ir.Value:
    t = _tensor_type(v)
    sizes = t.sizes() if t is not None else None
    if sizes is None or t.scalarType() is None:
        raise TraceError(f"the tracer lost the shape of {v.debugName()}",
                         where)
    device = t.device()
    placement = "host" if device is not None and device.type == "cpu" \
        else "device"
    try:
        dtype = dtypes.jit_dtype(t.scalarType())
    except TraceError as e:
        raise TraceError(e.message, where) from None
    return ir.Value(name, tuple(sizes), dtype, placement)


def _graph_of(g, path: str, function: str,
              tensors: List[Tuple[str, Tuple[int, ...], str]],
              scalars: List[Tuple[str, object]]) -> ir.Graph:
    out = ir.Graph(path, function, "eager")
    env: Dict[str, object] = {}  # jit value name -> Value or constant
    for v, (name, _, _) in zip(g.inputs(), tensors):
        value = _value(v, name, path)
        out.inputs.append(value)
        env[v.debugName()] = value
    for n in g.nodes():
        kind = n.kind()
        line = source_line.of_jit(n.sourceRange(), path)
        where = out.where(line)
        outs = list(n.outputs())
        if kind == "prim::Constant":
            o = outs[0]
            const = o.toIValue()
            if _tensor_type(o) is not None:
                # A Python number an op takes as a tensor: a host value.
                value = _value(o, _scalar_name(const, scalars), where)
                value.placement = "host"
                value.const = _number(const)
                env[o.debugName()] = value
            else:
                env[o.debugName()] = const
            continue
        if kind == "prim::ListConstruct":
            env[outs[0].debugName()] = [env.get(i.debugName())
                                        for i in n.inputs()]
            continue
        if kind == "prim::TupleConstruct":
            env[outs[0].debugName()] = tuple(env.get(i.debugName())
                                             for i in n.inputs())
            continue
        if kind in ("prim::TupleUnpack", "prim::ListUnpack"):
            seq = env.get(next(n.inputs()).debugName())
            for o, item in zip(outs, seq or ()):
                env[o.debugName()] = item
            continue
        args = [env.get(i.debugName()) for i in n.inputs()]
        if kind == "aten::size":
            x, dim = args[0], args[1] if len(args) > 1 else None
            if isinstance(x, ir.Value):
                env[outs[0].debugName()] = (x.shape[dim] if dim is not None
                                            else list(x.shape))
                continue
        if len(outs) != 1:
            raise TraceError(f"{kind} gives {len(outs)} results; the front "
                             "end takes ops of one result", where)
        o = outs[0]
        if _tensor_type(o) is None:
            # A number computed on the host (from shapes): a constant.
            env[o.debugName()] = _host_number(kind, args)
            continue
        value = _value(o, _clean(o.debugName()), where)
        if value.placement == "host":
            # Computed on the CPU from Python numbers and shapes.
            value.const = _host_number(kind, args)
            env[o.debugName()] = value
            continue
        node = ir.Node(kind, args, value, line)
        out.nodes.append(node)
        env[o.debugName()] = value
    for o in g.outputs():
        result = env.get(o.debugName())
        items = result if isinstance(result, (tuple, list)) else (result,)
        for item in items:
            if not isinstance(item, ir.Value):
                raise TraceError(f"{function} returns {type(item).__name__}, "
                                 "not tensors", path)
            out.outputs.append(item)
    return out


def _host_number(kind: str, args: List[object]):
    nums = [a.const if isinstance(a, ir.Value) else a for a in args]
    try:
        if kind == "prim::NumToTensor" or kind in ("aten::Int",
                                                   "aten::Float",
                                                   "aten::ScalarImplicit"):
            return nums[0]
        if kind == "aten::pow":
            return nums[0] ** nums[1]
        if kind in ("aten::mul", "aten::mul_"):
            return nums[0] * nums[1]
        if kind in ("aten::div", "aten::true_divide"):
            return nums[0] / nums[1]
        if kind == "aten::add":
            return nums[0] + nums[1]
        if kind == "aten::sub":
            return nums[0] - nums[1]
    except (TypeError, IndexError, ZeroDivisionError):
        return None
    return None


def _scalar_name(const, scalars: List[Tuple[str, object]]) -> str:
    value = _number(const)
    for name, v in scalars:
        if value is not None and float(v) == value:
            return name
    return "scalar"


def _number(const) -> object:
    """A tensor constant's number (toIValue gives a 0-d one as a float)."""
    if isinstance(const, (int, float)):
        return float(const)
    try:
        return float(const.item()) if const.numel() == 1 else None
    except (AttributeError, RuntimeError):
        return None


def _clean(name: str) -> str:
    """A jit value name as a spec tensor name: the Python variable it was
    bound to (`x_sq`, `x.1` -> `x`), or "" for a temporary."""
    base = name.split(".")[0]
    return "" if base.isdigit() else base
