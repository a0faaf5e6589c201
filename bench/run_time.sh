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
# Needs perf (Debian's linux-perf). CPU time, not wall: it holds better
# than wall time on a shared machine, but other work on the same cores
# still slows a run (caches, frequency), so compare binaries measured in
# the same command, and prefer bench/run_cost.sh (instruction counts) for
# small differences.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
versions=(tiled hoist_load block_free fully_optimized)
declare -A hardware=([tiled]=51.8 [hoist_load]=42.96 [block_free]=22.07
  [fully_optimized]=6.97)

# task-clock of one command, in ms.
cpu_ms() {
  perf stat -x, -e task-clock "$@" 2>&1 >/dev/null |
    awk -F, '/task-clock/ {print $1}'
}

declare -A best
for ((r = 0; r < ROUNDS; ++r)); do
  for bin in "$@"; do
    for v in "${versions[@]}"; do
      spec=workloads/validation/nki_matmul_$v.json
      one=$(cpu_ms "$bin" --spec "$spec" --repeat 1 --warmup 0 --jobs 1)
      many=$(cpu_ms "$bin" --spec "$spec" --repeat 101 --warmup 0 --jobs 1)
      per=$(awk -v a="$one" -v b="$many" 'BEGIN {print (b - a) / 100}')
      key="$bin|$v"
      if [[ -z ${best[$key]:-} ]] ||
        awk -v x="$per" -v y="${best[$key]}" 'BEGIN {exit !(x < y)}'; then
        best[$key]=$per
      fi
    done
  done
done

echo "| binary | version | ms per run | x hardware |"
echo "| --- | --- | --- | --- |"
for bin in "$@"; do
  for v in "${versions[@]}"; do
    awk -v b="$bin" -v v="$v" -v ms="${best[$bin|$v]}" \
      -v hw="${hardware[$v]}" 'BEGIN {
      printf "| %s | %s | %.2f | %.1fx |\n", b, v, ms, hw / ms }'
  done
done
