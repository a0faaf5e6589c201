# Arrays of tiles across loops, written for the front end's tests: a
# multi-dimensional SBUF array with nl.par_dim filled slot by slot in one
# loop and read slot by slot in another (a block), and an SBUF accumulator
# over an affine loop (+= in place, a carried tile); a loop that fills two
# arrays, the second from the first's slot (two loops in the spec).
import neuronxcc.nki.language as nl


def hoisted(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    i_l = nl.mgrid[0:128, 0:128]
    i_r = nl.mgrid[0:128, 0:512]
    for m in nl.affine_range(M // 128):
        lhsT_tiles = nl.ndarray((K // 128, nl.par_dim(128), 128),
                                dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // 128):
            lhsT_tiles[k, i_l.p, i_l.x] = nl.load(
                lhsT[k * 128 + i_l.p, m * 128 + i_l.x])
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                r = nl.load(rhs[k * 128 + i_r.p, n * 512 + i_r.x])
                acc += nl.matmul(lhsT_tiles[k, i_l.p, i_l.x], r,
                                 transpose_x=True)
            res = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * 128 + i_l.p, n * 512 + i_r.x], value=res)
    return result


def sum_rows(x, s):
    R, F = x.shape
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    total = nl.zeros((nl.par_dim(128), F), dtype=nl.float32)
    for r in nl.affine_range(R // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, 0:F])
        total += nl.multiply(t, s)
    nl.store(out, value=total)
    return out


def two_results(x):
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = nl.ndarray((x.shape[0] // 128, nl.par_dim(128), 64),
                      dtype=x.dtype, buffer=nl.sbuf)
    maxes = nl.ndarray((nl.par_dim(128), x.shape[0] // 128),
                       dtype=x.dtype, buffer=nl.sbuf)
    for r in nl.affine_range(x.shape[0] // 128):
        rows[r] = nl.load(x[r * 128:(r + 1) * 128, 0:64])
        maxes[:, r] = nl.max(rows[r], axis=1)
    nl.store(out, value=nl.max(maxes, axis=1) + rows[0])
    return out
