# A tile written in parts within one loop body, then read whole (the
# RoPE pattern: each half of the partitions computed on its own), and a
# part written over a memset (SDK 2.x).
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def halves(x):
    p, f = x.shape
    h = p // 2
    out = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.shared_hbm)
    i_upper = nl.arange(h)[:, None]
    i_lower = i_upper + h
    i_f = nl.arange(f)[None, :]
    a = nl.load(x[i_upper, i_f])
    b = nl.load(x[i_lower, i_f])
    t = nl.ndarray((p, f), dtype=x.dtype, buffer=nl.sbuf)
    t[i_upper, i_f] = nisa.tensor_tensor(a, b, nl.multiply)
    t[i_lower, i_f] = nisa.tensor_tensor(a, b, nl.add)
    nl.store(out, value=t)
    return out


@nki.jit
def part_over_zeros(x):
    p, f = x.shape
    out = nl.ndarray((p, 2 * f), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.zeros((p, 2 * f), dtype=x.dtype)
    t[:, 0:f] = nl.exp(nl.load(x))
    nl.store(out, value=t)
    return out


@nki.jit
def whole_twice(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    a = nl.load(x)
    t[...] = nl.exp(a)
    t[...] = nl.add(a, 1.0)
    nl.store(out, value=t)
    return out
