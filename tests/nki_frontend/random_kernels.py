"""Random valid NKI kernels (issue 44, item 5): programs built from the
documented API of each generation and its rules, traced in this process
and run through trnbench in batches.

Each program is the Python source of one kernel function: its arguments are
HBM tensors of shapes within the limits (row tiles of at most 128
partitions, free dims a matmul's moving tile of at most 512, a PSUM tile of
at most 2 KiB a partition), its body a loop over the row tiles (an
`affine_range`, `sequential_range`, `static_range` or Python `range`),
loads, a chain of operations drawn from that generation's API (nl.* math,
activations and reductions, nisa instructions on engines each may run on,
matmuls into PSUM, transposes, partition broadcasts, masks, slices, block
arrays filled by one loop and read by another) and a store. A few
programs break one documented limit on purpose (a tile of 256 partitions,
a VectorE transpose over [32, 32]): those must be refused in one line
naming that limit.

  /usr/bin/python3 tests/nki_frontend/random_kernels.py --count 5000 \\
      --seed 44 [--trnbench build/trnbench] [--keep DIR]

prints the figures and exits 1 on an internal error (a Python exception
inside the front end), on a traced spec trnbench rejects, or on an invalid
program accepted. test_random_kernels.py runs it in CI."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(SOURCE, "workloads", "frontends", d)
                for d in ("nki", "common")]

from nki_frontend import cli, emit  # noqa: E402
from nki_frontend.errors import TraceError  # noqa: E402

PACKAGE = os.path.join(SOURCE, "workloads", "frontends", "nki", "nki_frontend")

UNARY = ["exp", "tanh", "sigmoid", "relu", "gelu", "silu", "softplus", "erf",
         "gelu_apprx_tanh", "mish", "abs", "sign", "square", "sin", "cos",
         "negative", "floor", "ceil", "arctan", "gelu_dx", "silu_dx"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "abs_max",
          "equal", "greater", "less_equal", "logical_and", "power"]
REDUCE = ["max", "min", "sum", "mean", "prod"]
DTYPES = ["float32", "bfloat16", "float16"]


@dataclass
class Tile:
    name: str
    p: int
    f: int
    psum: bool = False
    view: bool = False  # a view of a block's slot: not sliced again


@dataclass
class Program:
    seed: int
    generation: str            # "neuronxcc.nki" or "nki"
    source: str
    args: str
    expect: Optional[str] = None   # a fragment of the refusal, if invalid


@dataclass
class Outcome:
    traced: int = 0
    refused: Dict[str, int] = field(default_factory=dict)
    internal: List[str] = field(default_factory=list)
    wrongly_accepted: List[str] = field(default_factory=list)
    wrong_refusal: List[str] = field(default_factory=list)
    rejected: List[str] = field(default_factory=list)
    ran: int = 0


class Gen:
    """One program: lines of the kernel body, tiles made so far."""

    def __init__(self, rng: random.Random, generation: str) -> None:
        self.r = rng
        self.g = generation
        self.today = generation == "nki"
        self.lines: List[str] = []
        self.n = 0
        self.indent = 1

    def name(self, base: str) -> str:
        self.n += 1
        return f"{base}{self.n}"

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def sbuf(self, t: Tile, dtype: str = "nl.float32") -> str:
        """Today's dst-first form needs the destination allocated."""
        name = self.name("d")
        self.emit(f"{name} = nl.ndarray(({t.p}, {t.f}), dtype={dtype}, "
                  "buffer=nl.sbuf)")
        return name

    def engine(self, choices: List[str]) -> str:
        e = self.r.choice(choices + [""])
        return f", engine=nisa.{e}_engine" if e else ""

    # --- operations: each takes the current tile and returns the next ---

    def unary(self, t: Tile, other: Tile) -> Tile:
        fn = self.r.choice(UNARY)
        out = self.name("u")
        self.emit(f"{out} = nl.{fn}({t.name})")
        return Tile(out, t.p, t.f)

    def binary(self, t: Tile, other: Tile) -> Tile:
        fn = self.r.choice(BINARY)
        out = self.name("b")
        kind = self.r.randrange(4)
        if kind == 0 and (other.p, other.f) == (t.p, t.f):
            self.emit(f"{out} = nl.{fn}({t.name}, {other.name})")
        elif kind == 1:
            self.emit(f"{out} = nl.{fn}({t.name}, "
                      f"{self.r.choice(['2.0', '0.5', '3'])})")
        elif kind == 2 and (other.p, other.f) == (t.p, t.f):
            op = self.r.choice(["+", "-", "*"])
            self.emit(f"{out} = {t.name} {op} {other.name}")
        else:
            r = self.name("r")
            self.emit(f"{r} = nl.{self.r.choice(REDUCE)}({t.name}, axis=1, "
                      "keepdims=True)")
            self.emit(f"{out} = nl.{fn}({t.name}, {r})")
        return Tile(out, t.p, t.f)

    def reduce_then_scale(self, t: Tile, other: Tile) -> Tile:
        r = self.name("r")
        if self.today:
            d = self.name("d")
            self.emit(f"{d} = nl.ndarray(({t.p}, 1), dtype=nl.float32, "
                      "buffer=nl.sbuf)")
            self.emit(f"nisa.tensor_reduce({d}, nl.max, {t.name}, axis=1)")
            r = d
        else:
            self.emit(f"{r} = nisa.tensor_reduce(op=nl.max, data={t.name}, "
                      "axis=(1,))")
        out = self.name("s")
        self.emit(f"{out} = nl.multiply({t.name}, {r})")
        return Tile(out, t.p, t.f)

    def activation(self, t: Tile, other: Tile) -> Tile:
        fn = self.r.choice(["exp", "tanh", "silu", "gelu", "relu", "copy",
                            "sigmoid", "softplus"])
        scale = self.r.choice(["1.0", "0.5"])
        if self.today:
            d = self.sbuf(t)
            self.emit(f"nisa.activation({d}, nl.{fn}, {t.name}, "
                      f"scale={scale})")
            return Tile(d, t.p, t.f)
        out = self.name("a")
        self.emit(f"{out} = nisa.activation(op=nl.{fn}, data={t.name}, "
                  f"scale={scale})")
        return Tile(out, t.p, t.f)

    def tensor_scalar(self, t: Tile, other: Tile) -> Tile:
        eng = self.engine(["vector", "gpsimd"])
        if self.today:
            d = self.sbuf(t)
            self.emit(f"nisa.tensor_scalar({d}, {t.name}, nl.multiply, 2.0"
                      f"{eng})")
            return Tile(d, t.p, t.f)
        out = self.name("ts")
        self.emit(f"{out} = nisa.tensor_scalar(data={t.name}, "
                  f"op0=nl.multiply, operand0=2.0{eng})")
        return Tile(out, t.p, t.f)

    def tensor_tensor(self, t: Tile, other: Tile) -> Tile:
        if (other.p, other.f) != (t.p, t.f):
            return self.unary(t, other)
        eng = self.engine(["vector", "gpsimd"])
        if self.today:
            d = self.sbuf(t)
            self.emit(f"nisa.tensor_tensor({d}, {t.name}, {other.name}, "
                      f"nl.add{eng})")
            return Tile(d, t.p, t.f)
        out = self.name("tt")
        self.emit(f"{out} = nisa.tensor_tensor(data1={t.name}, "
                  f"data2={other.name}, op=nl.add{eng})")
        return Tile(out, t.p, t.f)

    def copy(self, t: Tile, other: Tile) -> Tile:
        eng = self.engine(["vector", "gpsimd", "scalar"])
        if self.today:
            d = self.sbuf(t)
            self.emit(f"nisa.tensor_copy({d}, {t.name}{eng})")
            return Tile(d, t.p, t.f)
        out = self.name("c")
        self.emit(f"{out} = nisa.tensor_copy({t.name}{eng})")
        return Tile(out, t.p, t.f)

    def scalar_tensor_tensor(self, t: Tile, other: Tile) -> Tile:
        if (other.p, other.f) != (t.p, t.f):
            return self.unary(t, other)
        if self.today:
            d = self.sbuf(t)
            self.emit(f"nisa.scalar_tensor_tensor({d}, {t.name}, "
                      f"nl.multiply, 0.5, nl.add, {other.name})")
            return Tile(d, t.p, t.f)
        out = self.name("st")
        self.emit(f"{out} = nisa.scalar_tensor_tensor(data={t.name}, "
                  "op0=nl.multiply, operand0=0.5, op1=nl.add, "
                  f"operand1={other.name})")
        return Tile(out, t.p, t.f)

    def where(self, t: Tile, other: Tile) -> Tile:
        if (other.p, other.f) != (t.p, t.f):
            return self.unary(t, other)
        c, out = self.name("cond"), self.name("w")
        self.emit(f"{c} = nl.greater({t.name}, {other.name})")
        self.emit(f"{out} = nl.where({c}, {t.name}, {other.name})")
        return Tile(out, t.p, t.f)

    def dropout(self, t: Tile, other: Tile) -> Tile:
        out = self.name("dr")
        self.emit(f"{out} = nl.dropout({t.name}, 0.25)")
        return Tile(out, t.p, t.f)

    def transpose(self, t: Tile, other: Tile) -> Tile:
        if t.view:
            return self.unary(t, other)
        w = min(t.f, 128)
        out = self.name("tp")
        self.emit(f"{out} = nl.transpose({t.name}[:, 0:{w}])")
        return Tile(out, w, t.p, psum=max(w, t.p) > 32)

    def matmul(self, t: Tile, other: Tile) -> Tile:
        # t is [K, F]: the stationary [K, M <= 128] and moving [K, N <= 512]
        # are slices of it.
        if t.view:
            return self.unary(t, other)
        m = min(t.f, self.r.choice([32, 64, 128]))
        n = min(t.f, self.r.choice([64, 128, 256, 512]))
        out = self.name("mm")
        if self.today or self.r.random() < 0.5:
            self.emit(f"{out} = nl.matmul({t.name}[:, 0:{m}], "
                      f"{t.name}[:, 0:{n}], transpose_x=True)")
        else:
            self.emit(f"{out} = nisa.nc_matmul({t.name}[:, 0:{m}], "
                      f"{t.name}[:, 0:{n}])")
        cp = self.name("mc")
        self.emit(f"{cp} = nl.copy({out}, dtype=nl.float32)")
        return Tile(cp, m, n)

    def max8(self, t: Tile, other: Tile) -> Tile:
        if self.today:
            d = self.name("m8")
            self.emit(f"{d} = nl.ndarray(({t.p}, 8), dtype=nl.float32, "
                      "buffer=nl.sbuf)")
            self.emit(f"nisa.max8({d}, {t.name})")
            return Tile(d, t.p, 8)
        out = self.name("m8")
        self.emit(f"{out} = nisa.max8(src={t.name})")
        return Tile(out, t.p, 8)

    def bn(self, t: Tile, other: Tile) -> Tile:
        if t.f > 512:
            return self.unary(t, other)
        s, a = self.name("bs"), self.name("ba")
        if self.today:
            self.emit(f"{s} = nl.ndarray(({t.p}, 6), dtype=nl.float32, "
                      "buffer=nl.sbuf)")
            self.emit(f"nisa.bn_stats({s}, {t.name})")
            self.emit(f"{a} = nl.ndarray(({t.p}, 2), dtype=nl.float32, "
                      "buffer=nl.sbuf)")
            self.emit(f"nisa.bn_aggr({a}, {s})")
        else:
            self.emit(f"{s} = nisa.bn_stats({t.name})")
            self.emit(f"{a} = nisa.bn_aggr({s})")
        return Tile(a, t.p, 2)

    def softmax(self, t: Tile, other: Tile) -> Tile:
        out = self.name("sm")
        self.emit(f"{out} = nl.softmax({t.name}, axis=1)")
        return Tile(out, t.p, t.f)

    def filled(self, t: Tile, other: Tile) -> Tile:
        """A constant tile (memset, or iota's indices) combined with t:
        today's `nisa.memset(dst, value)` / `nisa.iota(dst, pattern,
        offset)`, SDK 2.x's value-returning forms."""
        c, out = self.name("k"), self.name("kc")
        if self.r.random() < 0.5:
            if self.today:
                c = self.sbuf(t)
                self.emit(f"nisa.memset({c}, 1.0)")
            else:
                self.emit(f"{c} = nisa.memset(shape=({t.p}, {t.f}), "
                          "value=1.0, dtype=nl.float32)")
        elif self.today:
            c = self.sbuf(t, "nl.int32")
            self.emit(f"nisa.iota({c}, [[1, {t.f}]], offset=0)")
        else:
            ip = self.name("ip")
            self.emit(f"{ip} = nl.arange({t.p})[:, None]")
            self.emit(f"{c} = nisa.iota({ip} + nl.arange({t.f})[None, :], "
                      "dtype=nl.int32)")
        self.emit(f"{out} = nl.add({t.name}, {c})")
        return Tile(out, t.p, t.f)

    OPS = ["filled", "unary", "binary", "reduce_then_scale", "activation",
           "tensor_scalar", "tensor_tensor", "copy", "scalar_tensor_tensor",
           "where", "dropout", "transpose", "matmul", "max8", "bn",
           "softmax"]


def matmul_program(seed: int, r: random.Random,
                   generation: str) -> Program:
    """C[M, N] = A^T B over K tiles of 128: a PSUM accumulator in a loop
    (`acc += nl.matmul(...)` or nisa.nc_matmul into it), its copy stored;
    an outer loop over column tiles of B of at most 512."""
    kt = r.choice([1, 2, 4, 8])
    m = r.choice([32, 64, 128])
    nt = r.choice([1, 2])
    n = r.choice([128, 256, 512])
    dtype = r.choice(DTYPES)
    loop = r.choice(["nl.affine_range", "nl.sequential_range", "range"])
    kloop = r.choice(["nl.affine_range", "nl.sequential_range"])
    isa_form = r.random() < 0.5
    lines = [f"import {generation}.language as nl",
             f"import {generation}.isa as nisa", "", "",
             "def kernel(a, b):",
             f"    out = nl.ndarray(({m}, {nt * n}), dtype=nl.float32, "
             f"buffer=nl.{r.choice(['shared_hbm', 'hbm'])})",
             f"    for j in {loop}({nt}):",
             f"        acc = nl.zeros(({m}, {n}), nl.float32, "
             "buffer=nl.psum)",
             f"        for k in {kloop}({kt}):",
             f"            at = nl.load(a[k * 128:(k + 1) * 128, :])",
             f"            bt = nl.load(b[k * 128:(k + 1) * 128, "
             f"j * {n}:(j + 1) * {n}])"]
    if isa_form and generation == "nki":
        lines.append("            nisa.nc_matmul(acc, at, bt)")
    elif isa_form:
        lines.append("            acc += nisa.nc_matmul(at, bt)")
    else:
        lines.append("            acc += nl.matmul(at, bt, transpose_x=True)")
    lines += ["        res = nl.copy(acc, dtype=nl.float32)",
              f"        nl.store(out[:, j * {n}:(j + 1) * {n}], value=res)",
              "    return out"]
    args = f"a={kt * 128}x{m}:{dtype},b={kt * 128}x{nt * n}:{dtype}"
    return Program(seed, generation, "\n".join(lines) + "\n", args)


def make_program(seed: int) -> Program:
    r = random.Random(seed)
    generation = r.choice(["neuronxcc.nki", "nki"])
    if r.random() < 0.15:
        return matmul_program(seed, r, generation)
    g = Gen(r, generation)
    p = r.choice([32, 64, 128, 128])
    tiles = r.choice([1, 2, 3, 4])
    f = r.choice([64, 128, 256, 512, 1024])
    dtype = r.choice(DTYPES)
    loop = r.choice(["nl.affine_range", "nl.sequential_range",
                     "nl.static_range", "range"])
    two_inputs = r.random() < 0.5
    block = generation == "neuronxcc.nki" and r.random() < 0.2
    mask = generation == "neuronxcc.nki" and not block and r.random() < 0.15
    bcast = r.random() < 0.15
    invalid = r.random() < 0.03
    expect = None

    head = []
    head.append(f"import {generation}.language as nl")
    head.append(f"import {generation}.isa as nisa")
    head.append("")
    head.append("")
    params = "x, y" if two_inputs else "x"
    head.append(f"def kernel({params}):")

    body_start = len(g.lines)
    if block:
        g.emit(f"buf = nl.ndarray(({tiles}, nl.par_dim({p}), {f}), "
               f"dtype=nl.{dtype}, buffer=nl.sbuf)")
        g.emit(f"for i in {loop}({tiles}):")
        g.emit(f"    buf[i] = nl.load(x[i * {p}:(i + 1) * {p}, :])")
    if bcast:
        g.emit(f"row = nl.load(x[0:1, :])")
    g.emit(f"for i in {loop}({tiles}):")
    g.indent += 1
    if block:
        g.emit("t0 = buf[i]")
    elif mask:
        g.emit(f"i_p = nl.arange({p})[:, None]")
        g.emit(f"i_f = nl.arange({f})[None, :]")
        g.emit(f"t0 = nl.load(x[i * {p} + i_p, i_f], mask=(i_p < {p - 1}))")
    else:
        g.emit(f"t0 = nl.load(x[i * {p}:(i + 1) * {p}, :])")
    cur = Tile("t0", p, f, view=block)
    other = cur
    if two_inputs:
        g.emit(f"o0 = nl.load(y[i * {p}:(i + 1) * {p}, :])")
        other = Tile("o0", p, f)
    if bcast:
        g.emit(f"t1 = nl.add(t0, row.broadcast_to(({p}, {f})))")
        cur = Tile("t1", p, f)
    if invalid:
        kind = r.choice(["partitions", "vector_transpose"])
        if kind == "partitions":
            g.emit(f"big = nl.ndarray((256, {f}), dtype=nl.float32, "
                   "buffer=nl.sbuf)")
            expect = "at most 128"
        elif generation == "neuronxcc.nki":
            # t0 is [P, F] with F >= 64: over VectorE's [32, 32].
            g.emit("bad = nisa.nc_transpose(t0, engine=nisa.vector_engine)")
            expect = "VectorE transposes at most [32, 32]"
        else:
            # (today's programs have no block arrays: t0 is a tile.)
            g.emit(f"bad = nl.ndarray((64, {p}), dtype=nl.float32, "
                   "buffer=nl.sbuf)")
            g.emit("nisa.nc_transpose(bad, t0[:, 0:64], "
                   "engine=nisa.vector_engine)")
            expect = "VectorE transposes at most [32, 32]"
    for _ in range(r.randint(1, 5)):
        op = r.choice(Gen.OPS)
        if cur.psum:
            g.emit(f"c{g.n} = nl.copy({cur.name})")
            cur = Tile(f"c{g.n}", cur.p, cur.f)
            g.n += 1
        nxt = getattr(g, op)(cur, other)
        if (nxt.p, nxt.f) != (cur.p, cur.f):
            other = nxt
        cur = nxt
    if cur.psum:
        g.emit(f"fin = nl.copy({cur.name})")
        cur = Tile("fin", cur.p, cur.f)
    # A result of another partition count than the loop's row tile goes
    # to a 3-D output, one [P, F] slot per iteration (`out[i]`): the spec
    # format's loop names one tile size per loop variable (a 2-D output
    # in tiles of another size is refused, not yet expressible).
    if cur.p == p and r.random() < 0.7:
        g.emit(f"nl.store(out[i * {cur.p}:(i + 1) * {cur.p}, :], "
               f"value={cur.name})")
        out_shape = f"({tiles * cur.p}, {cur.f})"
    else:
        g.emit(f"nl.store(out[i], value={cur.name})")
        out_shape = f"({tiles}, {cur.p}, {cur.f})"
    g.indent -= 1
    g.emit("return out")
    out_line = (f"    out = nl.ndarray({out_shape}, "
                f"dtype=nl.{dtype}, buffer=nl.shared_hbm)")
    lines = head + [out_line] + g.lines[body_start:]
    args = f"x={tiles * p}x{f}:{dtype}"
    if two_inputs:
        args += f",y={tiles * p}x{f}:{dtype}"
    return Program(seed, generation, "\n".join(lines) + "\n", args, expect)


def _internal(e: BaseException) -> Optional[str]:
    """The traceback of a Python exception raised inside the front end
    (a bug), or None for a refusal."""
    inner = e
    if isinstance(e, TraceError):
        inner = e.__context__ or e.__cause__  # type: ignore[assignment]
        if inner is None or isinstance(inner, TraceError):
            return None
    tb = traceback.extract_tb(inner.__traceback__)
    if tb and tb[-1].filename.startswith(PACKAGE):
        return "".join(traceback.format_exception(type(inner), inner,
                                                  inner.__traceback__))
    if not isinstance(e, TraceError):
        return "".join(traceback.format_exception(type(e), e,
                                                  e.__traceback__))
    return None


def trace_all(programs: List[Program], work: str,
              out: Outcome) -> List[Tuple[Program, str]]:
    specs = []
    for prog in programs:
        path = os.path.join(work, f"k{prog.seed}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(prog.source)
        try:
            t = cli.trace_kernel(path, "kernel", cli.parse_args_text(
                prog.args), {})
            spec = emit.emit(t, f"k{prog.seed}", "random kernel",
                             cli.provenance_of(path, "kernel",
                                               cli.parse_args_text(prog.args),
                                               {}))
        except BaseException as e:  # noqa: B902 (classified below)
            bug = _internal(e)
            if bug:
                out.internal.append(f"{path}: {bug}")
            elif prog.expect is None:
                msg = str(e)
                out.refused[msg] = out.refused.get(msg, 0) + 1
            elif prog.expect not in str(e) or "\n" in str(e).strip():
                out.wrong_refusal.append(f"{path}: {e}")
            else:
                out.refused[prog.expect] = out.refused.get(prog.expect, 0) + 1
            continue
        if prog.expect is not None:
            out.wrongly_accepted.append(path)
            continue
        out.traced += 1
        spath = os.path.join(work, f"k{prog.seed}.json")
        with open(spath, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        specs.append((prog, spath))
    return specs


def run_batch(trnbench: str, batch: List[Tuple[Program, str]],
              out: Outcome) -> None:
    cmd = [trnbench, "--device", "trn1", "--repeat", "1", "--warmup", "0"]
    for _, path in batch:
        cmd += ["--spec", path]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        out.ran += len(batch)
        return
    if len(batch) == 1:
        out.rejected.append(f"{batch[0][1]}: exit {p.returncode}: "
                            f"{p.stderr.strip()}")
        return
    half = len(batch) // 2
    run_batch(trnbench, batch[:half], out)
    run_batch(trnbench, batch[half:], out)


def run(count: int, seed: int, trnbench: Optional[str], keep: Optional[str],
        batch: int = 250) -> Outcome:
    out = Outcome()
    work = keep or tempfile.mkdtemp(prefix="trnbench-random-kernels.")
    os.makedirs(work, exist_ok=True)
    try:
        programs = [make_program(seed * 1_000_003 + i) for i in range(count)]
        specs = trace_all(programs, work, out)
        if trnbench:
            for i in range(0, len(specs), batch):
                run_batch(trnbench, specs[i:i + batch], out)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--trnbench", default=None)
    ap.add_argument("--keep", default=None, help="keep the kernels here")
    a = ap.parse_args()
    t0 = time.process_time()
    w0 = time.time()
    o = run(a.count, a.seed, a.trnbench, a.keep)
    refused = sum(o.refused.values())
    print(f"programs {a.count}: traced {o.traced}, refused {refused}, "
          f"internal errors {len(o.internal)}, ran {o.ran}, rejected "
          f"{len(o.rejected)}, invalid accepted {len(o.wrongly_accepted)}, "
          f"wrong refusals {len(o.wrong_refusal)}; "
          f"{time.time() - w0:.1f} s wall, {time.process_time() - t0:.1f} s "
          "CPU in this process")
    for msg, n in sorted(o.refused.items(), key=lambda x: -x[1])[:20]:
        print(f"  refused x{n}: {msg}")
    for x in (o.internal + o.rejected + o.wrongly_accepted +
              o.wrong_refusal)[:20]:
        print("  FAIL", x)
    bad = o.internal or o.rejected or o.wrongly_accepted or o.wrong_refusal
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
