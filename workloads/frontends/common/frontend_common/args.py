"""--args and --shape texts, read once for both front ends.

`x=8192x4096:bfloat16,eps=1e-5` gives each argument a tensor (dims and a
dtype) or a number; `--shape x,y=4096x512` gives tensor arguments new last
dims. Ranks, dims and element counts are held to the spec format's limits
(docs/spec-format.md), so that no text reaches a spec trnbench refuses:
what is out of them is bad input, said in one line (ArgsError), never an
exception of the front end itself."""

from __future__ import annotations

import ast
import math
import re
import warnings
from typing import Callable, Dict, List, Optional, Tuple

MAX_RANK = 8
MAX_DIM = 1 << 40
_DIMS = re.compile(r"\d+(?:x\d+)*")
_TENSOR_ARG = re.compile(r"^(\d+(?:x\d+)*):([A-Za-z0-9_]+)$")

# name -> ((dims...), dtype) for a tensor, or a number.
Args = Dict[str, object]


class ArgsError(ValueError):
    """An --args or --shape text out of its form or limits; the message is
    the whole line to print."""


NOT_A_LITERAL = object()


def literal(text: str) -> object:
    """A Python literal (a number, string, tuple, list, dict, set, True,
    None), or NOT_A_LITERAL. Whatever the text, nothing else escapes: a
    deep nest is a RecursionError, {[]: 1} a TypeError, a long text a
    MemoryError, and an int of 5000 digits a ValueError."""
    if len(text) > 100000:
        return NOT_A_LITERAL
    try:
        with warnings.catch_warnings():
            # "1abc" warns (invalid decimal literal) on stderr: a second
            # line after the refusal. It is no literal; that is all.
            warnings.simplefilter("ignore")
            return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError,
            MemoryError):
        return NOT_A_LITERAL


def _dims(digits: List[str], flag: str, text: str) -> Tuple[int, ...]:
    if len(digits) > MAX_RANK or any(len(x) > 18 for x in digits):
        raise ArgsError(f"{flag} {text}: expected at most {MAX_RANK} dims "
                        f"of at most {MAX_DIM} each")
    return tuple(int(x) for x in digits)


def parse_args_text(text: str, dtype_of: Callable[[str], Optional[object]],
                    supported: str, example: str) -> Args:
    """`lhsT=8192x4096:bfloat16,rhs=...,eps=1e-5` -> name: value (a number
    may also be written `eps=scalar:1e-5`, as NKIBench writes it).
    `dtype_of` maps a dtype name to the front end's dtype (None: not
    supported; `supported` lists those that are); `example` is a tensor
    text for the messages."""
    out: Args = {}
    if not text:
        return out
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise ArgsError(f"--args {item}: expected NAME=DIMSxDIMS:dtype "
                            "or NAME=NUMBER")
        if name in out:
            raise ArgsError(f"--args: {name} is given twice")
        m = _TENSOR_ARG.match(value)
        if m:
            dims = _dims(m.group(1).split("x"), "--args", item)
            if any(d < 1 for d in dims):
                raise ArgsError(f"--args {item}: dims are at least 1")
            if math.prod(dims) > MAX_DIM:
                raise ArgsError(f"--args {item}: a tensor has at most 2^40 "
                                f"({MAX_DIM}) elements")
            dtype = dtype_of(m.group(2))
            if dtype is None:
                raise ArgsError(f"--args {item}: dtype {m.group(2)} is not "
                                f"supported; supported: {supported}")
            out[name] = (dims, dtype)
            continue
        # `eps=scalar:1e-05`: a scalar as NKIBench's cases.tsv (and the
        # AccelOpt harness it comes from) writes one; the same number.
        scalar = value.startswith("scalar:")
        number = literal(value[len("scalar:"):] if scalar else value)
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            if scalar:
                raise ArgsError(f"--args {item}: expected a number after "
                                "scalar:")
            raise ArgsError(f"--args {item}: expected DIMSxDIMS:dtype (such "
                            f"as {example}) or a number")
        if isinstance(number, float) and not math.isfinite(number):
            raise ArgsError(f"--args {item}: expected a finite number")
        out[name] = number
    return out


def reshape_args(args: Args, shapes: List[str], owner: str) -> Args:
    """`--shape delta,u,out=4096x512`, as a validation figure names its
    point (docs/spec-format.md, "--shape"): each named tensor argument
    takes the dims as its last dims (`delta` 1x4096x8192 becomes
    1x4096x512: the leading dims a spec writes without, such as a batch of
    1, are kept). A name that is not a tensor argument (the spec's output,
    `out`) is skipped: the kernel makes its outputs from its arguments. A
    text that names no argument is an error; `owner` ("kernel",
    "function") names what the arguments are of. Returns a new dict."""
    args = dict(args)
    for text in shapes:
        names, eq, dims_text = text.partition("=")
        # Decimal digits only (int() also takes "1_000" and " 5"), within
        # the spec format's limits as --args.
        if not eq or not names or not _DIMS.fullmatch(dims_text):
            raise ArgsError(f"--shape {text}: expected NAME,...=DIMSxDIMS")
        dims = _dims(dims_text.split("x"), "--shape", text)
        if any(d < 1 for d in dims):
            raise ArgsError(f"--shape {text}: expected NAME,...=DIMSxDIMS")
        hit = False
        for name in names.split(","):
            value = args.get(name)
            if not isinstance(value, tuple):
                continue
            old, dtype = value
            if len(dims) > len(old):
                raise ArgsError(f"--shape {text}: {name} has rank "
                                f"{len(old)}, fewer than {len(dims)} dims")
            new = old[:len(old) - len(dims)] + dims
            if math.prod(new) > MAX_DIM:
                raise ArgsError(f"--shape {text}: {name} would have more "
                                f"than 2^40 ({MAX_DIM}) elements")
            args[name] = (new, dtype)
            hit = True
        if not hit:
            raise ArgsError(f"--shape {text}: names no tensor argument of "
                            f"the {owner} ({', '.join(args) or 'none'})")
    return args
