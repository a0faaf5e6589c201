"""What the torch front end's tests share: where things are, and whether
PyTorch is here. Without torch the tests skip, saying why, except under
CI=true, where .ci/run installs python3-torch and a skip would hide a
broken install: there they fail."""

from __future__ import annotations

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
FRONTEND = os.path.join(SOURCE, "workloads", "frontends", "torch")
EXAMPLES = os.path.join(FRONTEND, "examples")
FUNCTIONS = os.path.join(HERE, "functions.py")
sys.path[:0] = [FRONTEND,
                os.path.join(SOURCE, "workloads", "frontends", "common")]

NO_TORCH = ("PyTorch is not installed: the torch front end needs "
            "python3-torch (apt-get install python3-torch)")


def require_torch() -> None:
    """In setUpModule: skip the module without torch, or fail under CI."""
    try:
        import torch  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            raise AssertionError(NO_TORCH + "; .ci/run installs it")
        raise unittest.SkipTest(NO_TORCH)
