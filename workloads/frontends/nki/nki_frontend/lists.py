"""Python lists of tiles across loops: `tiles = []` before a loop,
`tiles.append(tile)` in it, `tiles[k]` in another loop. The list becomes
the format's block (the loop that appends gets the list's name as its id),
as an `nl.ndarray` with block dims does. A list of such lists is a block
of blocks. The kernel's source is not changed: its empty list displays are
made `TracedList`s when the file is compiled (`rewrite`)."""

from __future__ import annotations

import ast
from typing import List, Optional

from . import core, ir, tracer
from .core import Tile, err
from .expr import MAX_UNROLL, unroll


def _unrolled_or(chain: List[ir.Loop], why: str) -> Exception:
    """A list the format's blocks cannot hold (tiles allocated rather than
    made by an op, lists of other things, appends from two loops down):
    where a loop between the list and the append is a Python range (every
    range of today's `nki`), its iterations are traced one by one, each
    appending to a Python list as Python does (expr.unroll raises); else
    the refusal `why`."""
    for loop in chain:
        if loop.splittable and loop.var is not None and \
                loop.trip <= MAX_UNROLL:
            unroll(loop.var, f"a list appended to in the loop at line "
                   f"{loop.line}")
    return err(why)


class TracedList(list):
    def __init__(self) -> None:
        super().__init__()
        self._arr: Optional[ir.Array] = None
        self._scope: Optional[ir.Loop] = None
        self._name = tracer.current_target() or "tiles"
        try:
            self._scope = tracer.active().loop
        except Exception:  # a list made outside a trace: a plain list
            self._scope = None

    def _chain(self) -> List[ir.Loop]:
        t = tracer.active()
        chain: List[ir.Loop] = []
        l: Optional[ir.Loop] = t.loop
        while l is not None and l is not self._scope:
            chain.append(l)
            l = l.parent
        return list(reversed(chain)) if l is not None else []

    def append(self, x: object) -> None:  # type: ignore[override]
        if self._scope is None:
            return super().append(x)
        chain = self._chain()
        if not chain:
            return super().append(x)  # a list built at one level: Python's
        if len(chain) != 1:
            raise _unrolled_or(chain, "appending to a list from two loops "
                               "down is not yet supported (append in the "
                               "loop nested in the list's)")
        loop = chain[0]
        if isinstance(x, Tile):
            slot = x._a.current
            if not isinstance(slot, ir.Op) or slot.loop is not loop:
                raise _unrolled_or(chain, "appends a tile that this loop "
                                   "does not make: not yet supported")
            tile_shape = x._a.shape[x._a.pdim:] or (1,)
            dtype = x._a.dtype
            buffer = x._a.buffer
            inner_levels = 0
        elif isinstance(x, TracedList) and x._arr is not None:
            inner = x._arr
            slot = inner.slot_op  # type: ignore[attr-defined]
            inner_loop = inner.current
            if not isinstance(inner_loop, ir.Loop) or \
                    inner_loop.parent is not loop:
                raise _unrolled_or(chain, "appends a list of tiles made "
                                   "elsewhere: not yet supported")
            inner_loop.id_for = None  # now a level of this block
            tile_shape = inner.shape[len(inner.block_dims):]
            dtype, buffer = inner.dtype, inner.buffer
            inner_levels = len(inner.block_dims)
        else:
            raise _unrolled_or(chain, "a list of tiles holds tiles (or "
                               "lists of them)")
        trips = [loop.trip] + (list(x._arr.shape[:inner_levels])
                               if inner_levels else [])
        if self._arr is None:
            arr = ir.Array(self._name, tuple(trips) + tuple(tile_shape),
                           dtype, buffer, len(trips), self._scope, slot.line)
            arr.block_dims = list(range(len(trips)))
            arr.fresh_name = False
            arr.slot_op = slot  # type: ignore[attr-defined]
            self._arr = arr
        elif self._arr.slot_op is not slot:  # type: ignore[attr-defined]
            raise _unrolled_or(chain, "a list appended to by two ops: not "
                               "yet supported")
        if isinstance(x, Tile):
            slot.role = "slot"
            slot.list_slot = True  # type: ignore[attr-defined]
        loop.outer_writes.append((self._arr, slot, "set"))
        super().append(x)

    def __getitem__(self, i: object):  # type: ignore[override]
        if self._arr is None or isinstance(i, slice):
            return super().__getitem__(i)  # type: ignore[index]
        return _ListView(self, [i])

    def __len__(self) -> int:
        if self._arr is not None:
            return self._arr.shape[0]
        return super().__len__()


class _ListView:
    """`tiles[k]` (or `tiles[bm][k]`): a slot of the block a list became."""

    def __init__(self, lst: TracedList, index: List[object]) -> None:
        self._list = lst
        self._index = index

    def __getitem__(self, i: object):
        more = list(i) if isinstance(i, tuple) else [i]
        return _ListView(self._list, self._index + more)

    def view(self) -> core.TileView:
        arr = self._list._arr
        assert arr is not None
        return Tile(arr, core.dtype_obj(arr.dtype))[tuple(self._index)]


def _simple(node: ast.AST) -> bool:
    """Whether an expression can be the body of a lambda unchanged: no
    assignment expression, yield or await, and no `super()`, `locals()`
    or `vars()`, whose meaning a new scope changes."""
    return not any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom,
                                  ast.Await, ast.Lambda)) or
                   (isinstance(n, ast.Name) and
                    n.id in ("super", "locals", "vars", "__class__"))
                   for n in ast.walk(node))


class _Rewrite(ast.NodeTransformer):
    def __init__(self) -> None:
        self.in_class = False

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        # A class body's names are not seen from a lambda inside it: its
        # `and`s stay Python's (its methods' are rewritten).
        saved, self.in_class = self.in_class, True
        self.generic_visit(node)
        self.in_class = saved
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        saved, self.in_class = self.in_class, False
        self.generic_visit(node)
        self.in_class = saved
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        """`a and b` as `__nki_and__(a, lambda: b)` (expr.predicate_and):
        two index predicates make one mask, as the nc_match_replace8
        reference's `mask=(ix < n // 2 and iy < m // 2)`; anything else
        keeps Python's meaning, short-circuit included."""
        self.generic_visit(node)
        if not isinstance(node.op, ast.And) or self.in_class or \
                not all(_simple(v) for v in node.values[1:]):
            return node
        rest = [ast.Lambda(args=ast.arguments(
            posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
            defaults=[]), body=v) for v in node.values[1:]]
        call = ast.Call(func=ast.Name(id="__nki_and__", ctx=ast.Load()),
                        args=[node.values[0]] + rest, keywords=[])
        return ast.fix_missing_locations(ast.copy_location(call, node))

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        """`[f(i) for i in range(n)]` makes n elements: the comprehension's
        `range` is Python's own, its variable an int in each element (a
        traced loop would run its body once and make one)."""
        self.generic_visit(node)
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                it.func.id == "range":
            builtins = ast.Call(func=ast.Name(id="__import__",
                                              ctx=ast.Load()),
                                args=[ast.Constant(value="builtins")],
                                keywords=[])
            it.func = ast.copy_location(
                ast.Attribute(value=builtins, attr="range", ctx=ast.Load()),
                it.func)
            ast.fix_missing_locations(it)
        return node

    def visit_List(self, node: ast.List) -> ast.AST:
        self.generic_visit(node)
        if node.elts or not isinstance(node.ctx, ast.Load):
            return node
        name = ast.copy_location(ast.Name(id="__nki_list__", ctx=ast.Load()),
                                 node)
        call = ast.Call(func=name, args=[], keywords=[])
        return ast.copy_location(call, node)


def rewrite(tree: ast.AST, path: str):
    """The kernel file's parsed tree, its empty lists made traced lists and
    its comprehensions' ranges Python's, compiled (the new nodes carry
    their list's location)."""
    return compile(_Rewrite().visit(tree), path, "exec")
