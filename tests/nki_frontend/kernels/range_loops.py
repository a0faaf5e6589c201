# Python `range` loops whose variable the kernel computes with, as kernels
# of today's `nki` are written (its variable is an int): a tail tile sized
# by min(), a first iteration special-cased, a triangular nest, and the
# same kernel with nl.affine_range and a mask, for the spec's size.
import nki.isa as nisa
import nki.language as nl


def exp_tail(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range((s + 511) // 512):
        size = min(512, s - i * 512)
        t = nl.load(x[:, nl.ds(i * 512, size)])
        nl.store(out[:, nl.ds(i * 512, size)], value=nl.exp(t))
    return out


def exp_rows_tail(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range((n + 127) // 128):
        rows = min(128, n - i * 128)
        t = nl.load(x[nl.ds(i * 128, rows), :])
        nl.store(out[nl.ds(i * 128, rows), :], value=nl.exp(t))
    return out


def exp_rows_masked(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(w)[None, :]
    for i in nl.affine_range((n + 127) // 128):
        i_p = i * 128 + nl.arange(128)[:, None]
        t = nl.load(x[i_p, i_f], mask=(i_p < n))
        nl.store(out[i_p, i_f], value=nl.exp(t), mask=(i_p < n))
    return out


def first_special(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(s // 512):
        t = nl.load(x[:, nl.ds(i * 512, 512)])
        if i == 0:
            y = nl.exp(t)
        else:
            y = nl.tanh(t)
        nl.store(out[:, nl.ds(i * 512, 512)], value=y)
    return out


def triangular(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(n // 128):
        for j in range(i + 1):
            t = nl.load(x[nl.ds(j * 128, 128), :])
            nl.store(out[nl.ds(i * 128, 128), :], value=t)
    return out


def needs_every_value(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(s // 4):
        t = nl.load(x[:, nl.ds(int(i) * 4, 4)])
        nl.store(out[:, nl.ds(i * 4, 4)], value=t)
    return out


def affine_decision(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(s // 512):
        t = nl.load(x[:, nl.ds(i * 512, 512)])
        if i == 0:
            t = nl.exp(t)
        nl.store(out[:, nl.ds(i * 512, 512)], value=t)
    return out


def halves(x):
    n, w = x.shape
    out = nl.ndarray((n, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(i * 128, 128), :])
        half = nl.exp(t[:, nl.ds((i % 2) * 64, 64)])
        nl.store(out[nl.ds(i * 128, 128), :], value=half)
    return out


# divmod on a Python range's variable (the NKI Library's output_projection_tkg
# maps a flat index to (group, offset)): Python's (i // n, i % n).
def exp_flat_walk(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    cols = w // 512
    for k in range((n // 128) * cols):
        r, c = divmod(k, cols)
        t = nl.load(x[nl.ds(r * 128, 128), nl.ds(c * 512, 512)])
        nl.store(out[nl.ds(r * 128, 128), nl.ds(c * 512, 512)],
                 value=nl.exp(t))
    return out


# Today's nl.affine_range is an alias of Python's range (the 2026-08 API
# reference): its variable is an int too, the loop kept affine.
def affine_first_special(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(s // 512):
        t = nl.load(x[:, nl.ds(i * 512, 512)])
        if i == s // 512 - 1:
            t = nl.exp(t)
        nl.store(out[:, nl.ds(i * 512, 512)], value=t)
    return out


# Loop variables that cancel leave a comparison of numbers
# (rotational_topk_utils: min(start + 128, end) - start < 128).
def cancelled_rows(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(n // 128):
        rows = min(i * 128 + 128, n) - i * 128
        t = nl.ndarray((128, w), dtype=x.dtype, buffer=nl.sbuf)
        if rows < 128:
            nisa.memset(t, value=0.0)
        nisa.dma_copy(dst=t[0:rows, :], src=x[nl.ds(i * 128, rows), :])
        nisa.dma_copy(dst=out[nl.ds(i * 128, rows), :], src=t[0:rows, :])
    return out


# A range loop that fills two arrays allocated outside it and updates a
# third in place (rotational_topk_utils.topk_core): no spec loop says
# that (fission refuses), so its few iterations are traced one by one.
def two_outputs_in_place(x):
    p, s = x.shape
    out = nl.ndarray((p, 16), dtype=x.dtype, buffer=nl.shared_hbm)
    data = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=data, src=x)
    vals = nl.ndarray((p, 16), dtype=x.dtype, buffer=nl.sbuf)
    sums = nl.ndarray((p, 2), dtype=x.dtype, buffer=nl.sbuf)
    for k in nl.static_range(2):
        nisa.max8(dst=vals[:, nl.ds(k * 8, 8)], src=data)
        nisa.tensor_copy(dst=data, src=nl.exp(data))
        nisa.tensor_reduce(dst=sums[:, k:k + 1], op=nl.add, data=data,
                           axis=1)
    nisa.dma_copy(dst=out, src=vals)
    return out


# `and` of index predicates is one mask (the nc_match_replace8 reference:
# `mask=(ix < n // 2 and iy < m // 2)`); elsewhere it is Python's.
def and_of_decisions(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(s // 512):
        t = nl.load(x[:, nl.ds(i * 512, 512)])
        if i >= 0 and i < 3:
            t = nl.exp(t)
        nl.store(out[:, nl.ds(i * 512, 512)], value=t)
    return out


# Python's `/` on a range's variable is a float (qkv_cte:
# math.ceil((H - offset) / 128)): a value, so each iteration has its own.
def true_division(x):
    import math
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(2):
        cols = math.ceil((s - i * 512) / 2)
        t = nl.load(x[:, nl.ds(i * 512, min(cols, 512))])
        nl.store(out[:, nl.ds(i * 512, min(cols, 512))], value=t)
    return out


# Two nested ranges whose every value the kernel needs: 128 x 128 loads,
# more ops than a 1 MiB spec holds.
def unrolls_too_far(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(128):
        for j in range(128):
            t = nl.load(x[:, nl.ds(int(i) * 4 + int(j) // 32, 1)])
            nl.store(out[:, nl.ds(i * 4 + j // 32, 1)], value=t)
    return out


# After the first iteration, an index that starts at the tensor's start
# ((i - 1) * 128 from i = 1) is the piece's own tiles: it stays a loop.
def shifted_after_first(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(n // 128 + 1):
        if i == 0:
            continue
        t = nl.load(x[nl.ds((i - 1) * 128, 128), :])
        nl.store(out[nl.ds((i - 1) * 128, 128), :], value=nl.exp(t))
    return out


# exp_rows_tail with today's nl.affine_range (an alias of range).
def exp_rows_tail_affine(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range((n + 127) // 128):
        rows = min(128, n - i * 128)
        t = nl.load(x[nl.ds(i * 128, rows), :])
        nl.store(out[nl.ds(i * 128, rows), :], value=nl.exp(t))
    return out


# A slice whose size is computed from the variable (as the NKI Library's
# attention_tkg sizes its column-tile transposes): each iteration is its
# own size.
def shrinking_slices(x):
    p, s = x.shape
    out = nl.ndarray((p, s), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    for i in range(4):
        n = s - 16 * i
        nl.store(out[:, 0:n], value=nl.exp(t[:, 0:n]))
    return out

