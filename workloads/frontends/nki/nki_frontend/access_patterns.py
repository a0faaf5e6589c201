"""`.ap()` of an HBM tensor (the access-pattern deep dive, 2026-08
`deep-dives/nki-aps.rst`): a list of [step, num] pairs over the tensor's
flattened storage from an element offset, optionally read as another dtype
(`dtype=`) or from a runtime offset (`scalar_offset=` / `vector_offset=`).

The spec format moves blocks of declared tensors, so a pattern becomes a
block of a tensor of its own (as `reshape` does): the rows of the pattern
(its first pair, the DMA's partition side), the contiguous runs of each row
and the bytes are what a DMA's cost depends on (the DMA bandwidth guide:
one descriptor per contiguous run), and the block keeps all three. Which
elements the runs are, an offset that moves with a loop variable, is not
part of the cost and is not kept."""

from __future__ import annotations

import math
import operator
from typing import List, Optional, Sequence, Tuple

from . import ir, location
from .expr import Affine
from .location import err

# The spec format's dtypes by element width (device_model/dtype.h).
SPEC_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "int8": 1, "int32": 4}


def check_pattern(pattern: object, api: str = ".ap") -> List[List[int]]:
    """The [step, num] pairs, each num >= 1, or a one-line refusal. A
    step or num is an integer: a Python int, a numpy integer, or a value
    the kernel computed from shapes and loop variables (an `Affine`: a
    constant one is its int; one that moves with a loop has the value
    `__index__` gives it, the loop unrolled where the generation makes
    loop variables ints, else the one-line refusal it raises)."""
    if not isinstance(pattern, (list, tuple)) or not pattern or not all(
            isinstance(pn, (list, tuple)) and len(pn) == 2 and
            all(_integer(v) for v in pn) for pn in pattern):
        raise err(f"{api}(pattern=...) is a list of [step, num] integer "
                  f"pairs, got {pattern!r}")
    out = [[operator.index(s), operator.index(n)] for s, n in pattern]
    if any(n < 1 for _, n in out):
        raise err(f"{api}{out}: every num is >= 1")
    return out


def _integer(value: object) -> bool:
    return not isinstance(value, bool) and (
        isinstance(value, (int, Affine)) or hasattr(type(value), "__index__"))


def element_span(pattern: Sequence[Sequence[int]]) -> Tuple[int, int]:
    """The lowest and highest element offset the pattern reaches from its
    start (a negative step walks backwards)."""
    low = sum((n - 1) * s for s, n in pattern if s < 0)
    high = sum((n - 1) * s for s, n in pattern if s > 0)
    return low, high


def runs_of(pattern: Sequence[Sequence[int]]) -> Tuple[int, int, int]:
    """(rows, runs per row, elements per run): the pattern's first pair is
    its rows; from the innermost pair outwards, a pair whose step is the
    run's length so far extends the run (a num of 1 never breaks it)."""
    rows = pattern[0][1]
    run, j = 1, len(pattern) - 1
    while j >= 1 and (pattern[j][1] == 1 or pattern[j][0] == run):
        run *= pattern[j][1]
        j -= 1
    segments = math.prod(n for _, n in pattern[1:j + 1])
    return rows, segments, run


def offset_range(offset: Affine) -> Tuple[int, int]:
    """The lowest and highest value of an offset affine in loop variables
    over their loops' iterations."""
    lo = hi = offset.const
    for v, c in offset.loop_terms().items():
        trip = getattr(v.loop, "trip", 1)
        lo += min(0, c * (trip - 1))
        hi += max(0, c * (trip - 1))
    return lo, hi


def hbm_block(tensor: ir.HbmTensor, pattern: Sequence[Sequence[int]],
              offset: Affine, dtype: str) -> Tuple[ir.HbmTensor,
                                                   List[ir.DimAccess]]:
    """The spec tensor and block standing for the pattern over `tensor`'s
    storage read as `dtype` from `offset` (checked to stay inside it)."""
    old = SPEC_BYTES[tensor.dtype]
    new = SPEC_BYTES[dtype]
    total = math.prod(tensor.shape) * old
    if total % new:
        raise err(f".ap(dtype=...) of {tensor.name} ({total} bytes) as "
                  f"{dtype}: the bytes are not a whole number of {dtype} "
                  "elements")
    size = total // new
    low, high = element_span(pattern)
    first, last = offset_range(offset)
    if first + low < 0 or last + high >= size:
        raise err(f".ap{list(map(list, pattern))} at offset {offset!r} "
                  f"reaches elements {first + low}..{last + high} of "
                  f"{tensor.name}, which has {size} ({dtype}) elements")
    rows, segments, run = runs_of(pattern)
    step0 = pattern[0][0]
    # The block's innermost extent is the run; the tensor's, the distance
    # from one run to the next, so that a block cut there is one run per
    # row and segment, and whole rows only where the rows are adjacent.
    if segments == 1 and (rows == 1 or step0 == run):
        shape: Tuple[int, ...] = (rows, run)
        block = [(rows, rows), (run, run)]
    else:
        inner = next((abs(s) for s, n in reversed(pattern[1:])
                      if n > 1 and abs(s) != 0), abs(step0))
        width = max(run + 1, inner if segments > 1 else abs(step0))
        if segments == 1:
            shape, block = (rows, width), [(rows, rows), (run, width)]
        else:
            shape = (rows, segments, width)
            block = [(rows, rows), (segments, segments), (run, width)]
    name = f"{tensor.name}_ap_" + "x".join(map(str, shape))
    if dtype != tensor.dtype:
        name += f"_{dtype}"
    t = location.active()
    synthetic = next((x for x in t.tensors if x.name == name), None)
    if synthetic is None:
        synthetic = ir.HbmTensor(name, shape, dtype)
        t.tensors.append(synthetic)
    dims = [ir.DimAccess(Affine.of(0), extent, False)
            for extent, _ in block]
    return synthetic, dims


def flat_offset(shape: Sequence[int], dims: Sequence[ir.DimAccess]) -> Affine:
    """The element offset of a view's first element in its tensor's
    storage (row-major)."""
    off = Affine.of(0)
    stride = 1
    for d in reversed(range(len(shape))):
        off = off + dims[d].start * stride
        stride *= shape[d]
    return off


def index_pattern(pattern: Sequence[Sequence[int]], offset: Affine,
                  dims: Sequence[ir.DimAccess]
                  ) -> Tuple[List[List[int]], Affine]:
    """An index of a pattern view (indexing.normalize of its shape): each
    dim's start moves the offset by its step; a dim an integer removed
    leaves the pattern."""
    out: List[List[int]] = []
    for (step, _), d in zip(pattern, dims):
        offset = offset + d.start * step
        if not d.squeezed:
            out.append([step, d.extent])
    return out or [[1, 1]], offset


def ap_args(kwargs: dict, api: str) -> Tuple[Optional[object],
                                             Optional[object], int]:
    """scalar_offset=, vector_offset= and indirect_dim= of `.ap`, checked."""
    known = {"scalar_offset", "vector_offset", "indirect_dim", "dtype"}
    for k in kwargs:
        if k not in known:
            raise err(f"{api} has no argument {k}= (the access-pattern deep "
                      "dive: pattern, offset, scalar_offset, vector_offset, "
                      "indirect_dim, dtype)")
    scalar = kwargs.get("scalar_offset")
    vector = kwargs.get("vector_offset")
    if scalar is not None and vector is not None:
        raise err(f"{api}: at most one of scalar_offset= and vector_offset= "
                  "(the access-pattern deep dive)")
    dim = kwargs.get("indirect_dim", 0)
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
        raise err(f"{api}(indirect_dim={dim!r}): a dim index >= 0")
    if vector is not None and dim != 0:
        raise err(f"{api}(vector_offset=..., indirect_dim={dim}): only "
                  "indirect_dim=0 is supported with a vector offset (the "
                  "access-pattern deep dive)")
    return scalar, vector, dim
