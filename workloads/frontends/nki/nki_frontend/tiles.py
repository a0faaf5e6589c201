"""The values a traced kernel holds: HBM tensors and views of them, on-chip
tiles, views of tiles and broadcasts. What an operation on one records (a
write, `+` as nl.add) is decided by the modules above this one, which
install it in OPS: the values import neither the recorder nor the API."""

from __future__ import annotations

import math
from typing import Callable, List, Sequence, Tuple, Union

from . import ir, location
from .buffers import PSUM, SBUF, SHARED_HBM, Buffer
from .expr import Affine, unroll_late_piece
from .indexing import IndirectIndex, compose, normalize, view_shape
from .location import err


class Operations:
    """What writes into a tile and Python operators on tiles record:
    `write` is recorder.write, the arithmetic is the nl.* call of the same
    name (language installs it)."""

    def __init__(self) -> None:
        self.write: Callable = self._missing
        self.add: Callable = self._missing
        self.subtract: Callable = self._missing
        self.multiply: Callable = self._missing
        self.divide: Callable = self._missing

    @staticmethod
    def _missing(*args: object) -> object:
        raise err("an operation on a tile outside a traced kernel")


OPS = Operations()


class HbmHandle:
    """A kernel argument or an `nl.ndarray(..., buffer=nl.shared_hbm)`."""

    def __init__(self, tensor: ir.HbmTensor, dtype: object) -> None:
        self._t = tensor
        self.dtype = dtype
        self.shape = tensor.shape
        self.buffer = SHARED_HBM

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, key: object) -> "HbmView":
        return HbmView(self, normalize(self.shape, _indirect(key)))

    def __setitem__(self, key: object, value: object) -> None:
        raise err("assigning to an HBM tensor is not an NKI operation; use "
                  "nl.store or nisa.dma_copy")

    def reshape(self, shape: Sequence[int]) -> "HbmHandle":
        """Another view of the same bytes: a tensor of its own in the spec
        (a load from it moves what a load from the original would)."""
        dims = tuple(int(Affine.of(s).__index__()) for s in shape)
        if math.prod(dims) != math.prod(self.shape):
            raise err(f"reshape of {self._t.name} {self.shape} to {dims}: "
                      "the element counts differ")
        t = location.active()
        base = f"{self._t.name}_" + "x".join(map(str, dims))
        for x in t.tensors:
            if x.name == base:
                return HbmHandle(x, self.dtype)
        tensor = ir.HbmTensor(base, dims, self._t.dtype)
        t.tensors.append(tensor)
        return HbmHandle(tensor, self.dtype)

    def __bool__(self) -> bool:
        return True


class HbmView:
    def __init__(self, handle: HbmHandle, dims: List[ir.DimAccess]) -> None:
        self.handle = handle
        self.dims = dims
        for d in dims:
            unroll_late_piece(d.start, handle._t.name)
        self.shape = view_shape(dims)
        self.dtype = handle.dtype

    def __getitem__(self, key: object) -> "HbmView":
        return HbmView(self.handle, compose(self.dims, _indirect(key),
                                            False))


# --- on-chip tiles ----------------------------------------------------------

class Tile:
    """An on-chip array (allocation or op result)."""

    def __init__(self, array: ir.Array, dtype_obj: object) -> None:
        self._a = array
        self.dtype = dtype_obj

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._a.shape

    @property
    def buffer(self) -> Buffer:
        return PSUM if self._a.buffer == "psum" else SBUF

    def __getitem__(self, key: object) -> "TileView":
        return TileView(self, normalize(self._a.shape, key, True))

    def __setitem__(self, key: object, value: object) -> None:
        if isinstance(value, _AccumDone):
            return
        OPS.write(self, normalize(self._a.shape, key, True), value, "set")

    def __iadd__(self, value: object) -> "Tile":
        OPS.write(self, normalize(self._a.shape, ()), value, "acc")
        return self

    def broadcast_to(self, shape: Sequence[int]) -> "Broadcast":
        return Broadcast(self, shape)

    def ap(self, pattern: object = None, offset: object = None,
           **kwargs: object) -> "ApView":
        return ApView(self, pattern, offset, kwargs)

    # Python operators on tiles: nl.add and friends.
    def __add__(self, o: object):
        return OPS.add(self, o)

    __radd__ = __add__

    def __sub__(self, o: object):
        return OPS.subtract(self, o)

    def __rsub__(self, o: object):
        return OPS.subtract(o, self)

    def __mul__(self, o: object):
        return OPS.multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o: object):
        return OPS.divide(self, o)

    def __rtruediv__(self, o: object):
        return OPS.divide(o, self)  # `1.0 / sum_res`

    def __neg__(self):
        return OPS.multiply(self, -1.0)

    def __bool__(self) -> bool:
        raise err("control flow on a tile's value (if/while on data) cannot "
                  "be traced; the front end traces shapes only")

    def __getattr__(self, name: str):
        raise err(f"tile attribute .{name} is not supported; a traced tile "
                  "has .shape, .dtype and .buffer")


class _TileArithmetic:
    """`+`, `*` and `-` on a view or a broadcast trace as the nl.* call;
    truth-testing one is data-dependent control flow, which cannot be
    traced."""

    def __add__(self, o: object):
        return OPS.add(self, o)

    __radd__ = __add__

    def __mul__(self, o: object):
        return OPS.multiply(self, o)

    __rmul__ = __mul__

    def __sub__(self, o: object):
        return OPS.subtract(self, o)

    def __bool__(self) -> bool:
        raise err("control flow on a tile's value cannot be traced")


class TileView(_TileArithmetic):
    def __init__(self, tile: Tile, dims: List[ir.DimAccess]) -> None:
        self.tile = tile
        self.dims = dims
        a = tile._a
        self.shape = view_shape(dims[a.pdim:]) or (1,)
        self.dtype = tile.dtype

    def __iadd__(self, value: object) -> "_AccumDone":
        OPS.write(self.tile, self.dims, value, "acc")
        return _AccumDone()

    def __getitem__(self, key: object) -> "TileView":
        return TileView(self.tile, compose(self.dims, key, True,
                                           self.tile._a.pdim))

    def __setitem__(self, key: object, value: object) -> None:
        if isinstance(value, _AccumDone):
            return
        OPS.write(self.tile, compose(self.dims, key, True,
                                     self.tile._a.pdim), value, "set")

    def broadcast_to(self, shape: Sequence[int]) -> "Broadcast":
        return Broadcast(self, shape)

    def ap(self, pattern: object = None, offset: object = None,
           **kwargs: object) -> "ApView":
        """A pattern over the storage of the tile this views (the access
        pattern deep dive: `.ap` describes the flattened tensor)."""
        return ApView(self.tile, pattern, offset, kwargs)


class ApView(TileView):
    """`tile.ap(pattern, offset)` (the access-pattern deep dive): a view of
    the tile's storage of shape [num for each [step, num]], the first pair
    walking the partitions. An op reading it reads that many elements of
    the tile (its "slices" when fewer than the tile's); its version is the
    whole tile's. Writing one writes the tile."""

    def __init__(self, tile: Tile, pattern: object, offset: object,
                 extra: dict) -> None:
        super().__init__(tile, normalize(tile._a.shape, (), True))
        for k in extra:
            if k not in ("dtype",):
                raise err(f".ap({k}=...) on an on-chip tile (a dynamic "
                          "offset) is not yet supported")
        if extra.get("dtype") is not None:
            raise err(".ap(dtype=...) reinterpreting an on-chip tile is "
                      "not yet supported")
        if not isinstance(pattern, (list, tuple)) or not pattern or not all(
                isinstance(pn, (list, tuple)) and len(pn) == 2 and
                all(isinstance(v, int) and not isinstance(v, bool)
                    for v in pn) for pn in pattern):
            raise err(".ap(pattern=...) is a list of [step, num] integer "
                      f"pairs, got {pattern!r}")
        if len(pattern) > 5:
            raise err(f".ap with {len(pattern)} dims: the partition dim and "
                      "up to four free dims")
        a = tile._a
        parts, free = a.whole_tile()
        start = 0 if offset is None else offset
        if not isinstance(start, int) or start < 0:
            raise err(f".ap(offset={offset!r}): a constant element offset "
                      ">= 0 (a dynamic one is not yet supported)")
        (pstep, pnum), rest = pattern[0], pattern[1:]
        if pnum < 1 or any(num < 1 for _, num in rest):
            raise err(f".ap{list(map(list, pattern))}: every num is >= 1")
        if pnum > 1 and pstep != free:
            raise err(f".ap{list(map(list, pattern))}: the first [step, num] "
                      f"walks the partitions, so its step is the tile's "
                      f"free size {free} (the access-pattern deep dive)")
        first, last = start % free, start % free + sum(
            (num - 1) * step for step, num in rest)
        low = first + sum((num - 1) * step for step, num in rest
                          if step < 0)
        if start // free + pnum > parts or low < 0 or last >= free:
            raise err(f".ap{list(map(list, pattern))} at offset {start} "
                      f"reads outside the tile of {parts} x {free} elements")
        self.shape = tuple(num for _, num in pattern)
        self.pattern = [list(pn) for pn in pattern]

    def __getitem__(self, key: object) -> "TileView":
        raise err("an index of an .ap() view is not yet supported (give "
                  "the pattern of the part you read)")


class Broadcast(_TileArithmetic):
    """`x.broadcast_to(shape)`: a tile read as `shape`. Along the free axes
    the instruction that reads it broadcasts for free; from one partition
    to P the op that reads it gets `"broadcasts"` (a TensorE matmul the
    compiler stage inserts; docs/spec-format.md, "Partition broadcasts")."""

    def __init__(self, source: "TileLike", shape: Sequence[int]) -> None:
        if isinstance(source, Broadcast):
            source = source.source
        src = tile_shape(source)
        shape = tuple(int(d) for d in shape)
        if len(shape) != len(src) and not (len(src) == 1 and len(shape) == 2):
            raise err(f"broadcast_to{shape} of a tile of shape {src}: the "
                      "shapes must have the same rank")
        full = src if len(src) == len(shape) else (1,) + tuple(src)
        for have, want in zip(full, shape):
            if have != want and have != 1:
                raise err(f"broadcast_to{shape} of a tile of shape {src}: "
                          "only dims of size 1 broadcast")
        if shape[0] > 128:
            raise err(f"broadcast_to{shape}: a tile has at most 128 "
                      "partitions (nl.tile_size.pmax)")
        self.source = source
        self.shape = shape
        self.dtype = source.dtype
        self.partitions = shape[0] if full[0] == 1 and shape[0] > 1 else None


class LoopReduce:
    """What `nl.loop_reduce(x, op, loop_indices)` returns: `x` reduced
    into the tile it is written to, over the loops named, which the API
    reference says is `dst = nisa.tensor_tensor(dst, x, op)` in each
    iteration. Written into its destination (`dst[...] = loop_reduce(...)`)
    it is that accumulation (recorder.write)."""

    def __init__(self, source: "TileLike", op: object,
                 loops: Sequence[object]) -> None:
        self.source = source
        self.op = op
        self.loops = loops
        self.shape = tile_shape(source)
        self.dtype = getattr(source, "dtype", None)

    def __bool__(self) -> bool:
        raise err("control flow on a tile's value cannot be traced")


class _AccumDone:
    """What `view += x` returns, so the store Python then makes is a no-op."""


TileLike = Union[Tile, TileView, "Broadcast"]


def unlist(x: object) -> object:
    if type(x).__name__ == "_ListView":
        return x.view()  # type: ignore[attr-defined]
    return x


def is_tile(x: object) -> bool:
    return isinstance(unlist(x), (Tile, TileView, Broadcast))


def tile_shape(x: TileLike) -> Tuple[int, ...]:
    x = unlist(x)  # type: ignore[assignment]
    if isinstance(x, (TileView, Broadcast)):
        return x.shape
    a = x._a
    return a.shape[a.pdim:] or (1,)


def tile_dtype(x: TileLike) -> str:
    x = unlist(x)  # type: ignore[assignment]
    if isinstance(x, Broadcast):
        x = x.source
    t = x.tile if isinstance(x, TileView) else x
    return t._a.dtype


def _indirect(key: object) -> object:
    """An HBM tensor's key with each tile in it (a gather's indices) made
    an IndirectIndex: one index per partition, a [P, 1] tile."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(is_tile(k) for k in items):
        return key
    out = []
    for k in items:
        if is_tile(k):
            shape = tile_shape(k)
            if len(shape) > 1 and math.prod(shape[1:]) != 1:
                raise err(f"a tile of shape {list(shape)} as an index of an "
                          "HBM tensor: one index per partition ([P, 1]) is "
                          "supported")
            k = IndirectIndex(unlist(k), shape[0])
        out.append(k)
    return tuple(out)
