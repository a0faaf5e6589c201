"""The tracing objects both API generations share, named in one place for
the API modules (language, isa) and the command line. Each is decided in
a module of its own; a new construct goes there:

- location: the kernel line being traced and one-line refusals (err);
- dtypes, buffers: dtypes and memories a kernel names;
- indexing: indices and slices into tensors and tiles;
- tiles: the values a kernel holds (HBM tensors, tiles, views);
- versions: which version of an array a read sees, which loop owns it;
- recorder: API calls as ops, writes into tiles;
- loops: traced loops and what closing one decides."""

from __future__ import annotations

from .buffers import (HBM, PRIVATE_HBM, PSUM, SBUF, SHARED_HBM, Buffer,
                      FunctionAlloc, ModAlloc, ParDim, dtype_bytes, mod_alloc)
from .dtypes import (ARG_DTYPES, DTYPES, SUPPORTED_DTYPES, DType, dtype_obj,
                     spec_dtype)
from .indexing import (ArangeVector, DynSlice, Grid, clip_to_mask, normalize,
                       tile_of, view_shape, view_tile)
from .location import err
from .loops import LoopRange, NoReorder, close_loop, no_reorder
from .recorder import (indirect_ref, make_op, new_array, note_readers, ref_of,
                       result_tile, write, write_reduction)
from .tiles import (Broadcast, HbmHandle, HbmView, LoopReduce, Tile, TileLike,
                    TileView, is_tile, tile_dtype, tile_shape, unlist)
from .versions import Unprivatize

_unlist = unlist  # the name language and isa use

__all__ = [
    "ARG_DTYPES", "ArangeVector", "Broadcast", "Buffer", "DTYPES", "DType",
    "DynSlice", "FunctionAlloc", "Grid", "HBM", "HbmHandle", "HbmView",
    "LoopRange",
    "LoopReduce",
    "ModAlloc", "NoReorder", "PRIVATE_HBM", "PSUM", "ParDim", "SBUF",
    "SHARED_HBM", "SUPPORTED_DTYPES", "Tile", "TileLike", "TileView",
    "Unprivatize", "clip_to_mask", "close_loop", "dtype_bytes", "dtype_obj", "err",
    "indirect_ref",
    "is_tile", "make_op",
    "mod_alloc", "new_array", "no_reorder", "normalize", "not_yet",
    "note_readers", "ref_of", "result_tile", "spec_dtype", "tile_dtype",
    "tile_of", "tile_shape", "unlist", "view_shape", "view_tile", "write",
    "write_reduction",
]


def not_yet(func):
    """Marks an API function the front end names but does not trace yet
    (docs/nki-source.md lists it as "not yet"); calling it refuses."""
    func._not_yet = True  # type: ignore[attr-defined]
    return func
