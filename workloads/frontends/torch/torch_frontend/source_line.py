"""The user's source line of a traced op or of an exception."""

from __future__ import annotations

import os
import re
import traceback
from typing import Optional

_FRAME = re.compile(r"^(.*)\((\d+)\): ")  # torch.jit: "FILE(LINE): fn"
_FX_FRAME = re.compile(r'File "([^"]+)", line (\d+)')  # a Python stack


def _innermost(pairs, path: str) -> int:
    want = os.path.abspath(path)
    line = 0
    for file, lineno in pairs:
        if os.path.abspath(file) == want:
            line = int(lineno)
    return line


def of_jit(source_range: str, path: str) -> int:
    """The line of the user's file in a torch.jit node's source range, the
    call stack innermost first: the first frame in the file."""
    for text in source_range.splitlines():
        m = _FRAME.match(text.strip())
        if m and os.path.abspath(m.group(1)) == os.path.abspath(path):
            return int(m.group(2))
    return 0


def of_stack_text(stack: Optional[str], path: str) -> int:
    """The innermost line of the user's file in a formatted Python stack
    (an fx node's meta["stack_trace"])."""
    if not stack:
        return 0
    return _innermost(_FX_FRAME.findall(stack), path)


def of_exception(e: BaseException, path: str) -> int:
    frames = traceback.extract_tb(e.__traceback__)
    return _innermost(((f.filename, f.lineno) for f in frames), path)
