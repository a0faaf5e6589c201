# The kernel nki_frontend_args_fuzz.py traces with each input: a tensor x
# of any rank, ROWS a meta-parameter, any other keyword argument taken and
# ignored (so that a fuzzed --kwarg reaches emission).
import neuronxcc.nki.language as nl


def fuzz_kernel(x, scale=1.0, ROWS=128, **kwargs):
    rows = x.shape[0]
    cols = x.shape[-1]
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // ROWS):
        t = nl.load(x[i * ROWS:(i + 1) * ROWS, 0:cols])
        nl.store(out[i * ROWS:(i + 1) * ROWS, 0:cols],
                 value=nl.multiply(t, scale))
    return out
