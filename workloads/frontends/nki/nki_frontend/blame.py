"""Whose fault an exception is: the kernel's code (bad input, exit 2) or
the front end's (a bug, exit 3), and the kernel's FILE:LINE it came from.

The innermost frame of the traceback that is either the user's code (the
kernel file, its package, its helper modules) or this package decides:
Python's own library and installed packages (numpy) are passed through,
so `np.zeros(-1)` in a kernel is the kernel's, and a KeyError raised in
core.py while tracing a kernel's call is the front end's."""

from __future__ import annotations

import os
import sysconfig
from types import FrameType, TracebackType
from typing import List, Optional, Tuple

from . import tracer

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_LIBRARY_DIRS = tuple(sorted({
    os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib",
                                            "purelib", "platlib")
    if (p := sysconfig.get_paths().get(key))}))


def kind_of(filename: str) -> str:
    """"frontend", "library" or "user"."""
    if filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>
        return "library"
    path = os.path.abspath(filename)
    if path.startswith(PACKAGE_DIR + os.sep):
        return "frontend"
    if path.startswith(_LIBRARY_DIRS) or f"{os.sep}site-packages{os.sep}" in \
            path or f"{os.sep}dist-packages{os.sep}" in path:
        return "library"
    return "user"


def frames(e: BaseException) -> List[Tuple[str, int, str]]:
    """(file, line, function) of the traceback, outermost first."""
    out: List[Tuple[str, int, str]] = []
    tb: Optional[TracebackType] = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def culprit(e: BaseException) -> str:
    """"frontend" when the innermost non-library frame is this package's,
    else "user" (a SyntaxError's file is the user's: it never ran)."""
    if isinstance(e, SyntaxError):
        return "user"
    for filename, _, _ in reversed(frames(e)):
        kind = kind_of(filename)
        if kind != "library":
            return kind
    return "user"


def user_frames(e: BaseException) -> List[Tuple[str, int]]:
    return [(f, line) for f, line, _ in frames(e) if kind_of(f) == "user"]


def frontend_site(e: BaseException) -> str:
    """"core.py:123 (in load)" of the innermost front-end frame."""
    for filename, line, func in reversed(frames(e)):
        if kind_of(filename) == "frontend":
            return f"{os.path.relpath(filename, PACKAGE_DIR)}:{line} (in " \
                   f"{func})"
    return ""


def user_frame_of(frame: Optional[FrameType]) -> Optional[FrameType]:
    """The innermost frame of the user's code from `frame` outwards."""
    while frame is not None and kind_of(frame.f_code.co_filename) != "user":
        frame = frame.f_back
    return frame


def label(filename: str, line: int) -> str:
    """FILE:LINE as a refusal names it: the kernel file as the user gave
    it, at its statement's first line; another file by its path."""
    path = os.path.abspath(filename)
    try:
        t = tracer.active()
    except Exception:  # no trace: the file as Python names it
        return f"{filename}:{line}"
    if path == t.kernel_path:
        return f"{t.file_label}:{t.statements.get(line)[0]}"
    # Relative as the user gave the kernel, else absolute.
    shown = path if os.path.isabs(t.file_label) else os.path.relpath(path)
    return f"{shown}:{line}"
