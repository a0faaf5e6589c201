#!/bin/bash
# CPU time per recorded run of each of the NKI matmul tutorial's four
# versions on one core, for one or more binaries measured alternately (so
# a load that comes and goes falls on each alike): `perf stat -e
# task-clock` of `--repeat 101` less that of `--repeat 1` (start-up,
# loading and lowering cancel), over 100, the minimum over ROUNDS rounds
# of each (the least disturbed), against the published hardware times.
#
#   bench/run_time.sh ROUNDS TRNBENCH [TRNBENCH...]
#
# RUNS=N (default 100) times N + 1 runs against one instead; longer
# commands average out more of a shared machine's short disturbances
# (RUNS=1000 is 2.5 s of block-free runs). VERSIONS="block_free ..."
# (default all four) measures those only. The median over the rounds is
# printed beside the minimum, as a measure of the noise.
#
# Needs perf (Debian's linux-perf). CPU time, not wall: it holds better
# than wall time on a shared machine, but other work on the same cores
# still slows a run (caches, frequency), so compare binaries measured in
# the same command, and prefer bench/run_cost.sh (instruction counts) for
# small differences.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
RUNS=${RUNS:-100}
read -r -a versions <<<"${VERSIONS:-tiled hoist_load block_free fully_optimized}"

declare -A hardware=([tiled]=51.8 [hoist_load]=42.96 [block_free]=22.07
  [fully_optimized]=6.97)

# task-clock of one command, in ms.
cpu_ms() {
  perf stat -x, -e task-clock "$@" 2>&1 >/dev/null |
    awk -F, '/task-clock/ {print $1}'
}

declare -A all
for ((r = 0; r < ROUNDS; ++r)); do
  for bin in "$@"; do
    for v in "${versions[@]}"; do
      spec=workloads/validation/nki_matmul_$v.json
      one=$(cpu_ms "$bin" --spec "$spec" --repeat 1 --warmup 0 --jobs 1)
      many=$(cpu_ms "$bin" --spec "$spec" --repeat $((RUNS + 1)) --warmup 0 \
        --jobs 1)
      per=$(awk -v a="$one" -v b="$many" -v n="$RUNS" 'BEGIN {print (b - a) / n}')
      all["$bin|$v"]+="$per "
    done
  done
done

echo "| binary | version | ms per run | x hardware | median ms |"
echo "| --- | --- | --- | --- | --- |"
for bin in "$@"; do
  for v in "${versions[@]}"; do
    tr ' ' '\n' <<<"${all[$bin|$v]}" | sed '/^$/d' | sort -g |
      awk -v b="$bin" -v v="$v" -v hw="${hardware[$v]}" '
        { x[NR] = $1 }
        END {
          med = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
          printf "| %s | %s | %.2f | %.1fx | %.2f |\n", b, v, x[1], hw / x[1], med
        }'
  done
done
