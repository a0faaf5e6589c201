"""The values a traced kernel holds: HBM tensors and views of them, on-chip
tiles, views of tiles and broadcasts. What an operation on one records (a
write, `+` as nl.add) is decided by the modules above this one, which
install it in OPS: the values import neither the recorder nor the API."""

from __future__ import annotations

import math
from typing import Callable, List, Sequence, Tuple, Union

from . import access_patterns as aps
from . import ir, location
from .dtypes import spec_dtype
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
    """A kernel argument or an `nl.ndarray(..., buffer=nl.shared_hbm)`. A
    kernel argument is in `nl.hbm` (the MX deep dive's kernels assert
    `x.buffer == nl.hbm` of their inputs); an array keeps the buffer it
    was allocated in."""

    def __init__(self, tensor: ir.HbmTensor, dtype: object,
                 buffer: Buffer = SHARED_HBM) -> None:
        self._t = tensor
        self.dtype = dtype
        self.shape = tensor.shape
        self.buffer = buffer

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

    def view(self, dtype: object) -> "HbmHandle":
        """The tensor's bytes as `dtype` (the 2026-08 reference's
        NkiTensor.view: the last dim scaled by the ratio of the widths); a
        tensor of its own in the spec where the width changes."""
        spec = spec_dtype(dtype)
        old, new = aps.SPEC_BYTES[self._t.dtype], aps.SPEC_BYTES[spec]
        if spec == self._t.dtype:
            return HbmHandle(self._t, dtype, self.buffer)
        last = self.shape[-1] * old
        if last % new:
            raise err(f".view({dtype!r}) of {self._t.name} {self.shape}: "
                      f"the last dim ({last} bytes) is not a whole number "
                      f"of {spec} elements")
        dims = tuple(self.shape[:-1]) + (last // new,)
        name = f"{self._t.name}_as_{spec}"
        t = location.active()
        tensor = next((x for x in t.tensors if x.name == name), None)
        if tensor is None:
            tensor = ir.HbmTensor(name, dims, spec)
            t.tensors.append(tensor)
        return HbmHandle(tensor, dtype, self.buffer)

    def ap(self, pattern: object = None, offset: object = None,
           **kwargs: object) -> "ApHbmView":
        """A pattern over the tensor's storage (the access-pattern deep
        dive); offset None is the tensor's start."""
        return ApHbmView(self, pattern, 0 if offset is None else offset,
                         kwargs)

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
        # Tiles the DMA reading or writing the view waits for: an `.ap`'s
        # scalar_offset= (a runtime start the DMA's descriptors read).
        self.waits: List[object] = []

    @property
    def buffer(self) -> Buffer:
        """The buffer of the tensor viewed: a view (an index, an `.ap`)
        shares its tensor's storage (the access-pattern deep dive), so its
        `.buffer` is the tensor's (nl.hbm for a kernel argument)."""
        return self.handle.buffer

    def __getitem__(self, key: object) -> "HbmView":
        return HbmView(self.handle, compose(self.dims, _indirect(key),
                                            False))

    def ap(self, pattern: object = None, offset: object = None,
           **kwargs: object) -> "ApHbmView":
        """`.ap` addresses the storage whatever the view (not composable,
        the access-pattern deep dive); offset None inherits the view's
        start."""
        if any(getattr(d, "indirect", None) is not None for d in self.dims):
            raise err(".ap of a view indexed by a tile (a gather): give the "
                      "pattern on the tensor, with vector_offset=")
        if offset is None:
            offset = aps.flat_offset(self.handle.shape, self.dims)
        return ApHbmView(self.handle, pattern, offset, kwargs)


    def view(self, dtype: object) -> "ApHbmView":
        """The view's elements as `dtype` (NkiTensor.view): its pattern,
        the last dim and every step scaled by the ratio of the widths."""
        if any(getattr(d, "indirect", None) is not None for d in self.dims):
            raise err(".view(dtype) of a view indexed by a tile is not "
                      "supported (the 2026-08 reference: not after a vector "
                      "select)")
        shape = self.handle.shape
        strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
        pattern = [[st, d.extent] for st, d in zip(strides, self.dims)
                   if not d.squeezed] or [[1, 1]]
        offset = aps.flat_offset(shape, self.dims)
        return _cast_pattern(self.handle, pattern, offset, dtype)


def _cast_pattern(storage: "HbmHandle", pattern: List[List[int]],
                  offset: Affine, dtype: object) -> "ApHbmView":
    """A pattern counted in `storage`'s elements, counted in `dtype`'s."""
    spec = spec_dtype(dtype)
    old, new = aps.SPEC_BYTES[storage._t.dtype], aps.SPEC_BYTES[spec]
    if pattern[-1][0] != 1:
        raise err(f".view({dtype!r}): the last dim must be contiguous (the "
                  "2026-08 reference's NkiTensor.view)")
    bytes_at = [st * old for st, _ in pattern[:-1]] + [pattern[-1][1] * old]
    terms = {k: c * old for k, c in offset.terms.items()}
    if any(b % new for b in bytes_at + list(terms.values()) +
           [offset.const * old]):
        raise err(f".view({dtype!r}) of a view of {storage._t.name}: its "
                  f"rows and offset are not whole numbers of {spec} "
                  "elements")
    scaled = [[st * old // new, n] for st, n in pattern[:-1]]
    scaled.append([1, pattern[-1][1] * old // new])
    off = Affine({k: c // new for k, c in terms.items()},
                 offset.const * old // new)
    return ApHbmView(storage, scaled, off, {"dtype": dtype})


class ApHbmView(HbmView):
    """`t.ap(pattern, offset, ...)` of an HBM tensor: a view of shape
    [num for each [step, num]] of its storage. A load or store of it moves
    a block of a tensor of its own with the pattern's rows, runs and bytes
    (access_patterns.hbm_block); a `vector_offset=` tile makes it a gather
    (one row per index), a `scalar_offset=` tile is waited for."""

    def __init__(self, storage: HbmHandle, pattern: object, offset: object,
                 kwargs: dict) -> None:
        api = f".ap of {storage._t.name}"
        scalar, vector, _ = aps.ap_args(kwargs, api)
        pat = aps.check_pattern(pattern, api)
        start = Affine.of(offset)
        dtype_obj = kwargs.get("dtype")
        dtype_obj = storage.dtype if dtype_obj is None else dtype_obj
        spec = spec_dtype(dtype_obj)
        if vector is not None:
            if not is_tile(vector) or tile_shape(vector)[0] != pat[0][1]:
                raise err(f"{api}(vector_offset=...): a [P, 1] tile of "
                          f"indices, one per row of the pattern "
                          f"({pat[0][1]})")
        tensor, dims = aps.hbm_block(storage._t, pat, start, spec)
        super().__init__(HbmHandle(tensor, dtype_obj, storage.buffer), dims)
        if vector is not None:
            dims[0].indirect = unlist(vector)  # type: ignore[attr-defined]
        elif is_tile(scalar):
            self.waits.append(unlist(scalar))
        self.storage = storage
        self.pattern = pat
        self.offset = start
        self.shape = tuple(n for _, n in pat)
        self.dtype = dtype_obj
        self.kwargs = kwargs

    def __getitem__(self, key: object) -> "ApHbmView":
        dims = normalize(self.shape, key)
        if any(getattr(d, "indirect", None) is not None for d in dims):
            raise err("an .ap() view indexed by a tile: give the pattern "
                      "with vector_offset=")
        pattern, offset = aps.index_pattern(self.pattern, self.offset, dims)
        return ApHbmView(self.storage, pattern, offset, self.kwargs)

    def ap(self, pattern: object = None, offset: object = None,
           **kwargs: object) -> "ApHbmView":
        return ApHbmView(self.storage, pattern,
                         self.offset if offset is None else offset, kwargs)


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
        # A tile in the key picks partitions (`src[idx, iy, iz]`, SDK
        # 2.26's dma_transpose example): a view a DMA reads as a gather.
        return TileView(self, normalize(self._a.shape, _indirect(key), True))

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

    def reshape(self, shape: Sequence[int]) -> "ApView":
        return reshape_tile(self, shape)

    def expand_dims(self, axis: object) -> "ApView":
        return expand_dims_tile(self, axis)

    def view(self, dtype: object) -> "ApView":
        """The tile's bytes as `dtype` (NkiTensor.view: the last dim scaled
        by the ratio of the widths)."""
        a = self._a
        if a.pdim != 0:
            raise err(".view(dtype) of an array with block dims: view one "
                      "block's tile")
        spec = spec_dtype(dtype)
        old, new = aps.SPEC_BYTES[a.dtype], aps.SPEC_BYTES[spec]
        shape = list(a.shape) + ([1] if len(a.shape) == 1 else [])
        if (shape[-1] * old) % new:
            raise err(f".view({dtype!r}) of a tile of shape {list(a.shape)}"
                      f": the last dim is not a whole number of {spec} "
                      "elements")
        shape[-1] = shape[-1] * old // new
        pattern = [[math.prod(shape[1:]), shape[0]]]
        for d in range(1, len(shape)):
            pattern.append([math.prod(shape[d + 1:]), shape[d]])
        return ApView(self, pattern, 0, {"dtype": dtype})

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

    @property
    def buffer(self) -> Buffer:
        """The buffer of the tile viewed (nl.sbuf or nl.psum): a view, an
        `.ap` pattern or a reshape reads the tile's own storage (the
        access-pattern deep dive), so it has the tile's `.buffer`."""
        return self.tile.buffer

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

    def reshape(self, shape: Sequence[int]) -> "ApView":
        return reshape_tile(self, shape)

    def expand_dims(self, axis: object) -> "ApView":
        return expand_dims_tile(self, axis)


class ApView(TileView):
    """`tile.ap(pattern, offset, dtype=)` (the access-pattern deep dive): a
    view of the tile's storage of shape [num for each [step, num]], the
    first pair walking the partitions, read as `dtype` when given (a
    reinterpret cast: the pattern and offset count that dtype's
    elements). An op reading it reads that many elements of the tile (its
    "slices" when fewer than the tile's); its version is the whole
    tile's. Writing one writes the tile. An index of it is the pattern of
    the part indexed (access_patterns.index_pattern)."""

    def __init__(self, tile: Tile, pattern: object, offset: object,
                 extra: dict) -> None:
        super().__init__(tile, normalize(tile._a.shape, (), True))
        scalar, vector, _ = aps.ap_args(extra, ".ap of a tile")
        if vector is not None:
            raise err(".ap(vector_offset=...) of an on-chip tile: the tensor "
                      "a vector offset indexes is in HBM (the ISA "
                      "reference's dma_copy, indirect addressing)")
        # A runtime start (scalar_offset=, a [1, 1] tile): the instruction
        # reading or writing the view waits for it.
        self.waits: List[object] = [unlist(scalar)] if is_tile(scalar) \
            else []
        pattern = aps.check_pattern(pattern)
        if len(pattern) > 5:
            raise err(f".ap with {len(pattern)} dims: the partition dim and "
                      "up to four free dims")
        a = tile._a
        parts, free = a.whole_tile()
        dtype_obj = extra.get("dtype")
        self.spec_dtype = a.dtype
        if dtype_obj is not None:
            self.spec_dtype = spec_dtype(dtype_obj)
            self.dtype = dtype_obj
            old, new = aps.SPEC_BYTES[a.dtype], aps.SPEC_BYTES[
                self.spec_dtype]
            if (free * old) % new:
                raise err(f".ap(dtype={dtype_obj!r}) of a tile of {free} "
                          f"{a.dtype} elements per partition: not a whole "
                          f"number of {self.spec_dtype} elements")
            free = free * old // new
        start = Affine.of(0 if offset is None else offset)
        if start.axes():
            raise err(f".ap(offset={offset!r}): an integer or an affine "
                      "expression of loop variables")
        (pstep, pnum), rest = pattern[0], pattern[1:]
        if pnum > 1 and pstep != free:
            raise err(f".ap{pattern}: the first [step, num] walks the "
                      f"partitions, so its step is the tile's free size "
                      f"{free} (the access-pattern deep dive)")
        low, high = aps.element_span(rest)
        for at in aps.offset_range(start):
            first = at % free
            if at < 0 or at // free + pnum > parts or first + low < 0 or \
                    first + high >= free:
                raise err(f".ap{pattern} at offset {start!r} reads outside "
                          f"the tile of {parts} x {free} elements")
        self.shape = tuple(num for _, num in pattern)
        self.pattern = pattern
        self.offset = start
        self.extra = extra
        # What it reads in the tile's own elements (a cast's elements are
        # of another width): the part of the tile an op reading it reads.
        width = aps.SPEC_BYTES[self.spec_dtype]
        cells = math.prod(self.shape[1:]) * width
        own = aps.SPEC_BYTES[a.dtype]
        self.read_shape = (pnum, -(-cells // own))

    def __getitem__(self, key: object) -> "ApView":
        dims = normalize(self.shape, key, True)
        if any(d.start.axes() for d in dims):
            raise err("an index of an .ap() view by nl.arange / nl.mgrid "
                      "axes: index it with integers, slices or loop "
                      "variables")
        # The partition dim stays (an on-chip view is at least 2-D).
        dims[0].squeezed = False
        pattern, offset = aps.index_pattern(self.pattern, self.offset, dims)
        return ApView(self.tile, pattern, offset, self.extra)

    def __setitem__(self, key: object, value: object) -> None:
        if isinstance(value, _AccumDone):
            return
        OPS.write(self.tile, normalize(self.tile._a.shape, (), True), value,
                  "set")

    def reshape(self, shape: Sequence[int]) -> "ApView":
        return reshape_tile(self, shape)


def expand_dims_tile(x: "Union[Tile, TileView]", axis: object,
                     api: str = ".expand_dims") -> ApView:
    """`nl.expand_dims(x, axis)` / `x.expand_dims(axis)` (the language
    reference: "a tile with view of input data with the number of
    dimensions increased", as numpy.expand_dims): a dim of size 1 at each
    `axis` of the expanded shape. A size-1 dim moves no element, so it is
    the reshape to that shape; the partition dim (0) stays where it is,
    as the reference requires of the new axes ("must be free dimensions,
    not partition dimension (0)")."""
    shape = list(tile_shape(x))
    axes = [axis] if not isinstance(axis, (list, tuple)) else list(axis)
    rank = len(shape) + len(axes)
    placed = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            raise err(f"{api}(axis={axis!r}): an axis is an int or a "
                      "tuple of ints")
        if not -rank <= a < rank:
            raise err(f"{api}(axis={axis!r}) of a tile of shape {shape}: "
                      f"the expanded tile has {rank} dims")
        placed.append(a % rank)
    if len(set(placed)) != len(placed):
        raise err(f"{api}(axis={axis!r}): an axis is given twice")
    if 0 in placed:
        raise err(f"{api}(axis={axis!r}) of a tile of shape {shape}: a new "
                  "axis must be a free dim, not the partition dim (0)")
    out = iter(shape)
    dims = [1 if d in placed else next(out) for d in range(rank)]
    return reshape_tile(x, dims)


def reshape_tile(x: "Union[Tile, TileView]", shape: Sequence[int]
                 ) -> ApView:
    """`t.reshape(shape)` of an on-chip tile or view (the language guide:
    another view of the same memory): the partition dim stays, the free
    elements of each partition are laid out row-major as `shape[1:]`, the
    pattern of those strides."""
    dims = tuple(int(Affine.of(d).__index__()) for d in shape)
    if isinstance(x, ApView):
        base, (pstep, pnum), offset = x.tile, x.pattern[0], x.offset
        free = math.prod(x.shape[1:])
        contiguous = aps.runs_of(x.pattern)[1:] == (1, free)
        extra = x.extra
    elif isinstance(x, TileView):
        base = x.tile
        full = normalize(base._a.shape, (), True)
        if any(d.start.loop_terms() or d.start.const or
               d.extent != f.extent for d, f in zip(x.dims, full)):
            raise err("reshape of a slice of a tile: reshape the tile, "
                      "then index it")
        pnum, offset, extra = x.shape[0], Affine.of(0), {}
        pstep = base._a.whole_tile()[1]
        free, contiguous = math.prod(x.shape[1:]), True
    else:
        base, offset, extra = x, Affine.of(0), {}
        pnum, pstep = base._a.whole_tile()
        free, contiguous = pstep, True
    if not dims or dims[0] != pnum or math.prod(dims[1:]) != free:
        raise err(f"reshape of a tile of shape {list(tile_shape(x))} to "
                  f"{list(dims)}: the partition dim stays ({pnum}) and the "
                  "free elements keep their count")
    if not contiguous:
        raise err("reshape of an .ap() view whose free elements are not "
                  "contiguous: give the pattern with .ap()")
    pattern = [[pstep, pnum]]
    stride = free
    for d in dims[1:]:
        stride //= d
        pattern.append([stride, d])
    return ApView(base, pattern, offset, extra)


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


def waits_of(x: object) -> List[object]:
    """The tiles an instruction reading or writing `x` waits for: an .ap
    view's scalar_offset= (a runtime start)."""
    x = unlist(x)
    return list(x.waits) if isinstance(x, (ApView, HbmView)) else []


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
    if isinstance(x, ApView):
        return x.spec_dtype  # read as the dtype of its .ap(dtype=)
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
