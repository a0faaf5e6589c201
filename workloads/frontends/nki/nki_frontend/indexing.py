"""Indices into tensors and tiles: `nl.arange` / `nl.mgrid` grids, `nl.ds`,
slices and affine expressions, normalised to one ir.DimAccess per dim, and
the shape and tile a view of them has."""

from __future__ import annotations

from typing import Iterator, List, Sequence, Tuple

from . import ir, location
from .expr import Affine, Axis, Modulo
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


def _extent_of(start: Affine, stop: Affine, what: str) -> int:
    diff = stop - start
    if not diff.is_const():
        raise err(f"the slice {what} has a size that depends on a loop "
                  "variable; a traced tile has a fixed size")
    return diff.const


def normalize(shape: Tuple[int, ...], key: object,
              on_chip: bool = False) -> List[ir.DimAccess]:
    """An index of a tensor of `shape`, one DimAccess per dim. On chip, a
    dim may combine several index axes (`in_tile[i0, 2 * i1 + i2]`): the
    view is then the grid of those axes."""
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
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise err("a slice with a step is not supported; steps of 1 "
                          "only")
            start = Affine.of(0 if k.start is None else k.start)
            stop = Affine.of(size if k.stop is None else k.stop)
            out.append(ir.DimAccess(start, _extent_of(start, stop,
                                                      f"of dim {d}"), False))
        elif isinstance(k, DynSlice):
            out.append(ir.DimAccess(k.start, k.size, False))
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
                out.append(ir.DimAccess(start, axis.extent, False,
                                        axis.position))
            else:
                out.append(ir.DimAccess(a, 1, True))
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
