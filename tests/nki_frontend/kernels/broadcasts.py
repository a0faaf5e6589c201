"""Partition and free-dim broadcasts, written for the front end's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def scale_rows(x, g):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    g_row = nl.load(g.reshape((1, g.shape[0])))
    for p in nl.affine_range(x.shape[0] // 128):
        x_t = nl.load(x[p * 128:(p + 1) * 128, :])
        g_b = g_row.broadcast_to((128, g.shape[0]))
        y = nisa.tensor_tensor(x_t, g_b, op=nl.multiply)
        z = nl.multiply(y, g_b)
        nl.store(out[p * 128:(p + 1) * 128, :], value=z)
    return out


@nki.jit
def free_only(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    x_t = nl.load(x)
    s = nl.sum(x_t, axis=1, keepdims=True)
    wide = nl.copy(s.broadcast_to((128, x.shape[1])))
    nl.store(out, value=wide)
    return out


@nki.jit
def too_many_partitions(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    x_t = nl.load(x)
    y = nl.copy(x_t.broadcast_to((256, x.shape[1])))
    nl.store(out, value=y)
    return out
