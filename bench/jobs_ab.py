#!/usr/bin/env python3
"""The speed-up of `--jobs 2` over `--jobs 1` for one command, for one
binary or several (before / after) measured alternately, so that all see
the same machine: each binary at both job counts in turn, ROUNDS rounds
(the order of binaries and of job counts reversed every other round, so
a load that comes and goes falls on each alike), wall time by
time.perf_counter (finer than /usr/bin/time's 10 ms), CPU time and page
faults from the children's rusage.

    bench/jobs_ab.py ROUNDS TRNBENCH [TRNBENCH...] -- ARGS...

prints, per binary, the minima and the medians of the wall times at one
and two jobs, their ratios, the CPU time at two jobs against one, and the
page faults at each (medians). ARGS must not name --jobs. Examples: issue
42's exp_tiled row, and validate before and after a change:

    bench/jobs_ab.py 20 build/trnbench -- --workload exp_tiled \\
        --shape in_tensor,out_tensor=12800000x512 --repeat 20
    bench/jobs_ab.py 5 BEFORE AFTER -- validate \\
        --known-gaps workloads/validation/known_gaps.txt
"""
import resource
import statistics
import subprocess
import sys
import time

import ab_args
from typing import Dict, List, Tuple

Sample = Tuple[float, float, int]  # (wall s, CPU s, page faults)


def run_once(binary: str, args: List[str], jobs: int) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([binary, *args, "--jobs", str(jobs)],
                   stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    faults = (after.ru_minflt - before.ru_minflt) + (after.ru_majflt -
                                                     before.ru_majflt)
    return wall, cpu, faults


def main(argv: List[str]) -> int:
    parsed = ab_args.parse(argv, __doc__ or "", ("--jobs",))
    if parsed is None:
        return 2
    rounds, binaries, args = parsed
    samples: Dict[Tuple[str, int], List[Sample]] = {
        (b, j): [] for b in binaries for j in (1, 2)}
    for r in range(rounds):
        order = binaries if r % 2 == 0 else binaries[::-1]
        for binary in order:
            for jobs in ((1, 2) if r % 2 == 0 else (2, 1)):
                samples[(binary, jobs)].append(run_once(binary, args, jobs))
    for binary in binaries:
        one = [w for w, _, _ in samples[(binary, 1)]]
        two = [w for w, _, _ in samples[(binary, 2)]]
        cpu_one = statistics.median(c for _, c, _ in samples[(binary, 1)])
        cpu_two = statistics.median(c for _, c, _ in samples[(binary, 2)])
        faults_one = statistics.median(f for _, _, f in samples[(binary, 1)])
        faults_two = statistics.median(f for _, _, f in samples[(binary, 2)])
        print(f"{binary}: minima {min(one) * 1e3:.1f} / "
              f"{min(two) * 1e3:.1f} ms = {min(one) / min(two):.2f}x; "
              f"medians {statistics.median(one) * 1e3:.1f} / "
              f"{statistics.median(two) * 1e3:.1f} ms = "
              f"{statistics.median(one) / statistics.median(two):.2f}x; "
              f"CPU at 2 jobs {100 * (cpu_two / cpu_one - 1):+.1f}%; "
              f"page faults {faults_one:.0f} / {faults_two:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
