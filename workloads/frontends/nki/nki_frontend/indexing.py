"""Indices into tensors and tiles: `nl.arange` / `nl.mgrid` grids, `nl.ds`,
slices and affine expressions, normalised to one ir.DimAccess per dim, and
the shape and tile a view of them has."""

from __future__ import annotations

import copy
from typing import Iterator, List, Sequence, Tuple

from . import ir, location
from .expr import Affine, Axis, Modulo, unroll_for_value
from .location import err


class DynSlice:
    def __init__(self, start: object, size: int, step: object = None) -> None:
        if step not in (None, 1):
            raise err("nl.ds with a step is not supported; steps of 1 only")
        self.start = Affine.of(start)
        self.size = int(size)


class Grid:
    """The result of `nl.mgrid[...]`: axes p, x, y, z (unpackable)."""

    def __init__(self, axes: List[Affine]) -> None:
        self.axes = axes

    def __iter__(self) -> Iterator[Affine]:
        return iter(self.axes)

    def __getitem__(self, i: int) -> Affine:
        return self.axes[i]

    @property
    def p(self) -> Affine:
        return self.axes[0]

    @property
    def x(self) -> Affine:
        return self.axes[1]

    @property
    def y(self) -> Affine:
        return self.axes[2]

    @property
    def z(self) -> Affine:
        return self.axes[3]


class ArangeVector:
    """`nl.arange(n)` before it is given a position with [:, None]."""

    def __init__(self, extent: int) -> None:
        self.extent = extent
        self.line = location.current_line()

    def __getitem__(self, key: object) -> Affine:
        if not isinstance(key, tuple):
            key = (key,)
        rank = len(key)
        pos = [i for i, k in enumerate(key) if isinstance(k, slice)]
        if len(pos) != 1 or any(k is not None for i, k in enumerate(key)
                                if i != pos[0]):
            raise err("nl.arange(n) is indexed as [:, None] or [None, :]")
        return Affine({Axis(self.extent, pos[0], rank, self.line): 1})

    def _as_affine(self) -> Affine:
        return Affine({Axis(self.extent, 0, 1, self.line): 1})

    def __add__(self, o: object) -> Affine:
        return self._as_affine() + o

    __radd__ = __add__

    def __mul__(self, o: object) -> Affine:
        return self._as_affine() * o

    __rmul__ = __mul__


class IndirectIndex:
    """A tile of indices as the index of an HBM tensor's dim
    (`data[idx_tile, i_f]`, `data[idx[i_p, 0], i_f]`): the rows a DMA
    reads or writes are data, one per partition of the index tile, a
    gather or a scatter (the spec's "indirect"). tiles.HbmHandle makes one
    of a tile in a key."""

    def __init__(self, source: object, partitions: int) -> None:
        self.source = source
        self.partitions = partitions


def _extent_of(start: Affine, stop: Affine, what: str) -> int:
    diff = stop - start
    if not diff.is_const():
        # Today's generation: a range variable is an int, so a size
        # computed from it is each iteration's own (the loop unrolled).
        unroll_for_value(diff, f"the size of the slice {what}")
        raise err(f"the slice {what} has a size that depends on a loop "
                  "variable; a traced tile has a fixed size")
    return diff.const


def _stepped(k: slice, size: int, d: int, on_chip: bool) -> ir.DimAccess:
    """`t[:, 0:n:2]`: every step-th element of an on-chip tile's free dim,
    an access pattern the engines read at no cost of their own (the
    access-pattern deep dive); the view has len(range(...)) elements."""
    if not on_chip:
        raise err(f"a slice with a step ({k.step}) of an HBM tensor: a "
                  "strided DMA is not yet modelled (load the rows, then "
                  "slice the tile)")
    if not all(isinstance(v, int) or v is None
               for v in (k.start, k.stop, k.step)):
        raise err("a slice with a step has constant bounds (a loop "
                  "variable start is not yet supported)")
    if d == 0:
        raise err("a slice with a step of the partition dim: an access "
                  "pattern walks the partitions contiguously")
    n = len(range(*k.indices(size)))
    if n == 0:
        raise err(f"the slice {k.start}:{k.stop}:{k.step} of dim {d} is "
                  "empty")
    first = range(*k.indices(size))[0]
    da = ir.DimAccess(Affine({}, min(first, first + (n - 1) * k.step)), n,
                      False)
    da.step = k.step  # type: ignore[attr-defined]
    return da


def normalize(shape: Tuple[int, ...], key: object,
              on_chip: bool = False) -> List[ir.DimAccess]:
    """An index of a tensor of `shape`, one DimAccess per dim. On chip, a
    dim may combine several index axes (`in_tile[i0, 2 * i1 + i2]`): the
    view is then the grid of those axes."""
    if isinstance(key, Grid):
        key = tuple(key.axes)  # `t[nl.mgrid[0:128, 0:512]]`: one axis a dim
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        fill = len(shape) - (len(key) - 1)
        key = key[:i] + (slice(None),) * fill + key[i + 1:]
    if len(key) > len(shape):
        raise err(f"an index of {len(key)} entries into a tensor of rank "
                  f"{len(shape)}")
    key = key + (slice(None),) * (len(shape) - len(key))
    out: List[ir.DimAccess] = []
    for d, k in enumerate(key):
        size = shape[d]
        if isinstance(k, slice) and k.step not in (None, 1):
            out.append(_stepped(k, size, d, on_chip))
        elif isinstance(k, slice):
            start = Affine.of(0 if k.start is None else k.start)
            stop = Affine.of(size if k.stop is None else k.stop)
            out.append(ir.DimAccess(start, _extent_of(start, stop,
                                                      f"of dim {d}"), False))
        elif isinstance(k, DynSlice):
            out.append(ir.DimAccess(k.start, k.size, False))
        elif isinstance(k, IndirectIndex):
            # The index tile's partitions are the view's partition axis.
            da = ir.DimAccess(Affine({}, 0), k.partitions, False, 0)
            da.indirect = k.source  # type: ignore[attr-defined]
            out.append(da)
        elif isinstance(k, Modulo):
            if not on_chip:
                raise err(f"index {k!r} of an HBM tensor: a buffer index "
                          "(i % n) is for an on-chip array's buffer dim")
            da = ir.DimAccess(Affine({}, 0), 1, True)
            da.modulo = k  # type: ignore[attr-defined]
            out.append(da)
        elif isinstance(k, ArangeVector):
            a = k._as_affine()
            out.append(ir.DimAccess(Affine({}, 0), k.extent, False, 0))
        else:
            a = Affine.of(k)
            axes = a.axes()
            if len(axes) > 1 and on_chip:
                span = 1 + sum((ax.extent - 1) * abs(c)
                               for ax, c in axes.items())
                da = ir.DimAccess(Affine(a.loop_terms(), a.const), span,
                                  False, min(ax.position for ax in axes))
                da.grid = list(axes)  # type: ignore[attr-defined]
                out.append(da)
                continue
            if len(axes) > 1:
                raise err(f"index of dim {d} combines {len(axes)} index "
                          "axes: not expressible as a tile of an HBM "
                          "tensor yet (one nl.arange axis per dim)")
            if axes:
                (axis, coef), = axes.items()
                if coef != 1 and on_chip:
                    coef = 1
                if coef != 1:
                    raise err(f"index of dim {d} scales an nl.arange axis "
                              f"by {coef}: strided access is not supported")
                start = Affine({k2: c for k2, c in a.terms.items()
                                if k2 is not axis}, a.const)
                da = ir.DimAccess(start, axis.extent, False, axis.position)
                da.rank = axis.rank  # type: ignore[attr-defined]
                out.append(da)
            else:
                out.append(ir.DimAccess(a, 1, True))
    return out


def clip_to_mask(dims: Sequence[ir.DimAccess],
                 mask: object) -> List[ir.DimAccess]:
    """The elements of an access its mask keeps (NKI's mask is a predicate
    of the instruction, its conditions combined): where a condition bounds
    an index axis from above (`i_f < 256`, `i_p <= 63`), the dim that axis
    indexes is that many elements, as the DMA moves only those (the mask
    reference's `nl.store(out[i_p, i_f], ..., mask=((i_p < 64) & (i_f <
    256)))` into a [64, 256] tensor)."""
    out = list(dims)
    parts = getattr(mask, "parts", None)
    for p in (parts() if parts is not None else []):
        expr, op = getattr(p, "expr", None), getattr(p, "op", None)
        if expr is None or op not in ("<", "<=") or expr.loop_terms():
            continue
        axes = expr.axes()
        if len(axes) != 1:
            continue
        (axis, coef), = axes.items()
        if coef != 1:
            continue
        bound = -expr.const + (1 if op == "<=" else 0)
        for k, d in enumerate(out):
            if d.squeezed or d.axis_position != axis.position or \
                    d.extent != axis.extent or hasattr(d, "grid"):
                continue
            if 0 < bound < d.extent:
                clipped = copy.copy(d)
                clipped.extent = bound
                out[k] = clipped
    return out


def view_shape(dims: Sequence[ir.DimAccess]) -> Tuple[int, ...]:
    grid: dict = {}
    for d in dims:
        for ax in getattr(d, "grid", []):
            grid[ax.position] = (ax.extent, ax.rank)
    if grid:
        for d in dims:
            if d.axis_position >= 0 and not hasattr(d, "grid"):
                grid[d.axis_position] = (d.extent, 0)
        rank = max(max(r for _, r in grid.values()), max(grid) + 1)
        return tuple(grid.get(i, (1, 0))[0] for i in range(rank))
    kept = [d for d in dims if not d.squeezed]
    rank = max((getattr(d, "rank", 0) for d in kept), default=0)
    positions = [d.axis_position for d in kept]
    if kept and rank > len(kept) and min(positions) >= 0 and \
            len(set(positions)) == len(kept) and max(positions) < rank:
        # The index grid's shape (NKI broadcasts the index expressions):
        # `t1d[i_p]` with i_p = nl.arange(64)[:, None] is [64, 1].
        shape = [1] * rank
        for d in kept:
            shape[d.axis_position] = d.extent
        return tuple(shape)
    if any(d.axis_position >= 0 for d in kept):
        kept = sorted(kept, key=lambda d: (d.axis_position < 0,
                                           d.axis_position))
    return tuple(d.extent for d in kept)


def tile_of(shape: Sequence[int]) -> Tuple[int, int]:
    if not shape:
        return (1, 1)
    free = 1
    for s in shape[1:]:
        free *= s
    return (int(shape[0]), int(free))


def view_tile(arr: ir.Array, dims: List[ir.DimAccess]) -> Tuple[int, ...]:
    return view_shape(dims[arr.pdim:]) or (1,)


def compose(dims: List[ir.DimAccess], key: object, on_chip: bool,
            first: int = 0) -> List[ir.DimAccess]:
    """A view of a view (`t[0:64, :][:, 32:64]`): `key` indexes the kept
    dims of `dims` from `first` on (an on-chip array's partition dim; its
    block dims before it stay as they are), each new start the old one
    plus the new offset."""
    kept = [d for d in range(first, len(dims)) if not dims[d].squeezed]
    for d in kept:
        da = dims[d]
        if hasattr(da, "grid") or getattr(da, "modulo", None) is not None \
                or getattr(da, "indirect", None) is not None \
                or getattr(da, "step", 1) != 1:
            raise err("an index of a view whose dims combine index axes, "
                      "rotate buffers, gather or step: not yet supported "
                      "(index the tensor once)")
    if any(dims[d].axis_position >= 0 for d in kept) and \
            [dims[d].axis_position for d in kept] != sorted(
                dims[d].axis_position for d in kept):
        raise err("an index of a view with permuted axes is not yet "
                  "supported")
    inner = normalize(tuple(dims[d].extent for d in kept), key, on_chip)
    out = list(dims)
    for d, sub in zip(kept, inner):
        da = ir.DimAccess(dims[d].start + sub.start, sub.extent,
                          sub.squeezed, -1 if sub.squeezed else
                          dims[d].axis_position)
        for attr in ("grid", "step", "indirect", "rank"):
            if hasattr(sub, attr):
                setattr(da, attr, getattr(sub, attr))
        out[d] = da
    return out
