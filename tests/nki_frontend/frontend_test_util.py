"""Helpers of the front end's tests: run it as the trnbench program does,
find the upstream kernels, walk emitted specs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
# The folder that holds the nki_frontend package.
WORKLOADS = os.path.join(SOURCE, "workloads", "frontends", "nki")
# The package both front ends share (frontend_common), beside it.
COMMON = os.path.join(SOURCE, "workloads", "frontends", "common")
# What trnbench puts on the front end's PYTHONPATH (frontend_process.cc).
PYTHONPATH = WORKLOADS + os.pathsep + COMMON
KERNELS = os.path.join(HERE, "kernels")
sys.path[:0] = [WORKLOADS, COMMON]

# CI has the third-party kernels at ../shared relative to the clone.
SAMPLES = os.environ.get("TRNBENCH_NKI_SAMPLES") or os.path.join(
    os.path.dirname(SOURCE), "shared", "fixtures", "nki-samples")


def samples_missing() -> Optional[str]:
    if os.path.isdir(SAMPLES):
        return None
    return (f"the nki-samples kernels are not at {SAMPLES} (../shared/"
            "fixtures/nki-samples beside the clone, or TRNBENCH_NKI_SAMPLES)")


def run_frontend(kernel: str, args: str = "", kwargs: Tuple[str, ...] = (),
                 ) -> Tuple[int, str, Optional[dict], bool]:
    """(exit code, stderr, spec or None, whether the output file exists)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "spec.json")
        cmd = [sys.executable, "-m", "nki_frontend", kernel, "--output", out]
        if args:
            cmd += ["--args", args]
        for k in kwargs:
            cmd += ["--kwarg", k]
        env = dict(os.environ, PYTHONPATH=PYTHONPATH,
                   PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=120)
        spec = None
        exists = os.path.exists(out)
        if exists and p.returncode == 0:
            with open(out, encoding="utf-8") as f:
                spec = json.load(f)
        return p.returncode, p.stderr, spec, exists


def trace(kernel: str, args: str = "", kwargs: Tuple[str, ...] = ()) -> dict:
    """The spec, traced in this process."""
    from nki_frontend import cli, emit
    path, _, function = kernel.rpartition("::")
    parsed = cli.parse_args_text(args)
    kw = {}
    for item in kwargs:
        k, v, _raw = cli.parse_kwarg(item)
        kw[k] = v
    t = cli.trace_kernel(path, function, parsed, kw)
    return emit.emit(t, cli.workload_name(cli.split_grid(function)[0]), "test",
                     cli.provenance_of(path, function, parsed, {}))


def ops(spec: dict) -> Iterator[Tuple[List[dict], dict]]:
    """Every op of the kernel with the loops around it, outermost first."""
    def walk(body: list, chain: List[dict]):
        for op in body:
            yield chain, op
            if op.get("op") == "loop":
                yield from walk(op["body"], chain + [op])
    for loop in spec["kernel"]["loops"]:
        yield [], loop
        yield from walk(loop["body"], [loop])


def find(spec: dict, **keys: object) -> List[dict]:
    return [op for _, op in ops(spec)
            if all(op.get(k) == v for k, v in keys.items())]
