"""`nki.language` (both generations) as shape-only tracing functions."""

from __future__ import annotations

import builtins

from typing import Optional, Sequence, Tuple

from . import core, ir, tracer
from . import tiles as _tiles
from .core import (DTYPES, HBM, PRIVATE_HBM, PSUM, SBUF, SHARED_HBM, DType,
                   DynSlice, Grid, HbmHandle, HbmView, ParDim, Tile, TileView,
                   err, is_tile, make_op, result_tile, tile_dtype, tile_shape)
from .expr import Affine, Axis, Conjunction, Predicate

# dtypes, buffers
bfloat16 = DTYPES["bfloat16"]
float16 = DTYPES["float16"]
float32 = DTYPES["float32"]
tfloat32 = DTYPES["tfloat32"]
int8 = DTYPES["int8"]
int32 = DTYPES["int32"]
uint8 = DTYPES["uint8"]
uint16 = DTYPES["uint16"]
int16 = DTYPES["int16"]
uint32 = DTYPES["uint32"]
bool_ = DTYPES["bool_"]
float8_e4m3 = DTYPES["float8_e4m3"]
float8_e5m2 = DTYPES["float8_e5m2"]
float8_e4m3fn = DTYPES["float8_e4m3fn"]
float8_e5m2_x4 = DTYPES["float8_e5m2_x4"]
float8_e4m3fn_x4 = DTYPES["float8_e4m3fn_x4"]
float4_e2m1fn_x4 = DTYPES["float4_e2m1fn_x4"]
sbuf = SBUF
psum = PSUM
hbm = HBM
shared_hbm = SHARED_HBM
private_hbm = PRIVATE_HBM


class tile_size:  # noqa: N801 (NKI's name)
    pmax = 128
    psum_fmax = 2048
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    psum_min_fmax = 512  # (not documented everywhere; a bank's fp32 width)
    total_available_sbuf_size = 192 * 1024


def par_dim(n: int) -> ParDim:
    return ParDim(n)


# --- loops ------------------------------------------------------------------

def affine_range(*args: object, directives: object = None,
                 **kwargs: object) -> core.LoopRange:
    return core.LoopRange("affine", args, "nl.affine_range", directives)


def sequential_range(*args: object, directives: object = None,
                     **kwargs: object) -> core.LoopRange:
    return core.LoopRange("sequential", args, "nl.sequential_range",
                          directives)


def static_range(*args: object, directives: object = None,
                 **kwargs: object) -> core.LoopRange:
    return core.LoopRange("static", args, "nl.static_range", directives)


def no_reorder() -> core.NoReorder:
    """A region (`with nl.no_reorder():`) or a loop directive whose ops the
    scheduler keeps in program order (core.NoReorder)."""
    return core.no_reorder()


def python_range(*args: object) -> core.LoopRange:
    """Python's `range` inside a kernel: a sequential loop."""
    return core.LoopRange("sequential", args, "range")


# --- indices ----------------------------------------------------------------

def arange(*args: int) -> core.ArangeVector:
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        raise err("nl.arange takes 1 or 2 arguments")
    if start != 0:
        raise err("nl.arange with a start other than 0 is not supported yet; "
                  "add the offset to the index instead")
    return core.ArangeVector(int(stop))


class _MGrid:
    def __getitem__(self, key: object) -> Grid:
        if not isinstance(key, tuple):
            key = (key,)
        line = tracer.current_line()
        axes = []
        for pos, k in enumerate(key):
            if not isinstance(k, slice) or (k.start or 0) != 0 or \
                    k.step not in (None, 1):
                raise err("nl.mgrid takes slices from 0 such as "
                          "nl.mgrid[0:128, 0:512]")
            axes.append(Affine({Axis(int(k.stop), pos, len(key), line): 1}))
        return Grid(axes)


mgrid = _MGrid()


def ds(start: object, size: int) -> DynSlice:
    return DynSlice(start, size)


# --- allocation ---------------------------------------------------------

def _shape_and_pdim(shape: Sequence[int]) -> Tuple[Tuple[int, ...], int]:
    dims = []
    pdim = 0
    for i, s in enumerate(shape):
        if isinstance(s, ParDim):
            pdim = i
        dims.append(int(Affine.of(s).__index__()))
    return tuple(dims), pdim


def _buffer_name(buffer: object) -> str:
    if isinstance(buffer, core.ModAlloc):
        return buffer.buffer
    if buffer is None or buffer is SBUF:
        return "sbuf"
    if buffer is PSUM:
        return "psum"
    if buffer in (HBM, SHARED_HBM, PRIVATE_HBM):
        return "hbm"
    name = getattr(buffer, "name", None) or type(buffer).__name__
    raise err(f"buffer {name} is not supported; supported: nl.sbuf, nl.psum, "
              "nl.hbm, nl.shared_hbm, nl.private_hbm")


def ndarray(shape: Sequence[int], dtype: object, buffer: object = None,
            name: str = "", **kwargs: object):
    shp, pdim = _shape_and_pdim(shape)
    b = _buffer_name(buffer)
    d = core.spec_dtype(dtype)
    t = tracer.active()
    target = tracer.current_target() or name or f"t{len(t.tensors)}"
    if b == "hbm":
        if not t.at_top():
            raise err("an HBM tensor allocated inside a loop is not "
                      "supported yet")
        tensor = ir.HbmTensor(_unique_tensor_name(target), shp, d)
        t.tensors.append(tensor)
        return HbmHandle(tensor, dtype)
    arr = core.new_array(target, shp, d, b, pdim)
    if isinstance(buffer, core.ModAlloc) and pdim > 0:
        # The counts are per block dim; an array without one is one tile,
        # as the reference's allocation function maps the empty index.
        if len(buffer.tiles) != pdim:
            raise err(f"mod_alloc gives {len(buffer.tiles)} tile counts for "
                      f"an array with {pdim} block dims")
        arr.mod_tiles = buffer.tiles
    return Tile(arr, dtype if isinstance(dtype, DType) else
                core.dtype_obj(d))


def _unique_tensor_name(name: str) -> str:
    t = tracer.active()
    names = {x.name for x in t.tensors}
    out, n = name, 2
    while out in names:
        out, n = f"{name}_{n}", n + 1
    return out


def _filled(shape: Sequence[int], dtype: object, buffer: object,
            name: str) -> Tile:
    tile = ndarray(shape, dtype, buffer=buffer, name=name)
    if not isinstance(tile, Tile):
        raise err("nl.zeros / nl.full in HBM is not supported yet")
    arr = tile._a
    op = make_op("memset", (), shape=arr.whole_tile(), dtype=arr.dtype,
                 result=False)
    op.out = arr
    arr.current = op
    if arr.buffer == "psum":
        arr.pending_memset = op
    return tile


def zeros(shape: Sequence[int], dtype: object, buffer: object = None,
          name: str = "", **kwargs: object) -> Tile:
    return _filled(shape, dtype, buffer, name)


def ones(shape: Sequence[int], dtype: object, buffer: object = None,
         name: str = "", **kwargs: object) -> Tile:
    return _filled(shape, dtype, buffer, name)


def full(shape: Sequence[int], fill_value: object, dtype: object,
         buffer: object = None, name: str = "", **kwargs: object) -> Tile:
    return _filled(shape, dtype, buffer, name)


def zeros_like(a: object, dtype: object = None, buffer: object = None,
               name: str = "", **kwargs: object) -> Tile:
    return _filled(tile_shape(a), dtype or a.dtype, buffer, name)


def empty_like(a: object, dtype: object = None, buffer: object = None,
               **kwargs: object):
    return ndarray(a.shape, dtype or a.dtype, buffer=buffer)


def shared_constant(constant: object, dtype: object = None,
                    **kwargs: object) -> HbmHandle:
    """A constant tensor in HBM: its shape is all the trace needs."""
    shape = tuple(int(d) for d in getattr(constant, "shape", ()))
    if not shape:
        raise err("nl.shared_constant takes an array")
    d = core.spec_dtype(dtype if dtype is not None else
                        getattr(constant, "dtype", None))
    t = tracer.active()
    target = tracer.current_target() or "constant"
    tensor = ir.HbmTensor(_unique_tensor_name(target), shape, d)
    t.tensors.append(tensor)
    return HbmHandle(tensor, dtype)


def is_psum(buffer: object) -> bool:
    return buffer is PSUM


def is_sbuf(buffer: object) -> bool:
    return buffer is SBUF


def is_hbm(buffer: object) -> bool:
    return buffer in (HBM, SHARED_HBM, PRIVATE_HBM)


def is_on_chip(buffer: object) -> bool:
    return buffer in (SBUF, PSUM)


# --- data movement --------------------------------------------------------

def _predicate(mask: object) -> bool:
    """NKI's `mask=`: a predicate of the instruction (True), or no mask.

    A mask is an affine predicate of the indices and loop variables, on any
    axis, that the compiler folds into the instruction's access pattern
    (`nki.isa` reference: "a compile-time constant predicate that controls
    whether/how this instruction is executed"): no instruction of its own
    and no tile, so the op reads nothing more (docs/spec-format.md, masks by
    affine predicate)."""
    if mask is None:
        return False
    if not isinstance(mask, (Predicate, Conjunction)):
        raise err("mask= takes an index predicate such as (i_p < n)")
    return True


def _masked(tile: Tile, mask: object) -> None:
    """A compute op's mask: a predicate of its instruction."""
    if not _predicate(mask):
        return
    op = tile._a.current
    assert isinstance(op, ir.Op)
    op.predicate = True


def load(src: object, mask: object = None, dtype: object = None,
         **kwargs: object) -> Tile:
    if not isinstance(src, HbmView):
        if isinstance(src, HbmHandle):
            src = src[...]
        else:
            raise err("nl.load reads an HBM tensor (a kernel argument or an "
                      "nl.shared_hbm array)")
    d = core.spec_dtype(dtype) if dtype is not None else src.handle._t.dtype
    op = make_op("load", (), shape=src.shape, dtype=d)
    op.tensor = src.handle._t
    op.access = src.dims
    op.predicate = _predicate(mask)
    return result_tile(op)


def load_transpose2d(src: object, mask: object = None, dtype: object = None,
                     **kwargs: object) -> Tile:
    tile = load(src, mask=mask, dtype=dtype)
    op = tile._a.current
    assert isinstance(op, ir.Op)
    op.transpose = True
    p, f = op.tile
    op.tile = (f, p)
    tile._a.shape = (f, p)
    return tile


def store(dst: object, value: object, mask: object = None,
          **kwargs: object) -> None:
    if isinstance(dst, HbmHandle):
        dst = dst[...]
    if not isinstance(dst, HbmView):
        raise err("nl.store writes an HBM tensor")
    if not is_tile(value):
        raise err("nl.store's value is a tile")
    op = make_op("store", [value], shape=tile_shape(value),
                 dtype=tile_dtype(value), result=False)
    op.tensor = dst.handle._t
    op.access = dst.dims
    op.predicate = _predicate(mask)


# --- compute ----------------------------------------------------------------

_ACTIVATION_FUNCS = {"exp": "exp", "rsqrt": "rsqrt", "sqrt": "sqrt",
                     "square": "square", "tanh": "tanh", "gelu": "gelu",
                     "sigmoid": "sigmoid", "relu": "relu", "log": "log",
                     "copy": "copy"}


def _out_dtype(x: object, dtype: object) -> str:
    if dtype is not None:
        return core.spec_dtype(dtype)
    if is_tile(x):
        d = tile_dtype(x)
        return "fp32" if d in ("int8", "int32") and False else d
    return "fp32"


def _activation(func: str, x: object, dtype: object = None,
                engine: Optional[str] = None) -> Tile:
    if not is_tile(x):
        raise err(f"nl.{func} takes a tile")
    op = make_op("activation", [x], shape=tile_shape(x),
                 dtype=_out_dtype(x, dtype), func=func, engine=engine)
    return result_tile(op)


def _masked_api(name: str, make):
    """The `nl.<name>` function over `make(*tiles, dtype)` that also takes
    NKI's `mask=` (and ignores the keywords that change no cost)."""
    def f(*args: object, dtype: object = None, mask: object = None,
          **kwargs: object) -> Tile:
        tile = make(*args, dtype)
        _masked(tile, mask)
        return tile
    f.__name__ = name
    return f


def _make_activation(func: str):
    return _masked_api(func, lambda x, dtype: _activation(func, x, dtype))


exp = _make_activation("exp")
rsqrt = _make_activation("rsqrt")
sqrt = _make_activation("sqrt")
square = _make_activation("square")
tanh = _make_activation("tanh")
gelu = _make_activation("gelu")
sigmoid = _make_activation("sigmoid")
relu = _make_activation("relu")
log = _make_activation("log")


def _broadcast(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[int, ...]:
    if len(a) != len(b):
        return a if len(a) >= len(b) else b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise err(f"tile shapes {a} and {b} do not broadcast")
        out.append(builtins.max(x, y))
    if out and a and b and a[0] != b[0]:
        raise err(f"tiles of {a[0]} and {b[0]} partitions: a broadcast "
                  "across partitions is not yet supported")
    return tuple(out)


def _binary(name: str, x: object, y: object, dtype: object = None) -> Tile:
    if is_tile(x) and is_tile(y):
        sx, sy = tile_shape(x), tile_shape(y)
        shape = _broadcast(sx, sy)
        if sx != sy and len(sy) >= 2 and sy[1:] == (1,) * (len(sy) - 1):
            op = make_op("tensor_scalar", [x, y], shape=shape,
                         dtype=_out_dtype(x, dtype), engine="auto")
        elif sx != sy and len(sx) >= 2 and sx[1:] == (1,) * (len(sx) - 1):
            op = make_op("tensor_scalar", [y, x], shape=shape,
                         dtype=_out_dtype(y, dtype), engine="auto")
        else:
            op = make_op("tensor_tensor", [x, y], shape=shape,
                         dtype=_out_dtype(x, dtype), engine="auto")
    elif is_tile(x) and isinstance(y, (int, float)):
        op = make_op("tensor_scalar", [x], shape=tile_shape(x),
                     dtype=_out_dtype(x, dtype), engine="auto")
    elif is_tile(y) and isinstance(x, (int, float)):
        op = make_op("tensor_scalar", [y], shape=tile_shape(y),
                     dtype=_out_dtype(y, dtype), engine="auto")
    else:
        raise err(f"nl.{name} takes tiles or a tile and a number")
    return result_tile(op)


def _make_binary(name: str):
    return _masked_api(name, lambda x, y, dtype: _binary(name, x, y, dtype))


add = _make_binary("add")
subtract = _make_binary("subtract")
multiply = _make_binary("multiply")
divide = _make_binary("divide")
maximum = _make_binary("maximum")
minimum = _make_binary("minimum")
power = _make_binary("power")
equal = _make_binary("equal")
not_equal = _make_binary("not_equal")
greater = _make_binary("greater")
greater_equal = _make_binary("greater_equal")
less = _make_binary("less")
less_equal = _make_binary("less_equal")
logical_and = _make_binary("logical_and")
logical_or = _make_binary("logical_or")
logical_xor = _make_binary("logical_xor")
bitwise_and = _make_binary("bitwise_and")
bitwise_or = _make_binary("bitwise_or")
bitwise_xor = _make_binary("bitwise_xor")
left_shift = _make_binary("left_shift")
right_shift = _make_binary("right_shift")


def copy(x: object, dtype: object = None, mask: object = None,
         **kwargs: object) -> Tile:
    if not is_tile(x):
        raise err("nl.copy takes a tile")
    op = make_op("tensor_copy", [x], shape=tile_shape(x),
                 dtype=_out_dtype(x, dtype))
    tile = result_tile(op)
    _masked(tile, mask)
    return tile


def reciprocal(x: object, dtype: object = None, mask: object = None,
               **kwargs: object) -> Tile:
    if not is_tile(x):
        raise err("nl.reciprocal takes a tile")
    op = make_op("reciprocal", [x], shape=tile_shape(x),
                 dtype=_out_dtype(x, dtype))
    return result_tile(op)


def negative(x: object, dtype: object = None, **kwargs: object) -> Tile:
    return _binary("negative", x, -1.0, dtype)


def _reduce(name: str, x: object, axis: object, dtype: object,
            keepdims: bool) -> Tile:
    if not is_tile(x):
        raise err(f"nl.{name} takes a tile")
    shape = tile_shape(x)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(int(a) % len(shape) for a in axes)
    if 0 in axes:
        raise err(f"nl.{name} along the partition axis is not yet supported "
                  "(reductions along free axes are)")
    out = tuple(1 if i in axes else s for i, s in enumerate(shape))
    op = make_op("tensor_reduce", [x], shape=out, dtype=_out_dtype(x, dtype))
    return result_tile(op)


def _make_reduce(name: str):
    def f(x: object, axis: object, dtype: object = None, mask: object = None,
          keepdims: bool = False, **kwargs: object) -> Tile:
        tile = _reduce(name, x, axis, dtype, keepdims)
        _masked(tile, mask)
        return tile
    f.__name__ = name
    return f


sum = _make_reduce("sum")  # noqa: A001 (NKI's name)
max = _make_reduce("max")  # noqa: A001
min = _make_reduce("min")  # noqa: A001
mean = _make_reduce("mean")
prod = _make_reduce("prod")
all = _make_reduce("all")  # noqa: A001


def matmul(x: object, y: object, transpose_x: bool = False,
           mask: object = None, **kwargs: object) -> Tile:
    """x is [K, M] with transpose_x=True (nc_matmul's stationary layout),
    else [M, K]: the compiler inserts the transpose ("insert_transpose",
    docs/spec-format.md, "Compiler-inserted transposes")."""
    if not (is_tile(x) and is_tile(y)):
        raise err("nl.matmul takes two tiles")
    sx, sy = tile_shape(x), tile_shape(y)
    px, fx = core.tile_of(sx)
    contract = px if transpose_x else fx
    if contract != sy[0]:
        raise err(f"nl.matmul contracts {contract} with {sy[0]} partitions")
    m = fx if transpose_x else px
    n = core.tile_of(sy)[1]
    op = make_op("matmul", [x, y], shape=(m, n), dtype="fp32",
                 buffer="psum", engine="tensor")
    op.insert_transpose = not transpose_x
    return result_tile(op)


def transpose(x: object, dtype: object = None, mask: object = None,
              **kwargs: object) -> Tile:
    if not is_tile(x):
        raise err("nl.transpose takes a tile")
    p, f = core.tile_of(tile_shape(x))
    # Over [32, 32] only the PE array transposes, into PSUM (nisa's
    # nc_transpose, which nl.transpose lowers to).
    big = p > 32 or f > 32
    op = make_op("transpose", [x], shape=(f, p), dtype=_out_dtype(x, dtype),
                 engine="tensor" if big else None,
                 buffer="psum" if big else None)
    return result_tile(op)


def where(condition: object, x: object, y: object, dtype: object = None,
          **kwargs: object) -> Tile:
    tiles = [a for a in (condition, x, y) if is_tile(a)]
    if len(tiles) != 3:
        raise err("nl.where with a number operand is not yet supported")
    op = make_op("select", tiles, shape=tile_shape(x),
                 dtype=_out_dtype(x, dtype))
    return result_tile(op)


def broadcast_to(x: object, shape: Sequence[int]) -> "core.Broadcast":
    """`nl.broadcast_to(x, shape)`, as `x.broadcast_to(shape)`."""
    if not is_tile(x):
        raise err("nl.broadcast_to takes a tile")
    return core.Broadcast(core._unlist(x), shape)  # type: ignore[arg-type]


def _grid_axis(api: str, axis: object) -> int:
    t = tracer.active()
    if not t.grid:
        raise err(f"{api} in a kernel launched without a grid: give the grid "
                  "as Python launches it, --kernel FILE.py::FUNCTION[4,2]")
    if not isinstance(axis, int) or not 0 <= axis < len(t.grid):
        raise err(f"{api}({axis!r}): the launch grid has "
                  f"{len(t.grid)} axes ({'x'.join(map(str, t.grid))})")
    return axis


def program_id(axis: int) -> Affine:
    """The instance's index along `axis`: the variable of the grid's loop."""
    t = tracer.active()
    loop = t.grid_loops[_grid_axis("nl.program_id", axis)]
    assert loop.var is not None
    return Affine({loop.var: 1})


def num_programs(axes: object = None) -> int:
    t = tracer.active()
    if axes is None:
        if not t.grid:
            _grid_axis("nl.num_programs", 0)
        n = 1
        for g in t.grid:
            n *= g
        return n
    if isinstance(axes, (tuple, list)):
        n = 1
        for a in axes:
            n *= t.grid[_grid_axis("nl.num_programs", a)]
        return n
    return t.grid[_grid_axis("nl.num_programs", axes)]


def program_ndim() -> int:
    return len(tracer.active().grid)


def device_print(*args: object, **kwargs: object) -> None:
    """Prints nothing when traced (no values exist)."""


# Python operators on tiles (`a + b`, `-x`, `1.0 / s`) trace as these calls.
_tiles.OPS.add, _tiles.OPS.subtract = add, subtract
_tiles.OPS.multiply, _tiles.OPS.divide = multiply, divide
