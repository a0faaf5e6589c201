"""`nki.isa` (both generations) as shape-only tracing functions. An op
states its engine where the source does (`engine=nisa.vector_engine`) or
where the instruction exists on one engine only; otherwise the compiler
stage places it."""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

from . import core, ir, language, location
from .core import (HbmHandle, HbmView, Tile, TileView, err, is_tile, make_op,
                   result_tile, tile_dtype, tile_shape)
from .tiles import ApHbmView, waits_of


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
dma_engine.dma = dma_engine  # today's nisa.dma_engine.dma / .gpsimd_dma
dma_engine.gpsimd_dma = dma_engine


class _Enum:
    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)


reduce_cmd = _Enum(idle=0, reset=1, reset_reduce=2, reduce=3, load_reduce=4)
dge_mode = _Enum(none=0, swdge=1, hwdge=2, unknown=3)
oob_mode = _Enum(error=0, skip=1)
nc_version = _Enum(gen2=2, gen3=3, gen4=4)
matmul_perf_mode = _Enum(none=0, double_row=1, double_row_gen3=2)
sync_engine = _Engine(None)  # the queue that orders, not a compute engine
engine = _Enum(tensor=tensor_engine, vector=vector_engine,
               scalar=scalar_engine, gpsimd=gpsimd_engine,
               unknown=unknown_engine, dma=dma_engine, sync=sync_engine)


def get_nc_version() -> int:
    return nc_version.gen2


def _engine(engine: object) -> Optional[str]:
    if engine is None or isinstance(engine, int):
        return None
    if isinstance(engine, _Engine):
        return engine.name
    raise err(f"engine={engine!r} is not an nki.isa engine")


# The spec's names of tensor_scalar's operators (the NKI reference's
# "Supported Math Operators"): nl.* functions carry them as __name__,
# NumPy's ufuncs as theirs, with these differences.
_NUMPY_ALU = {"amax": "maximum", "max": "maximum", "amin": "minimum",
              "min": "minimum", "true_divide": "divide", "sub": "subtract",
              "mul": "multiply"}


def alu_names(*ops: object) -> Optional[List[str]]:
    """The operators of a tensor_scalar as the spec's "alu" names, op0
    first, None ones left out; None if one is not a known operator."""
    out: List[str] = []
    for op in ops:
        if op is None:
            continue
        name = getattr(op, "__name__", None)
        if not isinstance(name, str):
            return None
        name = _NUMPY_ALU.get(name, name)
        if name not in ir.ALU_NAMES:
            return None
        out.append(name)
    return out or None


def _func_name(op: object) -> str:
    name = getattr(op, "__name__", None) or str(op)
    return {"identity": "copy"}.get(name, name)


def _finish(op: ir.Op, dst: object) -> object:
    """The new API writes into `dst=`; the old returns the tile."""
    if dst is None:
        return result_tile(op)
    dst = core._unlist(dst)
    # A destination .ap from a runtime offset: the op waits for it.
    op.after.extend(core.ref_of(w) for w in waits_of(dst))
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
                  op1: object = None, operand1: object = None,
                  reverse1: bool = False, *,
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
    o.alu = alu_names(op0, op1)
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


# The permutation of each rank (the ISA reference's dma_transpose).
_DMA_TRANSPOSE_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


def dma_transpose(src: object = None, *, dst: object = None,
                  axes: object = None, dge_mode: object = None,
                  **kwargs: object) -> object:
    """A DMA transpose of an HBM view (a load with "transpose") or of an
    SBUF tile (an sbuf_copy with "transpose"), of rank 2, 3 or 4 with the
    reference's permutation of that rank."""
    src = core._unlist(src)
    if isinstance(src, HbmHandle):
        src = src[...]
    if not isinstance(src, HbmView) and not is_tile(src):
        raise err("nisa.dma_transpose reads a tile in HBM or SBUF")
    shape = tuple(src.shape) if isinstance(src, HbmView) else tuple(
        tile_shape(src))
    perm = _DMA_TRANSPOSE_AXES.get(len(shape))
    if perm is None:
        raise err(f"nisa.dma_transpose of a tile of rank {len(shape)}: the "
                  "ISA reference transposes 2-D, 3-D and 4-D tiles")
    given = tuple(axes) if isinstance(axes, (list, tuple)) else axes
    if given is not None and given != perm:
        raise err(f"nisa.dma_transpose(axes={given!r}) of a rank-"
                  f"{len(shape)} tile: the ISA reference supports axes "
                  f"{perm} at that rank")
    out = tuple(shape[i] for i in perm)
    if isinstance(src, HbmView):
        d = src.handle._t.dtype
        op = make_op("load", (), shape=out, dtype=d)
        op.tensor = src.handle._t
        op.access = src.dims
        op.indirect = core.indirect_ref(src.dims)
        op.after.extend(core.ref_of(w) for w in src.waits)
    else:
        _check_sbuf("nisa.dma_transpose", src)
        op = _on_chip_dma(src, out, tile_dtype(src))
    op.transpose = True
    return _finish(op, dst)


def _check_sbuf(api: str, x: object) -> None:
    """A DMA reads and writes SBUF or HBM (the ISA reference's dma_copy,
    memory types): not PSUM, and not a broadcast."""
    x = core._unlist(x)
    if isinstance(x, core.Broadcast):
        raise err(f"{api} of a broadcast tile: a DMA moves the tile's own "
                  "elements (broadcast it in the op that reads it)")
    t = x.tile if isinstance(x, TileView) else x
    if t._a.buffer != "sbuf":
        raise err(f"{api} of a {t._a.buffer} tile: a DMA reads and writes "
                  "SBUF or HBM (the ISA reference's dma_copy, memory types)")


def _sbuf_copy(dst: object, src: object) -> None:
    """`nisa.dma_copy` between two SBUF tiles: an sbuf_copy of the
    destination's shape; the element counts are equal (the reference's
    tile size rule)."""
    _check_sbuf("nisa.dma_copy", src)
    _check_sbuf("nisa.dma_copy", dst)
    src_shape, dst_shape = tile_shape(src), tile_shape(dst)
    if math.prod(src_shape) != math.prod(dst_shape):
        raise err(f"nisa.dma_copy of a tile of shape {list(src_shape)} into "
                  f"one of {list(dst_shape)}: the element counts must match "
                  "(the ISA reference's dma_copy, tile size)")
    _finish(_on_chip_dma(src, dst_shape, tile_dtype(dst)), dst)


def _on_chip_dma(src: object, shape: Sequence[int], dtype: str) -> ir.Op:
    """The sbuf_copy reading `src`; a view of it indexed by a tile is a
    gather of its partitions: the op reads the whole tile and waits for
    the index tile ("indirect")."""
    src = core._unlist(src)
    index = core.indirect_ref(src.dims) if isinstance(src, TileView) \
        else None
    if index is not None:
        src = src.tile  # type: ignore[union-attr]
    op = make_op("sbuf_copy", [src], shape=shape, dtype=dtype)
    op.indirect = index
    return op


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
        op.after.extend(core.ref_of(w) for w in waits_of(dst))
        core.write(target, dims, tile, "set")
    elif isinstance(dst, HbmView) and is_tile(src):
        language.store(dst, value=src, mask=mask)
    elif isinstance(dst, HbmView) and isinstance(src, HbmView):
        if tuple(dst.shape) != tuple(src.shape):
            raise err("nisa.dma_copy between HBM tensors of different shapes")
        op = make_op("hbm_copy", (), shape=dst.shape, dtype="fp32",
                     result=False)
        op.tensor = dst.handle._t
        op.source = _copy_source(dst, src)
        op.access = dst.dims
        op.after.extend(core.ref_of(w) for w in src.waits + dst.waits)
    elif is_tile(dst) and is_tile(src):
        _sbuf_copy(dst, src)
    else:
        raise err("nisa.dma_copy copies between HBM and on-chip tiles")


def _copy_source(dst: HbmView, src: HbmView) -> ir.HbmTensor:
    """The tensor an hbm_copy names as its `from`: the source's own, or,
    where either side is an access pattern (its tensor shaped as its
    pattern's block), a tensor of the destination's shape standing for the
    source's elements, so that the copy moves the same block of each."""
    d, s = dst.handle._t, src.handle._t
    if s.shape == d.shape or not (isinstance(src, ApHbmView) or
                                  isinstance(dst, ApHbmView)):
        return s
    if s.dtype != d.dtype:
        raise err(f"nisa.dma_copy from {s.name} ({s.dtype}) to {d.name} "
                  f"({d.dtype}): a DMA between HBM tensors does not cast")
    name = f"{s.name}_as_" + "x".join(map(str, d.shape))
    t = location.active()
    for x in t.tensors:
        if x.name == name:
            return x
    tensor = ir.HbmTensor(name, d.shape, d.dtype)
    t.tensors.append(tensor)
    return tensor


# --- the rest of the documented ISA ------------------------------------------
# Each new instruction is traced as the spec op whose published cost rule
# ("Estimated instruction cost", SDK 2.26 ISA reference) is the
# instruction's own; where the reference gives none, the nearest rule of
# the same engine, said so in `_traced_as` (docs/nki-source.md, coverage).

traced_as = language.traced_as
refused = language.refused


def _tile_arg(api: str, name: str, x: object) -> None:
    if not is_tile(x):
        raise err(f"nisa.{api} takes a tile {name}=")


def _op(kind: str, inputs: Sequence[object], shape: Sequence[int],
        dtype: str, engine: Optional[str], limit: int,
        func: Optional[str] = None) -> ir.Op:
    """An op reading `inputs`; those past the spec op's arity are waited for
    (`after`), as activation waits for its scale tile."""
    tiles = [x for x in inputs if is_tile(x)]
    o = make_op(kind, tiles[:limit], shape=shape, dtype=dtype, engine=engine,
                func=func)
    for x in tiles[limit:]:
        o.after.append(core.ref_of(x))
    return o


def _with_reduce(o: ir.Op, dst: object, reduce_res: object) -> object:
    out = _finish(o, dst)
    if reduce_res is not None:
        core.write_reduction(reduce_res, o)
    return out


@traced_as("`tensor_scalar` on VectorE: max(MIN_II, N)")
def dropout(data: object = None, prob: object = None, *, dst: object = None,
            mask: object = None, dtype: object = None,
            **kwargs: object) -> object:
    _tile_arg("dropout", "data", data)
    o = _op("tensor_scalar", [data, prob], _dst_shape(dst, tile_shape(data)),
            _dst_dtype(dst, dtype, tile_dtype(data)), "vector", 2)
    return _finish(o, dst)


def _eight(api: str, src: object, dst: object, dtype: object) -> object:
    _tile_arg(api, "src", src)
    p = tile_shape(src)[0]
    o = _op("tensor_reduce", [src], _dst_shape(dst, (p, 8)),
            _dst_dtype(dst, dtype, tile_dtype(src)), "vector", 1)
    return _finish(o, dst)


@traced_as("`tensor_reduce` on VectorE into [P, 8]: N cycles of the source")
def max8(*, src: object = None, dst: object = None, mask: object = None,
         dtype: object = None, **kwargs: object) -> object:
    return _eight("max8", src, dst, dtype)


@traced_as("`tensor_reduce` on VectorE into [P, 8]: N cycles of the data, "
           "waiting for vals")
def nc_find_index8(*, data: object = None, vals: object = None,
                   dst: object = None, mask: object = None,
                   dtype: object = None, **kwargs: object) -> object:
    out = _eight("nc_find_index8", data, dst, dtype or "int32")
    return out


@traced_as("`tensor_scalar` on VectorE over the data (max(MIN_II, N)), "
           "waiting for vals; dst_idx= a `tensor_copy` of [P, 8] of it")
def nc_match_replace8(*, data: object = None, vals: object = None,
                      imm: object = 0.0, dst_idx: object = None,
                      dst: object = None, mask: object = None,
                      dtype: object = None, **kwargs: object) -> object:
    _tile_arg("nc_match_replace8", "data", data)
    o = _op("tensor_scalar", [data, vals], _dst_shape(dst, tile_shape(data)),
            _dst_dtype(dst, dtype, tile_dtype(data)), "vector", 2)
    out = _finish(o, dst)
    if dst_idx is not None:
        _index_output(dst_idx, out if dst is None else dst)
    return out


def _index_output(dst_idx: object, result: object) -> None:
    """The matched values' indices, the instruction's second output (the
    reference: "the indices of the matched values are written to
    dst_idx"). The format gives an instruction no output beside its
    result and its reduction, so they are a copy of as many elements of
    the result into dst_idx: readers of dst_idx wait for the instruction,
    and the copy is one small instruction more than the hardware runs
    (as a store of part of a tile is, docs/nki-source.md)."""
    idx = core._unlist(dst_idx)
    if not is_tile(idx):
        raise err("dst_idx= is an on-chip tile")
    shape = tile_shape(idx)
    free = 1
    for n in shape[1:]:
        free *= n
    res = core._unlist(result)
    rshape = tile_shape(res)
    rfree = 1
    for n in rshape[1:]:
        rfree *= n
    if len(rshape) < 2 or free > rfree or shape[0] > rshape[0]:
        raise err(f"dst_idx= is a [P, 8] tile beside the result; got "
                  f"{list(shape)} beside {list(rshape)}: not yet supported")
    # The first `free` elements of the result's free dims, in their order
    # (the reference flattens them): a leading block of rows of them.
    key: list = [slice(0, shape[0])]
    for d in range(1, len(rshape)):
        trailing = 1
        for n in rshape[d + 1:]:
            trailing *= n
        if free >= trailing or d == len(rshape) - 1:
            rows = min(rshape[d], -(-free // trailing))
            key.append(slice(0, rows))
            key.extend(slice(0, n) for n in rshape[d + 1:])
            break
        key.append(slice(0, 1))
    part = res[tuple(key)]
    if isinstance(idx, TileView):
        core.write(idx.tile, idx.dims, part, "set")
    else:
        core.write(idx, core.normalize(idx._a.shape, ()), part, "set")


@traced_as("`tensor_tensor` on VectorE (data and operand1): 2N, or N with a "
           "PSUM operand")
def scalar_tensor_tensor(*, data: object = None, op0: object = None,
                         operand0: object = None, op1: object = None,
                         operand1: object = None, reverse0: bool = False,
                         reverse1: bool = False, dst: object = None,
                         dtype: object = None, mask: object = None,
                         **kwargs: object) -> object:
    _tile_arg("scalar_tensor_tensor", "data", data)
    _tile_arg("scalar_tensor_tensor", "operand1", operand1)
    o = _op("tensor_tensor", [data, operand1, operand0],
            _dst_shape(dst, tile_shape(data)),
            _dst_dtype(dst, dtype, tile_dtype(data)), "vector", 2)
    return _finish(o, dst)


@traced_as("`tensor_scalar` on VectorE: one pass, max(MIN_II, N) (no "
           "published cost)")
def tensor_scalar_cumulative(*, src: object = None, op0: object = None,
                             op1: object = None, imm0: object = None,
                             imm1: object = None, reduce_cmd: object = None,
                             dst: object = None, dtype: object = None,
                             **kwargs: object) -> object:
    _tile_arg("tensor_scalar_cumulative", "src", src)
    o = _op("tensor_scalar", [src, imm0, imm1],
            _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, dtype, tile_dtype(src)), "vector", 2)
    return _finish(o, dst)


@traced_as("`tensor_scalar` on VectorE: max(MIN_II, N); reduce_res= a "
           "`reduction`")
def range_select(*, on_true_tile: object = None, comp_op0: object = None,
                 comp_op1: object = None, bound0: object = None,
                 bound1: object = None, reduce_cmd: object = None,
                 reduce_res: object = None, reduce_op: object = None,
                 range_start: object = 0, on_false_value: object = None,
                 dst: object = None, mask: object = None,
                 dtype: object = None, **kwargs: object) -> object:
    _tile_arg("range_select", "on_true_tile", on_true_tile)
    o = _op("tensor_scalar", [on_true_tile, bound0, bound1],
            _dst_shape(dst, tile_shape(on_true_tile)),
            _dst_dtype(dst, dtype, tile_dtype(on_true_tile)), "vector", 2)
    return _with_reduce(o, dst, reduce_res)


@traced_as("`select` on VectorE (or `tensor_tensor` with a number "
           "on_false); with reduce_res=, `tensor_scalar` with `accumulate` "
           "and a `reduction` (no published cost)")
def select_reduce(*, dst: object = None, predicate: object = None,
                  on_true: object = None, on_false: object = None,
                  reduce_res: object = None, reduce_cmd: object = None,
                  reduce_op: object = None, reverse_pred: bool = False,
                  mask: object = None, dtype: object = None,
                  **kwargs: object) -> object:
    _tile_arg("select_reduce", "predicate", predicate)
    _tile_arg("select_reduce", "on_true", on_true)
    three = is_tile(on_false)
    shape = _dst_shape(dst, tile_shape(on_true))
    d = _dst_dtype(dst, dtype, tile_dtype(on_true))
    if reduce_res is not None:
        # With its reduction: one pass and the reduction read out, the
        # accumulate rule (the format's accumulate ops are activation and
        # tensor_scalar).
        o = _op("tensor_scalar", [on_true, predicate, on_false], shape, d,
                "vector", 2)
    elif three:
        o = _op("select", [predicate, on_true, on_false], shape, d, "vector",
                3)
    else:
        o = _op("tensor_tensor", [predicate, on_true], shape, d, "vector", 2)
    return _with_reduce(o, dst, reduce_res)


@traced_as("`tensor_copy` on VectorE: max(MIN_II, N)")
def nc_stream_shuffle(src: object = None, dst: object = None,
                      shuffle_mask: object = None, *, dtype: object = None,
                      mask: object = None, **kwargs: object) -> object:
    _tile_arg("nc_stream_shuffle", "src", src)
    o = _op("tensor_copy", [src], _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, dtype, tile_dtype(src)), "vector", 1)
    return _finish(o, dst)


@traced_as("`tensor_tensor` on VectorE (src, predicate): N with a PSUM "
           "operand, else 2N")
def tensor_copy_predicated(*, src: object = None, dst: object = None,
                           predicate: object = None,
                           reverse_pred: bool = False, mask: object = None,
                           dtype: object = None, **kwargs: object) -> object:
    _tile_arg("tensor_copy_predicated", "src", src)
    _tile_arg("tensor_copy_predicated", "predicate", predicate)
    o = _op("tensor_tensor", [src, predicate],
            _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, dtype, tile_dtype(src)), "vector", 2)
    return _finish(o, dst)


def _dynamic_copy(api: str):
    def f(src: object = None, *, dst: object = None, mask: object = None,
          dtype: object = None, engine: object = None,
          **kwargs: object) -> object:
        _tile_arg(api, "src", src)
        o = _op("tensor_copy", [src], _dst_shape(dst, tile_shape(src)),
                _dst_dtype(dst, dtype, tile_dtype(src)), "gpsimd", 1)
        return _finish(o, dst)
    f.__name__ = f.__qualname__ = api
    setattr(f, "_traced_as", (
        "`tensor_copy` on GpSimd: max(MIN_II, N) (the "
        "reference's 600-cycle dynamic minimum is not modelled)"))
    return f


tensor_copy_dynamic_src = _dynamic_copy("tensor_copy_dynamic_src")
tensor_copy_dynamic_dst = _dynamic_copy("tensor_copy_dynamic_dst")


@traced_as("`tensor_reduce` on GpSimd into one partition (no published cost)")
def tensor_partition_reduce(op: object = None, data: object = None, *,
                            dst: object = None, mask: object = None,
                            dtype: object = None, **kwargs: object) -> object:
    _tile_arg("tensor_partition_reduce", "data", data)
    f = core.tile_of(tile_shape(data))[1]
    o = _op("tensor_reduce", [data], _dst_shape(dst, (1, f)),
            _dst_dtype(dst, dtype, tile_dtype(data)), "gpsimd", 1)
    return _finish(o, dst)


def _gather(api: str):
    def f(src_buffer: object = None, index: object = None, *args: object,
          dst: object = None, mask: object = None, dtype: object = None,
          **kwargs: object) -> object:
        _tile_arg(api, "src_buffer", src_buffer)
        shape = _dst_shape(dst, tile_shape(index) if is_tile(index)
                           else tile_shape(src_buffer))
        o = _op("affine_select", [src_buffer, index], shape,
                _dst_dtype(dst, dtype, tile_dtype(src_buffer)), "gpsimd", 1)
        return _finish(o, dst)
    f.__name__ = f.__qualname__ = api
    setattr(f, "_traced_as", (
        "`affine_select`'s GpSimd rule, 150 + N (the reference's "
        "150 + N/C with C taken as 1), waiting for the indices"))
    return f


local_gather = _gather("local_gather")


@traced_as("`affine_select`'s GpSimd rule, 150 + N, waiting for the indices "
           "(no published cost)")
def nc_n_gather(data: object = None, indices: object = None, *,
                dst: object = None, **kwargs: object) -> object:
    return local_gather(data, indices, dst=dst)


@traced_as("`tensor_reduce` on the source (N; no published cost)")
def sequence_bounds(*, segment_ids: object = None, dst: object = None,
                    dtype: object = None, **kwargs: object) -> object:
    _tile_arg("sequence_bounds", "segment_ids", segment_ids)
    p = tile_shape(segment_ids)[0]
    o = _op("tensor_reduce", [segment_ids], _dst_shape(dst, (p, 2)),
            _dst_dtype(dst, dtype, tile_dtype(segment_ids)), None, 1)
    return _finish(o, dst)


@traced_as("`activation` exp (ScalarE); reduce_res= a `reduction`")
def exponential(src: object = None, max_value: object = None, *,
                dst: object = None, reduce_res: object = None,
                dtype: object = None, **kwargs: object) -> object:
    _tile_arg("exponential", "src", src)
    o = _op("activation", [src, max_value], _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, dtype, tile_dtype(src)), "scalar", 2, func="exp")
    return _with_reduce(o, dst, reduce_res)


@traced_as("`activation` of its function (ScalarE); reduce_res= a "
           "`reduction`")
def activate2(op: object = None, data: object = None, *, dst: object = None,
              imm0: object = None, imm1: object = None,
              reduce_res: object = None, dtype: object = None,
              **kwargs: object) -> object:
    func = _func_name(op)
    if func not in language._ACTIVATION_FUNCS:
        raise err(f"activation function {func} is not supported; supported: "
                  + ", ".join(sorted(language._ACTIVATION_FUNCS)))
    _tile_arg("activate2", "data", data)
    o = _op("activation", [data, imm0, imm1],
            _dst_shape(dst, tile_shape(data)),
            _dst_dtype(dst, dtype, tile_dtype(data)), "scalar", 2, func=func)
    return _with_reduce(o, dst, reduce_res)


@traced_as("`matmul` on TensorE (the scales waited for)")
def nc_matmul_mx(stationary: object = None, moving: object = None,
                 stationary_scale: object = None,
                 moving_scale: object = None, *, dst: object = None,
                 accumulate: object = None, **kwargs: object) -> object:
    out = nc_matmul(stationary, moving, dst=dst)
    return out


@traced_as("`tensor_scalar` on VectorE (no published cost)")
def quantize_mx(src: object = None, dst_scale: object = None, *,
                dst: object = None, **kwargs: object) -> object:
    _tile_arg("quantize_mx", "src", src)
    o = _op("tensor_scalar", [src], _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, None, "int8"), "vector", 1)
    return _finish(o, dst)


def _generator(api: str):
    def f(*args: object, dst: object = None, engine: object = None,
          **kwargs: object) -> object:
        if not is_tile(dst):
            raise err(f"nisa.{api} writes dst=, an on-chip tile")
        o = _op("iota", [], tile_shape(dst), tile_dtype(dst), "gpsimd", 0)
        return _finish(o, dst)
    f.__name__ = f.__qualname__ = api
    setattr(f, "_traced_as", (
        "`iota` on GpSimd: a generator with no input, 150 + N "
        "(no published cost)"))
    return f


rng = _generator("rng")
rand2 = _generator("rand2")


def _state(api: str):
    def f(*args: object, **kwargs: object) -> None:
        return None
    f.__name__ = f.__qualname__ = api
    setattr(f, "_traced_as", "nothing: the random generator's state, no tile")
    return f


set_rng_seed = _state("set_rng_seed")
rand_set_state = _state("rand_set_state")


@traced_as("`memset` of dst: the generator state, no input tile")
def rand_get_state(*, dst: object = None, engine: object = None,
                   **kwargs: object) -> object:
    if not is_tile(dst):
        raise err("nisa.rand_get_state writes dst=, an on-chip tile")
    o = _op("memset", [], tile_shape(dst), tile_dtype(dst), None, 0)
    return _finish(o, dst)


@traced_as("`tensor_reduce` on GpSimd over the source (N; the reference's "
           "4n + K is not modelled)")
def topk(*, val_dst: object = None, idx_dst: object = None,
         src: object = None, n: object = None, **kwargs: object) -> None:
    _tile_arg("topk", "src", src)
    for d in (val_dst, idx_dst):
        if d is not None:
            o = _op("tensor_reduce", [src], tile_shape(d), tile_dtype(d),
                    "gpsimd", 1)
            _finish(o, d)
    return None


@traced_as("`tensor_reduce` over the source (N; no published cost)")
def nonzero_with_count(*, src: object = None, dst: object = None,
                       **kwargs: object) -> object:
    _tile_arg("nonzero_with_count", "src", src)
    o = _op("tensor_reduce", [src], _dst_shape(dst, tile_shape(src)),
            _dst_dtype(dst, None, "int32"), None, 1)
    return _finish(o, dst)


@traced_as("an int: a register holding a number the kernel knows")
def register_alloc(x: object = 0) -> object:
    if not isinstance(x, int):
        raise err("nisa.register_alloc of a value on the device is not "
                  "supported: a shape-only trace has no values")
    return x


_REGISTERS = ("registers hold values on the device (dynamic control flow), "
              "which a shape-only trace does not have")
register_move = refused("nisa.register_move", _REGISTERS)
register_load = refused("nisa.register_load", _REGISTERS)
register_store = refused("nisa.register_store", _REGISTERS)
core_barrier = refused("nisa.core_barrier", "a barrier across NeuronCores; "
                       "trnbench models one")
sendrecv = refused("nisa.sendrecv", "a transfer between NeuronCores; "
                   "trnbench models one")
dma_compute = refused("nisa.dma_compute", "a DMA that reduces its sources, "
                      "which the spec format's DMA ops cannot state")
builtin_custom_op = refused("nisa.builtin_custom_op", "a custom GpSimd "
                            "library whose cost the reference does not give")


def get_nc_sub_version() -> int:
    return 0


class VirtualRegister(int):
    """A register the kernel fills with a number it knows."""


class NkiInstruction:
    """The handle an instruction returns in today's API (unused by a
    trace)."""


class NkiValidationError(Exception):
    """Today's error class for an invalid instruction."""


fp32 = language.fp32


# What the older instructions become (the newer ones say it with @traced_as).
for _name, _text in {
        "nc_matmul": "`matmul` on TensorE (`dst=`: accumulates)",
        "nc_transpose": "`transpose` (engine as given; unstated, over "
                        "`[32, 32]` TensorE into PSUM, the one engine that "
                        "transposes it)",
        "activation": "`activation` on ScalarE (bias or scale tile as 2nd "
                      "input; `reduce_res=` a `reduction`)",
        "activation_reduce": "`activation` with `accumulate` and a "
                             "`reduction` op (its `reduce_res`)",
        "tensor_reduce": "`tensor_reduce`", "tensor_tensor": "`tensor_tensor`",
        "tensor_tensor_scan": "`tensor_tensor_scan` on VectorE",
        "tensor_scalar": "`tensor_scalar`",
        "tensor_scalar_reduce": "`tensor_scalar` on VectorE with "
                                "`accumulate` and a `reduction` op",
        "tensor_copy": "`tensor_copy`", "reciprocal": "`reciprocal`",
        "iota": "`iota` on GpSimd",
        "affine_select": "`affine_select` on GpSimd", "memset": "`memset`",
        "bn_stats": "`bn_stats` on VectorE", "bn_aggr": "`bn_aggr` on VectorE",
        "dma_copy": "`load`, `store`, `hbm_copy` or `sbuf_copy`",
        "dma_transpose": "`load` or `sbuf_copy` with `transpose`",
        "get_nc_version": "gen2 (trn1)",
        "get_nc_sub_version": "0"}.items():
    globals()[_name]._traced_as = _text


language.wrap_masked(globals())
