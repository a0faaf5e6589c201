# Helpers of the kernels in ../ops: module-level numpy on nl dtypes, and
# names the front end lacks, which load and are refused only when used.
import numpy as np

import nki.isa.no_such_module as constants  # not provided by the front end
import nki.language as nl

FP16_MAX = float(np.finfo(nl.float16).max)
ZEROS = np.zeros(4, dtype=nl.float32)
PSUM_BANK = nl.tile_size.no_such_constant  # missing: fine until used
VECTOR = constants.engine.vector


def div_ceil(a: int, b: int) -> int:
    return (a + b - 1) // b


def bank_tiles(n: int) -> int:
    return n // PSUM_BANK  # a use of the missing constant
