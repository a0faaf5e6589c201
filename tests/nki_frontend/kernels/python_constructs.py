# Python as kernel authors write it (issue 44, item 3), in today's `nki`:
# a class holding the tiling, a comprehension over a range, a closure, and
# the `nki.jit(f, mode=...)` call form.
import nki
import nki.language as nl


class Tiling:
    def __init__(self, rows: int) -> None:
        self.rows = rows

    def blocks(self, n: int) -> list:
        return [nl.ds(i * self.rows, self.rows) for i in range(n // self.rows)]


def scaled(factor):
    def apply(t):
        return nl.multiply(t, factor)
    return apply


def exp_blocks(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    tiling = Tiling(128)
    half = scaled(0.5)
    tiles = [nl.load(x[rows, :]) for rows in tiling.blocks(n)]
    for rows, t in zip(tiling.blocks(n), tiles):
        nl.store(out[rows, :], value=half(nl.exp(t)))
    return out


exp_blocks_jit = nki.jit(exp_blocks, mode="simulation", platform_target="trn2")
