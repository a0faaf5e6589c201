"""Memories a kernel names (nl.sbuf, nl.psum, the HBM kinds), the
`mod_alloc` allocation functions and `nl.par_dim`."""

from __future__ import annotations

from typing import Tuple

from .location import err


class Buffer:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"nl.{self.name}"


SBUF = Buffer("sbuf")
PSUM = Buffer("psum")
HBM = Buffer("hbm")
SHARED_HBM = Buffer("shared_hbm")
PRIVATE_HBM = Buffer("private_hbm")


class ModAlloc:
    """`nki.compiler.sbuf.mod_alloc(...)` / `psum.mod_alloc(...)` as an
    allocation's buffer: the array is in SBUF / PSUM, and each of its block
    dims has `tiles[d]` physical tiles, logical tile j going to j % tiles[d]
    (the API reference's modulo allocation function). The addresses it
    names are not modelled: the compiler stage's allocator places tiles by
    liveness (docs/nki-source.md)."""

    def __init__(self, buffer: str, tiles: Tuple[int, ...]) -> None:
        self.buffer = buffer
        self.tiles = tiles


def _tile_counts(api: str, key: str, value: object) -> Tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1
            for v in value):
        raise err(f"{api}: {key}= is a tuple of positive integers, got "
                  f"{value!r}")
    return tuple(value)


def mod_alloc(buffer: str, **kwargs: object) -> ModAlloc:
    api = f"nki.compiler.{buffer}.mod_alloc"
    counts_key = "num_free_tiles" if buffer == "sbuf" else "num_bank_tiles"
    known = {"base_addr", "base_partition", "num_par_tiles",
             "num_free_tiles"} | ({"base_bank", "num_bank_tiles"}
                                  if buffer == "psum" else set())
    for k in kwargs:
        if k not in known:
            raise err(f"{api} has no argument {k}=")
    for k in ("base_addr", "base_bank", "base_partition"):
        v = kwargs.get(k, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise err(f"{api}: {k}= is an integer >= 0, got {v!r}")
    for k in ("num_par_tiles",) + (("num_free_tiles",) if buffer == "psum"
                                   else ()):
        if any(c != 1 for c in _tile_counts(api, k, kwargs.get(k, ()))):
            raise err(f"{api}: {k}= other than 1 (tiles side by side "
                      "within a block's allocation) is not yet supported")
    return ModAlloc(buffer, _tile_counts(api, counts_key,
                                         kwargs.get(counts_key, ())))


class ParDim(int):
    """`nl.par_dim(n)`: marks the partition dim of an allocation."""
