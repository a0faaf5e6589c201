"""Memories a kernel names (nl.sbuf, nl.psum, the HBM kinds), the
direct-allocation functions (`mod_alloc`, `alloc`) and `nl.par_dim`."""

from __future__ import annotations

import itertools
import re
from typing import Callable, Dict, Sequence, Tuple

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


# The logical tiles of one array whose placement `alloc`'s function is
# asked for: the API calls it once per block index.
MAX_PLACED_TILES = 4096


class FunctionAlloc:
    """`nki.compiler.sbuf.alloc(func)` / `psum.alloc(func)` (SDK 2.26 API
    reference): `func(idx, pdim_size, fdim_size)` places the logical tile
    of block index `idx`, returning `(start_partition, byte_addr)` (SBUF)
    or `(bank_id, start_partition, byte_addr)` (PSUM). The front end asks
    it for every block index of the array, as the compiler does, and
    reads how many physical tiles back each block dim: the placement is a
    mod_alloc whose counts are the periods of the function along each dim
    (test_psum_modulo_alloc.py's function is one). The addresses are not
    modelled, as mod_alloc's are not. A placement that is not periodic per
    block dim (two logical tiles at one place other than by a period) is
    refused in one line."""

    def __init__(self, buffer: str, func: Callable) -> None:
        self.buffer = buffer
        self.func = func
        self.api = f"nki.compiler.{buffer}.alloc"

    def _place(self, idx: Tuple[int, ...], pdim_size: int,
               fdim_size: int) -> Tuple[int, ...]:
        where = self.func(idx, pdim_size, fdim_size)
        want = 2 if self.buffer == "sbuf" else 3
        if not isinstance(where, (tuple, list)) or len(where) != want or \
                not all(isinstance(v, int) and not isinstance(v, bool)
                        for v in where):
            what = ("(start_partition, byte_addr)" if want == 2 else
                    "(bank_id, start_partition, byte_addr)")
            raise err(f"{self.api}: its function returns {what}, a tuple of "
                      f"{want} integers; for block index {idx} it returned "
                      f"{where!r}")
        return tuple(where)

    def resolve(self, blocks: Sequence[int], pdim_size: int,
                fdim_size: int) -> ModAlloc:
        """The mod_alloc this placement is for an array of block dims
        `blocks`, `pdim_size` partitions and `fdim_size` bytes a
        partition per tile."""
        count = 1
        for b in blocks:
            count *= b
        if count > MAX_PLACED_TILES:
            raise err(f"{self.api}: an array of {count} logical tiles; its "
                      f"function is asked for at most {MAX_PLACED_TILES}")
        places: Dict[Tuple[int, ...], Tuple[int, ...]] = {
            idx: self._place(idx, pdim_size, fdim_size)
            for idx in itertools.product(*(range(b) for b in blocks))}
        zero = (0,) * len(blocks)
        periods = []
        for d, b in enumerate(blocks):
            line = [places[zero[:d] + (i,) + zero[d + 1:]]
                    for i in range(b)]
            periods.append(next(p for p in range(1, b + 1)
                                if all(line[i] == line[i % p]
                                       for i in range(b))))
        seen: Dict[Tuple[int, ...], Tuple[int, ...]] = {}
        for idx, place in places.items():
            home = tuple(i % p for i, p in zip(idx, periods))
            if places[home] != place or seen.setdefault(place, home) != home:
                raise err(f"{self.api}: its function places block {idx} at "
                          f"{place}, which is not a modulo allocation per "
                          f"block dim (periods {tuple(periods)}): not yet "
                          "supported (the format counts the physical tiles "
                          "of each block dim)")
        return ModAlloc(self.buffer, tuple(periods))


def dtype_bytes(spec: str) -> int:
    """Bytes of a spec dtype (`bf16` 2, `fp32` 4, `int8` 1)."""
    m = re.search(r"\d+", spec)
    return max(1, int(m.group()) // 8) if m else 4


class ParDim(int):
    """`nl.par_dim(n)`: marks the partition dim of an allocation."""
