"""The NKI front end's corpus: public kernels trnbench was not shaped on
(corpus_manifest.tsv: the nki-corpus fixtures and NKIBench's measured
kernels) and the nki-samples tutorials (upstream.py), at the shapes their
own tests use. Run as a script, it traces and runs each one and prints the
table of docs/nki-source.md ("Corpus"), then the totals:

    /usr/bin/python3 tests/nki_frontend/corpus.py build/trnbench \
        [--only ID,...]
        [--record]   # also write each manifest row's state (runs / refused)

A row is `run` (traced, and trnbench ran the spec), `refused` (one line
naming the kernel's file and line), or `internal`: a Python exception out
of the front end, or a traced spec trnbench rejects or fails on (a bug,
never bad input). test_corpus.py holds the front end to it."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Dict, List, NamedTuple, Optional, Tuple

from frontend_test_util import HERE, SAMPLES, SOURCE

SHARED = os.path.join(os.path.dirname(SOURCE), "shared", "fixtures")
CORPUS = os.environ.get("TRNBENCH_NKI_CORPUS") or os.path.join(
    SHARED, "nki-corpus")
NKIBENCH = os.environ.get("TRNBENCH_NKIBENCH") or os.path.join(
    SHARED, "measured", "nkibench")
MANIFEST = os.path.join(HERE, "corpus_manifest.tsv")


class Row(NamedTuple):
    id: str
    path: str
    function: str
    args: str
    kwargs: Tuple[str, ...]
    generation: str
    expect: str  # run, refuse, config
    state: str   # runs, refused: what the front end did when last recorded
    note: str


class Result(NamedTuple):
    status: str  # run, refused, internal, traced (no trnbench to run it)
    why: str = ""
    trace_ms: float = 0.0
    run_s: float = 0.0
    ncl_us: float = 0.0
    spill: str = ""


def missing() -> Optional[str]:
    for what, path in (("nki-corpus", CORPUS), ("NKIBench", NKIBENCH)):
        if not os.path.isdir(path):
            return (f"the {what} fixtures are not at {path} (../shared/"
                    "fixtures beside the clone)")
    return None


def manifest_rows() -> List[Row]:
    roots = {"corpus": CORPUS, "nkibench": os.path.join(NKIBENCH, "kernels")}
    out: List[Row] = []
    with open(MANIFEST, encoding="utf-8") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    for r in csv.DictReader(lines, delimiter="\t"):
        out.append(Row(r["id"], os.path.join(roots[r["root"]], r["file"]),
                       r["function"], r["args"],
                       tuple(x for x in r["kwargs"].split(";") if x),
                       r["generation"], r["expect"], r["state"],
                       r["note"] or ""))
    return out


def sample_rows() -> List[Row]:
    import upstream
    out: List[Row] = []
    for i, k in enumerate(upstream.kernels()):
        out.append(Row(f"u{i + 1:02d}", upstream.path_of(k), k.function,
                       k.args, k.kwargs, k.generation, "run", "runs", ""))
    return out


def rows() -> List[Row]:
    return manifest_rows() + (sample_rows() if os.path.isdir(SAMPLES)
                              else [])


def trace(row: Row) -> Tuple[Optional[dict], Result]:
    """The spec, or the refusal; a Python exception is internal."""
    from nki_frontend import cli, emit
    from nki_frontend.errors import TraceError
    start = time.perf_counter()
    try:
        args = cli.parse_args_text(row.args)
        kw: Dict[str, object] = {}
        for item in row.kwargs:
            name, value, _ = cli.parse_kwarg(item)
            kw[name] = value
        t = cli.trace_kernel(row.path, row.function, args, kw)
        spec = emit.emit(t, cli.workload_name(
            cli.split_grid(row.function)[0]), "corpus", cli.provenance_of(
                row.path, row.function, args,
                dict(item.split("=", 1) for item in row.kwargs)))
    except TraceError as e:
        ms = (time.perf_counter() - start) * 1000
        return None, Result("refused", e.line(), ms)
    except Exception as e:  # noqa: BLE001 (a bug of the front end)
        ms = (time.perf_counter() - start) * 1000
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return None, Result("internal", f"{type(e).__name__}: {e} "
                            f"({os.path.basename(tb.filename)}:{tb.lineno})",
                            ms)
    return spec, Result("traced", "", (time.perf_counter() - start) * 1000)


def run(trnbench: str, spec: dict, traced: Result,
        with_spill: bool = False) -> Result:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spec.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        start = time.perf_counter()
        try:
            p = subprocess.run([trnbench, "--spec", path, "--repeat", "1",
                                "--format", "json"], capture_output=True,
                               text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return traced._replace(status="internal",
                                   why="trnbench ran over 600 s")
        took = time.perf_counter() - start
    if p.returncode != 0:
        line = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        # The front end wrote the spec: trnbench refusing it is a bug of
        # the front end (exit 2) or of trnbench (3), except a documented
        # limit of the compiler stage (SBUF / PSUM capacity), which is the
        # kernel's.
        capacity = p.returncode == 2 and re.search(
            r"overflow|does not fit|exceeds", line)
        return traced._replace(
            status="refused" if capacity else "internal",
            why=f"trnbench exit {p.returncode}: {line}", run_s=took)
    m = json.loads(p.stdout)["workloads"][0]["metrics"]
    ncl = float(m.get("ncl_us", {}).get("p99", 0.0)) if isinstance(
        m.get("ncl_us"), dict) else float(m.get("ncl_us", 0.0))
    return traced._replace(status="run", run_s=took, ncl_us=ncl,
                           spill=spill_bytes(trnbench, spec)
                           if with_spill else "")


def spill_bytes(trnbench: str, spec: dict) -> str:
    """What the compiler stage spills (`trnbench profile`, "compiler"):
    save and reload bytes, as NKIBench's profiles report them."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spec.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        p = subprocess.run([trnbench, "profile", "--spec", path, "--format",
                            "json"], capture_output=True, text=True,
                           timeout=600)
    if p.returncode != 0:
        return "?"
    c = json.loads(p.stdout)["workloads"][0].get("compiler", {})
    return f"{c.get('spill_save_bytes', 0)} / {c.get('spill_reload_bytes', 0)}"


def check(row: Row, trnbench: Optional[str]) -> Result:
    spec, res = trace(row)
    if spec is None or not trnbench:
        return res
    return run(trnbench, spec, res,
               with_spill=row.path.startswith(NKIBENCH + os.sep))


def write_states(states: Dict[str, str]) -> None:
    """`--record`: the manifest's state column from this run (what
    test_corpus.py then holds the front end to)."""
    with open(MANIFEST, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = next(i for i, ln in enumerate(lines) if ln.startswith("id\t"))
    col = lines[header].split("\t").index("state")
    for i, ln in enumerate(lines[header + 1:], header + 1):
        fields = ln.split("\t")
        if len(fields) > col and fields[0] in states:
            fields[col] = states[fields[0]]
            lines[i] = "\t".join(fields)
    with open(MANIFEST, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def fmt_us(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} us"


def short_path(row: Row) -> str:
    for root in (CORPUS, os.path.join(NKIBENCH, "kernels"), SAMPLES):
        if row.path.startswith(root + os.sep):
            return os.path.relpath(row.path, root)
    return row.path


def table_line(row: Row, res: Result) -> str:
    kernel = f"{os.path.basename(row.path)}::{row.function}"
    if res.status == "run":
        spill = f", spill saved / reloaded {res.spill} B" if res.spill \
            else ""
        return (f"| {row.id} | {kernel} | {row.generation} | yes | "
                f"{res.trace_ms:.0f} | {res.run_s:.2f} | "
                f"{fmt_us(res.ncl_us)}{spill} |")
    why = res.why.replace("|", "\\|")
    for root in (CORPUS + os.sep, NKIBENCH + os.sep, SAMPLES + os.sep):
        why = why.replace(root, "")
    traced = {"traced": "yes", "refused": "no", "internal": "BUG"}.get(
        res.status, res.status)
    if res.status == "refused" and res.why.startswith("trnbench"):
        traced = "yes"
    return (f"| {row.id} | {kernel} | {row.generation} | {traced} | "
            f"{res.trace_ms:.0f} | | {why} |")


def main(argv: List[str]) -> int:
    trnbench = argv[1] if len(argv) > 1 and not argv[1].startswith("--") \
        else os.path.join(SOURCE, "build", "trnbench")
    if not os.path.isfile(trnbench):
        print(f"(no trnbench at {trnbench}: tracing only)", file=sys.stderr)
        trnbench = ""
    only = set()
    if "--only" in argv:
        only = set(argv[argv.index("--only") + 1].split(","))
    why = missing()
    if why:
        print(why, file=sys.stderr)
        return 2
    record = "--record" in argv
    states: Dict[str, str] = {}
    print("| id | kernel | generation | traced | trace ms | run s | "
          "NCL p99, or the refusal |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    totals: Dict[str, int] = {}
    expect_run = ran = 0
    for row in rows():
        if only and row.id not in only:
            continue
        res = check(row, trnbench)
        print(table_line(row, res), flush=True)
        totals[res.status] = totals.get(res.status, 0) + 1
        states[row.id] = "runs" if res.status == "run" else "refused"
        if row.expect == "run" and not row.id.startswith("u"):
            expect_run += 1
            ran += res.status == "run"
    if record and trnbench:
        write_states(states)
    print()
    print(f"{sum(totals.values())} kernels: " + ", ".join(
        f"{n} {s}" for s, n in sorted(totals.items())) +
        f"; the manifest's `run` rows: {ran} of {expect_run} run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
