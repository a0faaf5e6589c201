"""`python3 -m nki_frontend.batch`: several traces in one process, each
as `python3 -m nki_frontend ARGV...` would run it (frontend_common.batch
has the protocol). numpy, which the kernels import, is imported once here,
before the children are forked, and the front end's own first-use work
(cli.warm_up) is done once."""

from __future__ import annotations

import sys

from frontend_common import batch

from .cli import main, warm_up


def _preload() -> None:
    try:
        import numpy  # noqa: F401 (each child would import it otherwise)
    except ImportError:
        pass  # each job says so, as a run on its own does
    warm_up()  # what each child would do first, done once


if __name__ == "__main__":
    _preload()
    sys.exit(batch.main(main))
