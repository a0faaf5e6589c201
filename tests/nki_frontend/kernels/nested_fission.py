# Loops that fill two arrays allocated outside them from loops nested in
# them, written for the front end's tests in the SDK 2.2x API
# (nki_frontend/fission.py): a block and a running max over the outer loop
# (NKIBench's bmm_softmax) stay one nest, the max its result; two blocks
# split the whole nest, one per array.
import numpy as np
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def block_and_running_max(x):
    # x: [A * B * 128, 512]; blk[a, b] keeps every tile, mx[b] the max of
    # the row maxima over a, read after the nest.
    A, B = 2, 3
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    blk = nl.ndarray((A, B, nl.par_dim(128), 512), dtype=np.float32,
                     buffer=nl.sbuf)
    mx = nl.ndarray((B, nl.par_dim(128), 1), dtype=np.float32,
                    buffer=nl.sbuf)
    red = nl.ndarray((A, B, nl.par_dim(128), 1), dtype=np.float32,
                     buffer=nl.sbuf)
    for a in nl.affine_range(A):
        for b in nl.affine_range(B):
            t = nl.load(x[(a * B + b) * 128 + nl.arange(128)[:, None],
                          nl.arange(512)[None, :]])
            blk[a, b, nl.arange(128)[:, None], nl.arange(512)[None, :]] = \
                nl.exp(t)
            red[a, b, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(
                nl.max, data=blk[a, b, nl.arange(128)[:, None],
                                 nl.arange(512)[None, :]], axis=[1])
            mx[b, nl.arange(128)[:, None], 0] = nl.loop_reduce(
                red[a, b, nl.arange(128)[:, None], 0], op=np.max,
                loop_indices=[a])
    for a2 in nl.affine_range(A):
        for b2 in nl.affine_range(B):
            y = nisa.activation(op=nl.exp,
                                data=blk[a2, b2, nl.arange(128)[:, None],
                                         nl.arange(512)[None, :]],
                                bias=mx[b2, nl.arange(128)[:, None], 0])
            nl.store(out, value=y)
    return out


def other_slot_read(x):
    # The max reads the slot of the previous b, not the one this
    # iteration wrote: no loop split gives the source's meaning.
    A, B = 2, 3
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    blk = nl.ndarray((A, B, nl.par_dim(128), 512), dtype=np.float32,
                     buffer=nl.sbuf)
    mx = nl.ndarray((B, nl.par_dim(128), 1), dtype=np.float32,
                    buffer=nl.sbuf)
    for a in nl.affine_range(A):
        for b in nl.affine_range(B):
            t = nl.load(x[(a * B + b) * 128 + nl.arange(128)[:, None],
                          nl.arange(512)[None, :]])
            blk[a, b, nl.arange(128)[:, None], nl.arange(512)[None, :]] = \
                nl.exp(t)
            mx[b, nl.arange(128)[:, None], 0] = nl.loop_reduce(
                nisa.tensor_reduce(nl.max, data=blk[a, 0,
                                                    nl.arange(128)[:, None],
                                                    nl.arange(512)[None, :]],
                                   axis=[1]),
                op=np.max, loop_indices=[a])
    for a2 in nl.affine_range(A):
        y = nisa.activation(op=nl.exp,
                            data=blk[a2, 0, nl.arange(128)[:, None],
                                     nl.arange(512)[None, :]],
                            bias=mx[0, nl.arange(128)[:, None], 0])
        nl.store(out, value=y)
    return out


def two_blocks(x):
    # blk[a, b] keeps every tile, mxs[a, b] every row max of one: two
    # blocks, one nest each.
    A, B = 2, 3
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    blk = nl.ndarray((A, B, nl.par_dim(128), 512), dtype=np.float32,
                     buffer=nl.sbuf)
    mxs = nl.ndarray((A, B, nl.par_dim(128), 1), dtype=np.float32,
                     buffer=nl.sbuf)
    for a in nl.affine_range(A):
        for b in nl.affine_range(B):
            t = nl.load(x[(a * B + b) * 128 + nl.arange(128)[:, None],
                          nl.arange(512)[None, :]])
            blk[a, b, nl.arange(128)[:, None], nl.arange(512)[None, :]] = \
                nl.exp(t)
            mxs[a, b, nl.arange(128)[:, None], 0] = nisa.tensor_reduce(
                nl.max, data=blk[a, b, nl.arange(128)[:, None],
                                 nl.arange(512)[None, :]], axis=[1])
    for a2 in nl.affine_range(A):
        for b2 in nl.affine_range(B):
            y = nisa.activation(op=nl.exp,
                                data=blk[a2, b2, nl.arange(128)[:, None],
                                         nl.arange(512)[None, :]],
                                bias=mxs[a2, b2, nl.arange(128)[:, None], 0])
            nl.store(out, value=y)
    return out
