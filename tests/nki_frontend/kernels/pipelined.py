# Loops pipelined by hand, written for the front end's tests in today's
# API: a prologue fills buffer 0 of a two-buffer array and a running
# maximum; iteration i of a sequential loop reads what iteration i - 1 (or
# the prologue) left there before it fills the next buffer; an epilogue
# reads what the last iteration left. And a block read by a slot that two
# loops pick.
import nki.isa as nisa
import nki.language as nl


def pipelined(x):
    p, n = x.shape
    tiles = n // 256
    out = nl.ndarray((p, n), dtype=x.dtype, buffer=nl.shared_hbm)
    xs = nl.load(x)
    buf = nl.ndarray((nl.par_dim(128), 2, 256), dtype=x.dtype,
                     buffer=nl.sbuf)
    peak = nl.ndarray((nl.par_dim(128), 1), dtype=x.dtype, buffer=nl.sbuf)

    def fill(i):
        buf[:, i % 2, :] = nisa.tensor_copy(xs[:, nl.ds(i * 256, 256)])
        peak[...] = nisa.tensor_reduce(op=nl.max, data=buf[:, i % 2, :],
                                       axis=1, negate=True)

    def drain(i):
        y = nisa.activation(op=nl.exp, data=buf[:, i % 2, :], bias=peak)
        nl.store(out[:, nl.ds(i * 256, 256)], value=y)

    fill(0)
    for i in nl.sequential_range(tiles - 1):
        drain(i)
        fill(i + 1)
    drain(tiles - 1)
    return out


def two_iterations_back(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((nl.par_dim(128), 3, w), dtype=x.dtype, buffer=nl.sbuf)
    buf[:, 1, :] = nl.load(x[0:128, :])
    buf[:, 2, :] = nl.load(x[128:256, :])
    for i in nl.sequential_range(n // 128):
        nl.store(out[nl.ds(i * 128, 128), :], value=buf[:, (i + 1) % 3, :])
        buf[:, i % 3, :] = nl.load(x[nl.ds(i * 128, 128), :])
    return out


def slot_sum(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    blk = nl.ndarray((nl.par_dim(128), 8, 64), dtype=x.dtype, buffer=nl.sbuf)
    for j in nl.affine_range(8):
        blk[:, j, :] = nl.load(x[:, nl.ds(j * 64, 64)])
    for a in nl.affine_range(2):
        for b in nl.affine_range(4):
            y = nl.exp(blk[:, a * 4 + b, :])
            nl.store(out[:, nl.ds(a * 256 + b * 64, 64)], value=y)
    return out


def older_buffer_after(x):
    p, n = x.shape
    out = nl.ndarray((p, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    xs = nl.load(x)
    buf = nl.ndarray((nl.par_dim(128), 2, 256), dtype=x.dtype,
                     buffer=nl.sbuf)
    buf[:, 0, :] = nisa.tensor_copy(xs[:, 0:256])
    for i in nl.sequential_range(3):
        y = nisa.activation(op=nl.exp, data=buf[:, i % 2, :])
        buf[:, (i + 1) % 2, :] = nisa.tensor_copy(
            xs[:, nl.ds((i + 1) * 256, 256)])
    nl.store(out, value=buf[:, 0, :])
    return out
