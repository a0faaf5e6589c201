"""Loading a kernel file as Python would import it (docs/nki-source.md,
"Loading a kernel file"):

- a file inside a package (its folder has an `__init__.py`, and so on
  up) is imported by its dotted name with the package's root first on
  `sys.path`, its packages' `__init__` files run, so that relative and
  sibling imports (`from ..utils.kernel_helpers import div_ceil`) work;
- a file outside any package has its own folder first on `sys.path`, as
  `python3 FILE.py` would, so that its helper modules import;
- what the user's code raises while it loads is one line naming the file
  and line it came from (a syntax error in an imported module names that
  module); what the front end raises is a bug (errors.FrontEndBug)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from typing import Callable, Optional, Tuple

from . import blame, language, lists, modules, tracer
from .errors import FrontEndBug, TopLevelRun, TraceError, TraceTimeout
from .expr import predicate_and

# Where the file's top level ran a kernel, if it did (a module global).
_STOPPED_AT = "__nki_top_level_run__"

# The module name of a kernel file outside any package.
LOOSE_MODULE = "nki_kernel_source"


def package_of(path: str) -> Optional[Tuple[str, str]]:
    """(root folder, dotted module name) of a file inside a package: the
    folders up from the file that hold an `__init__.py`."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(name)[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        if not package.isidentifier():
            break
        parts.insert(0, package)
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None
    return folder, ".".join(parts)


def where_of(e: BaseException) -> str:
    """The innermost FILE:LINE of the user's code in e's traceback."""
    found = blame.user_frames(e)
    if not found:
        return tracer.active().file_label
    return blame.label(*found[-1])


def kernel_where_of(e: BaseException) -> str:
    """The innermost line of the kernel file itself, else of user code."""
    t = tracer.active()
    for filename, line in reversed(blame.user_frames(e)):
        if os.path.abspath(filename) == t.kernel_path:
            return blame.label(filename, line)
    return where_of(e)


def explain(e: BaseException, doing: str, hint: str = "") -> Exception:
    """The one-line error for an exception raised while `doing` (loading
    the kernel file, running the kernel): TraceError when the user's code
    raised it, FrontEndBug when this package did."""
    if isinstance(e, (TraceError, FrontEndBug)):
        return e
    if isinstance(e, SyntaxError):
        where = tracer.active().file_label
        if e.filename:
            where = blame.label(e.filename, e.lineno or 1)
        return TraceError(f"syntax error: {e.msg}", where)
    if isinstance(e, RecursionError) and len(blame.user_frames(e)) > 50:
        return TraceError(f"{doing}: the kernel's code recurses without end "
                          f"(more than Python's limit of "
                          f"{sys.getrecursionlimit()} frames)",
                          kernel_where_of(e))
    if isinstance(e, MemoryError):
        return TraceError(f"{doing}: out of memory (MemoryError): a shape or "
                          "a Python object too large to trace",
                          where_of(e))
    if isinstance(e, SystemExit):
        return TraceError(f"{doing}: the kernel's code called sys.exit("
                          f"{e.code!r}); a kernel returns", where_of(e))
    if isinstance(e, AttributeError) and blame.culprit(e) == "user" and \
            _frontend_object(getattr(e, "obj", None)):
        # `.ap` of a traced tensor: an attribute of the front end's own
        # objects that the kernel's code asked for.
        return TraceError(f".{e.name} of a {_kind(e.obj)} is not supported by "
                          "the NKI front end (docs/nki-source.md lists the "
                          "supported API)", where_of(e))
    if blame.culprit(e) == "frontend":
        return FrontEndBug(f"{blame.frontend_site(e)} raised "
                           f"{type(e).__name__}: {e} while {doing}",
                           where_of(e))
    text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return TraceError(f"{doing}: {text}{hint}", where_of(e))


def _frontend_object(obj: object) -> bool:
    module = sys.modules.get(type(obj).__module__)
    filename = getattr(module, "__file__", None)
    return filename is not None and blame.kind_of(filename) == "frontend"


def _kind(obj: object) -> str:
    return {"HbmHandle": "kernel argument or HBM tensor",
            "HbmView": "view of an HBM tensor", "Tile": "tile",
            "TileView": "view of a tile"}.get(type(obj).__name__,
                                              type(obj).__name__)


def load_kernel(path: str, function: str) -> Callable:
    """The kernel function `function` of the file at `path`, loaded into
    the NKI modules of this front end (modules.install)."""
    modules.install()
    abspath = os.path.abspath(path)
    package = package_of(abspath)
    if package is not None:
        root, dotted = package
    else:
        root, dotted = os.path.dirname(abspath), LOOSE_MODULE
    if root not in sys.path:
        sys.path.insert(0, root)
    spec = importlib.util.spec_from_file_location(dotted, abspath)
    if spec is None:
        raise TraceError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # Python's own range inside the kernel is a traced sequential loop.
    module.__dict__["range"] = _range
    module.__dict__["__nki_list__"] = lists.TracedList
    module.__dict__["__nki_and__"] = predicate_and
    source = tracer.active().source
    try:
        if source.code is None:
            source.code = lists.rewrite(source.tree, path)
        with modules.absent_modules_allowed([root]):
            if package is not None:
                importlib.import_module(dotted.rpartition(".")[0])
            # As an import does: in sys.modules while it runs (a cycle of
            # imports finds it), replacing any copy the packages' __init__
            # files imported.
            sys.modules[dotted] = module
            modules.STATE.loading = True
            try:
                exec(source.code, module.__dict__)
            except TopLevelRun as stop:
                # Its test code: what it defined so far is the module.
                module.__dict__[_STOPPED_AT] = stop.where
            finally:
                modules.STATE.loading = False
    except (KeyboardInterrupt, TraceTimeout):
        raise
    except BaseException as e:  # noqa: B036 (SystemExit too: one line)
        raise explain(e, "loading the kernel file") from None
    return _kernel_function(module, path, function)


def _kernel_function(module: types.ModuleType, path: str,
                     function: str) -> Callable:
    func = getattr(module, function, None)
    if func is None:
        names = sorted(
            n for n, v in vars(module).items()
            if not n.startswith("_") and (
                isinstance(v, modules.Jit) or callable(v) and
                getattr(v, "__module__", "") == module.__name__))
        stopped = module.__dict__.get(_STOPPED_AT)
        after = (f" (its top level runs a kernel at {stopped}: loading "
                 "stopped there)" if stopped else "")
        raise TraceError(f"{path}: no function {function}; it defines "
                         f"{', '.join(names) or 'none'}{after}")
    while True:  # nki.jit, or a decorator of a module not installed
        if isinstance(func, modules.Jit):
            func = func.func
        elif isinstance(func, modules.Missing) and func.wrapped is not None:
            func = func.wrapped
        else:
            break
    if isinstance(func, modules.Missing):
        raise TraceError(f"{path}: {function} is wrapped by {func.name}, "
                         "which the front end does not provide; the front "
                         "end traces a function decorated with nki.jit (or "
                         "undecorated)")
    if not callable(func):
        raise TraceError(f"{path}: {function} is a {type(func).__name__}, "
                         "not a function")
    return func


def _range(*args: object):
    try:
        tracer.active()
    except TraceError:
        return range(*args)  # type: ignore[arg-type]
    return language.python_range(*args)
