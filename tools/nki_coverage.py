#!/usr/bin/env python3
"""The NKI API coverage table (nki_frontend/coverage.py).

  /usr/bin/python3 tools/nki_coverage.py          # print the figures
  /usr/bin/python3 tools/nki_coverage.py --write  # docs/nki-source.md's table
                                                  # and signatures_2026.py
  /usr/bin/python3 tools/nki_coverage.py --check  # exit 1 when either is stale

The reference is ../shared/fixtures/nki-docs beside the clone, or
$TRNBENCH_NKI_DOCS; without it the script says so and exits 2."""

from __future__ import annotations

import argparse
import os
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(SOURCE, "workloads", "frontends", d)
                for d in ("nki", "common")]

from nki_frontend import coverage  # noqa: E402

DOC = os.path.join(SOURCE, "docs", "nki-source.md")
SIGS = os.path.join(SOURCE, "workloads", "frontends", "nki", "nki_frontend",
                    "signatures_2026.py")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    root = coverage.docs_root()
    if not os.path.isdir(root):
        print(f"nki_coverage: the NKI reference is not at {root} "
              "(../shared/fixtures/nki-docs, or TRNBENCH_NKI_DOCS)",
              file=sys.stderr)
        return 2
    sigs = coverage.signatures_2026_text(root)
    with open(SIGS, encoding="utf-8") as f:
        sigs_now = f.read()
    if a.write and sigs != sigs_now:
        with open(SIGS, "w", encoding="utf-8") as f:
            f.write(sigs)
        print("nki_coverage: wrote signatures_2026.py; run again for the "
              "table", file=sys.stderr)
        return 0
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    new = coverage.replace_table(doc, coverage.table(root))
    if a.write:
        if new != doc:
            with open(DOC, "w", encoding="utf-8") as f:
                f.write(new)
    elif a.check:
        stale = [p for p, ok in ((DOC, new == doc), (SIGS, sigs == sigs_now))
                 if not ok]
        for p in stale:
            print(f"nki_coverage: {os.path.relpath(p, SOURCE)} is stale: "
                  "run tools/nki_coverage.py --write", file=sys.stderr)
        if stale:
            return 1
    bad = 0
    for g in coverage.GENERATIONS:
        rows = coverage.statuses(root, g)
        for s in rows:
            for p in s.problems:
                bad += 1
                print(f"{g.key}: {s.entry.module}.{s.entry.name}: {p}")
        for m, (d, t) in sorted(coverage._summary(rows).items()):
            print(f"{g.key} {m}: {d} of {t} traced ({100 * d / t:.1f}%)")
    return 1 if bad and a.check else 0


if __name__ == "__main__":
    sys.exit(main())
