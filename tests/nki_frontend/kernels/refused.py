# Kernels the front end must refuse, one line each (its tests).
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def unknown_api(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nl.no_such_function(t))
    return out


def data_dependent(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    if t:
        t = nl.exp(t)
    nl.store(out, value=t)
    return out


def bad_dtype(x):
    out = nl.ndarray(x.shape, dtype="float64", buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out


def loop_var_branch(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        if i == 0:
            pass
        nl.store(out[i * 128:(i + 1) * 128, 0:x.shape[1]],
                 value=nl.load(x[i * 128:(i + 1) * 128, 0:x.shape[1]]))
    return out


def direct_allocation(x):
    from neuronxcc import nki
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    placed = nki.compiler.sbuf.alloc(lambda idx, p, f: 0)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=placed)
    nl.store(out, value=t)
    return out


def two_results_sharing_a_tile(x):
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = nl.ndarray((x.shape[0] // 128, nl.par_dim(128), 64),
                      dtype=x.dtype, buffer=nl.sbuf)
    maxes = nl.ndarray((nl.par_dim(128), x.shape[0] // 128),
                       dtype=x.dtype, buffer=nl.sbuf)
    for r in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, 0:64])
        rows[r] = nl.exp(t)
        maxes[:, r] = nl.max(t, axis=1)
    nl.store(out, value=nl.max(maxes, axis=1) + rows[0])
    return out


def rotation_read_of_another_buffer(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((nl.par_dim(128), 2, 64), dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.sequential_range(4):
        buf[:, i % 2, :] = nl.load(x)
        nl.store(out, value=buf[:, (i + 1) % 2, :])
    return out
