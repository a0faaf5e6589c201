"""A stand-in for the compiler stage (issue 23), for tests and figures
taken before it lands: the C++ of a branch without it requires `engine` on
every compute op and knows no `"static"` loops. This fills what the traced
spec leaves to the compiler by one fixed rule, the first engine the format
lists for the op kind (docs/spec-format.md, "Op kinds"), and runs static
loops as affine ones. It is not the compiler's decision and never ships in
a spec: a traced spec leaves these out."""

from __future__ import annotations

import copy

FIRST_ENGINE = {
    "iota": "gpsimd", "tensor_scalar": "vector", "tensor_tensor": "vector",
    "tensor_reduce": "vector", "tensor_copy": "vector",
    "activation": "scalar", "matmul": "tensor", "tensor_tensor_scan": "vector",
    "bn_stats": "vector", "bn_aggr": "vector", "reciprocal": "vector",
    "transpose": "vector", "memset": "vector", "select": "vector",
    "affine_select": "gpsimd",
}


def _fill_body(body: list) -> None:
    for op in body:
        if op.get("op") == "loop":
            if op.get("range") == "static":
                op["range"] = "affine"
            _fill_body(op["body"])
        else:
            op.pop("slices", None)  # compiler stage: slices of a tile
        if op.get("op") in FIRST_ENGINE and "engine" not in op:
            op["engine"] = FIRST_ENGINE[op["op"]]
            if op["engine"] == "tensor" and op["op"] == "transpose":
                op["buffer"] = "psum"


def fill(spec: dict) -> dict:
    out = copy.deepcopy(spec)
    for loop in out["kernel"]["loops"]:
        if loop.get("range") == "static":
            loop["range"] = "affine"
        _fill_body(loop["body"])
    return out
