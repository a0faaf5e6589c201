"""The NKI API coverage table, generated from the reference: every function,
dtype, class and constant each API generation documents, and what the
front end does with it (traced, and as what; or refused, and why).

The references are ../shared/fixtures/nki-docs (or $TRNBENCH_NKI_DOCS):
- `sdk-2.26/nki/api/generated/*.rst`, one page a name, and the stubs
  `sdk-2.26/nki/api/nki/**.py` (SDK 2.21-2.26's `neuronxcc.nki`);
- `2026-08/nki/api/*.rst`, whose autosummary lists name the API, and the
  stubs `2026-08/nki/api/nki/**/__init__.py` (today's `nki`).

tools/nki_coverage.py writes the table into docs/nki-source.md and
signatures_2026.py from the stubs; tests/nki_frontend/test_nki_coverage.py
fails when a documented name is neither traced nor refused with a reason,
when a traced function's parameters differ from the stub's, or when either
file is stale."""

from __future__ import annotations

import ast
import functools
import glob
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import core, generations, modules

HERE = os.path.dirname(os.path.abspath(__file__))
# The clone: workloads/frontends/nki/nki_frontend is four levels down.
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    HERE))))
BEGIN = "<!-- nki-coverage:begin (tools/nki_coverage.py writes this) -->"
END = "<!-- nki-coverage:end -->"


def docs_root() -> str:
    return os.environ.get("TRNBENCH_NKI_DOCS") or os.path.join(
        os.path.dirname(SOURCE), "shared", "fixtures", "nki-docs")


@dataclass
class Generation:
    key: str       # the reference's folder
    top: str       # the package kernels import
    title: str


GENERATIONS = [
    Generation("sdk-2.26", "neuronxcc.nki",
               "SDK 2.21-2.26, `neuronxcc.nki` (reference: SDK 2.26)"),
    Generation("2026-08", "nki", "today's `nki` (reference: 2026-08)"),
]


@dataclass
class Entry:
    module: str                  # as documented: "nki.language"
    name: str
    kind: str                    # function, dtype, class, constant
    params: Optional[List[Tuple[str, bool]]] = None  # positional, in order
    keyword_only: Tuple[str, ...] = ()


@dataclass
class Status:
    entry: Entry
    traced: bool
    text: str                    # traced as ..., or why refused
    problems: List[str] = field(default_factory=list)


# --- reading the reference ---------------------------------------------------

@functools.lru_cache(maxsize=None)
def _stub_defs(path: str) -> Dict[str, Tuple[str, object]]:
    """name -> (kind, params) of a stub module's top level."""
    out: Dict[str, Tuple[str, object]] = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            a = n.args
            pos = a.posonlyargs + a.args
            first_default = len(pos) - len(a.defaults)
            params = [(p.arg, i >= first_default) for i, p in enumerate(pos)]
            out[n.name] = ("function", (params,
                                        tuple(p.arg for p in a.kwonlyargs)))
        elif isinstance(n, ast.ClassDef):
            out[n.name] = ("class", None)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            ann = ast.unparse(n.annotation)
            out[n.target.id] = ("dtype" if ann == "DType" else "constant",
                                None)
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = ("constant", None)
    return out


def _stub_path(root: str, gen: str, module: str) -> str:
    parts = module.split(".")[1:]  # nki.compiler.psum -> compiler/psum
    base = os.path.join(root, gen, "nki", "api", "nki", *parts)
    if os.path.exists(base + ".py"):
        return base + ".py"
    return os.path.join(base, "__init__.py")


def _entry(root: str, gen: str, module: str, name: str,
           kind_hint: Optional[str]) -> Entry:
    kind, params = _stub_defs(_stub_path(root, gen, module)).get(
        name, (kind_hint or "constant", None))
    e = Entry(module, name, kind)
    if kind == "function" and params is not None:
        e.params, e.keyword_only = params  # type: ignore[misc]
    if kind_hint == "dtype" or (name in core.DTYPES and kind != "function"):
        e.kind = "dtype"
    if name == "tile_size":
        e.kind = "constant"
    return e


_DIRECTIVE_KIND = {"autofunction": "function", "autoclass": "class",
                   "autodata": "constant"}


def documented_sdk(root: str) -> List[Entry]:
    out = []
    for path in sorted(glob.glob(os.path.join(
            root, "sdk-2.26", "nki", "api", "generated", "*.rst"))):
        full = os.path.basename(path)[:-len(".rst")]
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
        m = re.search(r"^\.\. (auto\w+)::", text, re.M)
        hint = _DIRECTIVE_KIND.get(m.group(1)) if m else None
        module, _, name = full.rpartition(".")
        out.append(_entry(root, "sdk-2.26", module, name, hint))
    return out


def documented_2026(root: str) -> List[Entry]:
    out = []
    for path in sorted(glob.glob(os.path.join(root, "2026-08", "nki", "api",
                                              "*.rst"))):
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().splitlines()
        module = None
        i = 0
        while i < len(lines):
            line = lines[i]
            m = re.match(r"\.\. currentmodule:: (\S+)", line)
            if m:
                module = m.group(1)
            elif line.strip() == ".. autosummary::" and module and \
                    not line.startswith(" "):
                i += 1
                while i < len(lines) and (not lines[i].strip() or
                                          lines[i].startswith(" ")):
                    item = lines[i].strip()
                    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", item):
                        out.append(_entry(root, "2026-08", module, item,
                                          None))
                    i += 1
                continue
            m = re.search(r":doc:`(\w+) <nki\.language\.\1>`", line)
            if m and module == "nki.language":
                out.append(_entry(root, "2026-08", module, m.group(1),
                                  "constant"))
            i += 1
    seen = set()
    unique = []
    for e in out:
        if (e.module, e.name) not in seen:
            seen.add((e.module, e.name))
            unique.append(e)
    return unique


def documented(root: str, gen: str) -> List[Entry]:
    return documented_sdk(root) if gen == "sdk-2.26" else \
        documented_2026(root)


# --- what the front end does -------------------------------------------------

# Names modules.py provides (decorators, the allocation API): what they are.
_PROVIDED = {
    "jit": "the kernel function (a decorator)",
    "benchmark": "the kernel function (a decorator)",
    "profile": "the kernel function (a decorator)",
    "baremetal": "the kernel function (a decorator)",
    "trace": "the kernel function (a decorator)",
    "simulate_kernel": "the kernel function, called",
    "simulate": "the kernel function, called",
    "tensor": "a type annotation",
    "skip_middle_end_transformations": "the kernel function (a decorator)",
    "enable_stack_allocator": "the kernel function (a decorator)",
    "force_auto_alloc": "the kernel function (a decorator)",
    "auto_alloc": "`nl.sbuf` / `nl.psum`",
    "mod_alloc": "`tile_buffers` / `one_buffer` on the ops of its block "
                 "dims",
    "no_reorder": "`\"no_reorder\": true` on its loops",
    "alloc": "`tile_buffers` / `one_buffer` of the physical tiles its "
             "function gives each block dim (a modulo placement)",
}


def _our_module(top: str, module: str) -> Optional[object]:
    return modules.MODULES.get(top + module[len("nki"):])


def status(gen: Generation, e: Entry) -> Status:
    mod = _our_module(gen.top, e.module)
    if mod is None:
        return Status(e, False, "", [f"module {gen.top}{e.module[3:]} is "
                                     "not provided"])
    obj = mod.__dict__.get(e.name)
    if obj is None:
        return Status(e, False, "", ["neither traced nor refused"])
    reason = getattr(obj, "_refused", None)
    if isinstance(reason, str):
        return Status(e, False, reason)
    if getattr(obj, "_not_yet", False):
        return Status(e, False, "", ["marked not yet, without a reason"])
    if isinstance(obj, core.DType):
        text = f"dtype `{obj.spec}`"
        if obj.name not in ("bfloat16", "float16", "float32", "int8",
                            "int32"):
            text += " (the spec dtype of its width)"
        return Status(e, True, text)
    text = getattr(obj, "_traced_as", None) or \
        (getattr(obj, "__func__", None) and
         getattr(obj.__func__, "_traced_as", None)) or \
        _PROVIDED.get(e.name)
    st = Status(e, True, text or "")
    if e.kind == "function" and not callable(obj):
        st.problems.append("documented as a function, provided as "
                           f"{type(obj).__name__}")
    if callable(obj) and not isinstance(obj, type) and not text:
        if e.kind == "function":
            st.problems.append("traced, but says not what as "
                               "(`_traced_as`)")
    if not text:
        st.text = {"class": "a class (plain Python to the trace)",
                   "constant": "a constant"}.get(e.kind, "a constant")
    if e.params is not None and callable(obj) and \
            not isinstance(obj, type):
        why = generations.accepts(obj, e.params, e.keyword_only)
        if why:
            st.problems.append(f"signature: {why}")
    return st


def statuses(root: str, gen: Generation) -> List[Status]:
    return [status(gen, e) for e in documented(root, gen.key)]


# --- the table ---------------------------------------------------------------

def _summary(rows: List[Status]) -> Dict[str, Tuple[int, int]]:
    out: Dict[str, Tuple[int, int]] = {}
    for s in rows:
        done, total = out.get(s.entry.module, (0, 0))
        out[s.entry.module] = (done + s.traced, total + 1)
    return out


def figures(root: str) -> Dict[str, Dict[str, Tuple[int, int]]]:
    return {g.key: _summary(statuses(root, g)) for g in GENERATIONS}


def table(root: str) -> str:
    out = [BEGIN, ""]
    for g in GENERATIONS:
        rows = statuses(root, g)
        summary = _summary(rows)
        out.append(f"### {g.title}")
        out.append("")
        out.append(", ".join(
            f"`{m}` {d} of {t} traced ({100 * d // t}%)"
            for m, (d, t) in sorted(summary.items())) + ".")
        out.append("")
        out.append("| name | kind | front end | traced as, or why refused |")
        out.append("| --- | --- | --- | --- |")
        for s in sorted(rows, key=lambda s: (s.entry.module, s.entry.name)):
            state = "traced" if s.traced else \
                ("refused" if s.text else "MISSING")
            text = s.text.replace("|", "\\|")
            out.append(f"| `{s.entry.module}.{s.entry.name}` | "
                       f"{s.entry.kind} | {state} | {text} |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def replace_table(doc: str, new: str) -> str:
    a, b = doc.find(BEGIN), doc.find(END)
    if a < 0 or b < 0:
        raise ValueError(f"docs/nki-source.md has no {BEGIN} ... {END}")
    return doc[:a] + new + doc[b + len(END):]


# --- today's signatures ------------------------------------------------------

def _wrapped(name: str, params: List[str]) -> List[str]:
    """`    'name': 'a, b, c',` within 79 columns, split between
    parameters into implicitly concatenated strings."""
    one = f"    {name!r}: {', '.join(params)!r},"
    if len(one) <= 79:
        return [one]
    out, cur = [f"    {name!r}: ("], ""
    for i, p in enumerate(params):
        piece = p + (", " if i < len(params) - 1 else "")
        if cur and len(repr(cur + piece)) + 10 > 79:
            out.append(f"        {cur!r}")
            cur = ""
        cur += piece
    out.append(f"        {cur!r}),")
    return out


def signatures_2026_text(root: str) -> str:
    """signatures_2026.py as the stubs give it: every function of today's
    nki.language and nki.isa the front end provides."""
    lines = ['"""Today\'s (2026-08) `nki.language` and `nki.isa` signatures, '
             'as the\nreference stubs declare them (generations.py binds '
             'calls to them).\nWritten by tools/nki_coverage.py --write; '
             'checked by\ntests/nki_frontend/test_nki_coverage.py."""', "",
             "from typing import Dict", ""]
    for var, module in (("LANGUAGE", "language"), ("ISA", "isa")):
        defs = _stub_defs(_stub_path(root, "2026-08", f"nki.{module}"))
        lines.append(f"{var}: Dict[str, str] = {{")
        for name, (kind, params) in sorted(defs.items()):
            if kind != "function" or name.startswith("_"):
                continue
            pos, kwonly = params  # type: ignore[misc]
            names = [n + ("=None" if d else "") for n, d in pos]
            lines += _wrapped(name, names)
        lines.append("}")
        lines.append("")
    return "\n".join(lines)
