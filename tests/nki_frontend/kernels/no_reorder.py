# Loops whose program order the scheduler keeps, written for the front
# end's tests in today's API: a range with the no_reorder directive, and a
# `with nl.no_reorder():` region around an inner loop.
import nki
import nki.isa as nisa
import nki.language as nl


def directive(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(n // 128,
                                 directives=nki.compiler.no_reorder()):
        for j in nl.affine_range(w // 256):
            t = nl.load(x[nl.ds(i * 128, 128), nl.ds(j * 256, 256)])
            y = nisa.activation(op=nl.exp, data=t)
            nl.store(out[nl.ds(i * 128, 128), nl.ds(j * 256, 256)], value=y)
    return out


def region(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        with nl.no_reorder():
            for j in nl.affine_range(w // 256):
                t = nl.load(x[nl.ds(i * 128, 128), nl.ds(j * 256, 256)])
                y = nisa.activation(op=nl.exp, data=t)
                nl.store(out[nl.ds(i * 128, 128), nl.ds(j * 256, 256)],
                         value=y)
    return out


def plain(x):
    n, w = x.shape
    out = nl.ndarray((n, w), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(n // 128):
        for j in nl.affine_range(w // 256):
            t = nl.load(x[nl.ds(i * 128, 128), nl.ds(j * 256, 256)])
            y = nisa.activation(op=nl.exp, data=t)
            nl.store(out[nl.ds(i * 128, 128), nl.ds(j * 256, 256)], value=y)
    return out
