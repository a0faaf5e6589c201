# Python as kernel authors write it (issue 44, item 3), in today's `nki`:
# a class holding the tiling, a comprehension over a range, a closure, and
# the `nki.jit(f, mode=...)` call form.
from dataclasses import dataclass

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


# The language guide's "Class Support": every NKI class is like a data class,
# `@dataclass` or not; its default initializer takes each field as a keyword
# defaulting to None, so a field without a default may follow one with a
# default (the NKI Library's TopkConfig), and a class-level value is a field
# (its SectionParams(section_idx=...)).
@dataclass(frozen=True, eq=True)
class Blocks(nl.NKIObject):
    rows: int = 128
    count: int

    def ranges(self) -> list:
        return [nl.ds(i * self.rows, self.rows) for i in range(self.count)]


class Section(nl.NKIObject):
    scale = None
    bias = 0.0

    def __post_init__(self) -> None:
        self.scale = 1.0 if self.scale is None else self.scale


def exp_blocks_nki_classes(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    blocks = Blocks(count=n // 128)
    sec = Section(scale=0.5)
    half = scaled(sec.scale)
    for rows in blocks.ranges():
        t = nl.load(x[rows, :])
        nl.store(out[rows, :], value=half(nl.exp(t)))
    return out


# One program along a grid axis: nl.program_id is the int 0, so the kernel
# may branch on it (the NKI Library's indexed_flatten at a grid of [1]).
def first_program_exp(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    if nl.program_id(0) == 0:
        t = nl.exp(t)
    nl.store(out, value=t)
    return out


# Programs that allocate HBM tensors of different shapes: not one tensor
# they share.
def per_program_output(x):
    rows = 64 * (nl.program_id(0) + 1)
    out = nl.ndarray((rows, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[0:rows, :])
    nl.store(out, value=t)
    return out
