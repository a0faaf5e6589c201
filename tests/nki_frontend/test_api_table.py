"""docs/nki-source.md's supported-API table against the front end: every
name marked supported is provided by both generations' modules, every name
marked "not yet" is refused, and every public name the front end provides
is in the table."""

from __future__ import annotations

import os
import re
import unittest

from frontend_test_util import SOURCE

from nki_frontend import core, modules
from nki_frontend.errors import TraceError


def table() -> dict:
    with open(os.path.join(SOURCE, "docs", "nki-source.md"),
              encoding="utf-8") as f:
        text = f.read()
    out: dict = {}
    module = None
    for line in text.splitlines():
        m = re.match(r"### `(nki\.(?:language|isa))`", line)
        if m:
            module = m.group(1)
            out[module] = {}
            continue
        m = re.match(r"\| `([A-Za-z_0-9]+)` \| (yes|—) \| (yes|—) \| "
                     r"(supported|not yet) \|", line)
        if m and module:
            out[module][m.group(1)] = m.group(4) == "supported"
    return out


def provided(mod: str, name: str) -> bool:
    d = modules.MODULES[mod].__dict__
    if name not in d:
        # A name the front end lacks loads as a placeholder, refused when
        # the kernel uses it (docs/nki-source.md, "Loading a kernel file").
        v = getattr(modules.MODULES[mod], name)
        if not isinstance(v, modules.Missing):
            raise AssertionError(f"{mod}.{name} neither provided nor "
                                 "refused")
        try:
            bool(v)
        except TraceError as e:
            if f"{mod}.{name} is not supported" not in e.message:
                raise AssertionError(e.message)
            return False
        raise AssertionError(f"{mod}.{name}: a use is not refused")
    v = d[name]
    if getattr(v, "_not_yet", False):
        return False
    if isinstance(v, core.DType):
        return v.spec is not None
    return True


class ApiTable(unittest.TestCase):
    def test_table_matches_front_end(self) -> None:
        t = table()
        self.assertEqual(set(t), {"nki.language", "nki.isa"})
        self.assertGreater(len(t["nki.language"]), 100)
        self.assertGreater(len(t["nki.isa"]), 50)
        for mod, names in t.items():
            for prefix in ("", "neuronxcc."):
                for name, supported in names.items():
                    with self.subTest(f"{prefix}{mod}.{name}"):
                        self.assertEqual(provided(prefix + mod, name),
                                         supported)

    def test_every_provided_name_is_listed(self) -> None:
        t = table()
        for mod in ("nki.language", "nki.isa"):
            for name in modules.MODULES[mod].__dict__:
                if not name.startswith("_"):
                    self.assertIn(name, t[mod], f"{mod}.{name}")


if __name__ == "__main__":
    unittest.main()
