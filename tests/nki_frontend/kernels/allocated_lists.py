# Lists of allocated tiles, as the NKI Library builds them (attention_bwd's
# ndarray helper: a flat list of nl.ndarray tiles; attention_cte's nested
# lists of PSUM tiles), written for the front end's tests in today's API:
# the tiles are allocations no op has made yet, so the lists are Python's.
import nki.isa as nisa
import nki.language as nl


def allocated_tiles(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    for _ in range(n // 128):
        tiles.append(nl.ndarray((128, w), dtype=x.dtype, buffer=nl.sbuf))
    for i in range(n // 128):
        nisa.dma_copy(dst=tiles[i], src=x[nl.ds(i * 128, 128), :])
        nisa.dma_copy(dst=out[nl.ds(i * 128, 128), :], src=tiles[i])
    return out


def allocated_grid(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    grid = []
    for g in range(2):
        row = []
        for k in range(2):
            row.append(nl.ndarray((128, 128), dtype=nl.float32,
                                  buffer=nl.psum))
        grid.append(row)
    for g in range(2):
        for k in range(2):
            t = nl.load(x[nl.ds((g * 2 + k) * 128, 128), :])
            nisa.nc_transpose(dst=grid[g][k], data=t)
            y = nl.copy(grid[g][k], dtype=x.dtype)
            nl.store(out[nl.ds((g * 2 + k) * 128, 128), :], value=y)
    return out
