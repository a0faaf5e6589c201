"""`python3 -m nki_frontend FILE.py::FUNCTION --args ... --output SPEC`."""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import itertools
import json
import os
import re
import resource
import signal
import sys
import time
from typing import Dict, List, NoReturn, Optional, Set, Tuple

from frontend_common import args as args_text

from . import (blame, core, emit, ir, kwarg_exprs, language, lists, loader,
               location, modules, output, tracer)
from .errors import FrontEndBug, TraceError, TraceTimeout
from .expr import LoopVar


def parse_args_text(text: str) -> Dict[str, object]:
    """`lhsT=8192x4096:bfloat16,rhs=...,eps=1e-5` -> name: value, a tensor
    as ((dims...), dtype name) (frontend_common.args)."""
    try:
        return args_text.parse_args_text(
            text, lambda n: n if n in core.ARG_DTYPES else None,
            core.SUPPORTED_DTYPES, "8192x4096:bfloat16")
    except args_text.ArgsError as e:
        raise TraceError(str(e)) from None


def reshape_args(args: Dict[str, object], shapes: List[str]) -> None:
    """`--shape NAME,...=DIMS` applied to `args` in place
    (frontend_common.args.reshape_args)."""
    try:
        args.update(args_text.reshape_args(args, shapes, "kernel"))
    except args_text.ArgsError as e:
        raise TraceError(str(e)) from None


def parse_kwarg(text: str) -> Tuple[str, object, str]:
    name, eq, value = text.partition("=")
    if not eq or not name.isidentifier():
        raise TraceError(f"--kwarg {text}: expected NAME=VALUE")
    if value.startswith(kwarg_exprs.PREFIX):
        return name, kwarg_exprs.KernelExpr(
            name, value[len(kwarg_exprs.PREFIX):]), value
    parsed = args_text.literal(value)
    if parsed is args_text.NOT_A_LITERAL:
        return name, value, value
    return name, parsed, value


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


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
                raise FrontEndBug("an array kept whole was privatized "
                                  "again", path)
            keep.add(u.key)
        except location.SplitLoop as s:
            known = splits.setdefault(s.key, set())
            if s.points <= known:
                raise FrontEndBug("a loop was cut again where it was cut",
                                  path)
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
    func = loader.load_kernel(path, function)
    call_args: Dict[str, object] = {}
    for name, value in args.items():
        if isinstance(value, tuple):
            dims, dtype = value
            tensor = ir.HbmTensor(name, dims, core.ARG_DTYPES[dtype])
            t.tensors.append(tensor)
            call_args[name] = core.HbmHandle(
                tensor, core.dtype_obj(core.ARG_DTYPES[dtype], dtype),
                core.HBM)
        else:
            call_args[name] = value
    call_args.update(kwarg_exprs.resolve(
        kwargs, getattr(getattr(func, "func", func), "__globals__", {})))
    _check_call(func, function, call_args)
    modules.STATE.tracing = True
    try:
        if grid and t.splits.get(_grid_key(func)):
            _each_program(t, grid, func, call_args)
        else:
            _open_grid(t, grid, func)
            func(**call_args)
            _close_grid(t)
    except (TraceError, core.Unprivatize, location.SplitLoop, TraceTimeout,
            KeyboardInterrupt):
        raise
    except AssertionError as e:
        if blame.culprit(e) == "frontend":
            raise loader.explain(e, "running the kernel") from None
        raise TraceError("the kernel's assertion failed at these arguments"
                         + (f": {e}" if str(e) else ""),
                         loader.where_of(e)) from None
    except BaseException as e:  # noqa: B036 (SystemExit too: one line)
        raise _explain_run(e) from None
    finally:
        modules.STATE.tracing = False
        tracer.end()
    return t


def _grid_key(func: object) -> int:
    """The source line the grid's loops are at (the kernel's `def`): the
    key of a decision that needs each program on its own."""
    code = getattr(getattr(func, "func", func), "__code__", None)
    return code.co_firstlineno if code is not None else 1


def _each_program(t: tracer.Trace, grid: Tuple[int, ...], func: object,
                  call_args: Dict[str, object]) -> None:
    """A grid whose programs the kernel tells apart (today's
    nl.program_id in a decision): each program's body in turn, its
    program ids ints, the HBM tensors the first allocates shared by all
    (the programs run one after another, not overlapped)."""
    t.grid.extend(grid)
    for ids in itertools.product(*(range(g) for g in grid)):
        t.program_ids = ids
        t.program_hbm_seen = None if not any(ids) else 0
        func(**call_args)


def _open_grid(t: tracer.Trace, grid: Tuple[int, ...], func: object) -> None:
    """The instances of an SPMD grid are independent: one affine loop per
    grid axis, outermost first, around the kernel's body, its variable
    what nl.program_id(axis) returns."""
    line = _grid_key(func)
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


def _check_call(func: object, function: str,
                call_args: Dict[str, object]) -> None:
    """The kernel takes the arguments given, or one line says which it
    lacks or does not take (at the kernel's `def` line)."""
    try:
        signature = inspect.signature(func)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return
    try:
        signature.bind(**call_args)
    except TypeError as e:
        code = getattr(func, "__code__", None)
        where = tracer.active().file_label
        if code is not None:
            where = blame.label(code.co_filename, code.co_firstlineno)
        params = ", ".join(signature.parameters)
        raise TraceError(f"{function}({params}): {e}; give each argument "
                         "with --args NAME=DIMSxDIMS:dtype or NAME=NUMBER, "
                         "or --kwarg NAME=VALUE", where) from None


def _explain_run(e: BaseException) -> Exception:
    """The kernel's own Python, run on traced values, raised `e`."""
    return loader.explain(e, "running the kernel",
                          " (the front end traces shapes, not values; "
                          "docs/nki-source.md)")


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


class _Parser(argparse.ArgumentParser):
    """Bad flags are one line and exit 2, as every other refusal."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


# The trace's bounds (docs/nki-source.md, "Bounds"): CPU seconds, so that a
# loaded machine does not cut a trace short, and the address space, so that
# a kernel that allocates without end fails fast instead of swapping.
DEFAULT_TIME_LIMIT_S = 60.0
MEMORY_LIMIT_BYTES = 8 << 30


@functools.lru_cache(maxsize=None)
def parser() -> argparse.ArgumentParser:
    """The command line's parser, built once per process (parsing does not
    change it)."""
    p = _Parser(prog="python3 -m nki_frontend",
                description="Trace an NKI kernel into a trnbench workload "
                "spec.")
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
    p.add_argument("--time-limit", default="", metavar="SECONDS",
                   help="CPU seconds the trace may take (default "
                   f"$TRNBENCH_TRACE_SECONDS, else {DEFAULT_TIME_LIMIT_S:g})")
    p.add_argument("--timing", action="store_true",
                   help="print the trace time to stderr")
    return p


def warm_up() -> None:
    """Does once what every trace's process does the first time: the
    parser (building one imports `locale` and compiles argparse's and
    gettext's regular expressions) and OpenSSL's SHA-256 (the kernel file's
    hash). nki_frontend.batch calls it before it forks: ~20 ms of each
    child's ~60 ms (issue 42)."""
    parser()
    hashlib.sha256(b"")


def main(argv: Optional[List[str]] = None) -> int:
    ns = parser().parse_args(argv)
    try:
        import numpy  # noqa: F401 (kernels import it; say so up front)
    except ImportError:
        print("the NKI front end needs numpy: apt-get install python3-numpy "
              "(or set TRNBENCH_PYTHON to a python3 that has it)",
              file=sys.stderr)
        return 2
    try:
        limit = _time_limit(ns.time_limit)
        if ns.output != "-":
            # Before anything runs: a refused output costs no trace.
            output.check_destination(ns.output)
        started = time.perf_counter()
        with _KernelStdoutToStderr(), _Bounds(limit):
            text = _trace_to_text(ns)
        elapsed = time.perf_counter() - started
        if ns.output == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            output.write_file(ns.output, text)
    except (TraceError, TraceTimeout) as e:
        print(_one_line(e.line()), file=sys.stderr)
        return 2
    except FrontEndBug as e:
        print(_one_line(e.line()), file=sys.stderr)
        return 3
    except Exception as e:  # a bug outside the kernel's trace
        bug = FrontEndBug(f"{blame.frontend_site(e)} raised "
                          f"{type(e).__name__}: {e}")
        print(_one_line(bug.line()), file=sys.stderr)
        return 3
    if ns.timing:
        print(f"traced in {elapsed * 1000:.1f} ms", file=sys.stderr)
    return 0


def _one_line(text: str) -> str:
    """A message on one line, of readable length (a kernel's exception may
    carry newlines or a megabyte of text)."""
    text = " ".join(text.split("\n"))
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 1000 else text[:997] + "..."


def _time_limit(flag: str) -> float:
    text = flag or os.environ.get("TRNBENCH_TRACE_SECONDS", "")
    if not text:
        return DEFAULT_TIME_LIMIT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 86400:
        source = "--time-limit" if flag else "TRNBENCH_TRACE_SECONDS"
        raise TraceError(f"{source}={text}: expected a number of seconds "
                         "from 0 to 86400")
    return value


def _trace_to_text(ns: argparse.Namespace) -> str:
    """The spec of the kernel ns.kernel, as the text to write."""
    path, sep, function = ns.kernel.rpartition("::")
    if not sep or not path or not function:
        raise TraceError(f"--kernel {ns.kernel}: expected FILE.py::FUNCTION")
    args = parse_args_text(ns.args)
    reshape_args(args, ns.shape)
    kwargs: Dict[str, object] = {}
    kwarg_text: Dict[str, str] = {}
    for item in ns.kwarg:
        k, v, raw = parse_kwarg(item)
        if k in kwargs:
            raise TraceError(f"--kwarg {item}: {k} is given twice")
        kwargs[k] = v
        kwarg_text[k] = raw
    trace = trace_kernel(path, function, args, kwargs)
    return spec_text(trace, path, function, args, kwarg_text, ns.name,
                     ns.family)


def spec_text(trace: tracer.Trace, path: str, function: str,
              args: Dict[str, object], kwarg_text: Dict[str, str],
              name: str = "", family: str = "") -> str:
    """The emitted spec as JSON text. A spec the front end cannot write
    as strict JSON (a NaN, a value JSON has no form for) is its bug."""
    workload = workload_name(name or split_grid(function)[0])
    provenance = provenance_of(path, function, args, kwarg_text)
    described = ", ".join(f"{k}={v}" for k, v in
                          list(provenance["args"].items()) +
                          list(kwarg_text.items()))
    description = (f"Traced by the NKI front end from "
                   f"{os.path.basename(path)}::{function}({described}).")
    try:
        spec = emit.emit(trace, workload, description, provenance)
        if family:
            spec["family"] = workload_name(family)
        return json.dumps(spec, indent=1, allow_nan=False) + "\n"
    except (TraceError, FrontEndBug):
        raise
    except Exception as e:
        raise FrontEndBug(f"{blame.frontend_site(e)} raised "
                          f"{type(e).__name__}: {e} while writing the spec",
                          trace.file_label) from None


class _KernelStdoutToStderr:
    """While the kernel loads and runs, what it prints goes to stderr, at
    the file descriptor too: stdout carries the spec and nothing else."""

    def __enter__(self) -> None:
        sys.stdout.flush()
        try:
            self.saved: Optional[int] = os.dup(1)
            os.dup2(2, 1)
        except OSError:  # no stdout at all
            self.saved = None

    def __exit__(self, *exc: object) -> None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        if self.saved is not None:
            os.dup2(self.saved, 1)
            os.close(self.saved)


class _Bounds:
    """The trace's CPU-time and memory bounds. The time bound raises
    TraceTimeout (a BaseException: a kernel's `except Exception` does not
    swallow it) where the kernel is; should the kernel swallow even that,
    a second alarm a CPU second later ends the process with the line."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False

    def _alarm(self, signum: int, frame: object) -> None:
        user = blame.user_frame_of(frame)  # type: ignore[arg-type]
        where = ""
        if user is not None:
            where = blame.label(user.f_code.co_filename, user.f_lineno)
        message = (f"the trace took more than {self.seconds:g} s of CPU "
                   "time (a loop that never ends? set --time-limit, or "
                   "TRNBENCH_TRACE_SECONDS, for a larger bound)")
        if self.fired:
            print(_one_line(TraceTimeout(message, where).line()),
                  file=sys.stderr, flush=True)
            os._exit(2)
        self.fired = True
        signal.setitimer(signal.ITIMER_PROF, 1.0)
        raise TraceTimeout(message, where)

    def __enter__(self) -> None:
        self.old = signal.signal(signal.SIGPROF, self._alarm)
        signal.setitimer(signal.ITIMER_PROF, self.seconds)
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            want = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY \
                else min(hard, MEMORY_LIMIT_BYTES)
            if soft == resource.RLIM_INFINITY or soft > want:
                resource.setrlimit(resource.RLIMIT_AS, (want, hard))
        except (OSError, ValueError):
            pass

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, self.old)
