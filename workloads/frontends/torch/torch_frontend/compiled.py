"""The compiled tracer: make_fx on fake tensors.

torch.compile(backend='neuron') hands the Neuron compiler the ATen graph
that AOTAutograd makes of what TorchDynamo captured. torch 1.13 has no
TorchDynamo; make_fx, the tracer AOTAutograd is built on, gives the same
ATen graph of a function that Dynamo captures whole (fullgraph=True, as the
seed compiles): composite ops decomposed (linear -> t + addmm, matmul ->
views + mm/bmm, softmax -> _softmax), Python numbers folded in as
constants. The tensors are FakeTensors made from shapes: nothing is
allocated or computed."""

from __future__ import annotations

import operator
import warnings
from typing import Callable, Dict, List, Tuple

from . import dtypes, ir, loader, source_line
from .errors import TraceError


def trace(func: Callable, path: str, function: str,
          tensors: List[Tuple[str, Tuple[int, ...], str]],
          scalars: Dict[str, object]) -> ir.Graph:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import PythonKeyTracer, make_fx

    # The source line of each node, for refusals (fx records the stack
    # when asked).
    PythonKeyTracer.record_stack_traces = True
    names = [t[0] for t in tensors]
    call = loader.bind(func, names, scalars)
    with FakeTensorMode():
        examples = [torch.empty(shape, dtype=getattr(torch, dtype))
                    for _, shape, dtype in tensors]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            gm = make_fx(call)(*examples)
        except TraceError:
            raise
        except Exception as e:
            raise loader.refusal(e, path, "tracing for torch.compile") \
                from None
    return _graph_of(gm.graph, path, function, names)


def _value(val, name: str, where: str) -> ir.Value:
    try:
        dtype = dtypes.spec_dtype(val.dtype)
    except TraceError as e:
        raise TraceError(e.message, where) from None
    return ir.Value(name, tuple(int(d) for d in val.shape), dtype)


def _graph_of(g, path: str, function: str, names: List[str]) -> ir.Graph:
    import torch

    out = ir.Graph(path, function, "compiled")
    env: Dict[object, object] = {}
    placeholders = iter(names)
    for n in g.nodes:
        line = source_line.of_stack_text(n.meta.get("stack_trace"), path)
        where = out.where(line)
        if n.op == "placeholder":
            value = _value(n.meta["val"], next(placeholders), path)
            out.inputs.append(value)
            env[n] = value
            continue
        if n.op == "output":
            results = n.args[0]
            items = results if isinstance(results, (tuple, list)) \
                else (results,)
            for item in items:
                v = env.get(item)
                if not isinstance(v, ir.Value):
                    raise TraceError(f"{function} returns a non-tensor", path)
                out.outputs.append(v)
            continue
        if n.op != "call_function":
            raise TraceError(f"fx node {n.op} {n.target} is not supported",
                             where)
        args = [_arg(a, env) for a in n.args]
        if n.target is operator.getitem:
            results, index = args[0], args[1]
            if isinstance(results, ir.Node):
                # A result of an op of several (native_layer_norm: out,
                # mean, rstd): the first is the op's; the statistics are
                # not modelled.
                if index != 0:
                    env[n] = None
                    continue
                results.output = _value(n.meta["val"], "", where)
                env[n] = results.output
            else:
                env[n] = results[index]
            continue
        val = n.meta.get("val")
        if val is None or isinstance(val, (tuple, list)):
            node = ir.Node(_target(n.target), args, ir.Value("", (), ""),
                           line)
            out.nodes.append(node)
            env[n] = node
            continue
        if not isinstance(val, torch.Tensor):
            raise TraceError(f"{_target(n.target)} gives "
                             f"{type(val).__name__}, not a tensor", where)
        value = _value(val, "", where)
        node = ir.Node(_target(n.target), args, value, line)
        for k, v in n.kwargs.items():
            node.args.append((k, _arg(v, env)))
        out.nodes.append(node)
        env[n] = value
    return out


def _arg(a, env):
    import torch.fx

    if isinstance(a, torch.fx.Node):
        return env.get(a)
    if isinstance(a, (list, tuple)):
        return [_arg(x, env) for x in a]
    return a


def _target(target) -> str:
    """aten.mul.Tensor -> "aten::mul.Tensor"."""
    text = str(target)
    ns, _, rest = text.partition(".")
    return f"{ns}::{rest}" if rest else text
