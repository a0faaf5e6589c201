# Kernels the catalogue of bad inputs runs through `trnbench --kernel`
# (tests/errors/error_catalogue_test.cc) and `python3 -m nki_frontend`
# (tests/nki_frontend/test_bad_inputs.py): each is refused in one line
# naming its file and line, exit 2, nothing written.
import sys

import neuronxcc.nki.language as nl
import nki.isa.no_such_module as constants  # no such module: refused when used
import not_an_installed_package as absent  # likewise


def copy(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out


def raises(x):
    raise ValueError("rows must be a multiple of 128")


def recurses(x):
    return recurses(x)


def loops_forever(x):
    n = 0
    while True:
        n += 1


def catches_the_time_bound(x):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass


def huge_tile(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 1 << 40), dtype=nl.float32, buffer=nl.sbuf)
    nl.store(out, value=nl.load(x))
    return out


def huge_python_list(x):
    rows = [0] * (1 << 40)
    return rows


def prints_then_fails(x):
    for i in range(2000):
        print("debug: row", i, "of the kernel's own output " * 4)
    return nl.no_such_function(x)


def exits(x):
    sys.exit(3)


def uses_missing_nki_module(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    engine = constants.engine.vector
    nl.store(out, value=nl.exp(nl.load(x), engine=engine))
    return out


def uses_missing_constant(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n = x.shape[1] // nl.tile_size.no_such_constant
    nl.store(out, value=nl.load(x))
    return out


def uses_absent_package(x):
    return absent.zeros(x.shape)


# Not a bad input: a decorator of a module that is not installed is taken
# to return the function, as nki.jit does (test_bad_inputs.TopLevelCode).
@absent.jit
def wrapped_by_absent_decorator(x):
    return copy(x)
