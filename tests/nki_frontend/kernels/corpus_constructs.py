# Constructs the public corpus uses (issue 44), written for the front
# end's tests in the neuronxcc.nki generation: stepped Python ranges,
# gathers (a tile as an HBM index), nl.loop_reduce, and a rank-1 tensor
# read through a [P, 1] index grid.
import numpy as np
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def stepped(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(p)[:, None]
    i_f = nl.arange(512)[None, :]
    for off in range(0, s, 512):
        t = nl.load(x[i_p, off + i_f])
        nl.store(out[i_p, off + i_f], value=nl.exp(t))
    return out


def stepped_down(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(p)[:, None]
    i_f = nl.arange(512)[None, :]
    for off in nl.affine_range(s - 512, -1, -512):
        t = nl.load(x[i_p, off + i_f])
        nl.store(out[i_p, off + i_f], value=t)
    return out


def gather(data, idx):
    out = nl.ndarray((64, 512), dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(64)[:, None]
    i_f = nl.arange(512)[None, :]
    idx_tile = nl.load(idx[i_p])
    rows = nl.load(data[idx_tile[i_p, 0], i_f])
    nl.store(out, value=rows)
    return out


def scatter(data, idx):
    out = nl.ndarray((128, 512), dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(64)[:, None]
    i_f = nl.arange(512)[None, :]
    idx_tile = nl.load(idx[i_p])
    rows = nl.load(data[i_p, i_f])
    nl.store(out[idx_tile[i_p, 0], i_f], value=rows)
    return out


def row_max(x):
    n, w = x.shape
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    m = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.affine_range(n // 128):
        t = nl.load(x[k * 128 + nl.arange(128)[:, None],
                      nl.arange(w)[None, :]])
        r = nisa.tensor_reduce(nl.max, data=t, axis=[1], dtype=np.float32)
        m[nl.arange(128)[:, None], 0] = nl.loop_reduce(
            r, op=np.max, loop_indices=[k], dtype=np.float32)
    nl.store(out, value=m)
    return out


def row_sum_uninitialised(x):
    n, w = x.shape
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.affine_range(n // 128):
        t = nl.load(x[k * 128 + nl.arange(128)[:, None],
                      nl.arange(w)[None, :]])
        r = nisa.tensor_reduce(nl.add, data=t, axis=[1], dtype=np.float32)
        s[nl.arange(128)[:, None], 0] = nl.loop_reduce(
            r, op=np.add, loop_indices=[k], dtype=np.float32)
    nl.store(out, value=s)
    return out


def loop_reduce_rebound(x):
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    for k in nl.affine_range(2):
        t = nl.load(x[k * 128 + nl.arange(128)[:, None], 0])
        b = nl.loop_reduce(t, op=np.add, loop_indices=[k])
        nl.store(out, value=b)
    return out


def maxpool_ap(x):
    c, h, w = x.shape
    out = nl.ndarray((c, h // 2, w // 2), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    view = t.ap([[h * w, c], [2 * w, h // 2], [2, w // 2], [w, 2], [1, 2]])
    nl.store(out, value=nl.max(view, axis=[3, 4]))
    return out


def ap_outside(x):
    t = nl.load(x)
    return t.ap([[64, 128], [1, 65]], offset=0)


def ap_partition_step(x):
    t = nl.load(x)
    return t.ap([[32, 128], [1, 32]])


def even_columns(x):
    p, f = x.shape
    out = nl.ndarray((p, f // 2), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nl.exp(t[:, 1:f:2]))
    return out


def hbm_strided(x):
    p, f = x.shape
    return nl.load(x[:, 0:f:2])


def transpose_wide(x):
    n, m = x.shape
    out = nl.ndarray((m, n), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load_transpose2d(x))
    return out


def copy_hbm(a):
    b = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=b, src=a)
    return b


def add_row_to_all(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a[0:128, 0:512])
    row = nl.load(b[0:1, 0:512])
    nl.store(out[0:128, 0:512], nl.add(x, row))
    return out


def grid_key(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[nl.mgrid[0:128, 0:512]])
    nl.store(out, value=nl.exp(t))
    return out


def views_of_views(x):
    out = nl.ndarray((64, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[0:256, :][128:256, 0:512])
    upper = t[0:64, :]
    right = upper[:, 256:512]
    nl.store(out, value=nl.exp(right))
    return out


def store_columns(x):
    p, f = x.shape
    out = nl.ndarray((p, f // 2), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t[:, 0:f:2])
    return out


def store_broadcast(x):
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    row = nl.load(x)
    nl.store(out, value=row.broadcast_to((128, 64)))
    return out


def lazy_psum(a, b):
    n = a.shape[1] // 128
    out = nl.ndarray((n, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((n, nl.par_dim(128), 512), dtype=nl.float32,
                   buffer=nl.psum, lazy_initialization=True)
    for i in nl.affine_range(n):
        s = nl.load(a[:, nl.ds(i * 128, 128)])
        m = nl.load(b)
        acc[i, :, :] = nisa.nc_matmul(s, m)
        nl.store(out[i], value=nl.copy(acc[i, :, :]))
    return out


# nc_match_replace8's second output: the matched values' indices in
# dst_idx (the ISA reference), read after the instruction.
def match_replace_indices(x):
    n, m = x.shape
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    idx = nl.ndarray((n, 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    dst_idx = nl.ndarray((n, 8), dtype=nl.uint32)
    t = nl.load(x)
    top = nisa.max8(src=t)
    replaced = nisa.nc_match_replace8(dst_idx=dst_idx[:, :], data=t,
                                      vals=top, imm=-1e30)
    nl.store(out, value=replaced)
    nl.store(idx, value=dst_idx)
    return out, idx


def match_replace_3d(x):
    n, b, m = x.shape
    out = nl.ndarray((n, b, m), dtype=x.dtype, buffer=nl.shared_hbm)
    idx = nl.ndarray((n, 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    dst_idx = nl.ndarray((n, 8), dtype=nl.uint32)
    t = nl.load(x)
    top = nisa.max8(src=t)
    replaced = nisa.nc_match_replace8(dst_idx=dst_idx, data=t, vals=top,
                                      imm=0.0)
    nl.store(out, value=replaced)
    nl.store(idx, value=dst_idx)
    return out, idx


# A masked store moves only the elements its mask keeps: rows i_p < 64 of
# the tile into a [64, 512] tensor (the mask reference's store).
def masked_store_rows(x):
    out = nl.ndarray((64, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    t = nl.load(x[i_p, i_f])
    nl.store(out[i_p, i_f], value=t[i_p, i_f], mask=(i_p < 64))
    return out
