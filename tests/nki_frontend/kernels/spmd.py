"""An SPMD kernel: each instance of the launch grid scales one tile."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def scale_tile(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(axis=1)
    n = nl.num_programs(1)
    rows = x.shape[0] // nl.num_programs(0)
    cols = x.shape[1] // n
    t = nl.load(x[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols])
    y = nl.multiply(t, 2.0)
    nl.store(out[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols], value=y)
    return out
