# Instructions that write their result and its row reduction at once
# (reduce_res=), written for the front end's tests in today's API: a
# softmax whose exp fills a slot of `e` and of `sums` in each iteration,
# a row max kept in the op's own body, and two refusals.
import nki.isa as nisa
import nki.language as nl


def softmax_sums(x):
    n, w = x.shape
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, n // 128 * w), dtype=x.dtype, buffer=nl.sbuf)
    for r in nl.affine_range(n // 128):
        nisa.dma_copy(dst=t[:, nl.ds(r * w, w)],
                      src=x[nl.ds(r * 128, 128), :])
    e = nl.ndarray((128, n // 128 * w), dtype=nl.float32, buffer=nl.sbuf)
    sums = nl.ndarray((128, n // 128), dtype=nl.float32, buffer=nl.sbuf)
    for r in nl.affine_range(n // 128):
        e[:, nl.ds(r * w, w)] = nisa.activation(
            op=nl.exp, data=t[:, nl.ds(r * w, w)],
            reduce_op=nl.add, reduce_res=sums[:, r])
    inv = nl.ndarray((128, n // 128), dtype=nl.float32, buffer=nl.sbuf)
    for r in nl.affine_range(n // 128):
        inv[:, r] = nisa.reciprocal(data=sums[:, r])
    total = nisa.tensor_reduce(op=nl.add, data=sums, axis=1)
    nl.store(out, value=total)
    return out


def row_max_here(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(r * 128, 128), :])
        m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        s = nisa.tensor_scalar_reduce(data=t, op0=nl.multiply, operand0=2.0,
                                      reduce_op=nl.max, reduce_res=m)
        y = nisa.tensor_scalar(data=s, op0=nl.subtract, operand0=m)
        nl.store(out[nl.ds(r * 128, 128), :], value=y)
    return out


def read_in_the_same_iteration(x):
    n, w = x.shape
    out = nl.ndarray((128, n // 128), dtype=x.dtype, buffer=nl.shared_hbm)
    e = nl.ndarray((128, n // 128 * w), dtype=nl.float32, buffer=nl.sbuf)
    sums = nl.ndarray((128, n // 128), dtype=nl.float32, buffer=nl.sbuf)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(r * 128, 128), :])
        e[:, nl.ds(r * w, w)] = nisa.activation(
            op=nl.exp, data=t, reduce_op=nl.add, reduce_res=sums[:, r])
        nl.store(out[:, r], value=sums[:, r])
    return out


def wide_reduce_res(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(r * 128, 128), :])
        wide = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.sbuf)
        s = nisa.activation(op=nl.exp, data=t, reduce_res=wide)
        nl.store(out[nl.ds(r * 128, 128), :], value=s)
    return out
