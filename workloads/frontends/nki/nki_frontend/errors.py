"""The one error the front end reports: bad input, said in one line."""

from __future__ import annotations


class TraceError(Exception):
    """A kernel the front end cannot trace: an unknown API, an untraceable
    construct or a bad argument. `where` is "FILE:LINE" when known."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def line(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class FrontEndBug(Exception):
    """A failure of the front end itself (an unexpected Python exception
    inside this package, a spec it cannot emit): exit 3, never dressed as
    bad input. `where` is the kernel's "FILE:LINE" being traced."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def line(self) -> str:
        text = f"a bug of the NKI front end: {self.message}"
        return f"{self.where}: {text}" if self.where else text


class TraceTimeout(BaseException):
    """The trace's CPU-time bound ran out (cli.py): a BaseException, so
    that a kernel's own `except Exception` cannot swallow it."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def line(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class TopLevelRun(BaseException):
    """The kernel file's top level runs a kernel (its test code): loading
    stops there (modules._not_at_top_level). `where` is that FILE:LINE."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where
