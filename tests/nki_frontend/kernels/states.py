# Tiles updated in place across a sequential loop (a state), written for
# the front end's tests, in today's API: a list of SBUF tiles zeroed in a
# Python range loop, then updated slot by slot over the row blocks of x in
# an nl.sequential_range loop, then copied out slot by slot.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def column_sums(x):
    K, N = x.shape
    out = nl.ndarray((128, N), dtype=x.dtype, buffer=nl.shared_hbm)
    sums = []
    for c in range(N // 512):
        zero = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=zero, value=0.0)
        sums.append(zero)
    for k in nl.sequential_range(K // 128):
        for n in nl.affine_range(N // 512):
            x_t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x_t, src=x[k * 128:(k + 1) * 128,
                                         n * 512:(n + 1) * 512])
            nisa.tensor_tensor(dst=sums[n], data1=sums[n], data2=x_t,
                               op=nl.add)
    for n in nl.affine_range(N // 512):
        o = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=sums[n])
        nisa.dma_copy(dst=out[0:128, n * 512:(n + 1) * 512], src=o)
    return out


@nki.jit
def running_scan(a, b):
    # A scan along each row in tiles of 512 columns, each tile's scan
    # starting from the last column of the one before: a tile carried from
    # one iteration of the column loop to the next.
    R, N = a.shape
    out = nl.ndarray((R, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // 128):
        last = nl.zeros((128, 1), dtype=nl.float32)
        for c in nl.static_range(N // 512):
            a_t = nl.load(a[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512])
            b_t = nl.load(b[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512])
            res = nisa.tensor_tensor_scan(a_t, b_t, initial=last,
                                          op0=nl.multiply, op1=nl.add)
            last[...] = res[0:128, 511]
            nl.store(out[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512],
                     value=res)
    return out
