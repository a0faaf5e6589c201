"""The NKI modules a kernel imports, made of the tracing functions.

Both generations are provided: `neuronxcc.nki{,.language,.isa,.typing}`
(SDK 2.21) and today's `nki{,.language,.isa,.typing}`. They go into
`sys.modules` while a kernel is loaded and traced. A name the front end
lacks (a module of those packages it does not provide, a function, a
constant) is a placeholder (`Missing`) that loads: it is refused, in one
line naming the kernel's file and line and the name, when the kernel uses
it, not when a module that names it is loaded."""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import itertools
import os
import sys
import types
from typing import Callable, Dict, List, NoReturn, Sequence

from . import blame, core, generations, isa, language, tracer
from .errors import TopLevelRun, TraceError

SUPPORTED_DOC = "docs/nki-source.md lists the supported API"


class _State:
    # False while the kernel file loads (module-level code may call a
    # missing decorator or factory: its result is another placeholder);
    # True once the kernel runs, where calling a placeholder is a use.
    tracing = False
    # True while the kernel file's top level runs (loader.load_kernel).
    loading = False


STATE = _State()


def _use_site() -> str:
    """FILE:LINE of the user's code that used a placeholder."""
    frame = blame.user_frame_of(sys._getframe(2))
    if frame is None:
        return tracer.where()
    return blame.label(frame.f_code.co_filename, frame.f_lineno)


class Missing:
    """A name the kernel's code took that the front end does not provide:
    an NKI name (`nki=True`) or a name of a module that is not installed.
    Taking attributes of it, or calling it while the file loads, gives
    more placeholders; any other use refuses, in one line."""

    def __init__(self, name: str, nki: bool,
                 wrapped: object = None) -> None:
        self.__dict__["name"] = name
        self.__dict__["nki"] = nki
        # A function this placeholder was applied to as a decorator.
        self.__dict__["wrapped"] = wrapped

    def refuse(self, *args: object, **kwargs: object) -> NoReturn:
        if self.nki:
            why = (f"{self.name} is not supported by the NKI front end "
                   f"({SUPPORTED_DOC})")
        else:
            why = (f"the kernel uses {self.name}, from a module that is not "
                   "installed; a traced kernel uses the NKI API and Python")
        raise TraceError(why, _use_site())

    def __getattr__(self, name: str) -> "Missing":
        if name.startswith("_"):  # never an NKI name: getattr(x, "_y", d)
            raise AttributeError(name)
        return Missing(f"{self.name}.{name}", self.nki)

    def __call__(self, *args: object, **kwargs: object) -> "Missing":
        if STATE.tracing:
            self.refuse()
        # `@torch_neuronx.nki_jit` on a kernel: the kernel stays reachable
        # (loader._kernel_function traces it, as nki.jit's).
        wrapped = args[0] if len(args) == 1 and not kwargs and \
            callable(args[0]) else None
        return Missing(f"{self.name}(...)", self.nki, wrapped)

    def __mro_entries__(self, bases: tuple) -> tuple:
        # `class Config(nl.NKIObject)`: a plain Python class (the language
        # guide's NKI classes are data classes), its base left out.
        return ()

    def __repr__(self) -> str:
        return f"<{self.name}: not provided>"

    __hash__ = object.__hash__
    __setattr__ = __delattr__ = __getitem__ = __setitem__ = refuse
    __bool__ = __iter__ = __len__ = __contains__ = __index__ = refuse
    __int__ = __float__ = __complex__ = __round__ = refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = refuse
    __neg__ = __pos__ = __abs__ = __invert__ = refuse
    __enter__ = __exit__ = __instancecheck__ = __subclasscheck__ = refuse
    for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                "divmod", "pow", "lshift", "rshift", "and", "xor", "or"):
        locals()[f"__{_op}__"] = locals()[f"__r{_op}__"] = refuse
        locals()[f"__i{_op}__"] = refuse
    del _op


class _ApiModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("_"):  # never an NKI name: getattr(x, "_y", d)
            raise AttributeError(name)
        return Missing(f"{self.__name__}.{name}", nki=True)


class _LazyNamespace(type):
    """The metaclass of the NKI modules' constant namespaces (`tile_size`):
    a constant the front end lacks is a placeholder."""

    def __getattr__(cls, name: str) -> Missing:
        if name.startswith("_"):  # never an NKI name: getattr(x, "_y", d)
            raise AttributeError(name)
        return Missing(f"{cls.__qualname__}.{name}", nki=True)


class _LazyConstants:
    """An instance holding constants (`nl.tile_size` of a generation): a
    constant it lacks is a placeholder, refused when used, as a class of
    constants' is."""

    def __init__(self, qualname: str, values: object) -> None:
        self.__dict__["_qualname"] = qualname
        self.__dict__["_values"] = values

    def __getattr__(self, name: str) -> object:
        if name.startswith("_"):
            raise AttributeError(name)
        if any(name in vars(k) for k in type(self._values).__mro__):
            return getattr(self._values, name)
        return Missing(f"{self._qualname}.{name}", nki=True)


def _lazy(top: str, name: str, value: object) -> object:
    """A class of constants only, as its subclass with _LazyNamespace; an
    instance of constants (`tile_size`) as a _LazyConstants."""
    if isinstance(value, (language._TileSize21,)):
        return _LazyConstants(f"{top}.{name}", value)
    if not isinstance(value, type) or type(value) is not type or any(
            callable(v) for k, v in vars(value).items()
            if not k.startswith("__")):
        return value
    return _LazyNamespace(name, (value,), {"__qualname__": f"{top}.{name}",
                                           "__module__": top})


def _checked(func: Callable) -> Callable:
    """An API function that refuses a placeholder among its arguments
    (`engine=nki.isa.constants.engine.vector`): passing one is a use."""
    @functools.wraps(func)
    def call(*args: object, **kwargs: object) -> object:
        for a in itertools.chain(args, kwargs.values()):
            if isinstance(a, Missing):
                a.refuse()
        return func(*args, **kwargs)
    return call


def _public(mod: types.ModuleType, names: List[str]) -> Dict[str, object]:
    return {n: getattr(mod, n) for n in names}


def _placeholders_when_used(mods: Dict[str, types.ModuleType]
                            ) -> Dict[str, types.ModuleType]:
    """Every module of the NKI packages a package (a submodule the front
    end lacks, `import nki.isa.constants`, is then found by _NkiFinder);
    their API functions refuse a placeholder argument (_checked) and their
    constant namespaces give placeholders for what they lack (_lazy)."""
    for name, m in mods.items():
        if not hasattr(m, "__path__"):
            m.__path__ = []  # type: ignore[attr-defined]
        for k, v in list(vars(m).items()):
            if k.startswith("_") or isinstance(v, types.ModuleType):
                continue
            if isinstance(v, types.FunctionType):
                m.__dict__[k] = _checked(v)
            else:
                m.__dict__[k] = _lazy(name, k, v)
    return mods


LANGUAGE_NAMES = [n for n in dir(language) if not n.startswith("_") and n not in (
    "annotations", "core", "ir", "tracer", "Optional", "Sequence", "Tuple",
    "DTYPES", "HBM", "PRIVATE_HBM", "PSUM", "SBUF", "SHARED_HBM", "DType",
    "DynSlice", "Grid", "HbmHandle", "HbmView", "ParDim", "Tile", "TileView",
    "err", "is_tile", "make_op", "result_tile", "tile_dtype", "tile_shape",
    "Affine", "Axis", "Conjunction", "Predicate", "python_range", "builtins",
    "not_yet", "Broadcast", "clip_to_mask")]

ISA_NAMES = [n for n in dir(isa) if not n.startswith("_") and n not in (
    "annotations", "core", "ir", "language", "Optional", "Sequence",
    "HbmHandle", "HbmView", "Tile", "TileView", "err", "is_tile", "make_op",
    "result_tile", "tile_dtype", "tile_shape", "not_yet")]


class Jit:
    """`nki.jit` and friends: the kernel function, callable as is."""

    def __init__(self, func: Callable, **options: object) -> None:
        self.func = func
        self.options = options

    def __call__(self, *args: object, **kwargs: object) -> object:
        _not_at_top_level()
        return self.func(*args, **kwargs)

    def __getitem__(self, grid: object) -> "Jit":
        raise TraceError("an SPMD launch grid (kernel[grid]) is not yet "
                         "supported", tracer.where())


def _decorator(*args: object, **kwargs: object):
    if len(args) == 1 and callable(args[0]):
        # `@nki.jit`, or the call form `nki.jit(f, mode="simulation")`,
        # also of a function already decorated.
        func = args[0]
        return Jit(func.func if isinstance(func, Jit) else func,
                   **kwargs)  # type: ignore[arg-type]

    def wrap(func: Callable) -> Jit:
        return Jit(func.func if isinstance(func, Jit) else func, **kwargs)
    return wrap


def _direct_allocation(name: str):
    def alloc(func: object = None, *args: object, **kwargs: object) -> object:
        if args or kwargs or not callable(func):
            raise TraceError(f"nki.compiler.{name}.alloc takes one argument, "
                             "the function that places each logical tile",
                             tracer.where())
        return core.FunctionAlloc(name, func)
    setattr(alloc, "_traced_as", (
        "`tile_buffers` / `one_buffer` of the physical tiles its function "
        "gives each block dim (a modulo placement)"))
    return alloc


def _memory_module(top: str, name: str, buffer: object) -> types.ModuleType:
    """`nki.compiler.sbuf` / `.psum`, the direct-allocation API: a tensor
    the compiler allocates (`auto_alloc()`) is an `nl.sbuf` / `nl.psum`
    tensor; `mod_alloc` fixes each block dim's physical tiles
    (core.ModAlloc); a function of one's own (`alloc`) is asked where
    each logical tile goes, and read as the mod_alloc it is
    (core.FunctionAlloc)."""
    m = _ApiModule(f"{top}.compiler.{name}")
    m.__dict__["auto_alloc"] = lambda *a, **k: buffer
    m.__dict__["alloc"] = _direct_allocation(name)

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
    _not_at_top_level()
    return kernel(*args, **kwargs)  # type: ignore[operator]


def _not_at_top_level() -> None:
    """A kernel run by the file's top level (its test code: `nki_max8()`,
    `nki.simulate(kernel)(a, b)`) ends the top level there: the front end
    traces the kernel, it does not run it on data (loader.load_kernel)."""
    if STATE.loading and not STATE.tracing:
        raise TopLevelRun(_use_site())


class _MissingLoader(importlib.abc.Loader):
    """A module the front end lacks (of the NKI packages, or not installed
    at all): a package whose every name is a placeholder."""

    def __init__(self, nki: bool) -> None:
        self.nki = nki

    def create_module(self, spec):  # type: ignore[override]
        m = _MissingModule(spec.name)
        m.__dict__["_nki"] = self.nki
        m.__path__ = []  # type: ignore[attr-defined]
        return m

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _MissingModule(types.ModuleType):
    def __getattr__(self, name: str) -> Missing:
        if name.startswith("_"):  # never an NKI name: getattr(x, "_y", d)
            raise AttributeError(name)
        return Missing(f"{self.__name__}.{name}", self.__dict__["_nki"])


class _NkiFinder(importlib.abc.MetaPathFinder):
    """First on the path: any other module of the NKI packages is one the
    front end lacks."""

    def find_spec(self, fullname: str, path: object, target: object = None):
        if fullname.split(".")[0] in ("neuronxcc", "nki") and \
                fullname not in MODULES:
            return importlib.machinery.ModuleSpec(fullname,
                                                  _MissingLoader(nki=True))
        return None


_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(importlib.__file__)) + os.sep


def _importlib_frame(filename: str) -> bool:
    return filename.startswith("<frozen") or \
        os.path.abspath(filename).startswith(_IMPORTLIB_DIR)


class _AbsentFinder(importlib.abc.MetaPathFinder):
    """Last on the path: a module no other finder has, imported by the
    user's code (a file below `roots`), is a placeholder module; a
    library's optional imports, and importlib.util.find_spec (a probe,
    not an import), keep failing as they expect."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = tuple(os.path.abspath(r) + os.sep for r in roots)

    def find_spec(self, fullname: str, path: object, target: object = None):
        f = sys._getframe(1)
        while f is not None and _importlib_frame(f.f_code.co_filename):
            if f.f_code.co_name == "find_spec" and \
                    f.f_code.co_filename.endswith("util.py"):
                return None
            f = f.f_back
        if f is None or not os.path.abspath(f.f_code.co_filename).startswith(
                self.roots):
            return None
        return importlib.machinery.ModuleSpec(fullname,
                                              _MissingLoader(nki=False))


class absent_modules_allowed:
    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = roots

    def __enter__(self) -> None:
        self.finder = _AbsentFinder(self.roots)
        sys.meta_path.append(self.finder)

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self.finder)


MODULES = _placeholders_when_used(_build())


def install() -> None:
    for name in [n for n in sys.modules if n.split(".")[0] in
                 ("neuronxcc", "nki")]:
        del sys.modules[name]
    sys.modules.update(MODULES)
    if not any(isinstance(f, _NkiFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _NkiFinder())


_Jit = Jit  # the former name
