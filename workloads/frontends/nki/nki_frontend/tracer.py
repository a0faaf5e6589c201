"""The trace being recorded: the loop stack, source lines and names.

A kernel runs once under the tracer. Each API call records an op in the
body of the innermost open loop; each loop runs its body once with a
symbolic variable. Source lines come from the caller's frame, mapped to the
statement that holds them, so that every op of a multi-line statement has
the statement's first line (what neuron-profile shows)."""

from __future__ import annotations

import ast
import os
from typing import Dict, List, Optional, Set, Tuple

from . import ir, location
from .errors import TraceError

class _Statements:
    """Line -> (first line of its statement, assignment target name)."""

    def __init__(self, tree: ast.AST) -> None:
        self.by_line: Dict[int, Tuple[int, Optional[str]]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.ClassDef, ast.For, ast.While,
                           ast.If, ast.With, ast.Try, ast.AsyncFunctionDef)):
                end = getattr(node, "end_lineno", node.lineno) or node.lineno
                target = _target_name(node)
                for line in range(node.lineno, end + 1):
                    prev = self.by_line.get(line)
                    # The innermost statement wins (a lambda body, say).
                    if prev is None or prev[0] < node.lineno:
                        self.by_line[line] = (node.lineno, target)
            elif isinstance(node, (ast.For, ast.While, ast.If, ast.With)):
                # The header of a compound statement (the loop call).
                head_end = node.body[0].lineno - 1 if node.body else node.lineno
                name = None
                if isinstance(node, ast.For) and isinstance(node.target,
                                                            ast.Name):
                    name = node.target.id
                for line in range(node.lineno, max(head_end, node.lineno) + 1):
                    self.by_line.setdefault(line, (node.lineno, name))

    def get(self, line: int) -> Tuple[int, Optional[str]]:
        return self.by_line.get(line, (line, None))


def _target_name(node: ast.stmt) -> Optional[str]:
    target: Optional[ast.expr] = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        target = node.target
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    if isinstance(target, ast.Name):
        return target.id
    return None


class Source:
    """The kernel file, parsed once: its statements' lines, and the code
    compiled from the same tree when it is loaded (lists.rewrite), shared
    by every attempt of one trace (cli.trace_kernel)."""

    def __init__(self, kernel_path: str) -> None:
        try:
            with open(os.path.abspath(kernel_path), encoding="utf-8") as f:
                self.tree = ast.parse(f.read(),
                                      filename=os.path.abspath(kernel_path))
        except SyntaxError as e:
            raise TraceError(f"syntax error: {e.msg}",
                             f"{kernel_path}:{e.lineno}")
        except (OSError, UnicodeDecodeError) as e:
            raise TraceError(f"cannot read the kernel file: {e}",
                             kernel_path)
        self.statements = _Statements(self.tree)
        self.code: Optional[object] = None  # compiled on the first load


class Trace:
    def __init__(self, kernel_path: str,
                 source: Optional[Source] = None) -> None:
        self.kernel_path = os.path.abspath(kernel_path)
        self.file_label = kernel_path
        self.source = source if source is not None else Source(kernel_path)
        self.tree = self.source.tree
        self.statements = self.source.statements
        self.root = ir.Loop(None, "root", 1, 0, None)
        self.stack: List[ir.Loop] = [self.root]
        self.tensors: List[ir.HbmTensor] = []
        self.ops: List[ir.Op] = []
        self.statement_seq = 0
        # An SPMD launch grid (`kernel[2, 2]`): per axis, its size and the
        # affine loop that runs its instances (docs/nki-source.md).
        self.grid: List[int] = []
        self.grid_loops: List[ir.Loop] = []
        # A grid whose programs the kernel tells apart (a decision on
        # today's nl.program_id): each program traced in turn, its ids
        # these ints; the HBM tensors the first one allocated, which the
        # others share, and how many of them this program has asked for.
        self.program_ids: Optional[Tuple[int, ...]] = None
        self.program_hbm: List[object] = []
        self.program_hbm_seen: Optional[int] = None
        # (array's line, loop's line) pairs an earlier attempt found used
        # outside the loop (versions.privatize): kept whole there.
        self.keep_whole: Set[Tuple[int, int]] = set()
        # Python range loops cut into pieces, by source line: the iteration
        # indices each piece starts at (loops.LoopRange, expr._decide).
        self.splits: Dict[int, Set[int]] = {}
        # Open `with nl.no_reorder():` regions (loops.NoReorder).
        self.no_reorder = 0

    @property
    def loop(self) -> ir.Loop:
        return self.stack[-1]

    def at_top(self) -> bool:
        """Whether no loop but the launch grid's is open."""
        return self.loop is self.root or (
            bool(self.grid_loops) and self.loop is self.grid_loops[-1])


def begin(path: str, source: Optional[Source] = None) -> Trace:
    trace = Trace(path, source)
    location.set_active(trace)
    return trace


def end() -> None:
    location.set_active(None)


def active() -> Trace:
    return location.active()  # type: ignore[no-any-return]


# Where the trace is (location decides; named here for the API modules).
current_line = location.current_line
current_target = location.current_target
current_loop_var = location.current_loop_var
where = location.where
