"""`--kwarg NAME=py:EXPR`: a keyword argument that is a Python object the
kernel's own code makes, such as a configuration dataclass
(`--kwarg 'cfg=py:RotationalTopkConfig(k=8, axis=1)'`) or an API value
(`--kwarg op=py:nl.add`). EXPR is evaluated in the kernel module's
namespace once the module is loaded, so it may name anything the kernel
file defines or imports, and nothing else; a literal (`16`, `(3,4)`)
needs no prefix (docs/nki-source.md, "Configuration objects")."""

from __future__ import annotations

from typing import Dict

from .errors import TraceError

PREFIX = "py:"


class KernelExpr:
    """The expression of one `--kwarg NAME=py:EXPR`, compiled when the
    flag is read (a syntax error is bad input there), evaluated per
    trace."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        try:
            self.code = compile(text, f"--kwarg {name}", "eval")
        except SyntaxError as e:
            raise TraceError(f"--kwarg {name}={PREFIX}{text}: not a Python "
                             f"expression ({e.msg})")

    def evaluate(self, namespace: Dict[str, object]) -> object:
        try:
            return eval(self.code, dict(namespace))  # noqa: S307 (the user's)
        except TraceError:
            raise
        except Exception as e:  # the user's expression: bad input
            raise TraceError(f"--kwarg {self.name}={PREFIX}{self.text}: "
                             f"{type(e).__name__}: {e} (evaluated in the "
                             "kernel module's namespace)")

    def __repr__(self) -> str:
        return f"{PREFIX}{self.text}"


def resolve(kwargs: Dict[str, object], namespace: Dict[str, object]
            ) -> Dict[str, object]:
    """The keyword arguments with each KernelExpr evaluated."""
    return {k: v.evaluate(namespace) if isinstance(v, KernelExpr) else v
            for k, v in kwargs.items()}
