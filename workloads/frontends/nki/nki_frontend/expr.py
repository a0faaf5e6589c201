"""Affine index expressions over loop variables and index axes.

A loop body runs once with a symbolic loop variable, so every index the
kernel computes from it is an affine expression: `k * 128 + i_p` has the
term k (coefficient 128), the axis i_p (an `nl.arange` of 128) and no
constant. Anything that is not affine (a product of two variables, a
division of a variable) is refused where it is made."""

from __future__ import annotations

from typing import Dict, Optional, Union

from . import location
from .errors import TraceError

Number = Union[int, float]


class LoopVar:
    """The variable of one traced loop."""

    def __init__(self, name: str, loop: "object") -> None:
        self.name = name
        self.loop = loop

    def __repr__(self) -> str:
        return self.name


class Axis:
    """One axis of an `nl.arange` / `nl.mgrid` grid: values 0..extent-1
    along dim `position` of the grid (0 is the partition axis)."""

    _count = 0

    def __init__(self, extent: int, position: int, rank: int, line: int) -> None:
        Axis._count += 1
        self.uid = Axis._count
        self.extent = extent
        self.position = position
        self.rank = rank
        self.line = line

    def __repr__(self) -> str:
        return f"axis{self.uid}[{self.extent}]@{self.position}"


Key = Union[LoopVar, Axis]


def _where() -> str:
    return location.where()


# At most this many iterations of a Python `range` loop are traced one by
# one where the kernel needs its variable's value (int(i), i // 3).
MAX_UNROLL = 128

_OPS = {"<": lambda x: x < 0, "<=": lambda x: x <= 0, ">": lambda x: x > 0,
        ">=": lambda x: x >= 0, "==": lambda x: x == 0,
        "!=": lambda x: x != 0}


def _splittable(e: "Affine") -> list:
    """The loop variables of `e` whose loop is a Python `range` (its
    variable an int the kernel may compute with), outermost first."""
    vs = [v for v in e.loop_terms() if getattr(v.loop, "splittable", False)]
    return sorted(vs, key=lambda v: v.loop.depth)


def unroll(var: "LoopVar", why: str) -> None:
    """Trace each iteration of `var`'s loop on its own: its variable is
    then an int (location.SplitLoop). `why` names what needs it."""
    loop = var.loop
    if loop.trip > MAX_UNROLL:
        raise TraceError(f"{why} needs the value of {var.name}, the "
                         f"variable of the range at line {loop.line}, in "
                         f"each of its {loop.trip} iterations: more than "
                         f"{MAX_UNROLL} are not traced one by one",
                         _where())
    raise location.SplitLoop(loop.key, set(
        range(loop.offset, loop.offset + loop.trip + 1)))


def unroll_for_value(e: "Affine", why: str) -> None:
    """Where `e` names the variables of Python range loops only (no
    nl.arange axes), trace its outermost such loop an iteration at a time
    (unroll), so that `e` is an int; otherwise return and let the caller
    refuse the symbolic value in its own words."""
    if _splittable(e) and not e.axes():
        unroll(_splittable(e)[0], why)


def unroll_late_piece(index: object, tensor: str) -> None:
    """An HBM index by the variable of a piece of a Python range loop that
    starts after its first iteration (cut there by a decision): the
    format's index names a loop's tiles from the tensor's start, so such a
    piece is traced an iteration at a time (each an int), at most
    MAX_UNROLL of them."""
    terms = getattr(index, "loop_terms", None)
    if terms is None or getattr(index, "const", 0) == 0:
        return  # `(i - 1) * 128` from iteration 1: the loop's own tiles
    for v in terms():
        if getattr(v.loop, "splittable", False) and v.loop.offset > 0 \
                and v.loop.trip > 1:
            unroll(v, f"indexing {tensor} by {v.name} from iteration "
                   f"{v.loop.offset} of its range")


def _arith(args: tuple) -> bool:
    """Whether the operand of an arithmetic operator is a number."""
    return isinstance(args[0], int) and not isinstance(args[0], bool)


def _decide(e: "Affine", op: str, why: str) -> bool:
    """The truth of `e OP 0` for the kernel's control flow or min / max:
    the same in every iteration of the loops it names, or the trace starts
    again with a Python range loop cut where it changes."""
    test = _OPS[op]
    if len(_splittable(e)) < len(e.loop_terms()):
        # An nl.affine_range / sequential_range variable is symbolic (the
        # API reference): no control flow on it, even where it would be
        # the same in every iteration.
        raise TraceError("control flow on a loop variable (if/while on "
                         f"{e!r}) cannot be traced symbolically; use a "
                         "mask or nl.where (a Python range's variable is "
                         "an int)", _where())
    lo, hi = e.const, e.const
    for v, c in e.loop_terms().items():
        lo += min(0, c * (v.loop.trip - 1))
        hi += max(0, c * (v.loop.trip - 1))
    if op in ("==", "!="):
        if lo == hi:
            return test(lo)
        if not (lo <= 0 <= hi):
            return op == "!="
    elif test(lo) == test(hi):
        return test(lo)
    vs = _splittable(e)
    lt = e.loop_terms()
    if len(lt) > 1:
        unroll(vs[0], why)  # then the others' decisions are one variable
    (var, c), = lt.items()
    n, k = var.loop.trip, e.const
    if op in ("==", "!="):
        cuts = {i + d for i in range(n) if c * i + k == 0 for d in (0, 1)}
    else:  # monotone in i: the first iteration where the truth changes
        first = test(k)
        a, b = 0, n - 1  # test(c * a + k) == first != test(c * b + k)
        while b - a > 1:
            m = (a + b) // 2
            if test(c * m + k) == first:
                a = m
            else:
                b = m
        cuts = {b}
    raise location.SplitLoop(var.loop.key, {var.loop.offset + i
                                            for i in cuts})


class Affine:
    """sum(coef * key) + const, with integer coefficients."""

    __slots__ = ("terms", "const")

    def __init__(self, terms: Optional[Dict[Key, int]] = None,
                 const: int = 0) -> None:
        self.terms: Dict[Key, int] = {k: c for k, c in (terms or {}).items()
                                      if c != 0}
        self.const = const

    # --- construction -------------------------------------------------
    @staticmethod
    def of(value: object) -> "Affine":
        if isinstance(value, Affine):
            return value
        if isinstance(value, bool):
            raise TraceError("a boolean is not an index", _where())
        if isinstance(value, int):
            return Affine({}, value)
        if hasattr(value, "__index__"):
            return Affine({}, int(value.__index__()))  # numpy integers
        raise TraceError(f"an index must be an integer or an affine "
                         f"expression of loop variables, not "
                         f"{type(value).__name__}", _where())

    def is_const(self) -> bool:
        return not self.terms

    def loop_terms(self) -> Dict[LoopVar, int]:
        return {k: c for k, c in self.terms.items() if isinstance(k, LoopVar)}

    def axes(self) -> Dict[Axis, int]:
        return {k: c for k, c in self.terms.items() if isinstance(k, Axis)}

    # --- arithmetic ---------------------------------------------------
    def _combine(self, other: object, sign: int) -> "Affine":
        o = Affine.of(other)
        terms = dict(self.terms)
        for k, c in o.terms.items():
            terms[k] = terms.get(k, 0) + sign * c
        return Affine(terms, self.const + sign * o.const)

    def __add__(self, other: object) -> "Affine":
        if isinstance(other, float):
            return NotImplemented
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> "Affine":
        return self._combine(other, -1)

    def __rsub__(self, other: object) -> "Affine":
        return Affine.of(other)._combine(self, -1)

    def __neg__(self) -> "Affine":
        return Affine({k: -c for k, c in self.terms.items()}, -self.const)

    def __mul__(self, other: object) -> "Affine":
        o = Affine.of(other) if not isinstance(other, Affine) else other
        if o.is_const():
            f = o.const
            return Affine({k: c * f for k, c in self.terms.items()},
                          self.const * f)
        if self.is_const():
            return o * self.const
        raise TraceError("a product of two loop variables or indices is not "
                         "affine; the front end traces affine indices only",
                         _where())

    __rmul__ = __mul__

    def __floordiv__(self, other: object) -> "Affine":
        o = Affine.of(other)
        if self.is_const() and o.is_const():
            return Affine({}, self.const // o.const)
        # `i * 512 // 128` (attention v11) is exact: i * 4.
        if o.is_const() and o.const > 0 and self.const % o.const == 0 and \
                all(c % o.const == 0 for c in self.terms.values()):
            return Affine({k: c // o.const for k, c in self.terms.items()},
                          self.const // o.const)
        if _splittable(self) and not self.axes():
            unroll(_splittable(self)[0], f"{self!r} // {other!r}")
        raise TraceError("integer division of a loop variable or index is "
                         "not affine; the front end traces affine indices "
                         "only", _where())

    def __truediv__(self, other: object) -> float:
        # Python's `/` of an int-valued loop variable is a float
        # (`math.ceil((H - i * 512) / 128)` in the NKI Library): a value,
        # so each iteration is traced with its own (unroll).
        if isinstance(other, (int, float)) and self.is_const():
            return self.const / other
        if _splittable(self) and not self.axes():
            unroll(_splittable(self)[0], f"{self!r} / {other!r}")
        raise TraceError("true division (/) of a loop variable or index is "
                         "not an index; the front end traces affine indices "
                         "only", _where())

    def __rtruediv__(self, other: object) -> float:
        if isinstance(other, (int, float)) and self.is_const():
            return other / self.const
        if _splittable(self) and not self.axes():
            unroll(_splittable(self)[0], f"{other!r} / {self!r}")
        raise TraceError("true division (/) by a loop variable or index is "
                         "not an index; the front end traces affine indices "
                         "only", _where())

    def __mod__(self, other: object) -> "Union[Affine, Modulo]":
        o = Affine.of(other)
        if self.is_const() and o.is_const():
            return Affine({}, self.const % o.const)
        lt = self.loop_terms()
        if (o.is_const() and o.const >= 2 and not self.axes()
                and len(lt) == 1 and list(lt.values())[0] == 1):
            var = list(lt.keys())[0]
            return Modulo(var, self.const % o.const, o.const)
        if _splittable(self) and not self.axes():
            unroll(_splittable(self)[0], f"{self!r} % {other!r}")
        raise TraceError("the remainder of a loop variable or index is not "
                         "affine; the front end traces affine indices, and "
                         "(i + c) % n of one loop variable as a buffer index",
                         _where())

    def __divmod__(self, other: object) -> tuple:
        # Python's divmod(i, n) is (i // n, i % n), each under its own rule
        # (a Python range's variable is unrolled where it must be an int).
        return self // other, self % other

    def __rdivmod__(self, other: object) -> tuple:
        return Affine.of(other) // self, Affine.of(other) % self

    def __index__(self) -> int:
        if self.is_const():
            return self.const
        unroll_for_value(self, f"int({self!r})")
        raise TraceError(f"the value of {self!r} depends on a loop variable: "
                         "a loop is traced once, symbolically, so its "
                         "variable has no value here (use it in an index)",
                         _where())

    __int__ = __index__

    def __bool__(self) -> bool:
        if self.is_const():
            return self.const != 0
        if not self.axes() and self.loop_terms():
            return _decide(self, "!=", f"bool({self!r})")
        raise TraceError("control flow on a loop variable (if/while on "
                         f"{self!r}) cannot be traced symbolically; use a "
                         "mask or nl.where", _where())

    def __hash__(self) -> int:
        return hash((tuple(sorted((repr(k), c) for k, c in self.terms.items())),
                     self.const))

    def same(self, other: "Affine") -> bool:
        return self.terms == other.terms and self.const == other.const

    # Comparisons make predicates (masks); == on two constants is a bool.
    def _pred(self, op: str, other: object) -> "Predicate":
        return Predicate(self - Affine.of(other), op)

    def __lt__(self, other: object) -> "Predicate":
        return self._pred("<", other)

    def __le__(self, other: object) -> "Predicate":
        return self._pred("<=", other)

    def __gt__(self, other: object) -> "Predicate":
        return self._pred(">", other)

    def __ge__(self, other: object) -> "Predicate":
        return self._pred(">=", other)

    def __eq__(self, other: object):  # type: ignore[override]
        if isinstance(other, (int, Affine)):
            diff = self - Affine.of(other)
            if diff.is_const():
                return diff.const == 0
            return Predicate(diff, "==")
        return NotImplemented

    def __repr__(self) -> str:
        parts = [f"{c}*{k!r}" if c != 1 else repr(k)
                 for k, c in self.terms.items()]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


class Modulo:
    """`(i + offset) % n` of one loop variable: the index of one of n
    buffers a kernel rotates by hand (`qk_sbuf[:, i_tile_q % 2, ...]` in the
    2026-02 attention v9). Only an index: no further arithmetic."""

    def __init__(self, var: LoopVar, offset: int, n: int) -> None:
        self.var = var
        self.offset = offset
        self.n = n

    def same(self, other: "Modulo") -> bool:
        return (self.var is other.var and self.offset == other.offset
                and self.n == other.n)

    def __repr__(self) -> str:
        if self.offset:
            return f"({self.var!r} + {self.offset}) % {self.n}"
        return f"{self.var!r} % {self.n}"

    def _refuse(self, *args: object) -> None:
        if args and _arith(args):
            # `tile_position=((i % 2) * 64, ...)` (the nc_matmul reference
            # example, in an nl.affine_range): a value per iteration, each
            # iteration traced on its own.
            unroll(self.var, f"arithmetic on {self!r}")
        if getattr(self.var.loop, "splittable", False):
            # A Python range's variable is an int: `if i % 2 == 0`.
            unroll(self.var, f"a decision on {self!r}")
        raise TraceError(f"{self!r} is a buffer index only: arithmetic on "
                         "it is not affine", _where())

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __floordiv__ = __mod__ = __index__ = __int__ = __bool__ = _refuse
    # `if i % 2 == 0:` decides on the value too.
    __eq__ = __ne__ = _refuse  # type: ignore[assignment]
    __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __hash__ = object.__hash__


class Predicate:
    """`expr OP 0`, such as the mask `i_p < sz_p` (i_p - sz_p < 0)."""

    def __init__(self, expr: Affine, op: str) -> None:
        self.expr = expr
        self.op = op
        self.line = 0
        self.line = location.current_line()

    def __and__(self, other: object) -> "Conjunction":
        return Conjunction([self]) & other

    __rand__ = __and__

    def __bool__(self) -> bool:
        if self.expr.is_const():
            # Loop variables that cancel (`min(i * 128 + 128, n) - i *
            # 128 < 128`): a comparison of numbers.
            return _OPS[self.op](self.expr.const)
        if not self.expr.axes() and self.expr.loop_terms():
            # `if i == 0:`, `min(i * 512 + 512, n)` on loop variables.
            return _decide(self.expr, self.op, f"{self.expr!r} {self.op} 0")
        raise TraceError("control flow on a comparison of loop variables or "
                         "indices (if/while) cannot be traced symbolically; "
                         "use a mask= or nl.where", _where())

    def parts(self) -> list:
        return [self]


class Conjunction:
    def __init__(self, preds: list) -> None:
        self.preds = preds
        self.line = location.current_line()

    def __and__(self, other: object) -> "Conjunction":
        if isinstance(other, Predicate):
            return Conjunction(self.preds + [other])
        if isinstance(other, Conjunction):
            return Conjunction(self.preds + other.preds)
        raise TraceError("a mask combines index predicates with &", _where())

    __rand__ = __and__

    def __bool__(self) -> bool:
        raise TraceError("control flow on an index predicate cannot be "
                         "traced; use it as a mask= argument", _where())

    def parts(self) -> list:
        return self.preds


def _index_predicate(v: object) -> bool:
    """A predicate on index axes (a mask), not a decision on loop
    variables."""
    if isinstance(v, Predicate):
        return bool(v.expr.axes())
    return isinstance(v, Conjunction)


def predicate_and(first: object, *rest: object) -> object:
    """Python's `a and b` in a kernel (the file's `and`s are compiled as
    this call, lists.rewrite; each operand after the first a function
    that evaluates it, so evaluation stays short-circuit). Where an
    operand is an index predicate, as in the nc_match_replace8
    reference's `mask=(ix < n // 2 and iy < m // 2)`, the result is the
    mask of both (`&`): NKI's mask is a predicate the conditions of which
    combine. Anything else is Python's `and`."""
    v = first
    for thunk in rest:
        if _index_predicate(v):
            w = thunk()  # type: ignore[operator]
            if isinstance(w, (Predicate, Conjunction)):
                v = v & w  # type: ignore[operator]
            elif not w:
                return w
            continue
        if not v:
            return v
        v = thunk()  # type: ignore[operator]
    return v
