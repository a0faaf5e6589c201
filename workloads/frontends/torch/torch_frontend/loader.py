"""Loading the user's file and calling their function on traced tensors."""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from typing import Callable, Dict, List, Tuple

from . import source_line
from .errors import TraceError

# What a tensor's value read at trace time raises, in torch 1.13: bool() or
# .item() of a meta tensor, or of a tensor make_fx is tracing.
_VALUE_READ = ("_local_scalar_dense", "value out of a tracing tensor",
               "data-dependent")


def load_function(path: str, function: str) -> Callable:
    if not os.path.isfile(path):
        raise TraceError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location("torch_source", path)
    if spec is None or spec.loader is None:
        raise TraceError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules["torch_source"] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise TraceError(f"syntax error: {e.msg}", f"{path}:{e.lineno}")
    except Exception as e:
        line = source_line.of_exception(e, path)
        raise TraceError(f"loading the file: {type(e).__name__}: {e}",
                         f"{path}:{line}" if line else path)
    func = getattr(module, function, None)
    if func is None or not callable(func):
        names = sorted(n for n, v in vars(module).items()
                       if inspect.isfunction(v) and not n.startswith("_")
                       and v.__module__ == "torch_source")
        raise TraceError(f"{path}: no function {function}; it defines "
                         f"{', '.join(names) or 'none'}")
    return func


def bind(func: Callable, tensor_names: List[str],
         scalars: Dict[str, object]) -> Callable:
    """A function of the tensors alone, positionally (what torch.jit.trace
    and make_fx call), that calls `func` with every argument by name."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        params = {}
    given = set(tensor_names) | set(scalars)
    for name in given:
        if params and name not in params and not any(
                p.kind == p.VAR_KEYWORD for p in params.values()):
            raise TraceError(f"--args {name}: the function takes no "
                             f"argument {name}; it takes "
                             f"{', '.join(params) or 'none'}")
    for name, p in params.items():
        if (p.default is p.empty and name not in given
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)):
            raise TraceError(f"--args: the function's argument {name} is "
                             f"not given (NAME=DIMS:dtype or NAME=NUMBER)")

    def call(*tensors):
        kwargs = dict(zip(tensor_names, tensors))
        kwargs.update(scalars)
        return func(**kwargs)

    return call


def scalar_names(func: Callable, scalars: Dict[str, object]
                 ) -> List[Tuple[str, object]]:
    """The function's scalar arguments, given or by default: a Python
    number traced as a constant is named after the argument it came from."""
    out = list(scalars.items())
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return out
    for name, p in params.items():
        if name not in scalars and isinstance(p.default, (int, float)) \
                and not isinstance(p.default, bool):
            out.append((name, p.default))
    return out


def refusal(e: BaseException, path: str, what: str) -> TraceError:
    """An exception raised while tracing the user's code, as one line."""
    line = source_line.of_exception(e, path)
    where = f"{path}:{line}" if line else path
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    if any(k in str(e) for k in _VALUE_READ):
        return TraceError(
            "reads a tensor's value (control flow on a tensor, .item(), "
            "int() or float() of a tensor): the front end traces shapes, "
            "not values (docs/torch-source.md)", where)
    return TraceError(f"{what}: {type(e).__name__}: {text}", where)
