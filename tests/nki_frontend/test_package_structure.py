"""The front end's package has no import cycles (issue 44, item 1): each
module imports only modules below it, so a construct has one home and a
module can be read without the ones above it. Function-level imports
count: a late import is a cycle all the same."""

from __future__ import annotations

import ast
import os
import unittest
from typing import Dict, List, Set

import frontend_test_util  # noqa: F401 (puts the package on sys.path)
import nki_frontend

PACKAGE = os.path.dirname(os.path.abspath(nki_frontend.__file__))


def imports() -> Dict[str, Set[str]]:
    """Module -> the package's modules it imports (anywhere in it)."""
    out: Dict[str, Set[str]] = {}
    for name in sorted(os.listdir(PACKAGE)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps: Set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and \
                    (node.module or "").startswith("nki_frontend."):
                deps.add(node.module.split(".")[1])
        out[name[:-3]] = deps
    return out


def find_cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """One import cycle of `graph` (its modules in order), or []."""
    state: Dict[str, int] = {}  # 1: on the path, 2: done
    path: List[str] = []

    def visit(m: str) -> List[str]:
        state[m] = 1
        path.append(m)
        for d in sorted(graph.get(m, ())):
            if d not in graph:
                continue
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return []


class PackageStructure(unittest.TestCase):
    def test_no_import_cycles(self) -> None:
        cycle = find_cycle(imports())
        self.assertEqual(cycle, [], " -> ".join(cycle))

    def test_the_cycle_finder_finds_one(self) -> None:
        # What the package had before the split: core <-> language and
        # expr -> tracer -> ir -> expr.
        graph = {"core": {"language", "ir"}, "language": {"core"},
                 "expr": {"tracer"}, "tracer": {"ir"}, "ir": {"expr"}}
        cycles = [{"core", "language"}, {"expr", "tracer", "ir"}]
        self.assertIn(set(find_cycle(graph)), cycles)
        graph["language"] = set()
        self.assertEqual(set(find_cycle(graph)), cycles[1])
        graph["ir"] = set()
        self.assertEqual(find_cycle(graph), [])

    def test_location_is_below_everything(self) -> None:
        # Refusals name the kernel line from any module: location imports
        # nothing of the package but errors.
        self.assertLessEqual(imports()["location"], {"errors"})


if __name__ == "__main__":
    unittest.main()
