# Arrays allocated outside a loop that each iteration writes anew, written
# for the front end's tests in today's API: one SBUF buffer every
# iteration reloads, a block dimension of PSUM tiles each iteration uses
# alone, a block dimension a later loop reads (kept whole), and an
# accumulator (carried, never the loop's own).
import nki.isa as nisa
import nki.language as nl


def reused_buffer(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(128), w), dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.sequential_range(n // 128):
        nisa.dma_copy(dst=t, src=x[nl.ds(i * 128, 128), :])
        y = nisa.activation(op=nl.exp, data=t)
        nisa.dma_copy(dst=out[nl.ds(i * 128, 128), :], src=y)
    return out


def psum_tile_per_iteration(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    ps = nl.ndarray((n // 128, nl.par_dim(128), 128), dtype=nl.float32,
                    buffer=nl.psum)
    for i in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(i * 128, 128), :])
        ps[i] = nisa.nc_transpose(t)
        y = nisa.tensor_copy(ps[i], dtype=x.dtype)
        nl.store(out[nl.ds(i * 128, 128), :], value=y)
    return out


def read_in_a_later_loop(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = nl.ndarray((n // 128, nl.par_dim(128), w), dtype=x.dtype,
                      buffer=nl.sbuf)
    for i in nl.affine_range(n // 128):
        rows[i] = nl.load(x[nl.ds(i * 128, 128), :])
    for i in nl.affine_range(n // 128):
        nl.store(out[nl.ds(i * 128, 128), :], value=rows[i])
    return out


def accumulator_never_read_after(x):
    n, w = x.shape
    out = nl.ndarray((128, w), dtype=x.dtype, buffer=nl.shared_hbm)
    total = nl.zeros((nl.par_dim(128), w), dtype=nl.float32)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(r * 128, 128), :])
        total += t
        nl.store(out, value=t)
    return out
