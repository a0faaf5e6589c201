"""The traced ops the front end knows, by the name torch gives them
(namespace and overload dropped: aten::mean, aten.mean.dim -> "mean"), and
the spec op each becomes. Each spec op's cost rule is in
workloads/spec/aten_ops.cc; docs/torch-source.md lists them with their sources."""

from __future__ import annotations

from typing import Tuple

# Elementwise with broadcasting; rsub is sub with its operands swapped.
BINARY = {"add": "aten::add", "sub": "aten::sub", "rsub": "aten::sub",
          "mul": "aten::mul", "div": "aten::div", "true_divide": "aten::div"}

# One input, elementwise. pow takes a number as its exponent.
UNARY = {"rsqrt": "aten::rsqrt", "sqrt": "aten::sqrt", "exp": "aten::exp",
         "tanh": "aten::tanh", "gelu": "aten::gelu", "relu": "aten::relu",
         "silu": "aten::silu", "sigmoid": "aten::sigmoid",
         "neg": "aten::neg", "reciprocal": "aten::reciprocal",
         "log": "aten::log", "pow": "aten::pow", "square": "aten::pow"}

# ScalarE activations: nki.isa.activation computes f(data * scale + bias),
# the scale and bias free (what the compiled passes fold into them).
ACTIVATIONS = {"aten::rsqrt", "aten::sqrt", "aten::exp", "aten::tanh",
               "aten::gelu", "aten::relu", "aten::silu", "aten::sigmoid",
               "aten::log"}

# Dtype casts: a copy when the dtype changes, nothing when it does not.
CASTS = {"to", "_to_copy", "type_as", "float", "half", "bfloat16"}

# Reductions along the last dim.
REDUCE = {"mean": "aten::mean", "sum": "aten::sum", "amax": "aten::amax"}

MATMUL = {"matmul": "aten::matmul", "mm": "aten::mm", "bmm": "aten::bmm"}

# Views: free (no data moves); the spec keeps them as aten::view so that
# every tensor keeps its traced shape.
VIEWS = {"view", "reshape", "_reshape_alias", "_unsafe_view", "transpose",
         "t", "permute", "unsqueeze", "squeeze", "expand", "expand_as",
         "flatten", "contiguous", "alias", "detach", "numpy_T", "view_as",
         "reshape_as", "lift_fresh", "lift_fresh_copy", "mT"}

# One ATen op that is one kernel: alone, it is a fused_op workload.
FUSED = {"aten::rms_norm", "aten::layer_norm", "aten::softmax"}

OTHER = {"linear", "addmm", "softmax", "_softmax", "layer_norm",
         "native_layer_norm", "rms_norm", "embedding"}


def split(target: str) -> Tuple[str, bool]:
    """"aten::add_" -> ("add", True); "aten::mean.dim" -> ("mean", False)."""
    name = target.split("::", 1)[-1].split(".", 1)[0]
    inplace = name.endswith("_") and not name.endswith("__") \
        and name.rstrip("_") in (set(BINARY) | set(UNARY) | CASTS)
    return (name[:-1] if inplace else name), inplace


def known(name: str) -> bool:
    return (name in BINARY or name in UNARY or name in CASTS
            or name in REDUCE or name in MATMUL or name in VIEWS
            or name in OTHER)


def supported_text() -> str:
    names = sorted(set(BINARY) | set(UNARY) | set(REDUCE) | set(MATMUL)
                   | OTHER | {"to"})
    return ", ".join(names) + ", and views (" + ", ".join(
        sorted(VIEWS - {"_reshape_alias", "_unsafe_view", "lift_fresh",
                        "lift_fresh_copy", "alias"})) + ")"
