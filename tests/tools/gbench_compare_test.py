#!/usr/bin/env python3
"""Google Benchmark's own compare.py reads trnbench's gbench JSON (issue 24).

Two runs of the shipped suite, the second with a slower profile, are
exported with `--format gbench-json` and given to Debian's
/usr/share/benchmark/compare.py (package libbenchmark-tools, which needs
python3-scipy). Its OVERALL_GEOMEAN must be the geometric mean of the
workloads' primary-metric (device time, or NCL time) median changes, read
from trnbench's own results JSON of the same runs: one benchmark per
workload, so sub-metrics do not dilute it, and in a time unit compare.py
prints without rounding fast kernels to 0.

Exit 77 (ctest's SKIP_RETURN_CODE) when compare.py or scipy is missing,
except under CI=true, where a missing tool is a failure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

COMPARE = Path("/usr/share/benchmark/compare.py")
PYTHON = "/usr/bin/python3"
SKIP = 77


def run(binary: str, *args: str) -> str:
    done = subprocess.run([binary, *args], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"trnbench {' '.join(args)} exited "
                         f"{done.returncode}: {done.stderr.strip()}")
    return done.stdout


def primary_medians(results: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for w in json.loads(results)["workloads"]:
        m = w["metrics"]
        key = "device_time_us" if "device_time_us" in m else "ncl_us"
        out[w["name"]] = m[key]["median"]
    return out


def compare_geomean(old: Path, new: Path, dump: Path) -> float:
    done = subprocess.run(
        [PYTHON, str(COMPARE), "--no-color", "-d", str(dump), "benchmarks",
         str(old), str(new)],
        capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"compare.py exited {done.returncode}: "
                         f"{done.stderr.strip()}")
    for line in done.stdout.splitlines():
        if line.startswith("OVERALL_GEOMEAN"):
            # Columns: name, time change, CPU change, ... as fractions.
            return float(line.split()[1])
    raise SystemExit("compare.py printed no OVERALL_GEOMEAN line:\n"
                     + done.stdout)


def tools_present() -> str | None:
    if not COMPARE.exists():
        return f"{COMPARE} not found (Debian package libbenchmark-tools)"
    probe = subprocess.run([PYTHON, "-c", "import scipy.stats"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        return "scipy not importable by /usr/bin/python3 (python3-scipy)"
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    missing = tools_present()
    if missing is not None:
        print(missing, file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else SKIP
    common = ["--workload", "all", "--repeat", "5"]
    slower = ["--set", "op_exec_overhead_us=430"]
    with tempfile.TemporaryDirectory(
            dir=os.environ.get("TEST_TMPDIR") or None) as tmp:
        old, new = Path(tmp, "old.json"), Path(tmp, "new.json")
        old.write_text(run(args.binary, *common, "--format", "gbench-json"))
        new.write_text(run(args.binary, *common, "--format", "gbench-json",
                           *slower))
        reported = compare_geomean(old, new, Path(tmp, "dump.json"))
        a = primary_medians(run(args.binary, *common, "--format", "json"))
        b = primary_medians(run(args.binary, *common, "--format", "json",
                                *slower))
    if sorted(a) != sorted(b) or not a:
        print("the two runs hold different workloads", file=sys.stderr)
        return 1
    logs = [math.log(b[name] / a[name]) for name in a]
    expected = math.exp(sum(logs) / len(logs)) - 1.0
    print(f"compare.py OVERALL_GEOMEAN {reported:+.6f}, "
          f"trnbench primary-metric geomean {expected:+.6f} "
          f"over {len(a)} workloads")
    # compare.py prints four decimals.
    if abs(reported - expected) > 1e-4 + 1e-9:
        print("they differ by more than compare.py's rounding",
              file=sys.stderr)
        return 1
    if expected <= 0.01:
        print("the slower profile does not show", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
