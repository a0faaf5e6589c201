"""Where in the kernel the trace is: the active trace and the kernel line
of the call being traced, for ops and for one-line refusals. Below every
other module of the package (it imports none of them but errors), so that
expressions, values and the recorder all name the line the same way."""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

from .errors import TraceError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# The trace being recorded (tracer.Trace), set by tracer.begin / end.
_ACTIVE: Optional[Any] = None


def set_active(trace: Optional[Any]) -> None:
    global _ACTIVE
    _ACTIVE = trace


def active() -> Any:
    if _ACTIVE is None:
        raise TraceError("an NKI API was called outside a traced kernel")
    return _ACTIVE


def active_or_none() -> Optional[Any]:
    return _ACTIVE


def _user_frame():
    """The innermost frame of the kernel file (or, failing that, of any
    file outside this package)."""
    f = sys._getframe(1)
    fallback = None
    path = _ACTIVE.kernel_path if _ACTIVE else None
    while f is not None:
        fname = os.path.abspath(f.f_code.co_filename)
        if path is not None and fname == path:
            return f
        if fallback is None and not fname.startswith(_PACKAGE_DIR):
            fallback = f
        f = f.f_back
    return fallback


def current_line() -> int:
    f = _user_frame()
    if f is None or _ACTIVE is None:
        return 0
    if os.path.abspath(f.f_code.co_filename) != _ACTIVE.kernel_path:
        return f.f_lineno
    return _ACTIVE.statements.get(f.f_lineno)[0]


def current_target() -> Optional[str]:
    f = _user_frame()
    if f is None or _ACTIVE is None:
        return None
    if os.path.abspath(f.f_code.co_filename) != _ACTIVE.kernel_path:
        return None
    return _ACTIVE.statements.get(f.f_lineno)[1]


def current_loop_var() -> Optional[str]:
    return current_target()


def where() -> str:
    f = _user_frame()
    if f is None:
        return ""
    label = _ACTIVE.file_label if _ACTIVE else f.f_code.co_filename
    if _ACTIVE and os.path.abspath(f.f_code.co_filename) != \
            _ACTIVE.kernel_path:
        label = f.f_code.co_filename
    line = current_line()
    return f"{label}:{line}"


def err(message: str) -> TraceError:
    """A refusal at the kernel line being traced."""
    return TraceError(message, where())
