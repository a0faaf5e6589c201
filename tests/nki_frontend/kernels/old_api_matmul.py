# A small tiled matmul in the SDK 2.21 API (neuronxcc.nki), written for the
# front end's tests: nl.load / nl.store with slices, a PSUM accumulator over
# an affine k loop, nl.copy back to SBUF.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def matmul_tiled(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                a = nl.load(lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                b = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nl.matmul(a, b, transpose_x=True)
            out = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512],
                     value=out)
    return result


@nki.jit
def matmul_untransposed(lhs, rhs):
    # lhs is [M, K]: nl.matmul's default transpose_x=False asks the compiler
    # to transpose each [128, 128] tile of it onto the contraction.
    M, K = lhs.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                a = nl.load(lhs[m * 128:(m + 1) * 128, k * 128:(k + 1) * 128])
                b = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nl.matmul(a, b)
            out = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512],
                     value=out)
    return result
