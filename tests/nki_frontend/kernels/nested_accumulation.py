# A matmul that accumulates into one PSUM tile over two nested loops (the
# contraction split into blocks of tiles), written for the front end's
# tests in today's API; `flat` is the same contraction in one loop.
import nki
import nki.isa as nisa
import nki.language as nl


def blocked(a, b):
    K, M = a.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.ndarray((nl.par_dim(M), N), dtype=nl.float32, buffer=nl.psum)
    for kb in nl.affine_range(K // 512):
        for ki in nl.affine_range(4):
            k = kb * 4 + ki
            a_t = nl.load(a[nl.ds(k * 128, 128), :])
            b_t = nl.load(b[nl.ds(k * 128, 128), :])
            res[...] += nisa.nc_matmul(stationary=a_t, moving=b_t)
    o = nisa.tensor_copy(res, dtype=nl.float32)
    nl.store(out, value=o)
    return out


def flat(a, b):
    K, M = a.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.ndarray((nl.par_dim(M), N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a_t = nl.load(a[nl.ds(k * 128, 128), :])
        b_t = nl.load(b[nl.ds(k * 128, 128), :])
        res[...] += nisa.nc_matmul(stationary=a_t, moving=b_t)
    o = nisa.tensor_copy(res, dtype=nl.float32)
    nl.store(out, value=o)
    return out
