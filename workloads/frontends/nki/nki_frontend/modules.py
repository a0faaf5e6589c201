"""The NKI modules a kernel imports, made of the tracing functions.

Both generations are provided: `neuronxcc.nki{,.language,.isa,.typing}`
(SDK 2.21) and today's `nki{,.language,.isa,.typing}`. They go into
`sys.modules` while a kernel is loaded and traced, and a finder refuses any
other submodule of those packages with the name of the import, so that an
unknown API is one line, not an ImportError from deep inside Python."""

from __future__ import annotations

import importlib.abc
import sys
import types
from typing import Callable, Dict, List, Optional

from . import core, generations, isa, language, tracer
from .errors import TraceError

SUPPORTED_DOC = "docs/nki-source.md lists the supported API"


class _ApiModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise TraceError(f"{self.__name__}.{name} is not supported by the NKI "
                         f"front end ({SUPPORTED_DOC})", tracer.where())


def _public(mod: types.ModuleType, names: List[str]) -> Dict[str, object]:
    return {n: getattr(mod, n) for n in names}


LANGUAGE_NAMES = [n for n in dir(language) if not n.startswith("_") and n not in (
    "annotations", "core", "ir", "tracer", "Optional", "Sequence", "Tuple",
    "DTYPES", "HBM", "PRIVATE_HBM", "PSUM", "SBUF", "SHARED_HBM", "DType",
    "DynSlice", "Grid", "HbmHandle", "HbmView", "ParDim", "Tile", "TileView",
    "err", "is_tile", "make_op", "result_tile", "tile_dtype", "tile_shape",
    "Affine", "Axis", "Conjunction", "Predicate", "python_range", "builtins",
    "not_yet", "Broadcast")]

ISA_NAMES = [n for n in dir(isa) if not n.startswith("_") and n not in (
    "annotations", "core", "ir", "language", "Optional", "Sequence",
    "HbmHandle", "HbmView", "Tile", "TileView", "err", "is_tile", "make_op",
    "result_tile", "tile_dtype", "tile_shape", "not_yet")]


class _Jit:
    """`nki.jit` and friends: the kernel function, callable as is."""

    def __init__(self, func: Callable, **options: object) -> None:
        self.func = func
        self.options = options

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.func(*args, **kwargs)

    def __getitem__(self, grid: object) -> "_Jit":
        raise TraceError("an SPMD launch grid (kernel[grid]) is not yet "
                         "supported", tracer.where())


def _decorator(*args: object, **kwargs: object):
    if len(args) == 1 and callable(args[0]):
        # `@nki.jit`, or the call form `nki.jit(f, mode="simulation")`,
        # also of a function already decorated.
        func = args[0]
        return _Jit(func.func if isinstance(func, _Jit) else func,
                    **kwargs)  # type: ignore[arg-type]

    def wrap(func: Callable) -> _Jit:
        return _Jit(func.func if isinstance(func, _Jit) else func, **kwargs)
    return wrap


def _direct_allocation(api: str):
    def refuse(*args: object, **kwargs: object) -> None:
        raise TraceError(
            f"{api} (direct allocation by a function) is not yet "
            "supported: its function places each tile of a tensor, where "
            "the spec format leaves placement to the compiler stage; use "
            "mod_alloc, nl.sbuf / nl.psum or auto_alloc() "
            f"({SUPPORTED_DOC})", tracer.where())
    setattr(refuse, "_refused", (
        "it places each tile by a function of the kernel's, "
        "where the spec leaves placement to the compiler stage"))
    return refuse


def _memory_module(top: str, name: str, buffer: object) -> types.ModuleType:
    """`nki.compiler.sbuf` / `.psum`, the direct-allocation API: a tensor
    the compiler allocates (`auto_alloc()`) is an `nl.sbuf` / `nl.psum`
    tensor; `mod_alloc` fixes each block dim's physical tiles
    (core.ModAlloc); placing tiles with a function of one's own (`alloc`)
    is refused when a traced kernel calls it (a file may still name it, at
    its top level)."""
    m = _ApiModule(f"{top}.compiler.{name}")
    m.__dict__["auto_alloc"] = lambda *a, **k: buffer
    m.__dict__["alloc"] = _direct_allocation(f"nki.compiler.{name}.alloc")

    def modulo(*args: object, **kwargs: object) -> object:
        if args:
            raise TraceError(f"nki.compiler.{name}.mod_alloc takes keyword "
                             "arguments only", tracer.where())
        return core.mod_alloc(name, **kwargs)
    m.__dict__["mod_alloc"] = modulo
    return m


class _TensorType:
    def __getitem__(self, key: object) -> object:
        return key


def _build() -> Dict[str, types.ModuleType]:
    mods: Dict[str, types.ModuleType] = {}
    for top in ("neuronxcc.nki", "nki"):
        # Each generation's names and signatures: generations.py.
        lang = _ApiModule(f"{top}.language")
        lang.__dict__.update(generations.language_names(top))
        isa_mod = _ApiModule(f"{top}.isa")
        isa_mod.__dict__.update(generations.isa_names(top))
        isa_mod.__path__ = []  # a package, for `nki.isa.constants`
        constants = _ApiModule(f"{top}.isa.constants")
        constants.__dict__.update(generations.isa_names(top))
        isa_mod.__dict__["constants"] = constants
        collectives = _ApiModule(f"{top}.collectives")
        collectives.__dict__.update(generations.collectives_names(top))
        typing = _ApiModule(f"{top}.typing")
        typing.__dict__["tensor"] = _TensorType()
        compiler = _ApiModule(f"{top}.compiler")
        sbuf = _memory_module(top, "sbuf", language.sbuf)
        psum = _memory_module(top, "psum", language.psum)
        compiler.__path__ = []  # a package, for `import top.compiler.sbuf`
        compiler.__dict__.update({
            "sbuf": sbuf, "psum": psum,
            # Kernel decorators that change how the compiler allocates or
            # transforms, not what the kernel computes.
            "skip_middle_end_transformations": _decorator,
            "enable_stack_allocator": _decorator,
            "force_auto_alloc": _decorator,
            # A loop directive (`directives=nki.compiler.no_reorder()`).
            "no_reorder": core.no_reorder})
        nki = _ApiModule(top)
        nki.__dict__.update({
            "language": lang, "isa": isa_mod, "typing": typing,
            "compiler": compiler, "jit": _decorator, "trace": _decorator,
            "benchmark": _decorator, "profile": _decorator,
            "baremetal": _decorator, "simulate_kernel": _simulate,
            "simulate": _simulate, "tensor": typing.tensor,
            "collectives": collectives,
        })
        nki.__path__ = []  # a package, for `import top.language`
        for m in (lang, isa_mod, typing, compiler, sbuf, psum, nki,
                  constants, collectives):
            mods[m.__name__] = m
    neuronxcc = _ApiModule("neuronxcc")
    neuronxcc.__path__ = []
    neuronxcc.__dict__["nki"] = mods["neuronxcc.nki"]
    mods["neuronxcc"] = neuronxcc
    return mods


def _simulate(kernel: object, *args: object, **kwargs: object) -> object:
    return kernel(*args, **kwargs)  # type: ignore[operator]


class _Refuser(importlib.abc.MetaPathFinder):
    """Any other module of the NKI packages is an unknown API."""

    def find_spec(self, fullname: str, path: object, target: object = None):
        if fullname.split(".")[0] in ("neuronxcc", "nki") and \
                fullname not in MODULES:
            raise TraceError(f"import of {fullname}: this module is not "
                             f"provided by the NKI front end "
                             f"({SUPPORTED_DOC})", tracer.where())
        return None


class _AbsentThing:
    """A name from a module that is not installed (scipy, torch: the test
    code of a kernel file): an error only if the traced kernel uses it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _refuse(self, *args: object, **kwargs: object):
        raise TraceError(f"the kernel uses {self._name}, from a module that "
                         "is not installed; a traced kernel uses the NKI API "
                         "and Python", tracer.where())

    __call__ = _refuse

    def __getattr__(self, name: str) -> "_AbsentThing":
        if name.startswith("__"):
            raise AttributeError(name)
        return _AbsentThing(f"{self._name}.{name}")


class _AbsentModule(types.ModuleType):
    def __getattr__(self, name: str) -> _AbsentThing:
        if name.startswith("__"):
            raise AttributeError(name)
        return _AbsentThing(f"{self.__name__}.{name}")


class _AbsentLoader(importlib.abc.Loader):
    def create_module(self, spec):  # type: ignore[override]
        m = _AbsentModule(spec.name)
        m.__path__ = []  # type: ignore[attr-defined]
        return m

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _AbsentFinder(importlib.abc.MetaPathFinder):
    """Last on the path: a module no other finder has becomes absent."""

    def __init__(self, kernel_path: str) -> None:
        self.kernel_path = kernel_path

    def find_spec(self, fullname: str, path: object, target: object = None):
        import importlib.machinery
        import os
        f = sys._getframe(1)
        while f is not None and (f.f_code.co_filename.startswith("<frozen")
                                 or "importlib" in f.f_code.co_filename):
            f = f.f_back
        # Only the kernel file's own imports: a library's optional imports
        # keep failing as they expect.
        if f is None or os.path.abspath(f.f_code.co_filename) != \
                self.kernel_path:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AbsentLoader())


class absent_modules_allowed:
    def __init__(self, kernel_path: str) -> None:
        self.kernel_path = kernel_path

    def __enter__(self) -> None:
        self.finder = _AbsentFinder(self.kernel_path)
        sys.meta_path.append(self.finder)

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self.finder)


MODULES = _build()


def install() -> None:
    for name in [n for n in sys.modules if n.split(".")[0] in
                 ("neuronxcc", "nki")]:
        del sys.modules[name]
    sys.modules.update(MODULES)
    sys.meta_path.insert(0, _Refuser())
