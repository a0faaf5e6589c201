import nki
import nki.language as nl

from .. import LOADED_BY_INIT
from ..utils.helpers import FP16_MAX, ZEROS, bank_tiles, div_ceil
from . import tiles


@nki.jit
def scale_rows(x):
    assert LOADED_BY_INIT and FP16_MAX == 65504.0 and ZEROS.dtype == "float32"
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(div_ceil(rows, tiles.P_MAX)):
        t = nl.load(x[i * tiles.P_MAX:(i + 1) * tiles.P_MAX, 0:cols])
        nl.store(out[i * tiles.P_MAX:(i + 1) * tiles.P_MAX, 0:cols],
                 value=nl.multiply(t, 2.0))
    return out


@nki.jit
def uses_missing_constant(x):
    n = bank_tiles(x.shape[1])
    return scale_rows(x)
