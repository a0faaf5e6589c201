"""`nki.language` (both generations) as shape-only tracing functions."""

from __future__ import annotations

import builtins
import functools
import inspect

from typing import Optional, Sequence, Tuple

from . import core, ir, recorder, tracer
from . import tiles as _tiles
from .core import (DTYPES, HBM, PRIVATE_HBM, PSUM, SBUF, SHARED_HBM, DType,
                   DynSlice, Grid, HbmHandle, HbmView, ParDim, Tile, TileView,
                   clip_to_mask, err, is_tile, make_op, result_tile,
                   tile_dtype, tile_shape)
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
float8_e8m0fnu = DTYPES["float8_e8m0fnu"]


class fp32:  # noqa: N801 (NKI's name)
    """SDK 2.x's `nl.fp32`: float32's limits (`nl.fp32.min` as an
    on_false_value)."""
    min = -3.4028234663852886e38
    max = 3.4028234663852886e38
    _traced_as = "constants (min, max)"
sbuf = SBUF
psum = PSUM
hbm = HBM
shared_hbm = SHARED_HBM
private_hbm = PRIVATE_HBM


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


def _ranges_2026() -> dict:
    """Today's `nki` ranges: its API reference calls affine_range,
    sequential_range and static_range aliases of Python's `range` ("an
    iterator yielding integer values"), so their variable is an int the
    kernel may compute with, as a Python range's (core.LoopRange cuts the
    loop where a decision on it changes). The spec keeps each loop's kind,
    the scheduling the kernel asks for."""
    def make(kind: str, api: str) -> object:
        def f(*args: object, directives: object = None,
              **kwargs: object) -> core.LoopRange:
            return core.LoopRange(kind, args, api, directives,
                                  int_valued=True)
        f.__name__ = f.__qualname__ = api.split(".")[1]
        f._traced_as = (f"loop `{kind}`, its variable an int "  # type: ignore
                        "(an alias of Python's range)")
        return f
    return {"affine_range": make("affine", "nl.affine_range"),
            "sequential_range": make("sequential", "nl.sequential_range"),
            "static_range": make("static", "nl.static_range")}


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
    if isinstance(buffer, (core.ModAlloc, core.FunctionAlloc)):
        return buffer.buffer
    # NKI 0.2's strings for the buffers (the migration guide's mapping).
    if isinstance(buffer, str) and buffer in ("sbuf", "psum", "hbm",
                                              "private_hbm", "shared_hbm"):
        return "hbm" if buffer.endswith("hbm") else buffer
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
        if t.program_hbm_seen is not None:
            return _program_shared_hbm(t, shp, d)
        tensor = ir.HbmTensor(_unique_tensor_name(target), shp, d)
        t.tensors.append(tensor)
        handle = HbmHandle(tensor, dtype)
        if t.program_ids is not None:
            t.program_hbm.append(handle)
        return handle
    if shp and shp[pdim] > 128:
        raise err(f"an on-chip tile of {shp[pdim]} partitions (dim {pdim} "
                  f"of {list(shp)}); a tile has at most 128 "
                  "(nl.tile_size.pmax)")
    arr = core.new_array(target, shp, d, b, pdim)
    if isinstance(buffer, core.FunctionAlloc):
        free = 1
        for n in shp[pdim + 1:]:
            free *= n
        buffer = buffer.resolve(shp[:pdim], shp[pdim] if shp else 1,
                                free * core.dtype_bytes(d))
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
          name: str = "", lazy_initialization: bool = False,
          **kwargs: object) -> Tile:
    if lazy_initialization:
        # Compiler-style NKI (NKIBench): no fill up front; each logical
        # tile is zeroed where it is first needed (recorder.ref_of), a
        # matmul's first write zeroing its own bank.
        tile = ndarray(shape, dtype, buffer=buffer, name=name)
        if not isinstance(tile, Tile):
            raise err("nl.zeros in HBM is not supported yet")
        tile._a.lazy_zero = True  # type: ignore[attr-defined]
        return tile
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


def takes_mask(fn):
    """Every op an API function with a `mask=` records while called with
    one is predicated (recorder.predicated): each function that takes a
    mask writes it the same way, none makes iota + compare ops for it."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def f(*args: object, **kwargs: object) -> object:
        try:
            mask = sig.bind_partial(*args, **kwargs).arguments.get("mask")
        except TypeError:
            mask = None  # fn reports the bad call itself
        with recorder.predicated(_predicate(mask)):
            return fn(*args, **kwargs)
    return f


def wrap_masked(namespace: dict) -> None:
    """takes_mask on each public function of a module with a mask=."""
    for name, fn in list(namespace.items()):
        if (name.startswith("_") or not inspect.isfunction(fn)
                or fn.__module__ != namespace["__name__"]):
            continue
        if "mask" in inspect.signature(fn).parameters:
            namespace[name] = takes_mask(fn)


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
    op.indirect = core.indirect_ref(src.dims)
    op.after.extend(core.ref_of(w) for w in src.waits)
    return result_tile(op)


def load_transpose2d(src: object, mask: object = None, dtype: object = None,
                     **kwargs: object) -> Tile:
    # The tile is the source transposed: its partitions are the source's
    # free elements, so a [2048, 128] source is a [128, 2048] tile.
    if isinstance(src, HbmHandle):
        src = src[...]
    if not isinstance(src, HbmView) or len(src.shape) != 2:
        raise err("nl.load_transpose2d reads a 2-D view of an HBM tensor")
    p, f = src.shape
    d = core.spec_dtype(dtype) if dtype is not None else src.handle._t.dtype
    op = make_op("load", (), shape=(f, p), dtype=d)
    op.tensor = src.handle._t
    op.access = src.dims
    op.predicate = _predicate(mask)
    op.transpose = True
    return result_tile(op)


def store(dst: object, value: object, mask: object = None,
          **kwargs: object) -> None:
    if isinstance(dst, HbmHandle):
        dst = dst[...]
    if not isinstance(dst, HbmView):
        raise err("nl.store writes an HBM tensor")
    if not is_tile(value):
        raise err("nl.store's value is a tile")
    if mask is not None:
        # Only the elements the mask keeps move (indexing.clip_to_mask).
        dst = HbmView(dst.handle, clip_to_mask(dst.dims, mask))
        if isinstance(value, TileView):
            value = TileView(value.tile, clip_to_mask(value.dims, mask))
    op = make_op("store", [value], shape=tile_shape(value),
                 dtype=tile_dtype(value), result=False)
    ref = op.inputs[0]
    if ref.part is not None or ref.broadcast:
        # The spec's store moves a whole tile: a store of part of one
        # (`nl.store(t, value=stats[:, 0:1])`) or of a partition broadcast
        # is a tensor_copy of that part (the compiler stage makes a
        # broadcast its matmul), then the store of the copy.
        op.kind = "tensor_copy"
        arr = core.new_array(None, tuple(tile_shape(value)), op.dtype,
                             "sbuf")
        arr.current = op
        arr.fresh = True
        op.out = arr
        op = make_op("store", [result_tile(op)], shape=tile_shape(value),
                     dtype=tile_dtype(value), result=False)
    op.tensor = dst.handle._t
    op.access = dst.dims
    op.predicate = _predicate(mask)
    op.indirect = core.indirect_ref(dst.dims)  # a scatter
    op.after.extend(core.ref_of(w) for w in dst.waits)


# --- compute ----------------------------------------------------------------

# ScalarE's function table (nki.api.shared, "Supported Activation
# Functions"); docs/spec-format.md lists the same as an activation's func.
_ACTIVATION_FUNCS = {n: n for n in (
    "exp", "rsqrt", "sqrt", "square", "tanh", "gelu", "sigmoid", "relu",
    "log", "copy", "prelu", "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid",
    "gelu_apprx_sigmoid_dx", "silu", "silu_dx", "softplus", "mish", "erf",
    "erf_dx", "sin", "arctan", "sign", "abs")}


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


def traced_as(text: str):
    """Records what an API function becomes in the spec: the coverage
    table (nki_frontend.coverage) prints it."""
    def mark(func):
        setattr(func, "_traced_as", text)
        return func
    return mark


def _make_unary(name: str, make, text: str):
    """`nl.<name>(x, dtype=None)`, as the reference declares it, over
    `make(x, dtype)`; SDK 2.x's `mask=` is taken too."""
    def f(x: object, dtype: object = None, mask: object = None,
          **kwargs: object) -> Tile:
        tile = make(x, dtype)
        _masked(tile, mask)
        return tile
    f.__name__ = f.__qualname__ = name
    setattr(f, "_traced_as", text)
    return f


def _make_activation(func: str, name: Optional[str] = None):
    return _make_unary(name or func,
                       lambda x, dtype: _activation(func, x, dtype),
                       f"`activation` {func} (ScalarE's function table)")


exp = _make_activation("exp")
rsqrt = _make_activation("rsqrt")
sqrt = _make_activation("sqrt")
square = _make_activation("square")
tanh = _make_activation("tanh")
gelu = _make_activation("gelu")
sigmoid = _make_activation("sigmoid")
relu = _make_activation("relu")
log = _make_activation("log")
# The rest of ScalarE's function table (nki.api.shared, "Supported
# Activation Functions"): one ACTIVATE each, max(MIN_II, N) cycles.
gelu_dx = _make_activation("gelu_dx")
gelu_apprx_tanh = _make_activation("gelu_apprx_tanh")
gelu_apprx_sigmoid = _make_activation("gelu_apprx_sigmoid")
gelu_apprx_sigmoid_dx = _make_activation("gelu_apprx_sigmoid_dx")
silu = _make_activation("silu")
silu_dx = _make_activation("silu_dx")
softplus = _make_activation("softplus")
mish = _make_activation("mish")
erf = _make_activation("erf")
erf_dx = _make_activation("erf_dx")
arctan = _make_activation("arctan")
abs = _make_activation("abs")  # noqa: A001 (NKI's name)
sign = _make_activation("sign")


def _broadcast(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[int, ...]:
    if len(a) != len(b):
        return a if len(a) >= len(b) else b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise err(f"tile shapes {a} and {b} do not broadcast")
        out.append(builtins.max(x, y))
    return tuple(out)


def _partition_broadcast(x: object, y: object) -> Tuple[object, object]:
    """NumPy broadcasting across partitions (`a[128, 512] + b[1, 512]`, the
    reference's add example): the one-partition operand is read broadcast,
    as `b.broadcast_to(...)` is (core.Broadcast)."""
    sx, sy = tile_shape(x), tile_shape(y)
    if len(sx) != len(sy) or not sx or sx[0] == sy[0]:
        return x, y
    if sy[0] == 1 and not isinstance(y, core.Broadcast):
        y = core.Broadcast(y, (sx[0],) + tuple(sy[1:]))
    elif sx[0] == 1 and not isinstance(x, core.Broadcast):
        x = core.Broadcast(x, (sy[0],) + tuple(sx[1:]))
    return x, y


def _binary(name: str, x: object, y: object, dtype: object = None) -> Tile:
    if is_tile(x) and is_tile(y):
        x, y = _partition_broadcast(x, y)
        sx, sy = tile_shape(x), tile_shape(y)
        shape = _broadcast(sx, sy)
        if len(sx) == len(sy) and sx[0] != sy[0]:
            # [1, F] with [P, F]: the one partition is broadcast to P, as
            # `x.broadcast_to` does (its readers' "broadcasts").
            if sx[0] == 1:
                x = core.Broadcast(core.unlist(x), (shape[0],) + sx[1:])
                sx = tile_shape(x)
            else:
                y = core.Broadcast(core.unlist(y), (shape[0],) + sy[1:])
                sy = tile_shape(y)
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
    if op.kind == "tensor_scalar" and name in ir.ALU_NAMES:
        op.alu = [name]
    return result_tile(op)


def _make_binary(name: str):
    def f(x: object, y: object, dtype: object = None, mask: object = None,
          **kwargs: object) -> Tile:
        tile = _binary(name, x, y, dtype)
        _masked(tile, mask)
        return tile
    f.__name__ = f.__qualname__ = name
    setattr(f, "_traced_as", "`tensor_tensor`, or `tensor_scalar` with a "
            "number or a [P, 1] tile (engine auto)")
    return f


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


def copy(src: object, dtype: object = None, mask: object = None,
         **kwargs: object) -> Tile:
    x = src
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


@traced_as("`tensor_scalar` (x * -1, engine auto)")
def negative(x: object, dtype: object = None, mask: object = None,
             **kwargs: object) -> Tile:
    tile = _binary("negative", x, -1.0, dtype)
    _masked(tile, mask)
    return tile


def _alu_unary(name: str):
    """An elementwise function one ALU pass computes (VectorE / GpSimd's
    `tensor_scalar`, max(MIN_II, N) cycles), left to the compiler stage."""
    return _make_unary(name, lambda x, dtype: _binary(name, x, 0, dtype),
                       "`tensor_scalar`, one ALU pass (engine auto)")


floor = _alu_unary("floor")
ceil = _alu_unary("ceil")
trunc = _alu_unary("trunc")
invert = _alu_unary("invert")
logical_not = _alu_unary("logical_not")
abs_max = _make_binary("abs_max")
abs_min = _make_binary("abs_min")
fmod = _make_binary("fmod")
mod = _make_binary("mod")


def _sin_of(x: object, dtype: object, shift: bool) -> Tile:
    """nl.sin reduces the argument's range before ScalarE's sine
    (nki.api.shared: "nki.language.sin applies additional instructions to
    perform range reduction"): one ALU pass, then the activation."""
    reduced = _binary("sin_range", x, 3.141592653589793 / 2 if shift else 0,
                      "fp32")
    return _activation("sin", reduced, _out_dtype(x, dtype))


sin = _make_unary("sin", lambda x, dtype: _sin_of(x, dtype, False),
                  "`tensor_scalar` (range reduction) and `activation` sin")
cos = _make_unary("cos", lambda x, dtype: _sin_of(x, dtype, True),
                  "`tensor_scalar` (range reduction, + pi/2) and "
                  "`activation` sin")
tan = _make_unary("tan", lambda x, dtype: _binary(
    "divide", _sin_of(x, "fp32", False), _sin_of(x, "fp32", True), dtype),
    "sin and cos as `nl.sin` / `nl.cos`, then a `tensor_tensor` divide")


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
    def f(x: object, axis: object, dtype: object = None,
          keepdims: bool = False, *, mask: object = None,
          **kwargs: object) -> Tile:
        tile = _reduce(name, x, axis, dtype, keepdims)
        _masked(tile, mask)
        return tile
    f.__name__ = f.__qualname__ = name
    setattr(f, "_traced_as", "`tensor_reduce` along free axes")
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


def loop_reduce(x: object, op: object, loop_indices: object, *,
                dtype: object = None, mask: object = None,
                **kwargs: object) -> "core.LoopReduce":
    """`dst[...] = nl.loop_reduce(x, op, loop_indices)`: dst = op(dst, x)
    in each iteration (the API reference), traced when it is written into
    its destination (core.LoopReduce)."""
    if not is_tile(x):
        raise err("nl.loop_reduce reduces a tile")
    if mask is not None:
        raise err("nl.loop_reduce with a mask= is not yet supported")
    return core.LoopReduce(core.unlist(x), op, loop_indices
                           if isinstance(loop_indices, (list, tuple))
                           else [loop_indices])


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


def broadcast_to(src: object, shape: Sequence[int],
                 **kwargs: object) -> "core.Broadcast":
    """`nl.broadcast_to(src, shape=...)`, as `src.broadcast_to(shape)`."""
    x = src
    if not is_tile(x):
        raise err("nl.broadcast_to takes a tile")
    return core.Broadcast(core._unlist(x), shape)  # type: ignore[arg-type]


def expand_dims(data: object, axis: object) -> "_tiles.ApView":
    """`nl.expand_dims(data, axis)`: a view of the tile with a dim of size
    1 at each axis (core.expand_dims_tile)."""
    x = core._unlist(data)
    if not isinstance(x, (_tiles.Tile, _tiles.TileView)):
        raise err("nl.expand_dims takes a tile (of SBUF or PSUM)")
    return _tiles.expand_dims_tile(x, axis, "nl.expand_dims")


def _grid_axis(api: str, axis: object) -> int:
    t = tracer.active()
    if not t.grid:
        raise err(f"{api} in a kernel launched without a grid: give the grid "
                  "as Python launches it, --kernel FILE.py::FUNCTION[4,2]")
    if not isinstance(axis, int) or not 0 <= axis < len(t.grid):
        raise err(f"{api}({axis!r}): the launch grid has "
                  f"{len(t.grid)} axes ({'x'.join(map(str, t.grid))})")
    return axis


def _program_shared_hbm(t: "tracer.Trace", shape: Tuple[int, ...],
                        dtype: str) -> HbmHandle:
    """The HBM tensor a program after the first allocates: the first
    program's allocation of the same rank (the programs of a grid share
    HBM; each runs the same code, so the k-th allocation is the same)."""
    k = t.program_hbm_seen or 0
    t.program_hbm_seen = k + 1
    shared = t.program_hbm
    if k >= len(shared) or tuple(shared[k]._t.shape) != tuple(shape) or \
            shared[k]._t.dtype != dtype:
        raise err(f"program {t.program_ids} allocates HBM tensors the "
                  "first program did not (a [" + ", ".join(map(str, shape))
                  + f"] {dtype} tensor): programs that allocate different "
                  "HBM tensors are not yet supported")
    return shared[k]


def _program_id_2026(axis: object = None) -> object:
    """Today's `nl.program_id`: the NKI Library branches on it (`if
    prg_id == 0:`, sizes computed from it), so where the kernel decides
    something on it the programs are traced one by one, each with its
    index an int (expr.unroll on the grid's loop, cli._trace_once)."""
    t = tracer.active()
    axis = 0 if axis is None else axis
    dim = _grid_axis("nl.program_id", axis)
    if t.program_ids is None and t.grid[dim] > 1:
        t.grid_loops[dim].splittable = True
    return program_id(axis)  # type: ignore[arg-type]


setattr(_program_id_2026, "_traced_as", (
    "the variable of the launch grid's loop of that axis; where the kernel "
    "decides on it, each program traced on its own, its index an int"))


def program_id(axis: int) -> Affine:
    """The instance's index along `axis`: the variable of the grid's loop."""
    t = tracer.active()
    dim = _grid_axis("nl.program_id", axis)
    if t.program_ids is not None:
        return t.program_ids[dim]  # type: ignore[return-value]
    if t.grid[dim] == 1:
        # One program along the axis: its index is the int 0, so a kernel
        # may branch on it (`if program_id0 == 0:` of the NKI Library).
        return 0  # type: ignore[return-value]
    loop = t.grid_loops[dim]
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


# --- the rest of the documented API ------------------------------------------

def refused(name: str, reason: str):
    """A documented name the front end does not trace: calling it is one
    line naming it and why (the coverage table prints the reason)."""
    def f(*args: object, **kwargs: object) -> None:
        raise err(f"{name} is not supported by the NKI front end: {reason}")
    f.__name__ = f.__qualname__ = name.rpartition(".")[2]
    setattr(f, "_refused", reason)
    return f


class NKIObject:
    """Today's base class of NKI classes and of the configuration objects a
    kernel takes as arguments (nl.NKIObject). The language guide ("Class
    Support"): every NKI class is like a Python data class, `@dataclass` or
    not; the default initializer takes each field as a keyword defaulting to
    None (`def __init__(self, x = None, y = False)`) and calls
    `__post_init__`. So a field without a default may follow one with a
    default, and class-level values (`section_idx = None`) are fields too."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__annotations__", {})
        fields = dict(own)
        for name, value in list(cls.__dict__.items()):
            if name.startswith("__") or name in fields or \
                    _is_class_member(value):
                continue
            fields[name] = "object"  # an unannotated field (guide: a field)
        for name in fields:
            if name not in cls.__dict__:
                setattr(cls, name, None)  # the guide's default: None
        cls.__annotations__ = fields

    def __init__(self, *args: object, **kwargs: object) -> None:
        names = _nki_fields(type(self))
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} "
                            f"fields, {len(args)} given")
        for name, value in zip(names, args):
            kwargs.setdefault(name, value)
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__}() has no field "
                                f"{name!r}")
            setattr(self, name, value)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()


def _is_class_member(value: object) -> bool:
    """A method, property or nested class: not a data field of an NKI
    class."""
    return callable(value) or isinstance(
        value, (staticmethod, classmethod, property, type))


def _nki_fields(cls: type) -> list:
    names: list = []
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__annotations__", {}):
            if name not in names:
                names.append(name)
    return names


NkiTensor = Tile


def prelu(*args: object, **kwargs: object) -> None:
    """An activation function constant (`nisa.activation(op=nl.prelu)`);
    called on a tile it is ScalarE's PReLU."""
    if args and is_tile(args[0]):
        return _activation("prelu", args[0], kwargs.get("dtype"))
    raise err("nl.prelu is an activation function for nisa.activation(op=...)")


setattr(prelu, "_traced_as", "`activation` prelu")


def bypass(*args: object, **kwargs: object) -> None:
    """The ALU's pass-through operator (`op1=nl.bypass`): a constant."""
    raise err("nl.bypass is an ALU operator for nki.isa's op= arguments")


setattr(bypass, "_traced_as", "an ALU operator constant (op=)")


@traced_as("`tensor_reduce` (mean), `tensor_scalar` (x - mean), `activation` "
           "square, `tensor_reduce`")
def var(x: object, axis: object, dtype: object = None,
        keepdims: bool = False, *, mask: object = None,
        **kwargs: object) -> Tile:
    m = _reduce("var", x, axis, "fp32", keepdims)
    d = _binary("subtract", x, m, "fp32")
    sq = _activation("square", d, "fp32")
    out = _reduce("var", sq, axis, dtype or tile_dtype(x), keepdims)
    _masked(out, mask)
    return out


@traced_as("`tensor_reduce` max, `activation` exp (bias -max), "
           "`tensor_reduce` sum, `reciprocal`, `tensor_scalar`")
def softmax(x: object, axis: object, dtype: object = None,
            compute_dtype: object = None, *, mask: object = None,
            **kwargs: object) -> Tile:
    if not is_tile(x):
        raise err("nl.softmax takes a tile")
    mx = _reduce("softmax", x, axis, "fp32", True)
    e = make_op("activation", [x, mx], shape=tile_shape(x), dtype="fp32",
                func="exp")
    s = _reduce("softmax", result_tile(e), axis, "fp32", True)
    r = make_op("reciprocal", [s], shape=tile_shape(s), dtype="fp32")
    out = _binary("multiply", result_tile(e), result_tile(r),
                  _out_dtype(x, dtype))
    _masked(out, mask)
    return out


@traced_as("`activation` square, `tensor_reduce` sum, `activation` rsqrt, "
           "`tensor_scalar` (x * rstd), `tensor_tensor` (* w)")
def rms_norm(x: object, w: object, axis: object, n: object,
             epsilon: float = 1e-6, dtype: object = None,
             compute_dtype: object = None, *, mask: object = None,
             **kwargs: object) -> Tile:
    if not (is_tile(x) and is_tile(w)):
        raise err("nl.rms_norm takes tiles x and w")
    sq = _activation("square", x, "fp32")
    ss = _reduce("rms_norm", sq, axis, "fp32", True)
    rstd = _activation("rsqrt", ss, "fp32")
    y = _binary("multiply", x, rstd, "fp32")
    out = _binary("multiply", y, w, _out_dtype(x, dtype))
    _masked(out, mask)
    return out


@traced_as("`tensor_scalar` on VectorE (nisa.dropout: max(MIN_II, N) cycles)")
def dropout(x: object, rate: object, dtype: object = None, *,
            mask: object = None, **kwargs: object) -> Tile:
    if not is_tile(x):
        raise err("nl.dropout takes a tile")
    inputs = [x] + ([rate] if is_tile(rate) else [])
    op = make_op("tensor_scalar", inputs, shape=tile_shape(x),
                 dtype=_out_dtype(x, dtype), engine="vector")
    out = result_tile(op)
    _masked(out, mask)
    return out


@traced_as("`iota` on GpSimd: one generator instruction with no input (the "
           "reference gives no cost; iota's 150 + N cycles)")
def rand(shape: Sequence[int], dtype: object = None, buffer: object = None,
         name: str = "", **kwargs: object) -> Tile:
    shp, _ = _shape_and_pdim(shape)
    if _buffer_name(buffer) != "sbuf":
        raise err("nl.rand makes an SBUF tile")
    op = make_op("iota", (), shape=shp,
                 dtype=core.spec_dtype(dtype or float32), engine="gpsimd")
    return result_tile(op)


@traced_as("nothing: it sets the random generator's state, no tile")
def random_seed(seed: object, *, mask: object = None,
                **kwargs: object) -> None:
    return None


@traced_as("an HBM tensor [n, n] (a constant, as shared_constant)")
def shared_identity_matrix(n: int, dtype: object = None, dst: object = None,
                           **kwargs: object) -> HbmHandle:
    t = tracer.active()
    target = tracer.current_target() or "identity"
    d = core.spec_dtype(dtype if dtype is not None else uint8)
    tensor = ir.HbmTensor(_unique_tensor_name(target), (int(n), int(n)), d)
    t.tensors.append(tensor)
    return HbmHandle(tensor, dtype)


@traced_as("a `load` of an HBM constant [n, n] into SBUF (today's "
           "reference: the identity is made in SBUF), or into dst=")
def _shared_identity_matrix_2026(n: int, dtype: object = None,
                                 dst: object = None,
                                 **kwargs: object) -> object:
    """Today's `nki.language.shared_identity_matrix` "creates an identity
    matrix in SBUF" (2026-08 reference), where SDK 2.x's is a tensor the
    kernel loads: the constant in HBM and its load into a tile (dst= when
    given), the copy the compiler makes."""
    tile = load(shared_identity_matrix(n, dtype))
    if dst is None:
        return tile
    out = core._unlist(dst)
    if isinstance(out, TileView):
        core.write(out.tile, out.dims, tile, "set")
    elif isinstance(out, Tile):
        core.write(out, core.normalize(out._a.shape, ()), tile, "set")
    else:
        raise err("nl.shared_identity_matrix(dst=...) is an on-chip tile")
    return dst


@traced_as("`tensor_tensor` on GpSimd reading the data and the indices "
           "(a gather; our reading, the reference gives no cost)")
def gather_flattened(data: object, indices: object, axis: int = 0,
                     dtype: object = None, *, mask: object = None,
                     **kwargs: object) -> Tile:
    if not (is_tile(data) and is_tile(indices)):
        raise err("nl.gather_flattened takes tiles data and indices")
    op = make_op("tensor_tensor", [data, indices],
                 shape=tile_shape(indices), dtype=_out_dtype(data, dtype),
                 engine="gpsimd")
    return result_tile(op)


@traced_as("loop `sequential` (integer bounds; a register bound refuses)")
def dynamic_range(start: object, stop: object = None, step: int = 1,
                  **kwargs: object) -> core.LoopRange:
    args = (start,) if stop is None else (start, stop, step)
    for a in args:
        if not isinstance(a, (int, Affine)):
            raise err("nl.dynamic_range with a bound held in a register is "
                      "not supported: a shape-only trace needs the trip "
                      "count")
    return core.LoopRange("sequential", args, "nl.dynamic_range")


@traced_as("loop `sequential` around body_fun(i)")
def fori_loop(lower: object, upper: object, body_fun: object,
              step: int = 1) -> None:
    if not callable(body_fun):
        raise err("nl.fori_loop's body_fun is a function of the loop index")
    for i in dynamic_range(lower, upper, step):
        body_fun(i)
    return None


while_loop = refused("nl.while_loop", "its trip count depends on values on "
                     "the device, which a shape-only trace does not have")
atomic_rmw = refused("nl.atomic_rmw", "a read-modify-write DMA into HBM, "
                     "which the spec format's store cannot state")
all_reduce = refused("nl.all_reduce", "collectives reach beyond one "
                     "NeuronCore; trnbench models one")


class _NotOneCore:
    """`nl.spmd_dim` / `nl.nc`: a grid over several NeuronCores."""

    def __init__(self, name: str) -> None:
        self._refused = ("a launch grid over several NeuronCores; trnbench "
                         "models one NeuronCore")
        self._name = name

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise err(f"nl.{self._name} is not supported by the NKI front end: "
                  f"{self._refused}")

    __getitem__ = __call__
    __mul__ = __call__
    __rmul__ = __call__


spmd_dim = _NotOneCore("spmd_dim")
nc = _NotOneCore("nc")


class _TileSize21:
    """SDK 2.x's `nl.tile_size` (neuronxcc.nki): psum_fmax is a PSUM tile's
    free dim, 2048 fp32 elements."""
    pmax = 128
    psum_fmax = 2048
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    total_available_sbuf_size = 192 * 1024

    def __getattr__(self, name: str) -> int:
        if name.startswith("_"):
            raise AttributeError(name)
        raise err(f"nl.tile_size.{name}: the reference gives no value for it")


class _TileSize2026(_TileSize21):
    """Today's `nl.tile_size` (nki): psum_fmax is deprecated and means a
    PSUM bank's free dim, 512 fp32 elements (nki.language.tile_size)."""
    psum_fmax = 512
    psum_bank_fmax = 512
    psum_bank_fmax_bytes = 2048
    psum_num_banks = 8
    sbuf_fmax_bytes = 192 * 1024
    sbuf_fmax = 192 * 1024 // 4
    sbuf_size_bytes = 128 * 192 * 1024


tile_size = _TileSize21()
tile_size_2026 = _TileSize2026()


# What the older functions become (the newer ones say it with @traced_as).
for _name, _text in {
        "load": "`load` (mask: `affine_mask`)",
        "store": "`store`",
        "load_transpose2d": "`load` with `transpose`",
        "copy": "`tensor_copy`",
        "ndarray": "an SBUF/PSUM array, or an HBM tensor (`shared_hbm`, "
                   "`hbm`, `private_hbm`)",
        "zeros": "`memset` (elided in PSUM when a matmul accumulates into "
                 "it)",
        "zeros_like": "`memset`", "ones": "`memset`", "full": "`memset`",
        "empty_like": "an array",
        "shared_constant": "an HBM tensor of the constant's shape",
        "matmul": "`matmul` (TensorE; with `transpose_x=False`, the default, "
                  "`\"insert_transpose\": true`: the compiler stage inserts "
                  "the transpose)",
        "transpose": "`transpose`: over `[32, 32]` on TensorE into PSUM (the "
                     "one engine that transposes it), else engine left to "
                     "the compiler",
        "ds": "a slice", "arange": "an index axis",
        "where": "`select` (three tiles)",
        "static_range": "loop `static`", "affine_range": "loop `affine`",
        "sequential_range": "loop `sequential`",
        "par_dim": "the partition dim of an allocation",
        "program_id": "the variable of the launch grid's loop of that axis",
        "num_programs": "the grid's size (of an axis, of several, or all)",
        "program_ndim": "the grid's axes",
        "device_print": "nothing (no values exist)",
        "reciprocal": "`reciprocal`",
        "expand_dims": "a view of the tile with dims of size 1 added, as "
                       "its reshape (also the tile method "
                       "`x.expand_dims`); the partition dim stays",
        "broadcast_to": "`\"broadcasts\"` on the op that reads it (also the "
                        "tile method `x.broadcast_to`); a free-dim broadcast "
                        "needs no key",
        "is_psum": "a buffer test", "is_sbuf": "a buffer test",
        "is_hbm": "a buffer test", "is_on_chip": "a buffer test",
        "loop_reduce": "`tensor_tensor` into its destination, carried "
                       "across the loops (nisa.tensor_tensor(dst, x), as the "
                       "reference has it)",
        "no_reorder": "`\"no_reorder\": true` on the loops of its region and "
                      "on the loop whose body holds it",
}.items():
    if _name in globals():
        globals()[_name]._traced_as = _text
setattr(mgrid, "_traced_as", "index axes (.p, .x, ...)")

# Python operators on tiles (`a + b`, `-x`, `1.0 / s`) trace as these calls.
_tiles.OPS.add, _tiles.OPS.subtract = add, subtract
_tiles.OPS.multiply, _tiles.OPS.divide = multiply, divide


wrap_masked(globals())
