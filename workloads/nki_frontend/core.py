"""Tracing objects shared by both API generations: dtypes, buffers, HBM
tensors, on-chip tiles, index normalisation, loops and the op recorder."""

from __future__ import annotations

import math
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from . import fission, ir, tracer
from .errors import TraceError
from .expr import Affine, Axis, Conjunction, LoopVar, Modulo, Predicate


def err(message: str) -> TraceError:
    return TraceError(message, tracer.where())


def not_yet(func):
    """Marks an API function the front end names but does not trace yet
    (docs/nki-source.md lists it as "not yet"); calling it refuses."""
    func._not_yet = True  # type: ignore[attr-defined]
    return func


# --- dtypes and buffers ---------------------------------------------------

class DType:
    def __init__(self, name: str, spec: Optional[str]) -> None:
        self.name = name
        self.spec = spec  # the spec format's dtype, None: not supported

    def __repr__(self) -> str:
        return f"nl.{self.name}"

    @property
    def dtype(self) -> object:
        """numpy takes an object's `.dtype` as its dtype: NKI's dtypes are
        numpy's, so a kernel file's module level may write
        `np.zeros(4, dtype=nl.float32)` or `np.finfo(nl.float16).max`.
        numpy has no bfloat16, fp8 or tfloat32: those are refused."""
        import numpy
        if self.name in ("float32", "float16", "int8", "int16", "int32",
                         "uint8", "uint16", "uint32", "bool_"):
            return numpy.dtype(self.name.rstrip("_"))
        raise err(f"nl.{self.name} has no numpy dtype (numpy has no "
                  f"{self.name}); numpy takes float32, float16 and the "
                  "integer dtypes")


DTYPES = {n: DType(n, s) for n, s in [
    ("bfloat16", "bf16"), ("float16", "fp16"), ("float32", "fp32"),
    ("int8", "int8"), ("int32", "int32"), ("tfloat32", None),
    ("float8_e4m3", None), ("float8_e5m2", None), ("float8_e4m3fn", None),
    ("float8_e5m2_x4", None), ("float8_e4m3fn_x4", None),
    ("float4_e2m1fn_x4", None), ("uint8", None), ("uint16", None),
    ("int16", None), ("uint32", None), ("bool_", None)]}

SUPPORTED_DTYPES = "bfloat16, float16, float32, int8, int32"

_NUMPY_NAMES = {"float32": "float32", "float16": "float16",
                "bfloat16": "bfloat16", "int8": "int8", "int32": "int32",
                "uint8": "uint8", "int16": "int16", "uint16": "uint16",
                "uint32": "uint32", "bool": "bool_", "float64": None,
                "int64": None}

ARG_DTYPES = {"bfloat16": "bf16", "bf16": "bf16", "float16": "fp16",
              "fp16": "fp16", "float32": "fp32", "fp32": "fp32",
              "int8": "int8", "int32": "int32"}


def spec_dtype(d: object) -> str:
    """The spec format's name of an NKI dtype, or a one-line refusal."""
    if isinstance(d, str) and d in ("bf16", "fp16", "fp32", "int8", "int32"):
        return d
    if isinstance(d, DType):
        if d.spec is None:
            raise err(f"dtype {d!r} is not supported; supported: "
                      f"{SUPPORTED_DTYPES}")
        return d.spec
    name = getattr(d, "__name__", None) or getattr(d, "name", None) or str(d)
    name = str(name)
    if name in _NUMPY_NAMES:
        mapped = _NUMPY_NAMES[name]
        if mapped is not None and DTYPES[mapped].spec is not None:
            return DTYPES[mapped].spec  # type: ignore[return-value]
    raise err(f"dtype {name} is not supported; supported: {SUPPORTED_DTYPES}")


class Buffer:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"nl.{self.name}"


SBUF = Buffer("sbuf")
PSUM = Buffer("psum")
HBM = Buffer("hbm")
SHARED_HBM = Buffer("shared_hbm")
PRIVATE_HBM = Buffer("private_hbm")


class ModAlloc:
    """`nki.compiler.sbuf.mod_alloc(...)` / `psum.mod_alloc(...)` as an
    allocation's buffer: the array is in SBUF / PSUM, and each of its block
    dims has `tiles[d]` physical tiles, logical tile j going to j % tiles[d]
    (the API reference's modulo allocation function). The addresses it
    names are not modelled: the compiler stage's allocator places tiles by
    liveness (docs/nki-source.md)."""

    def __init__(self, buffer: str, tiles: Tuple[int, ...]) -> None:
        self.buffer = buffer
        self.tiles = tiles


def _tile_counts(api: str, key: str, value: object) -> Tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1
            for v in value):
        raise err(f"{api}: {key}= is a tuple of positive integers, got "
                  f"{value!r}")
    return tuple(value)


def mod_alloc(buffer: str, **kwargs: object) -> ModAlloc:
    api = f"nki.compiler.{buffer}.mod_alloc"
    counts_key = "num_free_tiles" if buffer == "sbuf" else "num_bank_tiles"
    known = {"base_addr", "base_partition", "num_par_tiles",
             "num_free_tiles"} | ({"base_bank", "num_bank_tiles"}
                                  if buffer == "psum" else set())
    for k in kwargs:
        if k not in known:
            raise err(f"{api} has no argument {k}=")
    for k in ("base_addr", "base_bank", "base_partition"):
        v = kwargs.get(k, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise err(f"{api}: {k}= is an integer >= 0, got {v!r}")
    for k in ("num_par_tiles",) + (("num_free_tiles",) if buffer == "psum"
                                   else ()):
        if any(c != 1 for c in _tile_counts(api, k, kwargs.get(k, ()))):
            raise err(f"{api}: {k}= other than 1 (tiles side by side "
                      "within a block's allocation) is not yet supported")
    return ModAlloc(buffer, _tile_counts(api, counts_key,
                                         kwargs.get(counts_key, ())))


class ParDim(int):
    """`nl.par_dim(n)`: marks the partition dim of an allocation."""


# --- indices ----------------------------------------------------------------

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
        self.line = tracer.current_line()

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


# --- HBM tensors ------------------------------------------------------------

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
        return HbmView(self, normalize(self.shape, key))

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
        t = tracer.active()
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
        self.shape = view_shape(dims)
        self.dtype = handle.dtype


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
        write(self, normalize(self._a.shape, key, True), value, "set")

    def __iadd__(self, value: object) -> "Tile":
        write(self, normalize(self._a.shape, ()), value, "acc")
        return self

    def broadcast_to(self, shape: Sequence[int]) -> "Broadcast":
        return Broadcast(self, shape)

    # Python operators on tiles: nl.add and friends.
    def __add__(self, o: object):
        from . import language
        return language.add(self, o)

    __radd__ = __add__

    def __sub__(self, o: object):
        from . import language
        return language.subtract(self, o)

    def __rsub__(self, o: object):
        from . import language
        return language.subtract(o, self)

    def __mul__(self, o: object):
        from . import language
        return language.multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o: object):
        from . import language
        return language.divide(self, o)

    def __rtruediv__(self, o: object):
        from . import language
        return language.divide(o, self)  # `1.0 / sum_res`

    def __neg__(self):
        from . import language
        return language.multiply(self, -1.0)

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
        from . import language
        return language.add(self, o)

    __radd__ = __add__

    def __mul__(self, o: object):
        from . import language
        return language.multiply(self, o)

    __rmul__ = __mul__

    def __sub__(self, o: object):
        from . import language
        return language.subtract(self, o)

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
        write(self.tile, self.dims, value, "acc")
        return _AccumDone()

    def broadcast_to(self, shape: Sequence[int]) -> "Broadcast":
        return Broadcast(self, shape)


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


class _AccumDone:
    """What `view += x` returns, so the store Python then makes is a no-op."""


TileLike = Union[Tile, TileView, "Broadcast"]


def _unlist(x: object) -> object:
    if type(x).__name__ == "_ListView":
        return x.view()  # type: ignore[attr-defined]
    return x


def is_tile(x: object) -> bool:
    return isinstance(_unlist(x), (Tile, TileView, Broadcast))


def tile_shape(x: TileLike) -> Tuple[int, ...]:
    x = _unlist(x)  # type: ignore[assignment]
    if isinstance(x, (TileView, Broadcast)):
        return x.shape
    a = x._a
    return a.shape[a.pdim:] or (1,)


def tile_dtype(x: TileLike) -> str:
    x = _unlist(x)  # type: ignore[assignment]
    if isinstance(x, Broadcast):
        x = x.source
    t = x.tile if isinstance(x, TileView) else x
    return t._a.dtype


def dtype_obj(spec: str) -> DType:
    for d in DTYPES.values():
        if d.spec == spec:
            return d
    raise err(f"dtype {spec} is not supported")


# --- recording ops ----------------------------------------------------------

def new_array(name: Optional[str], shape: Tuple[int, ...], dtype: str,
              buffer: str, pdim: int = 0) -> ir.Array:
    t = tracer.active()
    return ir.Array(name, shape, dtype, buffer, pdim, t.loop,
                    tracer.current_line())


def make_op(kind: str, inputs: Sequence[object] = (), *,
            shape: Sequence[int] = (1, 1), dtype: str = "fp32",
            buffer: Optional[str] = None, engine: Optional[str] = None,
            func: Optional[str] = None, result: bool = True) -> ir.Op:
    t = tracer.active()
    line = tracer.current_line()
    op = ir.Op(kind, line, t.loop, line, tracer.current_target())
    for x in inputs:
        op.inputs.append(ref_of(x))
    note_readers(op)
    op.engine = engine
    op.func = func
    op.tile = tile_of(shape)
    if op.tile[0] > 128:
        raise err(f"a {kind} tile of {op.tile[0]} partitions; a tile has at "
                  "most 128 (nl.tile_size.pmax)")
    op.dtype = dtype
    op.buffer = buffer
    t.loop.body.append(op)
    t.ops.append(op)
    if result:
        arr = new_array(None, tuple(shape), dtype, buffer or "sbuf")
        arr.current = op
        arr.fresh = True
        op.out = arr
    return op


def note_readers(op: ir.Op) -> None:
    """Records, on each array the op reads, that it reads a version made
    before the op's loop (what a whole write later in the loop carries),
    and, on a sequential loop around it, a read of a version made before
    that loop which the loop may write later (_close_versions)."""
    for r in op.inputs:
        v = r.version
        if r.array is not None and isinstance(v, ir.Op) and \
                v.loop is not op.loop and v.loop.encloses(op.loop):
            r.array.outer_readers.append(op)
        for loop, key in getattr(r, "pending_carry", ()):
            loop.carried_reads.append((r.array, op, r, key))


def result_tile(op: ir.Op) -> Tile:
    assert op.out is not None
    return Tile(op.out, dtype_obj(op.out.dtype))


def ref_of(x: object) -> ir.Ref:
    x = _unlist(x)
    if isinstance(x, Broadcast):
        r = ref_of(x.source)
        if x.partitions is not None:
            if r.part is not None:
                raise err("broadcast_to of part of a tile across partitions "
                          "is not yet supported (load the row on its own)")
            r.broadcast = x.partitions
        return r
    if isinstance(x, TileView):
        arr = x.tile._a
        dims = x.dims
    elif isinstance(x, Tile):
        arr = x._a
        dims = None
    else:
        raise err(f"expected a tile, got {type(x).__name__}")
    arr.fresh = False
    inner = getattr(arr, "inner", None)
    t = tracer.active()
    _rotation(arr, dims)
    _check_private(arr, t.loop)
    reducing = getattr(arr, "reduced_in", None)
    if reducing is not None and reducing.encloses(t.loop):
        raise err(f"reads the reduce_res= tile {arr.name or ''} in the loop "
                  f"iteration (line {reducing.line}) that writes it: not "
                  "yet supported (read it after the loop)")
    part = None
    if dims is not None:
        seen = tile_of(view_tile(arr, dims))
        if seen != arr.tile():
            part = seen  # a slice of the tile ("slices", compiler stage)
    pending: Optional[List[Tuple[ir.Loop, Optional[int]]]] = None
    v = _rotated_version(arr, dims, t.loop)
    if isinstance(v, tuple):
        v, one = v
        pending = [one]
    elif v is None:
        if inner is not None and inner.loop.encloses(t.loop):
            r = ir.Ref(inner, [], part)  # written earlier in this iteration
            r.array = arr
            return r
        v = arr.current
        if v is None:
            raise err(f"reads {arr.name or 'an array'} (allocated at line "
                      f"{arr.line}) before anything writes it")
        pending = _before_loop(arr, v, t.loop)
    _note_export(v, t.loop)
    slots: List[LoopVar] = []
    # A block's slot is named by its loop variables; an accumulator or a
    # state has no slots: its loop updates the same tiles in every
    # iteration (`result_tmps[m][bm][bn]` updated in place over `k` is the
    # state of all of them, read whole).
    # A reduction op of a block loop is a block with the loop's slots.
    block = v.view_of if isinstance(v, ir.Op) else v
    if isinstance(block, ir.Loop) and dims is not None and \
            block.id_kind == "set":
        for d in arr.block_dims:
            e = dims[d].start
            lt = e.loop_terms()
            if (dims[d].extent == 1 and len(lt) == 1 and e.const == 0
                    and not e.axes() and list(lt.values())[0] == 1):
                slots.append(list(lt.keys())[0])
            elif (dims[d].extent == 1 and len(lt) > 1 and e.const == 0
                  and not e.axes() and
                  _slot_sum_fits(lt, arr.shape[d])):
                # `t[:, kb * 4 + ki, :]`: one slot, picked by two loops.
                slots.append(ir.SlotSum(sorted(lt.items(),
                                               key=lambda kv: -kv[1])))
            else:
                break
        if len(slots) < len(arr.block_dims):
            part = None  # a whole block or sub-block
        elif part == tile_of([d for i, d in enumerate(arr.shape)
                              if i >= arr.pdim and i not in arr.block_dims
                              and (arr.rotation is None
                                   or i != arr.rotation[0])]):
            part = None  # one slot, whole (`tt[:, j, :]`)
    r = ir.Ref(v, slots, part)
    r.array = arr
    if pending is not None:
        r.pending_carry = pending  # type: ignore[attr-defined]
    return r


def _slot_sum_fits(terms: dict, slots: int) -> bool:
    """Whether sum(c * v) over the loops' iterations picks distinct slots
    below `slots`: each scale at least the reach of the smaller terms."""
    reach = 0
    for v, c in sorted(terms.items(), key=lambda kv: kv[1]):
        if c < 1 or not isinstance(v.loop, ir.Loop) or c <= reach:
            return False
        reach += c * (v.loop.trip - 1)
    return reach < slots


_STALE = "stale"  # a buffer an earlier iteration than the last one wrote


def _rotated_version(arr: ir.Array, dims: Optional[List[ir.DimAccess]],
                     loop: ir.Loop) -> object:
    """The version a read of a rotating array's buffer reads, or None when
    the array does not rotate (or the read is of the buffer written in this
    iteration). In the rotating loop, `(i + c) % n` that this iteration has
    not written is the buffer the previous iteration wrote: the read gets
    the version before the loop (what iteration 0 reads, buffer c % n) and
    is carried from the loop's own write when it closes. Outside it, a
    constant index reads the version last written at that index."""
    if arr.rotation is None or dims is None:
        return None
    d, first = arr.rotation
    m = getattr(dims[d], "modulo", None)
    name = arr.name or "an array"
    if m is None:
        b = dims[d].start.const
        v = arr.by_const.get((d, b))
        if v is _STALE:
            raise err(f"reads buffer {b} of {name}, which an iteration "
                      f"before the last one of the loop at line "
                      f"{first.var.loop.line} wrote: not yet supported")
        if v is None:
            raise err(f"reads buffer {b} of {name} before anything writes "
                      "it")
        return v
    key = m.offset % m.n
    rotating = first.var.loop
    if arr.rot_write_key == key:
        return None  # written earlier in this iteration
    v = arr.by_const.get((d, key))
    if v is None or v is _STALE:
        raise err(f"reads buffer {m!r} of {name}, which the loop at line "
                  f"{rotating.line} does not write earlier in the iteration, "
                  f"and which nothing wrote (at index {key}) before that "
                  "loop: not yet supported")
    return (v, (rotating, key))


def _before_loop(arr: ir.Array, v: object,
                 loop: ir.Loop) -> Optional[List[Tuple[ir.Loop, None]]]:
    """A read in sequential loops L (inside the array's allocation) of a
    version made before them: if an L writes the array later in its body,
    its later iterations read what the previous one wrote
    (_close_versions)."""
    made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent", None)
    out: List[Tuple[ir.Loop, None]] = []
    l: Optional[ir.Loop] = loop
    while l is not None and l is not arr.loop:
        if l.kind == "sequential" and not (isinstance(made_in, ir.Loop)
                                           and l.encloses(made_in)):
            out.append((l, None))
        l = l.parent
    return out if out and l is not None else None


def _note_export(v: object, loop: ir.Loop) -> None:
    """A read, after a sequential loop, of a version its body made: the
    loop's last iteration's tile, one of its results ("results")."""
    made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent", None)
    if not isinstance(made_in, ir.Loop) or made_in.encloses(loop):
        return
    if made_in.kind != "sequential" or made_in.parent is None or \
            not made_in.parent.encloses(loop):
        return
    if not any(x is v for x in made_in.results):
        made_in.results.append(v)  # type: ignore[arg-type]


def _rotation(arr: ir.Array, dims: Optional[List[ir.DimAccess]],
              write: bool = False) -> Optional[int]:
    """An access of `arr`: one that indexes a free dim `(i + c) % n`, where
    the dim has n elements, makes that dim n buffers the kernel rotates by
    hand over loop i (NKI's `qk_sbuf[:, i_tile_q % 2, ...]`); the dim is
    then not part of the tile, and _privatize gives the array n buffers
    over i ("tile_buffers"). Before the loop, the kernel may fill buffers
    at constant indices (attention v11's prologue, `qk_max(0)`,
    `qk_max(1)`); in a sequential loop it may read a buffer this iteration
    has not written, the one the previous iteration wrote (`(i + 1) % 2`
    where `(i + 2) % 2` is written; _rotated_version); after it, read a
    buffer at a constant index. Returns the buffer key (c % n) of an access
    in the loop; a write there records it: one buffer per iteration."""
    mods = [(d, getattr(da, "modulo")) for d, da in enumerate(dims or [])
            if getattr(da, "modulo", None) is not None]
    name = arr.name or "an array"
    if arr.rotation is None:
        if not mods:
            return None
        if len(mods) > 1:
            raise err(f"indexes {name} by two buffer indices (i % n): not "
                      "yet supported")
        d, m = mods[0]
        if d <= arr.pdim:
            raise err(f"index {m!r} of a block or partition dim of {name}: "
                      "a buffer index (i % n) is supported on a free dim "
                      "(mod_alloc rotates block dims)")
        if arr.shape[d] != m.n:
            raise err(f"index {m!r} of dim {d} of {name}, which has "
                      f"{arr.shape[d]} elements: a buffer index (i % n) "
                      "takes a dim of n buffers")
        if arr.current is not None and not any(k[0] == d
                                               for k in arr.by_const):
            raise err(f"{name} is written whole before line "
                      f"{tracer.current_line()} indexes one of its buffers "
                      f"by {m!r}: not yet supported")
        if not (m.var.loop is not arr.loop and arr.loop.encloses(m.var.loop)):
            raise err(f"buffer index {m!r} of {name} over a loop that does "
                      "not run inside the array's allocation: each "
                      "iteration of it has an array of its own")
        arr.rotation = (d, m)
        return _rotation_key(arr, m, write)
    d, first = arr.rotation
    got = next((m for dd, m in mods if dd == d), None)
    loop = tracer.active().loop
    inside = first.var.loop.encloses(loop)
    if got is None and len(mods) == 0 and dims and not inside and \
            first.var.loop.kind == "sequential":
        da = dims[d]
        if da.squeezed and not da.start.loop_terms() and not da.start.axes():
            return None  # a buffer at a constant index, outside the loop
    if got is None or len(mods) > 1 or got.var is not first.var or \
            got.n != first.n or (not got.same(first) and
                                 first.var.loop.kind != "sequential"):
        what = f"by {got!r}" if got is not None else "without a buffer index"
        raise err(f"accesses {name} {what}, while it rotates its buffers by "
                  f"{first!r}: reading another iteration's buffer outside "
                  "a sequential loop, or all of them, is not yet supported")
    return _rotation_key(arr, got, write)


def _rotation_key(arr: ir.Array, m: Modulo, write: bool) -> int:
    key = m.offset % m.n
    if write:
        if arr.rot_write_key is not None and arr.rot_write_key != key:
            raise err(f"writes two buffers of {arr.name or 'an array'} "
                      f"({m!r} and another) in one iteration of the loop at "
                      f"line {m.var.loop.line}: not yet supported")
        arr.rot_write_key = key
    return key


def _const_dims(arr: ir.Array,
                dims: List[ir.DimAccess]) -> List[Tuple[int, int]]:
    """The free dims a write indexes by a constant (a buffer index of a
    rotation dim outside its loop), with the index."""
    return [(d, da.start.const) for d, da in enumerate(dims)
            if d > arr.pdim and da.squeezed and not da.start.loop_terms()
            and not da.start.axes() and getattr(da, "modulo", None) is None]


def _set_version(arr: ir.Array, version: object,
                 const_dims: Sequence[Tuple[int, int]]) -> None:
    arr.current = version  # type: ignore[assignment]
    for k in const_dims:
        arr.by_const[k] = version


def _chain_below(arr: ir.Array, loop: ir.Loop) -> List[ir.Loop]:
    chain: List[ir.Loop] = []
    l: Optional[ir.Loop] = loop
    while l is not None and l is not arr.loop:
        chain.append(l)
        l = l.parent
    if l is None:
        raise err(f"writes {arr.name or 'an array'} outside the loop that "
                  "allocated it")
    return list(reversed(chain))


class Unprivatize(Exception):
    """A read or write of an array outside a loop _privatize took it to be
    private to: the trace runs again with the array kept whole at that
    loop (cli.trace_kernel)."""

    def __init__(self, key: Tuple[int, int]) -> None:
        super().__init__(key)
        self.key = key


def _privatize(arr: ir.Array, dims: List[ir.DimAccess], loop: ir.Loop,
               kind: str = "set") -> None:
    """An array allocated outside the loops around this write, that one of
    them (L, from the outermost in) writes anew in each iteration, is L's
    own: each iteration's tiles of it die in that iteration. Two cases,
    from the NKI block dimension migration guide: L indexes a block
    dimension of it (one before nl.par_dim, `qk[i_tile_q, i_tile_kv]`),
    which is logical, so the array is allocated in L as if the kernel had
    hoisted it there; or no dimension of it follows L (`qk_sbuf[:,
    i_tile_kv, :]` in each `i_tile_q`), so it is one buffer that every
    iteration of L overwrites ("one_buffer"). Not when an op in L read it
    before this write, or the write accumulates into all of it (`acc +=
    x`: a tile carried across L's iterations), nor when L indexes a free
    dimension of it (each iteration keeps its own slot, a block). Whether the array is used only inside L is known later: a use
    outside raises Unprivatize, and the kernel is traced again with the
    array kept whole at L."""
    t = tracer.active()
    while True:
        chain = _chain_below(arr, loop)
        if not chain:
            return
        outer = chain[0]
        key = (arr.line, outer.line)
        if key in t.keep_whole:
            return
        dim = next((i for i, d in enumerate(dims)
                    if outer.var in d.start.loop_terms()), None)
        if dim is None and kind == "acc":
            return
        if dim is not None:
            d = dims[dim]
            lt = d.start.loop_terms()
            # `qk[i_tile_q + 2, ...]` (attention v11) is one logical tile
            # per iteration as `qk[i_tile_q, ...]` is.
            if not (dim < arr.pdim and d.extent == 1 and len(lt) == 1
                    and lt[outer.var] == 1 and
                    (d.start.const == 0 or outer.kind == "sequential")):
                return
        # A sequential loop that rotates the array's buffers reads the
        # buffer an earlier iteration wrote before writing its own: those
        # reads are carried (_close_versions), the write is still L's.
        rotates = arr.rotation is not None and outer.kind == "sequential" \
            and arr.rotation[1].var.loop is outer
        if not rotates and any(outer.encloses(r.loop)
                               for r in arr.outer_readers):
            return
        if arr.tile_buffers >= 2:
            raise err(f"{arr.name} has {arr.tile_buffers} buffers over the "
                      f"loop at line {arr.loop.line} and the loop at line "
                      f"{outer.line} inside it indexes a block dim of it: "
                      "not yet supported (several buffers over the "
                      "innermost loop only)")
        arr.loop = outer
        # Its physical buffers over L's iterations: one for a whole array
        # written anew (the migration guide), n for a buffer index i % n
        # over L, and for a block dim placed by mod_alloc its count there;
        # otherwise L's depth decides.
        rot = arr.rotation[1] if arr.rotation is not None else None
        count = 0
        if dim is None:
            count = rot.n if rot is not None and rot.var.loop is outer else 1
        elif arr.mod_tiles:
            count = arr.mod_tiles[dim]
        arr.one_buffer = count == 1  # type: ignore[attr-defined]
        arr.tile_buffers = count if count >= 2 else 0
        private = getattr(arr, "private", [])
        private.append((key, outer))
        arr.private = private  # type: ignore[attr-defined]
        if dim is None and outer.kind == "sequential":
            outer.privatized.append(arr)


def _check_private(arr: ir.Array, loop: ir.Loop) -> None:
    """A use of `arr` in `loop`: outside a loop it was taken to be private
    to, the trace starts again with it kept whole there."""
    for key, level in getattr(arr, "private", ()):
        if not level.encloses(loop):
            raise Unprivatize(key)


def _rehome(arr: ir.Array, loop: ir.Loop) -> None:
    """A write of `arr` in `loop`, outside the loop it was taken to be
    private to: the private tiles are dead (a read of them outside would
    have started the trace again, _check_private), so this write starts
    the array anew where it is allocated. So the same helper may write an
    array at several call sites (attention v11's `qk_max(0)`, `qk_max(1)`
    and `qk_max` inside its loop each fill `qk` anew)."""
    private = getattr(arr, "private", [])
    if not private or all(level.encloses(loop) for _, level in private):
        return
    arr.private = []  # type: ignore[attr-defined]
    arr.loop = arr.home
    arr.one_buffer = False  # type: ignore[attr-defined]
    arr.tile_buffers = 0


def write(dst: Tile, dims: List[ir.DimAccess], value: object,
          kind: str) -> None:
    """`dst[dims] = value` (kind set) or `dst[dims] += value` (acc)."""
    arr = dst._a
    t = tracer.active()
    _rotation(arr, dims, write=True)
    if kind == "set" or arr.buffer == "psum":
        _rehome(arr, t.loop)  # a PSUM `+=` starts from its first matmul
    else:
        _check_private(arr, t.loop)  # `acc += x` reads what was there
    _privatize(arr, dims, t.loop, kind)
    if isinstance(value, (int, float)) and kind == "set":
        op = make_op("memset", (), shape=arr.tile(), dtype=arr.dtype,
                     result=False)
    elif isinstance(value, Broadcast):
        op = make_op("tensor_copy", [value], shape=arr.tile(),
                     dtype=arr.dtype, result=False) if kind == "set" else None
    elif is_tile(value):
        src = value.tile._a if isinstance(value, TileView) else value._a
        src_op = src.current
        # Only the whole of a fresh result is the op writing into dst
        # (`dst[...] = nl.exp(x)`); a part of one (`s[...] = r[:, 511]`,
        # one column) is a copy of that part.
        whole = not isinstance(value, TileView) or (
            tile_of(view_tile(src, value.dims)) == src.tile())
        # A PSUM result (TensorE writes PSUM only) stored into an SBUF
        # array is copied there, as the compiler does.
        psum_to_sbuf = isinstance(src_op, ir.Op) and \
            src_op.buffer == "psum" and arr.buffer != "psum"
        if (kind == "set" and whole and src.fresh and not psum_to_sbuf
                and isinstance(src_op, ir.Op) and src_op.loop is t.loop
                and src_op.out is src):
            op = src_op  # the op writes straight into dst
        elif kind == "acc" and src.fresh and isinstance(src_op, ir.Op) \
                and src_op.kind == "matmul" and arr.buffer == "psum" \
                and src_op.loop is t.loop:
            op = src_op
        elif kind == "set":
            # The part of dst written: one slot of a block, or all of it.
            op = make_op("tensor_copy", [value], shape=view_tile(arr, dims),
                         dtype=arr.dtype, result=False)
        else:
            op = None  # an SBUF accumulation, below
    else:
        raise err(f"cannot write a {type(value).__name__} into an on-chip "
                  "tile")
    chain = _chain_below(arr, t.loop)
    if kind == "acc" and (op is None or op.kind != "matmul"):
        old = ref_of(dst)
        # NKI-language arithmetic (`acc += x`): the compiler picks the
        # engine by workload (docs/spec-format.md, "Engines left to the
        # compiler").
        op = make_op("tensor_tensor", [value], shape=view_tile(arr, dims),
                     dtype=arr.dtype, engine="auto", result=False)
        op.inputs.append(old)
        op.role = "acc"
        op.carry_self = bool(chain) and all(l.kind != "sequential"
                                            for l in chain)
    elif kind == "acc":
        op.role = "acc"
        op.buffer = "psum"
        if arr.pending_memset is not None:
            arr.pending_memset.elided = True  # the matmul zeroes the bank
            arr.pending_memset = None
    assert op is not None
    op.out = arr
    op.const_dims = _const_dims(arr, dims)  # type: ignore[attr-defined]
    if not chain:
        op.role = op.role if op.role == "acc" else "tile"
        op.one_buffer = getattr(arr, "one_buffer", False)
        op.tile_buffers = arr.tile_buffers
        _set_version(arr, op, op.const_dims)  # type: ignore[attr-defined]
        return
    if kind == "set" and arr.current is not None and any(
            r.version is arr.current for r in op.inputs):
        # `dst=x, data1=x` across loops: an update in place, as `x += y`.
        op.role = "acc"
        op.carry_self = all(l.kind != "sequential" for l in chain)
        kind = "acc"
    if kind == "set" and _carried(arr, dims, op, chain, t.loop):
        return
    if kind == "set":
        op.role = "slot"
        levels: List[int] = []
        for l in chain:
            dim = next((i for i, d in enumerate(dims)
                        if l.var in d.start.loop_terms()), None)
            if dim is None:
                raise err(f"writes {arr.name} whole in every iteration of "
                          f"the loop at line {l.line}, which it is "
                          "allocated outside: not yet supported (allocate "
                          "it inside the loop)")
            levels.append(dim)
        for d in levels:
            if arr.mod_tiles and d < arr.pdim and \
                    arr.mod_tiles[d] < arr.shape[d]:
                raise err(f"mod_alloc gives {arr.name} {arr.mod_tiles[d]} "
                          f"physical tiles along block dim {d} of "
                          f"{arr.shape[d]}, and the loop keeps them all "
                          "after it: not yet supported")
        if arr.block_dims and arr.block_dims != levels:
            raise err(f"{arr.name} is written at different block positions "
                      "by two ops: not yet supported")
        arr.block_dims = levels
    t.loop.outer_writes.append((arr, op, kind))
    arr.pending_memset = None
    if kind == "set":
        arr.inner = op  # type: ignore[attr-defined]


def write_reduction(res: object, op: ir.Op) -> None:
    """`reduce_res=res` of `op` (nisa.activation, activation_reduce,
    tensor_scalar_reduce): the op also reduces its result along the free
    axis into `res`, one element per partition, in the same instruction
    ("accumulate": true). The spec names that second output with a
    "reduction" op (docs/spec-format.md): right after `op` when `res` is
    allocated in the op's own loop, or after the op's loop when each
    iteration fills a slot of `res` (`sum_row_tiles[:, i]`), where it
    stands for the block of them."""
    res = _unlist(res)
    if isinstance(res, TileView):
        tile, dims = res.tile, res.dims
    elif isinstance(res, Tile):
        tile, dims = res, normalize(res._a.shape, ())
    else:
        raise err("reduce_res= is an on-chip tile")
    arr = tile._a
    _rotation(arr, dims, write=True)
    _rehome(arr, tracer.active().loop)
    _privatize(arr, dims, tracer.active().loop)
    seen = tile_of(view_tile(arr, dims))
    if seen != (op.tile[0], 1):
        raise err(f"reduce_res= is a [{op.tile[0]}, 1] tile (one element per "
                  f"partition of the result), got {list(seen)}")
    t = tracer.active()
    op.accumulate = True
    chain = _chain_below(arr, t.loop)
    if not chain:
        red = make_op("reduction", (), shape=seen, dtype=arr.dtype,
                      result=False)
        red.inputs.append(ir.Ref(op, []))
        red.out = arr
        _set_version(arr, red, _const_dims(arr, dims))
        arr.pending_memset = None
        return
    if len(chain) > 1:
        raise err("reduce_res= into a tile allocated more than one loop "
                  "out is not yet supported")
    loop = chain[0]
    levels = [i for i, d in enumerate(dims) if loop.var in
              d.start.loop_terms()]
    if len(levels) != 1 or dims[levels[0]].extent != 1:
        raise err(f"reduce_res= writes {arr.name} whole in every iteration "
                  f"of the loop at line {loop.line}: not yet supported "
                  "(one slot per iteration, `t[:, i]`)")
    arr.block_dims = levels
    arr.pending_memset = None
    arr.reduced_in = loop  # type: ignore[attr-defined]
    op.reduce_const = _const_dims(arr, dims)  # type: ignore[attr-defined]
    loop.reductions.append((arr, op))


def _close_reductions(loop: ir.Loop) -> None:
    """After `loop` (one of the loops close_loop made of it) is closed:
    each reduce_res= block it filled becomes a "reduction" op after it."""
    parent = loop.parent
    assert parent is not None
    for arr, op in loop.reductions:
        arr.reduced_in = None  # type: ignore[attr-defined]
        label = f"{tracer.active().file_label}:{op.line}"
        if loop.id_for is None or _last_result(loop) is not op:
            raise TraceError(
                "reduce_res= of an op whose result is not what its loop "
                "keeps (the last tile the loop writes into an array "
                "allocated outside it) is not yet supported", label)
        red = ir.Op("reduction", op.line, parent, op.line, None)
        red.inputs.append(ir.Ref(loop, []))
        red.tile = (op.tile[0], 1)
        red.dtype = arr.dtype
        red.out = arr
        red.view_of = loop
        parent.body.insert(parent.body.index(loop) + 1, red)
        tracer.active().ops.append(red)
        _set_version(arr, red, getattr(op, "reduce_const", []))
    loop.reductions = []


def _last_result(loop: ir.Loop) -> Optional[ir.Op]:
    """The op whose tile the loop's id stands for: the last item of its
    body that makes one (nki_loops.h, LoopResultIndex), if it is an op."""

    def makes_tile(item: Union[ir.Op, ir.Loop]) -> bool:
        if isinstance(item, ir.Loop):
            return any(makes_tile(x) for x in item.body)
        return not item.elided and item.kind not in ("store", "hbm_copy")

    for item in reversed(loop.body):
        if makes_tile(item):
            return item if isinstance(item, ir.Op) else None
    return None


def _carried(arr: ir.Array, dims: List[ir.DimAccess], op: ir.Op,
             chain: List[ir.Loop], loop: ir.Loop) -> bool:
    """`s[...] = x` of a whole array allocated just outside the loop, after
    an op of the same body read it (`scan(initial=s)`): the next iteration
    reads what this one wrote, a loop-carried tile (docs/spec-format.md,
    "Loop-carried tiles"). The op is a tile of the body, and the readers
    carry it; the loop gets no id for the array."""
    if len(chain) != 1 or any(d.start.loop_terms() for d in dims):
        return False
    if arr.rotation is not None:
        return False  # its own buffer each iteration: not carried
    # In a sequential loop, also readers in loops nested in it (attention
    # v11's `row_max`, read by each `exp_row_sum` iteration, written after).
    readers = [r for r in arr.outer_readers if r.loop is loop or
               (loop.kind == "sequential" and loop.encloses(r.loop))]
    if not readers:
        return False
    op.role = "carried"
    for r in readers:
        if op not in r.carries:
            r.carries.append(op)
    arr.current = op
    arr.pending_memset = None
    return True


def view_tile(arr: ir.Array, dims: List[ir.DimAccess]) -> Tuple[int, ...]:
    return view_shape(dims[arr.pdim:]) or (1,)


# --- loops ------------------------------------------------------------------

class NoReorder:
    """NKI's no_reorder: `directives=nki.compiler.no_reorder()` on a loop
    range, or `with nl.no_reorder():` around a region. The NKI API reference
    says the scheduler then keeps the program order of the ops in it; the
    spec says so with `"no_reorder": true` on the loop (and the loops nested
    in it keep that order too). A region marks every loop opened in it and,
    where it is inside a loop's body, that loop: a whole body in source
    order is the nearest the format states (conservative)."""

    def __enter__(self) -> "NoReorder":
        t = tracer.active()
        t.no_reorder += 1
        if t.loop is not t.root:
            t.loop.no_reorder = True
        return self

    def __exit__(self, *exc: object) -> None:
        tracer.active().no_reorder -= 1


def no_reorder() -> NoReorder:
    return NoReorder()


class LoopRange:
    """`nl.affine_range(n)` and friends: iterates once, symbolically."""

    def __init__(self, kind: str, args: Tuple[object, ...], api: str,
                 directives: object = None) -> None:
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise err(f"{api} takes 1 to 3 arguments")
        try:
            start, stop, step = (Affine.of(a).__index__()
                                 for a in (start, stop, step))
        except TraceError:
            raise err(f"{api} with a trip count that depends on another "
                      "loop's variable (a triangular loop) is not yet "
                      "supported")
        if step <= 0:
            raise err(f"{api} with step {step}: only positive steps")
        if start != 0 or step != 1:
            raise err(f"{api}({start}, {stop}, {step}): only ranges from 0 "
                      "in steps of 1 are supported yet")
        self.kind = kind
        self.trip = max(0, math.ceil((stop - start) / step))
        self.api = api
        dirs = directives if isinstance(directives, (list, tuple)) else \
            [directives] if directives is not None else []
        for d in dirs:
            if not isinstance(d, NoReorder):
                raise err(f"{api}(directives={d!r}): only "
                          "nki.compiler.no_reorder() is supported")
        self.no_reorder = bool(dirs)

    def __len__(self) -> int:
        return self.trip

    def __iter__(self) -> Iterator[Affine]:
        t = tracer.active()
        if self.trip == 0:
            return
        name = tracer.current_loop_var() or "i"
        loop = ir.Loop(None, self.kind, self.trip, tracer.current_line(),
                       t.loop)
        loop.no_reorder = self.no_reorder or t.no_reorder > 0
        var = LoopVar(name, loop)
        loop.var = var
        t.loop.body.append(loop)
        t.stack.append(loop)
        try:
            yield Affine({var: 1})
        except GeneratorExit:
            # Abandoned: the body raised (the trace is refused), or it
            # broke out of the loop; there is no loop to close.
            if t.stack and t.stack[-1] is loop:
                t.stack.pop()
            raise
        if t.stack and t.stack[-1] is loop:
            t.stack.pop()
            close_loop(loop)


def close_loop(loop: ir.Loop) -> None:
    parent = loop.parent
    assert parent is not None
    writers: dict = {}
    for arr, op, _ in loop.outer_writes:
        if arr.loop is parent:
            writers.setdefault(id(arr), (arr, op))
    if len(writers) > 1:
        # One loop per array (workloads/nki_frontend/fission.py).
        parts = fission.split(
            loop, [a for a, _ in writers.values()],
            {k: op for k, (_, op) in writers.items()},
            f"{tracer.active().file_label}:{loop.line}")
        reductions = loop.reductions
        for part in parts:
            part.reductions = [(a, op) for a, op in reductions
                               if fission._item_of(op, part) is not None]
        for part in parts:
            _close_one(part)
            _close_reductions(part)
        return
    _close_one(loop)
    _close_reductions(loop)
    if loop.kind == "sequential":
        _close_versions(loop)


def _close_versions(loop: ir.Loop) -> None:
    """After a sequential loop: each read in it of a version made before it
    (its first iteration's), of an array its own body writes later, reads
    in every later iteration what the iteration before left: the reader
    carries the loop's version ("carry", which may name a tile of a body
    around the reader and a block's slot; docs/spec-format.md). A rotating
    array's buffer `(i + c) % n` not written in the iteration is the one
    the previous iteration wrote as `(i + c + 1) % n`. After the loop, its
    last iteration's versions are what the body around reads (a read
    notes the loop's "results", _note_export): for a rotating array, the
    buffer that iteration wrote; an earlier iteration's buffer is refused.
    The arrays taken to be the loop's own go back to where they are
    allocated."""
    label = f"{tracer.active().file_label}"
    # Arrays an op of the loop updates in place (reads and writes): a state
    # or an accumulator, which keeps its own rules.
    in_place = [op.out for op in _walk_ops(loop) if op.out is not None and
                (op.role == "acc" or
                 any(r.array is op.out for r in op.inputs))]
    for arr, reader, ref, key in loop.carried_reads:
        if any(a is arr for a in in_place):
            continue  # updated in place: a state or an accumulator
        v = arr.current
        made_in = v.loop if isinstance(v, ir.Op) else getattr(v, "parent",
                                                               None)
        if not isinstance(made_in, ir.Loop) or not loop.encloses(made_in):
            continue  # the loop does not write it: a plain read
        name = arr.name or "an array"
        if made_in is not loop:
            raise TraceError(
                f"{name} is read before it is written in the loop at line "
                f"{loop.line}, which writes it in a loop nested in it (line "
                f"{made_in.line}): carrying it from one iteration to the "
                "next is not yet supported (the loop's own body must write "
                "it)", f"{label}:{reader.line}")
        if key is not None:
            d, m = arr.rotation  # type: ignore[misc]
            wkey = arr.rot_write_key
            if wkey is None or (wkey - key) % m.n != 1:
                raise TraceError(
                    f"reads a buffer of {name} that the loop at line "
                    f"{loop.line} wrote more than one iteration before: not "
                    "yet supported (the previous iteration's only)",
                    f"{label}:{reader.line}")
        if isinstance(v, ir.Op) and v in reader.carries:
            continue  # a tile carried in its own body (_carried)
        if any(c.version is v for c in reader.carry_refs):
            continue
        c = ir.Ref(v, list(ref.slots))  # type: ignore[arg-type]
        c.array = arr
        reader.carry_refs.append(c)
    loop.carried_reads = []
    for arr in _rotating_in(loop):
        d, m = arr.rotation  # type: ignore[misc]
        wkey = arr.rot_write_key
        arr.rot_write_key = None
        if wkey is None:
            continue
        last = (loop.trip - 1 + wkey) % m.n
        for b in range(m.n):
            arr.by_const[(d, b)] = arr.current if b == last else _STALE
    for arr in loop.privatized:
        if any(a is arr for a in in_place):
            continue  # a state: a read after the loop reads it whole
        arr.private = [(k, l) for k, l in getattr(arr, "private", [])
                       if l is not loop]  # type: ignore[attr-defined]
        if arr.loop is loop:
            arr.loop = loop.parent  # type: ignore[assignment]
            arr.one_buffer = False  # type: ignore[attr-defined]
            arr.tile_buffers = 0
    loop.privatized = []


def _rotating_in(loop: ir.Loop) -> List[ir.Array]:
    """The arrays whose buffers `loop` rotates and writes."""
    out: List[ir.Array] = []
    for item in _walk_ops(loop):
        arr = item.out
        if arr is not None and arr.rotation is not None and \
                arr.rotation[1].var.loop is loop and \
                arr.rot_write_key is not None and \
                not any(a is arr for a in out):
            out.append(arr)
    return out


def _walk_ops(loop: ir.Loop) -> Iterator[ir.Op]:
    for item in loop.body:
        if isinstance(item, ir.Loop):
            yield from _walk_ops(item)
        else:
            yield item


def _close_one(loop: ir.Loop) -> None:
    parent = loop.parent
    assert parent is not None
    seen = set()
    for arr, op, kind in loop.outer_writes:
        if id(arr) in seen:
            continue
        seen.add(id(arr))
        if arr.loop is parent:
            # close_loop split a loop with two such arrays.
            assert loop.id_for is None or loop.id_for is arr
            loop.id_for = arr
            loop.one_buffer = getattr(arr, "one_buffer", False)
            loop.tile_buffers = arr.tile_buffers
            loop.id_kind = kind
            _set_version(arr, loop, getattr(op, "const_dims", []))
            arr.inner = None  # type: ignore[attr-defined]
        else:
            parent.outer_writes.append((arr, op, kind))
