# Transposes the front end places by tile size, written for its tests in
# today's API: [128, 128] tiles of a row transposed into an SBUF block
# (TensorE into PSUM, then a copy to SBUF), a [32, 32] one left to the
# compiler, and a [128, 128] one the source puts on VectorE (refused).
import nki.isa as nisa
import nki.language as nl


def transpose_tiles(x):
    n, w = x.shape
    out = nl.ndarray((w, n), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    tt = nl.ndarray((nl.par_dim(n), w // n, n), dtype=x.dtype,
                    buffer=nl.sbuf)
    for j in nl.affine_range(w // n):
        tt[:, j, :] = nisa.nc_transpose(t[:, nl.ds(j * n, n)])
    for j in nl.affine_range(w // n):
        nl.store(out[nl.ds(j * n, n), :], value=tt[:, j, :])
    return out


def small_transpose(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nisa.nc_transpose(t))
    return out


def big_transpose_on_vector(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nisa.nc_transpose(t, engine=nisa.vector_engine))
    return out
