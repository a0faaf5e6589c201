"""The one error the front end reports: bad input, said in one line."""

from __future__ import annotations


class TraceError(Exception):
    """A function the front end cannot trace: an unsupported op, a value read
    at trace time, a bad argument. `where` is "FILE:LINE" when known."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def line(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message
