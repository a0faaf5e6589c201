"""`python3 -m nki_frontend FILE.py::FUNCTION --args ... --output SPEC`."""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import re
import sys
import time
from typing import Dict, List, Optional, Set, Tuple

from . import (core, emit, ir, kwarg_exprs, language, lists, location,
               modules, tracer)
from .errors import TraceError
from .expr import LoopVar

_TENSOR_ARG = re.compile(r"^(\d+(?:x\d+)*):([A-Za-z0-9_]+)$")


def parse_args_text(text: str) -> Dict[str, object]:
    """`lhsT=8192x4096:bfloat16,rhs=...,eps=1e-5` -> name: value."""
    out: Dict[str, object] = {}
    if not text:
        return out
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise TraceError(f"--args {item}: expected NAME=DIMSxDIMS:dtype "
                             "or NAME=NUMBER")
        if name in out:
            raise TraceError(f"--args: {name} is given twice")
        m = _TENSOR_ARG.match(value)
        if m:
            dims = tuple(int(x) for x in m.group(1).split("x"))
            if any(d < 1 for d in dims):
                raise TraceError(f"--args {item}: dims are at least 1")
            if m.group(2) not in core.ARG_DTYPES:
                raise TraceError(
                    f"--args {item}: dtype {m.group(2)} is not supported; "
                    f"supported: {core.SUPPORTED_DTYPES}")
            out[name] = (dims, m.group(2))
            continue
        try:
            number = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            number = None
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise TraceError(f"--args {item}: expected DIMSxDIMS:dtype (such "
                             "as 8192x4096:bfloat16) or a number")
        out[name] = number
    return out


def reshape_args(args: Dict[str, object], shapes: List[str]) -> None:
    """`--shape delta,u,out=4096x512`, as a validation figure names its
    point (docs/spec-format.md, "--shape"): each named tensor argument
    takes the dims, as its last dims (`delta` 1x4096x8192 becomes
    1x4096x512: the leading dims a spec writes without, such as a batch
    of 1, are kept). A name that is not a tensor argument (the spec's
    output, `out`) is skipped: the kernel makes its outputs from its
    arguments. A text that names no argument is an error."""
    for text in shapes:
        names, eq, dims_text = text.partition("=")
        try:
            dims = tuple(int(d) for d in dims_text.split("x"))
        except ValueError:
            dims = ()
        if not eq or not names or not dims or any(d < 1 for d in dims):
            raise TraceError(f"--shape {text}: expected NAME,...=DIMSxDIMS")
        hit = False
        for name in names.split(","):
            value = args.get(name)
            if not isinstance(value, tuple):
                continue
            old, dtype = value
            if len(dims) > len(old):
                raise TraceError(f"--shape {text}: {name} has rank "
                                 f"{len(old)}, fewer than {len(dims)} dims")
            args[name] = (old[:len(old) - len(dims)] + dims, dtype)
            hit = True
        if not hit:
            raise TraceError(f"--shape {text}: names no tensor argument of "
                             f"the kernel ({', '.join(args) or 'none'})")


def parse_kwarg(text: str) -> Tuple[str, object, str]:
    name, eq, value = text.partition("=")
    if not eq or not name.isidentifier():
        raise TraceError(f"--kwarg {text}: expected NAME=VALUE")
    if value.startswith(kwarg_exprs.PREFIX):
        return name, kwarg_exprs.KernelExpr(
            name, value[len(kwarg_exprs.PREFIX):]), value
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = value
    return name, parsed, value


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_kernel(path: str, function: str):
    modules.install()
    spec = importlib.util.spec_from_file_location("nki_kernel_source", path)
    if spec is None or spec.loader is None:
        raise TraceError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # Python's own range inside the kernel is a traced sequential loop.
    module.__dict__["range"] = _range
    sys.modules["nki_kernel_source"] = module
    module.__dict__["__nki_list__"] = lists.TracedList
    try:
        source = tracer.active().source
        if source.code is None:
            source.code = lists.rewrite(source.tree, path)
        code = source.code
        with modules.absent_modules_allowed(os.path.abspath(path)):
            exec(code, module.__dict__)
    except TraceError:
        raise
    except SyntaxError as e:
        raise TraceError(f"syntax error: {e.msg}", f"{path}:{e.lineno}")
    except Exception as e:
        raise TraceError(f"loading the kernel file: {type(e).__name__}: {e}",
                         path)
    func = getattr(module, function, None)
    if func is None:
        names = sorted(n for n, v in vars(module).items()
                       if callable(v) and not n.startswith("_")
                       and getattr(v, "__module__", "") == "nki_kernel_source"
                       or isinstance(v, modules._Jit))
        raise TraceError(f"{path}: no function {function}; it defines "
                         f"{', '.join(names) or 'none'}")
    if isinstance(func, modules._Jit):
        func = func.func
    return func


def _range(*args: object):
    try:
        tracer.active()
    except TraceError:
        return range(*args)  # type: ignore[arg-type]
    return language.python_range(*args)


def split_grid(function: str) -> Tuple[str, Tuple[int, ...]]:
    """`FUNCTION[4,2]` (the kernel launched as Python does, `kernel[4, 2]`):
    the function and its SPMD launch grid; no brackets, no grid."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\[([^\]]*)\]", function)
    if m is None:
        if "[" in function:
            raise TraceError(f"--kernel ...::{function}: expected "
                             "FUNCTION or FUNCTION[N,...] (a launch grid)")
        return function, ()
    try:
        grid = tuple(int(g) for g in m.group(2).split(","))
    except ValueError:
        grid = ()
    if not grid or any(g < 1 for g in grid) or len(grid) > 4:
        raise TraceError(f"--kernel ...::{function}: a launch grid is 1 to 4 "
                         "positive integers, FUNCTION[4,2]")
    return m.group(1), grid


def trace_kernel(path: str, function: str, args: Dict[str, object],
                 kwargs: Dict[str, object]) -> tracer.Trace:
    if not os.path.isfile(path):
        raise TraceError(f"{path}: no such kernel file")
    keep: Set[Tuple[int, int]] = set()
    source = tracer.Source(path)
    # Each attempt that finds an array used outside a loop it was taken to
    # be private to keeps it whole there next time (core._privatize); the
    # kernel's arrays bound the attempts, which share the parsed file.
    # A decision on a Python range's variable that differs between its
    # iterations cuts the loop there next time (expr._decide).
    splits: Dict[int, Set[int]] = {}
    while True:
        try:
            return _trace_once(path, function, args, kwargs, keep, source,
                               splits)
        except core.Unprivatize as u:
            if u.key in keep:
                raise TraceError("internal error: an array kept whole was "
                                 "privatized again", path)
            keep.add(u.key)
        except location.SplitLoop as s:
            known = splits.setdefault(s.key, set())
            if s.points <= known:
                raise TraceError("internal error: a loop was cut again "
                                 "where it was cut", path)
            known |= s.points


def _trace_once(path: str, function: str, args: Dict[str, object],
                kwargs: Dict[str, object], keep: Set[Tuple[int, int]],
                source: tracer.Source,
                splits: Optional[Dict[int, Set[int]]] = None
                ) -> tracer.Trace:
    function, grid = split_grid(function)
    t = tracer.begin(path, source)
    t.keep_whole = set(keep)
    t.splits = splits or {}
    func = load_kernel(path, function)
    call_args: Dict[str, object] = {}
    for name, value in args.items():
        if isinstance(value, tuple):
            dims, dtype = value
            tensor = ir.HbmTensor(name, dims, core.ARG_DTYPES[dtype])
            t.tensors.append(tensor)
            call_args[name] = core.HbmHandle(
                tensor, core.dtype_obj(core.ARG_DTYPES[dtype]))
        else:
            call_args[name] = value
    call_args.update(kwarg_exprs.resolve(
        kwargs, getattr(getattr(func, "func", func), "__globals__", {})))
    try:
        _open_grid(t, grid, func)
        func(**call_args)
        _close_grid(t)
    except (TraceError, core.Unprivatize, location.SplitLoop):
        raise
    except AssertionError as e:
        raise TraceError("the kernel's assertion failed at these arguments"
                         + (f": {e}" if str(e) else ""), _kernel_line(e, t))
    except Exception as e:  # the kernel's own Python, run on traced values
        raise TraceError(f"{type(e).__name__}: {e} (the front end traces "
                         "shapes, not values; docs/nki-source.md)",
                         _kernel_line(e, t))
    finally:
        tracer.end()
    return t


def _open_grid(t: tracer.Trace, grid: Tuple[int, ...], func: object) -> None:
    """The instances of an SPMD grid are independent: one affine loop per
    grid axis, outermost first, around the kernel's body, its variable
    what nl.program_id(axis) returns."""
    code = getattr(getattr(func, "func", func), "__code__", None)
    line = code.co_firstlineno if code is not None else 1
    for axis, size in enumerate(grid):
        loop = ir.Loop(None, "affine", size, line, t.loop)
        loop.var = LoopVar(f"program_id{axis}", loop)
        t.loop.body.append(loop)
        t.stack.append(loop)
        t.grid.append(size)
        t.grid_loops.append(loop)


def _close_grid(t: tracer.Trace) -> None:
    for loop in reversed(t.grid_loops):
        if t.stack and t.stack[-1] is loop:
            t.stack.pop()
            core.close_loop(loop)


def _kernel_line(e: BaseException, t: tracer.Trace) -> str:
    """FILE:LINE of the kernel's innermost frame in the traceback."""
    where = t.file_label
    tb = e.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == t.kernel_path:
            where = f"{t.file_label}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def provenance_of(path: str, function: str, args: Dict[str, object],
                  kwarg_text: Dict[str, str]) -> dict:
    """The spec's "kernel_source" (docs/spec-format.md)."""
    arg_text = {k: (f"{'x'.join(map(str, v[0]))}:{v[1]}"
                    if isinstance(v, tuple) else repr(v))
                for k, v in args.items()}
    return {"path": path, "sha256": sha256_of(path), "function": function,
            "args": arg_text, "kwargs": dict(kwarg_text)}


def workload_name(function: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "_", function.lower())
    if not name or not name[0].isalpha():
        name = "k_" + name
    return name


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m nki_frontend",
                                description="Trace an NKI kernel into a "
                                "trnbench workload spec.")
    p.add_argument("kernel", help="FILE.py::FUNCTION")
    p.add_argument("--args", default="", help="name=DIMSxDIMS:dtype,...")
    p.add_argument("--kwarg", action="append", default=[],
                   help="NAME=VALUE (repeatable)")
    p.add_argument("--shape", action="append", default=[],
                   help="NAME,...=DIMSxDIMS: these tensor arguments' last "
                   "dims (repeatable; as a validation figure's shape)")
    p.add_argument("--name", default="", help="workload name")
    p.add_argument("--family", default="", help="workload family (default: "
                   "the name)")
    p.add_argument("--output", default="-", help="spec file (- for stdout)")
    p.add_argument("--timing", action="store_true",
                   help="print the trace time to stderr")
    ns = p.parse_args(argv)
    try:
        import numpy  # noqa: F401 (kernels import it; say so up front)
    except ImportError:
        print("the NKI front end needs numpy: apt-get install python3-numpy "
              "(or set TRNBENCH_PYTHON to a python3 that has it)",
              file=sys.stderr)
        return 2
    try:
        started = time.perf_counter()
        path, sep, function = ns.kernel.rpartition("::")
        if not sep or not path or not function:
            raise TraceError(f"--kernel {ns.kernel}: expected FILE.py::FUNCTION")
        args = parse_args_text(ns.args)
        reshape_args(args, ns.shape)
        kwargs: Dict[str, object] = {}
        kwarg_text: Dict[str, str] = {}
        for item in ns.kwarg:
            k, v, raw = parse_kwarg(item)
            kwargs[k] = v
            kwarg_text[k] = raw
        trace = trace_kernel(path, function, args, kwargs)
        name = workload_name(ns.name or split_grid(function)[0])
        provenance = provenance_of(path, function, args, kwarg_text)
        arg_text = provenance["args"]
        described = ", ".join(f"{k}={v}" for k, v in
                              list(arg_text.items()) + list(kwarg_text.items()))
        description = (f"Traced by the NKI front end from "
                       f"{os.path.basename(path)}::{function}({described}).")
        spec = emit.emit(trace, name, description, provenance)
        if ns.family:
            spec["family"] = workload_name(ns.family)
        text = json.dumps(spec, indent=1) + "\n"
        elapsed = time.perf_counter() - started
    except TraceError as e:
        print(e.line(), file=sys.stderr)
        return 2
    if ns.output == "-":
        sys.stdout.write(text)
    else:
        tmp = ns.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, ns.output)
    if ns.timing:
        print(f"traced in {elapsed * 1000:.1f} ms", file=sys.stderr)
    return 0
