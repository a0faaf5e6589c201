# The names the front end gained from the reference, written for its tests
# in today's API (`nki`, dst-first `nisa`), one kernel each.
import nki.collectives as ncc
import nki.isa as nisa
import nki.language as nl


def activations(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    a = nl.silu(t)
    b = nl.gelu_apprx_tanh(a)
    c = nl.softplus(b)
    d = nl.erf(c)
    e = nl.abs(d)
    f = nl.cos(e)
    nl.store(out, value=f)
    return out


def dst_first(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(t, x)
    u = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(u, nl.exp, t)
    v = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(v, u, nl.multiply, 2.0)
    w = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.scalar_tensor_tensor(dst=w, data=v, op0=nl.multiply, operand0=0.5,
                              op1=nl.add, operand1=t)
    m = nl.ndarray((x.shape[0], 8), dtype=x.dtype, buffer=nl.sbuf)
    nisa.max8(m, w)
    nisa.dma_copy(out, w)
    return out


def value_returning(x):
    # The earlier `nki` releases' form (the 2026-02 tutorials).
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    u = nisa.activation(op=nl.exp, data=t)
    nl.store(out, value=nisa.tensor_copy(u))
    return out


def narrow_dtypes(x):
    out = nl.ndarray(x.shape, dtype=nl.uint8, buffer=nl.shared_hbm)
    t = nl.load(x, dtype=nl.float8_e4m3)
    nl.store(out, value=nl.copy(t, dtype=nl.uint8))
    return out


def psum_width(x):
    # Today's psum_fmax is a bank's 512 fp32 elements (SDK 2.x: 2048).
    out = nl.ndarray((x.shape[0], nl.tile_size.psum_fmax), dtype=x.dtype,
                     buffer=nl.shared_hbm)
    t = nl.load(x[:, 0:nl.tile_size.psum_fmax])
    nl.store(out, value=t)
    return out


def rand_and_dropout(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    r = nl.rand(x.shape, dtype=nl.float32)
    d = nl.dropout(nl.multiply(t, r), 0.1)
    nl.store(out, value=d)
    return out


def softmax_rows(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.softmax(nl.load(x), axis=1))
    return out


def collective(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    ncc.all_reduce(srcs=[t], dsts=[t], replica_group=None, op=nl.add)
    nl.store(out, value=t)
    return out


def todays_forms(x):
    # nki.isa's iota / affine_select / memset as the 2026-08 reference
    # writes them: dst first, access patterns for the indices.
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    idx = nl.ndarray(x.shape, dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(idx, [[1, x.shape[1]]], offset=0, channel_multiplier=0)
    z = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(z, 0.0)
    s = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.affine_select(s, [[-1, x.shape[1]]], 1, t, -1e9)
    u = nl.add(nl.add(s, z), idx)
    nl.store(out, value=u)
    return out
