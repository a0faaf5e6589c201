"""`nki.isa` (both generations) as shape-only tracing functions. An op
states its engine where the source does (`engine=nisa.vector_engine`) or
where the instruction exists on one engine only; otherwise the compiler
stage places it."""

from __future__ import annotations

from typing import Optional, Sequence

from . import core, ir, language
from .core import (HbmHandle, HbmView, Tile, TileView, err, is_tile, make_op,
                   result_tile, tile_dtype, tile_shape)


class _Engine:
    def __init__(self, name: Optional[str]) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"nisa.{self.name or 'unknown'}_engine"


tensor_engine = _Engine("tensor")
vector_engine = _Engine("vector")
scalar_engine = _Engine("scalar")
gpsimd_engine = _Engine("gpsimd")
unknown_engine = _Engine(None)
dma_engine = _Engine(None)  # dma_copy's engine: DMA, not a compute engine


class _Enum:
    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)


reduce_cmd = _Enum(idle=0, reset=1, reset_reduce=2, reduce=3)
dge_mode = _Enum(none=0, swdge=1, hwdge=2, unknown=3)
oob_mode = _Enum(error=0, skip=1)
nc_version = _Enum(gen2=2, gen3=3, gen4=4)
matmul_perf_mode = _Enum(none=0, double_row=1, double_row_gen3=2)
engine = _Enum(tensor=tensor_engine, vector=vector_engine,
               scalar=scalar_engine, gpsimd=gpsimd_engine,
               unknown=unknown_engine, dma=dma_engine)


def get_nc_version() -> int:
    return nc_version.gen2


def _engine(engine: object) -> Optional[str]:
    if engine is None or isinstance(engine, int):
        return None
    if isinstance(engine, _Engine):
        return engine.name
    raise err(f"engine={engine!r} is not an nki.isa engine")


def _func_name(op: object) -> str:
    name = getattr(op, "__name__", None) or str(op)
    return {"exp": "exp", "rsqrt": "rsqrt", "sqrt": "sqrt", "square": "square",
            "tanh": "tanh", "gelu": "gelu", "sigmoid": "sigmoid",
            "relu": "relu", "log": "log", "copy": "copy",
            "identity": "copy"}.get(name, name)


def _finish(op: ir.Op, dst: object) -> object:
    """The new API writes into `dst=`; the old returns the tile."""
    if dst is None:
        return result_tile(op)
    dst = core._unlist(dst)
    if isinstance(dst, TileView):
        core.write(dst.tile, dst.dims, result_tile(op), "set")
    elif isinstance(dst, Tile):
        core.write(dst, core.normalize(dst._a.shape, ()), result_tile(op),
                   "set")
    else:
        raise err("dst= is an on-chip tile")
    return None


def _dst_shape(dst: object, fallback: Sequence[int]) -> Sequence[int]:
    return tile_shape(dst) if is_tile(dst) else fallback


def _dst_dtype(dst: object, dtype: object, fallback: str) -> str:
    if dtype is not None:
        return core.spec_dtype(dtype)
    if is_tile(dst):
        return tile_dtype(dst)
    return fallback


def nc_matmul(stationary: object = None, moving: object = None, *args: object,
              dst: object = None, accumulate: object = None,
              **kwargs: object) -> object:
    if dst is None and args and is_tile(args[0]):
        # Today's positional form: nc_matmul(dst, stationary, moving).
        dst, stationary, moving = stationary, moving, args[0]
    if not (is_tile(stationary) and is_tile(moving)):
        raise err("nisa.nc_matmul takes a stationary and a moving tile")
    ss, sm = tile_shape(stationary), tile_shape(moving)
    if ss[0] != sm[0]:
        raise err(f"nisa.nc_matmul contracts {ss[0]} with {sm[0]} partitions")
    m = core.tile_of(ss)[1]
    n = core.tile_of(sm)[1]
    op = make_op("matmul", [stationary, moving], shape=(m, n), dtype="fp32",
                 buffer="psum", engine="tensor")
    if dst is None:
        return result_tile(op)
    # nc_matmul(dst=psum_tile, ...) accumulates into the PSUM tile.
    target = dst.tile if isinstance(dst, TileView) else dst
    dims = dst.dims if isinstance(dst, TileView) else core.normalize(
        target._a.shape, ())
    core.write(target, dims, result_tile(op), "acc")
    return None


def tensor_copy(src: object = None, *, dst: object = None,
                engine: object = None, dtype: object = None,
                mask: object = None, **kwargs: object) -> object:
    if not is_tile(src):
        raise err("nisa.tensor_copy takes a tile src")
    op = make_op("tensor_copy", [src], shape=_dst_shape(dst, tile_shape(src)),
                 dtype=_dst_dtype(dst, dtype, tile_dtype(src)),
                 engine=_engine(engine))
    return _finish(op, dst)


def activation(op: object = None, data: object = None, bias: object = None,
               scale: object = 1.0, *, dst: object = None,
               reduce_op: object = None, reduce_res: object = None,
               dtype: object = None, mask: object = None,
               **kwargs: object) -> object:
    func = _func_name(op)
    if func not in language._ACTIVATION_FUNCS:
        raise err(f"activation function {func} is not supported; supported: "
                  + ", ".join(sorted(language._ACTIVATION_FUNCS)))
    if not is_tile(data):
        raise err("nisa.activation takes a tile data=")
    inputs = [data]
    extra = [x for x in (bias, scale) if is_tile(x)]
    inputs += extra[:1]
    o = make_op("activation", inputs, shape=_dst_shape(dst, tile_shape(data)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)), func=func,
                engine="scalar")
    for x in extra[1:]:
        o.after.append(core.ref_of(x))
    out = _finish(o, dst)
    if reduce_res is not None:
        core.write_reduction(reduce_res, o)
    return out


def activation_reduce(op: object = None, data: object = None,
                      reduce_op: object = None, reduce_res: object = None,
                      bias: object = None, scale: object = 1.0, *,
                      dst: object = None, dtype: object = None,
                      **kwargs: object) -> object:
    if reduce_res is None:
        raise err("nisa.activation_reduce needs reduce_res=, the tile its "
                  "reduction is written to")
    return activation(op=op, data=data, bias=bias, scale=scale, dst=dst,
                      reduce_op=reduce_op, reduce_res=reduce_res,
                      dtype=dtype)


def tensor_tensor(data1: object = None, data2: object = None,
                  op: object = None, *, dst: object = None,
                  engine: object = None, dtype: object = None,
                  mask: object = None, **kwargs: object) -> object:
    if not (is_tile(data1) and is_tile(data2)):
        raise err("nisa.tensor_tensor takes two tiles")
    o = make_op("tensor_tensor", [data1, data2],
                shape=_dst_shape(dst, tile_shape(data1)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data1)),
                engine=_engine(engine))
    return _finish(o, dst)


def tensor_scalar(data: object = None, op0: object = None,
                  operand0: object = None, reverse0: bool = False,
                  op1: object = None, operand1: object = None, *,
                  dst: object = None, engine: object = None,
                  dtype: object = None, mask: object = None,
                  **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.tensor_scalar takes a tile data")
    operands = [x for x in (operand0, operand1) if is_tile(x)]
    o = make_op("tensor_scalar", [data] + operands[:1],
                shape=_dst_shape(dst, tile_shape(data)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine=_engine(engine))
    # A second [P, 1] operand (op1's) is read too: the op waits for it, as
    # activation waits for its scale tile (the format's tensor_scalar has
    # one operand input).
    for x in operands[1:]:
        o.after.append(core.ref_of(x))
    return _finish(o, dst)


def tensor_scalar_reduce(data: object = None, op0: object = None,
                         operand0: object = None, reduce_op: object = None,
                         reduce_res: object = None, reverse0: bool = False,
                         *, dst: object = None, dtype: object = None,
                         mask: object = None, **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.tensor_scalar_reduce takes a tile data")
    if reduce_res is None:
        raise err("nisa.tensor_scalar_reduce needs reduce_res=, the tile "
                  "its reduction is written to")
    o = make_op("tensor_scalar",
                [data] + ([operand0] if is_tile(operand0) else []),
                shape=_dst_shape(dst, tile_shape(data)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine="vector")  # the ISA runs it on VectorE only
    out = _finish(o, dst)
    core.write_reduction(reduce_res, o)
    return out


def tensor_reduce(op: object = None, data: object = None, axis: object = None,
                  *, dst: object = None, engine: object = None,
                  dtype: object = None, negate: bool = False,
                  keepdims: bool = False, mask: object = None,
                  **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.tensor_reduce takes a tile data")
    shape = tile_shape(data)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(int(a) % len(shape) for a in axes)
    if 0 in axes:
        raise err("nisa.tensor_reduce along the partition axis is not "
                  "supported")
    out = tuple(1 if i in axes else s for i, s in enumerate(shape))
    o = make_op("tensor_reduce", [data], shape=_dst_shape(dst, out),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine=_engine(engine))
    return _finish(o, dst)


def tensor_tensor_scan(data0: object = None, data1: object = None,
                       initial: object = None, op0: object = None,
                       op1: object = None, reverse0: bool = False,
                       reverse1: bool = False, *, dst: object = None,
                       dtype: object = None, mask: object = None,
                       **kwargs: object) -> object:
    if not (is_tile(data0) and is_tile(data1)):
        raise err("nisa.tensor_tensor_scan takes two tiles")
    inputs = [data0, data1] + ([initial] if is_tile(initial) else [])
    o = make_op("tensor_tensor_scan", inputs,
                shape=_dst_shape(dst, tile_shape(data0)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data0)),
                engine="vector")
    return _finish(o, dst)


def memset(shape: object = None, value: object = 0, dtype: object = None, *,
           dst: object = None, engine: object = None, mask: object = None,
           **kwargs: object) -> object:
    if dst is not None:
        target = dst.tile if isinstance(dst, TileView) else dst
        dims = dst.dims if isinstance(dst, TileView) else core.normalize(
            target._a.shape, ())
        core.write(target, dims, 0.0, "set")
        op = target._a.current
        if isinstance(op, ir.Op):
            op.engine = _engine(engine)
        return None
    if shape is None or dtype is None:
        raise err("nisa.memset takes shape= and dtype= (or dst=)")
    o = make_op("memset", (), shape=tuple(shape), dtype=core.spec_dtype(dtype),
                engine=_engine(engine))
    return result_tile(o)


def iota(expr: object = None, dtype: object = None, *, dst: object = None,
         mask: object = None, **kwargs: object) -> object:
    from .expr import Affine
    if isinstance(expr, Affine):
        axes = expr.axes()
        shape = [1, 1]
        for a in axes:
            if a.position < 2:
                shape[a.position] = a.extent
    elif is_tile(dst):
        shape = list(tile_shape(dst))
    else:
        raise err("nisa.iota takes an index expression")
    o = make_op("iota", (), shape=_dst_shape(dst, shape),
                dtype=_dst_dtype(dst, dtype, "int32"), engine="gpsimd")
    return _finish(o, dst)


# VectorE transposes a tile of at most [32, 32], TensorE one of at most
# [128, 128] into PSUM (NKI ISA reference, nc_transpose): a larger tile has
# one engine, which the trace states.
_VECTOR_TRANSPOSE = 32


def nc_transpose(data: object = None, *, dst: object = None,
                 engine: object = None, mask: object = None,
                 dtype: object = None, **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.nc_transpose takes a tile")
    p, f = core.tile_of(tile_shape(data))
    eng = _engine(engine)
    if max(p, f) > _VECTOR_TRANSPOSE:
        if eng == "vector":
            raise err(f"nisa.nc_transpose of a [{p}, {f}] tile on the "
                      "vector engine: VectorE transposes at most [32, 32] "
                      "(NKI ISA reference)")
        eng = "tensor"  # the one engine that transposes it
    o = make_op("transpose", [data], shape=_dst_shape(dst, (f, p)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)), engine=eng,
                buffer="psum" if eng == "tensor" else None)
    return _finish(o, dst)


def reciprocal(data: object = None, *, dst: object = None,
               engine: object = None, dtype: object = None,
               mask: object = None, **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.reciprocal takes a tile")
    o = make_op("reciprocal", [data], shape=_dst_shape(dst, tile_shape(data)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine=_engine(engine))
    return _finish(o, dst)


def bn_stats(data: object = None, *, dst: object = None, dtype: object = None,
             mask: object = None, **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.bn_stats takes a tile")
    p = tile_shape(data)[0]
    o = make_op("bn_stats", [data], shape=_dst_shape(dst, (p, 6)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine="vector")
    return _finish(o, dst)


def bn_aggr(data: object = None, *, dst: object = None, dtype: object = None,
            mask: object = None, **kwargs: object) -> object:
    if not is_tile(data):
        raise err("nisa.bn_aggr takes a tile")
    p = tile_shape(data)[0]
    o = make_op("bn_aggr", [data], shape=_dst_shape(dst, (p, 2)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(data)),
                engine="vector")
    return _finish(o, dst)


def affine_select(pred: object = None, on_true_tile: object = None,
                  on_false_value: object = None, *, dst: object = None,
                  dtype: object = None, mask: object = None,
                  **kwargs: object) -> object:
    if not is_tile(on_true_tile):
        raise err("nisa.affine_select takes a tile on_true_tile")
    o = make_op("affine_select", [on_true_tile],
                shape=_dst_shape(dst, tile_shape(on_true_tile)),
                dtype=_dst_dtype(dst, dtype, tile_dtype(on_true_tile)),
                engine="gpsimd")
    return _finish(o, dst)


def dma_transpose(src: object = None, *, dst: object = None,
                  axes: object = None, dge_mode: object = None,
                  **kwargs: object) -> object:
    """A DMA transpose from HBM: a load with "transpose"."""
    tile = language.load_transpose2d(src)
    if dst is None:
        return tile
    target = dst.tile if isinstance(dst, TileView) else dst
    dims = dst.dims if isinstance(dst, TileView) else core.normalize(
        target._a.shape, ())
    core.write(target, dims, tile, "set")
    return None


def dma_copy(*, dst: object = None, src: object = None, mask: object = None,
             dge_mode: object = None, **kwargs: object) -> None:
    if isinstance(dst, HbmHandle):
        dst = dst[...]
    if isinstance(src, HbmHandle):
        src = src[...]
    if isinstance(src, HbmView) and is_tile(dst):
        tile = language.load(src, mask=mask)
        target = dst.tile if isinstance(dst, TileView) else dst
        dims = dst.dims if isinstance(dst, TileView) else core.normalize(
            target._a.shape, ())
        op = tile._a.current
        assert isinstance(op, ir.Op)
        op.tile = core.tile_of(core.view_tile(target._a, dims))
        core.write(target, dims, tile, "set")
    elif isinstance(dst, HbmView) and is_tile(src):
        language.store(dst, value=src, mask=mask)
    elif isinstance(dst, HbmView) and isinstance(src, HbmView):
        if dst.shape != src.shape:
            raise err("nisa.dma_copy between HBM tensors of different shapes")
        op = make_op("hbm_copy", (), shape=dst.shape, dtype="fp32",
                     result=False)
        op.tensor = dst.handle._t
        op.source = src.handle._t
        op.access = dst.dims
    else:
        raise err("nisa.dma_copy copies between HBM and on-chip tiles")
