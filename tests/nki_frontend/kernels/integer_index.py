# A loop variable used as an integer index of one tensor (`y[k]`) and as a
# tile offset of another (`out[:, k * 128:(k + 1) * 128]`), written for the
# front end's tests: the loop walks the tiled dim, and the integer index
# takes one element of y's dim 0 per iteration.
import neuronxcc.nki.language as nl


def columns_from_slots(y):
    slots, p, w = y.shape
    out = nl.ndarray((p, slots * w), dtype=y.dtype, buffer=nl.shared_hbm)
    for k in nl.affine_range(slots):
        t = nl.load(y[k])
        nl.store(out[:, k * w:(k + 1) * w], value=t)
    return out
