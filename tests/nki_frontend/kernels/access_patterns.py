# Access patterns (2026-08 deep dive "NKI Access Patterns") and DMA forms,
# written for the front end's tests in today's nki generation: `.ap()` of
# an HBM tensor (rows, strided runs, reinterpret casts, offsets that move
# with a loop, vector / scalar offsets), `.ap(dtype=)` and `.reshape` of an
# on-chip tile, and kernel arguments in nl.hbm.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def hbm_rows(x):
    # x is [4, 128, 64]: tile 2 of it, as a pattern of rows.
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[64, 128], [1, 64]], offset=2 * 128 * 64))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def hbm_interleave(x):
    # x is [4, P, F]: partition p of the tile reads row p of each of the
    # four [P, F] tiles (the MX deep dive's load_tensor_helper).
    _, p, f = x.shape
    out = nl.ndarray((p, 4 * f), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((p, 4, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[f, p], [p * f, 4], [1, f]], offset=0))
    nisa.dma_copy(dst=out, src=t.reshape((p, 4 * f)))
    return out


@nki.jit
def hbm_column(x):
    # One element of each row: runs of one element.
    p, f = x.shape
    out = nl.ndarray((p, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((p, 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[f, p], [1, 1]], offset=f - 1))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def hbm_cast(x):
    # An int32 [128, 256] tensor read as bf16: twice the elements.
    out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[512, 128], [1, 512]], offset=0,
                                  dtype=nl.bfloat16))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def hbm_outside(x):
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[64, 128], [1, 64]], offset=1))
    return t


@nki.jit
def hbm_loop_offset(x, n):
    # Tile i of x [n * 128, 64] in iteration i: the offset moves with i.
    _, f = x.shape
    out = nl.ndarray((128, f), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, f), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.sequential_range(n):
        t = nl.ndarray((128, f), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap([[f, 128], [1, f]],
                                      offset=i * 128 * f))
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def hbm_loop_outside(x):
    _, f = x.shape
    for i in nl.affine_range(3):
        t = nl.ndarray((128, f), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap([[f, 128], [1, f]],
                                      offset=i * 128 * f))
    return t


@nki.jit
def hbm_vector_offset(a):
    # The deep dive's indirect_vector_dynamic_dma: 64 rows chosen at runtime.
    idx = nl.ndarray((64, 1), nl.int32, nl.sbuf)
    nisa.iota(idx, [[1, 1]], 0, 2)
    res = nl.ndarray((64, 512), nl.float32, buffer=nl.sbuf)
    out = nl.ndarray((64, 512), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(src=a.ap([[512, 64], [1, 512]], 0, vector_offset=idx,
                           indirect_dim=0), dst=res)
    nisa.dma_copy(out, res)
    return out


@nki.jit
def hbm_scalar_offset(a):
    # The deep dive's scalar_dynamic_dma.
    idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.memset(idx, value=3 * 128)
    out = nl.ndarray((128, 256), a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(src=a.ap(pattern=[[512, 128], [1, 256]], offset=0,
                           scalar_offset=idx, indirect_dim=0), dst=out[...])
    return out


@nki.jit
def hbm_ap_index(x):
    # Rows 32..95 and columns 16..47 of the pattern of all of x [128, 64].
    out = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[64, 128], [1, 64]])[32:96, 16:48])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def hbm_store_ap(x):
    # A store through a pattern: the tile goes to every other row of out.
    p, f = x.shape
    out = nl.ndarray((2 * p, f), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out.ap([[2 * f, p], [1, f]], offset=0), src=t)
    return out


@nki.jit
def arg_buffer(x):
    assert x.buffer == nl.hbm
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    assert out.buffer == nl.shared_hbm
    nisa.dma_copy(dst=out, src=x)
    return out


@nki.jit
def tile_cast(x):
    # The deep dive's reinterpret cast: an int32 [128, 256] tile read as a
    # bf16 [128, 512] one.
    t = nl.ndarray((128, 256), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=t.ap(pattern=[[512, 128], [1, 512]],
                                     offset=0, dtype=nl.bfloat16))
    out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def tile_cast_outside(x):
    t = nl.ndarray((128, 256), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    return t.ap(pattern=[[512, 128], [1, 513]], offset=0, dtype=nl.bfloat16)


@nki.jit
def tile_ap_index(x):
    # An index of a pattern: columns 8..23 of every other element.
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    even = t.ap([[64, 128], [2, 32]])
    r = nl.ndarray((128, 16), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=even[:, 8:24])
    out = nl.ndarray((128, 16), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def tile_reshape(x):
    p, f = x.shape
    t = nl.ndarray((p, f // 4, 4), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t.reshape((p, f)), src=x)
    r = nl.ndarray((p, f // 4), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r, op=nl.add, data=t, axis=2)
    flat = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=flat, src=t.reshape((p, f))[:, 0:f])
    out = nl.ndarray((p, f // 4), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def tile_expand_dims(x):
    # [p, f] -> [p, f, 1] (nl.expand_dims) and [p, 1, f] (the tile
    # method, a negative axis): views of one tile, no op of their own.
    p, f = x.shape
    t = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r, op=nl.add, data=nl.expand_dims(t, 2), axis=2)
    c = nl.ndarray((p, 1, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=c, src=t.expand_dims(-2))
    out = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def tile_expand_dims_partition(x):
    p, f = x.shape
    t = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    return nl.expand_dims(t, 0)


@nki.jit
def tile_reshape_partitions(x):
    p, f = x.shape
    t = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    return t.reshape((p // 2, 2 * f))


@nki.jit
def hbm_view(x):
    # The test of nc_matmul's double_row_gen3: a float8 argument viewed as
    # float8 (one width), and a view of a view that halves the elements.
    out = nl.ndarray((128, 256), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    same = nl.load(x.view(nl.float8_e5m2))
    wide = nl.load(x[:, 0:512].view(nl.bfloat16))
    nl.store(out, value=wide)
    return out


@nki.jit
def tile_view(x):
    t = nl.load(x)
    w = t.view(nl.float32)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.exp(w))
    return out


@nki.jit
def sbuf_to_sbuf(x):
    # The 2026-08 reference's dma_copy: both tiles in SBUF.
    p, f = x.shape
    a = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    b = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=a)
    out = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def sbuf_to_sbuf_counts(x):
    p, f = x.shape
    a = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    b = nl.ndarray((p, f + 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=a)
    return b


@nki.jit
def psum_dma(x):
    p, f = x.shape
    a = nl.ndarray((p, f), dtype=nl.float32, buffer=nl.psum)
    b = nl.ndarray((p, f), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=a)
    return b


@nki.jit
def dma_transposes(x, y):
    # x [16, 128] transposed from SBUF; y [4, 2, 64] from HBM, (2, 1, 0).
    a = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    at = nl.ndarray((128, 16), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=at, src=a)
    yt = nl.ndarray((64, 2, 4), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=yt, src=y, axes=(2, 1, 0))
    out = nl.ndarray((128, 16), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=at)
    out2 = nl.ndarray((64, 2, 4), dtype=y.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=yt)
    return out, out2


@nki.jit
def dma_transpose_axes(y):
    yt = nl.ndarray((2, 64, 4), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=yt, src=y, axes=(1, 2, 0))
    return yt


@nki.jit
def sbuf_gather_transpose(src, idx):
    # SDK 2.26's dma_transpose example 6: partitions of an SBUF tile picked
    # by an index tile, transposed (2, 1, 0).
    s = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=src)
    i = nl.ndarray(idx.shape, dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    _, d1, d2 = src.shape
    t = nl.ndarray((d2, d1, idx.shape[0]), dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=s[i, :, :], axes=(2, 1, 0))
    out = nl.ndarray((d2, d1, idx.shape[0]), dtype=src.dtype,
                     buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def sbuf_gather_compute(src, idx):
    s = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=src)
    i = nl.ndarray(idx.shape, dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    t = nl.ndarray((idx.shape[0], src.shape[1]), dtype=src.dtype,
                   buffer=nl.sbuf)
    nisa.tensor_copy(dst=t, src=s[i, :])
    return t


@nki.jit
def tile_scalar_offset(x):
    # 32 columns of t from a column a [1, 1] tile holds at run time.
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    col = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=col, value=16)
    r = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=t.ap([[64, 128], [1, 32]], offset=0,
                                     scalar_offset=col, indirect_dim=1))
    out = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def tile_vector_offset(x):
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    idx = nl.ndarray((64, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(idx, [[1, 1]], 0, 2)
    return t.ap([[64, 64], [1, 64]], vector_offset=idx, indirect_dim=0)


@nki.jit
def view_buffers(x):
    # A view shares its tensor's storage (the deep dive: `.ap` addresses
    # the tensor's underlying storage), so it has the tensor's `.buffer`:
    # an index and an `.ap` of an HBM argument, of an SBUF and of a PSUM
    # tile, an index of an `.ap`, a reshape and a dtype view of a tile.
    assert x[0:64, :].buffer == nl.hbm
    assert x.ap(pattern=[[64, 128], [1, 64]], offset=0).buffer == nl.hbm
    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    assert t[0:64, 0:32].buffer == nl.sbuf
    assert t.ap(pattern=[[64, 128], [1, 32]], offset=0).buffer == nl.sbuf
    assert t.ap(pattern=[[64, 128], [1, 64]])[0:32, :].buffer == nl.sbuf
    assert t.reshape((128, 2, 32)).buffer == nl.sbuf
    assert t.view(nl.int32).buffer == nl.sbuf
    p = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
    assert p.ap(pattern=[[64, 128], [1, 64]], offset=0).buffer == nl.psum
    assert p[:, 0:32].buffer == nl.psum
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    assert out[0:64, :].buffer == nl.shared_hbm
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def pattern_of_computed_ints(x):
    # A pattern as a kernel computes it (the NKI Library's TensorView
    # builds (stride, size) tuples from its shape): tuple pairs, a numpy
    # integer, and a value computed from a loop variable that the loop's
    # terms cancel out of (an int in today's generation).
    import numpy as np
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(2):
        w = 32 * (i + 1) - 32 * i
        t = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap(pattern=((np.int64(64), 128), (1, w)),
                                      offset=i * 32))
        nisa.dma_copy(dst=out.ap(pattern=[(64, 128), (1, w)], offset=i * 32),
                      src=t)
    return out


@nki.jit
def pattern_moving_with_a_loop(x):
    # A num that differs between iterations: each iteration reads a run
    # of its own length (16, then 32 elements a partition).
    out = nl.ndarray((128, 48), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(2):
        w = 16 * (i + 1)
        t = nl.ndarray((128, w), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x.ap(pattern=[[64, 128], [1, w]],
                                      offset=16 * i))
        nisa.dma_copy(dst=out.ap(pattern=[[48, 128], [1, w]],
                                 offset=16 * i), src=t)
    return out


@nki.jit
def pattern_of_a_tile(x):
    # A tile is data, not an integer the pattern can hold.
    n = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[64, 128], [1, n]]))
    return t


@nki.jit
def hbm_cast_to(x, dt):
    # hbm_cast with the dtype an argument (the MX deep dive's mx_dtype).
    out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap([[512, 128], [1, 512]], offset=0,
                                  dtype=dt))
    nisa.dma_copy(dst=out, src=t)
    return out
