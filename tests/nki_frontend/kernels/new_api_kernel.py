# Today's NKI API (nki, nki.language, nki.isa), written for the front end's
# tests: nl.ndarray allocations in SBUF / PSUM / shared HBM, nisa.dma_copy,
# nisa.nc_matmul(dst=...), nisa.tensor_copy, nisa.activation,
# nisa.tensor_tensor with an engine, nisa.memset, and the four loop kinds.
import nki
import nki.isa as nisa
import numpy as np
import nki.language as nl


@nki.jit
def scaled_matmul(lhsT, rhs, bias):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        res = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
        for k in nl.sequential_range(K // 128):
            a = nl.ndarray((128, 128), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128,
                                          m * 128:(m + 1) * 128])
            b = nl.ndarray((128, N), dtype=rhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, 0:N])
            nisa.nc_matmul(dst=res, stationary=a, moving=b)
        sb = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sb, src=res)
        bias_t = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=bias_t, src=bias[m * 128:(m + 1) * 128, 0:1])
        act = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=act, op=nl.exp, data=sb, bias=bias_t)
        summed = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=summed, data1=act, data2=sb, op=nl.add,
                           engine=nisa.vector_engine)
        res_out = nl.ndarray((128, N), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res_out, src=summed)
        nisa.dma_copy(dst=out[m * 128:(m + 1) * 128, 0:N], src=res_out)
    return out


@nki.jit
def loop_kinds(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.static_range(P // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, 0:F])
        for j in range(2):
            z = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=z, value=0.0)
        nl.store(out[i * 128:(i + 1) * 128, 0:F], value=nl.exp(t))
    return out


# A file may name the direct-allocation API at its top level; only a call
# in a traced kernel is refused.
place_by_hand = nki.compiler.sbuf.mod_alloc


@nki.compiler.enable_stack_allocator
@nki.jit
def auto_allocated(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(x.shape, dtype=x.dtype,
                   buffer=nki.compiler.sbuf.auto_alloc())
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def shift_and_scale(x, shift, scale):
    # One tensor_scalar with two per-partition operand tiles.
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    s = nl.load(shift)
    c = nl.load(scale)
    r = nisa.tensor_scalar(data=t, op0=nl.subtract, operand0=s,
                           op1=nl.multiply, operand1=c)
    nl.store(out, value=r)
    return out


@nki.jit
def scalar_operators(x, scale):
    # tensor_scalars whose operators the spec records ("alu"): nl.* and
    # NumPy's, op0 then op1, and nl arithmetic with a number or [P, 1].
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    c = nl.load(scale)
    a = nisa.tensor_scalar(data=t, op0=np.multiply, operand0=c,
                           op1=np.add, operand1=1.0)
    b = nisa.tensor_scalar(data=a, op0=nl.maximum, operand0=0.0)
    d = b * 0.5
    e = nl.subtract(d, c)
    nl.store(out, value=e)
    return out


# Today's nl.shared_identity_matrix is made in SBUF (the 2026-08 reference),
# so a kernel passes it to nc_matmul as a tile, as moe_cte's transposes do.
def identity_transpose(x):
    n, m = x.shape
    out = nl.ndarray((m, n), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_identity_matrix(n, dtype=x.dtype)
    t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=t, moving=identity[0:n, 0:n])
    y = nl.ndarray((m, n), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=y, src=ps)
    nisa.dma_copy(dst=out, src=y)
    return out
