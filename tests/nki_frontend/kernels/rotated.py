# Buffers a kernel rotates by hand, written for the front end's tests in
# today's API: an SBUF buffer dimension indexed `i % 2`, and a PSUM block
# dimension that mod_alloc places on 4 physical banks.
import nki
import nki.isa as nisa
import nki.language as nl


def two_buffers(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(128), 2, w), dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.sequential_range(n // 128):
        nisa.dma_copy(dst=t[:, i % 2, :], src=x[nl.ds(i * 128, 128), :])
        y = nisa.activation(op=nl.exp, data=t[:, i % 2, :])
        nisa.dma_copy(dst=out[nl.ds(i * 128, 128), :], src=y)
    return out


def placed_banks(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    ps = nl.ndarray((n // 128, nl.par_dim(128), 128), dtype=nl.float32,
                    buffer=nki.compiler.psum.mod_alloc(
                        base_bank=0, num_bank_tiles=(4,)))
    for i in nl.affine_range(n // 128):
        t = nl.load(x[nl.ds(i * 128, 128), :])
        ps[i] = nisa.nc_transpose(t)
        y = nisa.tensor_copy(ps[i], dtype=x.dtype)
        nl.store(out[nl.ds(i * 128, 128), :], value=y)
    return out


# nki.compiler.psum.alloc with a function of the kernel's: the modulo
# placement test_psum_modulo_alloc.py writes (bank idx % 4) is mod_alloc's.
def _banks_modulo(n):
    def place(idx, pdim_size, fdim_size):
        return (idx[0] % n, 0, 0)
    return place


def _placed_by(place):
    def kernel(x):
        n, w = x.shape
        out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
        ps = nl.ndarray((n // 128, nl.par_dim(128), 128), dtype=nl.float32,
                        buffer=nki.compiler.psum.alloc(place))
        for i in nl.affine_range(n // 128):
            t = nl.load(x[nl.ds(i * 128, 128), :])
            ps[i] = nisa.nc_transpose(t)
            y = nisa.tensor_copy(ps[i], dtype=x.dtype)
            nl.store(out[nl.ds(i * 128, 128), :], value=y)
        return out
    return kernel


placed_by_function = _placed_by(_banks_modulo(4))
# Blocks 0 and 1 share bank 0, the others have their own: no period.
placed_irregularly = _placed_by(lambda idx, p, f: (max(idx[0], 1), 0, 0))
placed_nowhere = _placed_by(lambda idx, p, f: idx[0])
