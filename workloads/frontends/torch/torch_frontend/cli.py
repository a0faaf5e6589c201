"""`python3 -m torch_frontend FILE.py::FUNCTION --args ... --output-prefix P`.

Writes P_<k>_<variant>.json for each variant (eager, compiled) and each
point k: 0 is the arguments as --args (and --shape) give them, k >= 1 the
k-th --point. One Python process traces them all: `import torch` takes
seconds, a trace milliseconds. Exit 2 with one line on bad input, 3 on a
bug of the front end itself."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import traceback
from typing import Dict, List, Optional, Tuple

from frontend_common import args as args_text

from .errors import TraceError

VARIANTS = ("eager", "compiled")

Args = args_text.Args  # name -> (dims, dtype) or a number


def parse_args_text(text: str) -> Args:
    """`x=4x512:bfloat16,weight=512:bfloat16,eps=1e-6`, a tensor as
    ((dims...), torch dtype) (frontend_common.args)."""
    from . import dtypes

    try:
        return args_text.parse_args_text(
            text, dtypes.ARG_DTYPES.get, dtypes.supported_arg_dtypes(),
            "4x512:bfloat16")
    except args_text.ArgsError as e:
        raise TraceError(str(e)) from None


def reshape_args(args: Args, shapes: List[str]) -> Args:
    """`--shape x=8x1024`: the named tensor arguments take the dims as their
    last dims, as --shape does for an NKI kernel (docs/spec-format.md); a
    name that is no tensor argument (an op's output) is skipped."""
    try:
        return args_text.reshape_args(args, shapes, "function")
    except args_text.ArgsError as e:
        raise TraceError(str(e)) from None


def workload_name(function: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "_", function.lower())
    return name if name and name[0].isalpha() else "f_" + name


def provenance(path: str, function: str, args: Args) -> Dict[str, object]:
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    text = {k: (f"{'x'.join(map(str, v[0]))}:{v[1]}"
                if isinstance(v, tuple) else repr(v)) for k, v in args.items()}
    return {"path": path, "sha256": digest, "function": function,
            "args": text}


def trace_variant(func, path: str, function: str, args: Args,
                  variant: str) -> dict:
    from . import compiled, eager, emit, passes

    tensors: List[Tuple[str, Tuple[int, ...], str]] = [
        (k, v[0], v[1]) for k, v in args.items() if isinstance(v, tuple)]
    scalars = {k: v for k, v in args.items() if not isinstance(v, tuple)}
    tracer = eager if variant == "eager" else compiled
    graph = passes.run(tracer.trace(func, path, function, tensors, scalars))
    if all(n.op == "aten::view" for n in graph.nodes):
        raise TraceError(f"{function} runs no op on the device (views of "
                         "its arguments move no data): nothing to time",
                         path)
    fn = workload_name(function)
    prov = provenance(path, function, args)
    described = ", ".join(f"{k}={v}" for k, v in prov["args"].items())
    description = (f"Traced by the torch front end from "
                   f"{os.path.basename(path)}::{function}({described}). "
                   + emit.describe(graph))
    return emit.emit(graph, f"{fn}_{variant}", fn, description, prov)


def _write(path: str, spec: dict) -> None:
    text = json.dumps(spec, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def run(ns: argparse.Namespace) -> None:
    path, sep, function = ns.function.rpartition("::")
    if not sep or not path or not function:
        raise TraceError(f"--torch {ns.function}: expected FILE.py::FUNCTION")
    variants = VARIANTS if ns.mode == "all" else (ns.mode,)
    if ns.output_prefix is None and (len(variants) != 1 or ns.point):
        raise TraceError("--output-prefix is needed for several specs")
    args = reshape_args(parse_args_text(ns.args), ns.shape)
    points = [args] + [reshape_args(args, [t for t in p.split(";") if t])
                       for p in ns.point]
    from . import loader, stand_ins

    stand_ins.install()
    func = loader.load_function(path, function)
    specs = []  # every point traced before any file is written
    for k, point in enumerate(points):
        for variant in variants:
            specs.append((k, variant,
                          trace_variant(func, path, function, point,
                                        variant)))
    for k, variant, spec in specs:
        _write(f"{ns.output_prefix}_{k}_{variant}.json"
               if ns.output_prefix is not None else "-", spec)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m torch_frontend",
                                description="Trace a PyTorch function into "
                                "trnbench workload specs.")
    p.add_argument("function", help="FILE.py::FUNCTION")
    p.add_argument("--args", default="",
                   help="NAME=DIMSxDIMS:dtype or NAME=NUMBER, comma-separated")
    p.add_argument("--mode", choices=("eager", "compiled", "all"),
                   default="all")
    p.add_argument("--shape", action="append", default=[],
                   help="NAME,...=DIMSxDIMS for every spec (repeatable)")
    p.add_argument("--point", action="append", default=[],
                   help="one more point: --shape texts joined by ';' "
                   "(repeatable)")
    p.add_argument("--output-prefix", default=None,
                   help="write PREFIX_<point>_<variant>.json")
    ns = p.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("--torch needs PyTorch: apt-get install python3-torch (or set "
              "TRNBENCH_PYTHON to a python3 that has torch)", file=sys.stderr)
        return 2
    try:
        run(ns)
    except TraceError as e:
        print(e.line(), file=sys.stderr)
        return 2
    except Exception:  # a bug of the front end, not bad input
        traceback.print_exc()
        print("internal error of the torch front end (a bug; please report "
              "it with the function)", file=sys.stderr)
        return 3
    return 0
