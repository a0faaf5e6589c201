"""A fuzz target over the NKI front end's `--args` / `--kwarg` / `--shape`
parsing and its spec emission (tests/fuzz/README.md): a Python driver with
a fixed seed, run by ctest as fuzz_replay.nki_frontend_args.

Each input (seeds, past findings, then mutations of them) is parsed as the
CLI parses it and traced with a small kernel in this process. The target
demands:
- nothing but the front end's one-line refusal (TraceError) escapes: any
  other exception, a FrontEndBug included, is a finding;
- a refusal is one printable line that names the flag it is about, or the
  kernel's FILE:LINE;
- an accepted input gives a spec that is strict JSON (no NaN, no
  Infinity) whose recorded arguments parse back to the same arguments.

Usage: nki_frontend_args_fuzz.py [--seed N] [--runs N] [--save DIR]
(--save writes each finding there as JSON, for regressions/)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import traceback
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(SOURCE, "workloads", "frontends", d)
                for d in ("nki", "common")]

from nki_frontend import cli  # noqa: E402
from nki_frontend.errors import TraceError  # noqa: E402

KERNEL = os.path.join(HERE, "corpus", "nki_frontend_args", "kernel.py")
SEEDS = [os.path.join(HERE, "corpus", "nki_frontend_args", "seeds.json"),
         os.path.join(HERE, "regressions", "nki_frontend_args")]

# Pieces a mutation splices in: the grammar's own tokens and the values
# that once broke parsers elsewhere (tests/fuzz/json.dict's spirit).
TOKENS = ["x", "=", ",", ":", "x", "float32", "bfloat16", "fp16", "int8",
          "int32", "float64", "0", "1", "128", "-1", "1e999", "nan", "inf",
          "9" * 40, "(", ")", "[", "]", "{", "}", "'", '"', "\\", "\n",
          "\x1b[31m", "\x00", "é", "__import__('os')", "True", "None",
          "1j", "b'x'", "...", "x" * 300, "(" * 200, "[]", "{[]: 1}",
          "1_000", "0x10", "ROWS", "scale", "out", "::", "--args", " "]


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(text))
        op = rng.randrange(4)
        if op == 0:
            text = text[:pos] + rng.choice(TOKENS) + text[pos:]
        elif op == 1 and text:
            end = min(len(text), pos + rng.randint(1, 8))
            text = text[:pos] + text[end:]
        elif op == 2 and text:
            i = rng.randrange(len(text))
            text = text[:i] + chr(rng.randrange(1, 0x250)) + text[i + 1:]
        else:
            text = text[:pos] + text[pos:][::-1]
    return text


def mutate_input(rng: random.Random, seed: dict) -> dict:
    out = {"args": seed["args"], "kwargs": list(seed["kwargs"]),
           "shapes": list(seed["shapes"])}
    field = rng.choice(["args", "kwargs", "shapes"])
    if field == "args":
        out["args"] = mutate(rng, out["args"])
    else:
        items = out[field]
        if items and rng.random() < 0.7:
            i = rng.randrange(len(items))
            items[i] = mutate(rng, items[i])
        else:
            items.append(mutate(rng, rng.choice(["ROWS=64", "x=128"])))
    return out


TRACED = [0]  # inputs that gave a spec


def check(case: dict) -> Optional[str]:
    """None, or what the front end did wrong on `case`."""
    try:
        args = cli.parse_args_text(case["args"])
        cli.reshape_args(args, case["shapes"])
        kwargs: Dict[str, object] = {}
        kwarg_text: Dict[str, str] = {}
        for item in case["kwargs"]:
            k, v, raw = cli.parse_kwarg(item)
            if k in kwargs:
                raise TraceError(f"--kwarg {item}: {k} is given twice")
            kwargs[k], kwarg_text[k] = v, raw
        trace = cli.trace_kernel(KERNEL, "fuzz_kernel", args, kwargs)
        text = cli.spec_text(trace, KERNEL, "fuzz_kernel", args, kwarg_text)
    except TraceError as e:
        line = cli._one_line(e.line())
        if not line.isprintable() or len(line) > 1000:
            return f"refusal is not one printable line: {line!r}"
        if not any(flag in line for flag in ("--args", "--kwarg", "--shape",
                                             "kernel.py")):
            return f"refusal names neither the flag nor the kernel: {line!r}"
        return None
    except BaseException:  # noqa: B036 (a finding, whatever it is)
        return "raised " + traceback.format_exc(limit=-3)
    try:
        spec = json.loads(text, parse_constant=_no_constant)
    except ValueError as e:
        return f"the spec is not strict JSON: {e}"
    TRACED[0] += 1
    recorded = spec["kernel_source"]["args"]
    try:
        again = cli.parse_args_text(",".join(f"{k}={v}"
                                             for k, v in recorded.items()))
    except TraceError as e:
        return f"recorded arguments {recorded} do not parse back: {e}"
    if again != args:
        return f"recorded arguments {recorded} parse back as {again}"
    return None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} in the spec")


def seeds() -> List[dict]:
    out: List[dict] = []
    for path in SEEDS:
        files = [path] if os.path.isfile(path) else sorted(
            os.path.join(path, f) for f in os.listdir(path)
            if f.endswith(".json")) if os.path.isdir(path) else []
        for f in files:
            with open(f, encoding="utf-8") as fh:
                data = json.load(fh)
            out.extend(data if isinstance(data, list) else [data])
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int,
                   default=int(os.environ.get("FUZZ_RUNS", "1500")))
    p.add_argument("--save", default="")
    ns = p.parse_args()
    rng = random.Random(ns.seed)
    pool = seeds()
    findings = 0
    refused = accepted = 0
    for i in range(ns.runs):
        case = pool[i] if i < len(pool) else mutate_input(rng,
                                                          rng.choice(pool))
        problem = check(case)
        if problem is not None:
            findings += 1
            print(f"finding {findings} (run {i}): {problem}\n  input: "
                  f"{json.dumps(case, ensure_ascii=True)}", file=sys.stderr)
            if ns.save:
                os.makedirs(ns.save, exist_ok=True)
                with open(os.path.join(ns.save, f"finding_{i}.json"), "w",
                          encoding="utf-8") as f:
                    json.dump(case, f, ensure_ascii=True)
            continue
        if i >= len(pool) and rng.random() < 0.05 and len(pool) < 200:
            pool.append(case)  # a mutation that still parses or refuses
        try:
            cli.parse_args_text(case["args"])
            accepted += 1
        except TraceError:
            refused += 1
    print(f"nki_frontend_args: {ns.runs} runs (seed {ns.seed}), "
          f"{accepted} with parsable --args, {refused} refused at --args, "
          f"{TRACED[0]} traced into specs, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
