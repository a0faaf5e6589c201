#!/bin/bash
# Issue 42's table, measured: each command at --jobs 1 and --jobs 2, wall
# and CPU time of the whole process (/usr/bin/time), the speed-up in wall
# time, and the CPU per run of --jobs 2 against --jobs 1; then the matmul
# tutorial's four versions per recorded run on one core, from the CPU time
# of --repeat R+1 less that of --repeat 1 (so lowering and start-up are
# not counted), against the published hardware times.
#
#   bench/jobs_table.sh [TRNBENCH] [ROUNDS]
#
# TRNBENCH defaults to ./build/trnbench, ROUNDS (each command's runs,
# the median kept) to 3. Run it on an idle machine: wall times mean
# nothing while other work competes for the cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-./build/trnbench}
ROUNDS=${2:-3}

# Prints "WALL CPU" in seconds, the medians of ROUNDS runs.
measure() {
  local walls=() cpus=() out tmp
  tmp=$(mktemp)
  for ((i = 0; i < ROUNDS; ++i)); do
    /usr/bin/time -o "$tmp" -f "%e %U %S" "$BIN" "$@" >/dev/null 2>&1 || true
    out=$(tail -1 "$tmp")
    walls+=("$(awk '{print $1}' <<<"$out")")
    cpus+=("$(awk '{print $2 + $3}' <<<"$out")")
  done
  rm -f "$tmp"
  printf '%s %s\n' \
    "$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(((ROUNDS + 1) / 2))p")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$(((ROUNDS + 1) / 2))p")"
}

row() {
  local label=$1
  shift
  read -r w1 c1 < <(measure "$@" --jobs 1)
  read -r w2 c2 < <(measure "$@" --jobs 2)
  awk -v l="$label" -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" 'BEGIN {
    printf "| %s | %.2f s / %.2f s | %.2f s / %.2f s | %.2fx | %+.1f%% |\n",
      l, w1, c1, w2, c2, w1 / w2, 100 * (c2 / c1 - 1) }'
}

echo "| command | --jobs 1 wall / CPU | --jobs 2 wall / CPU | speed-up | CPU, jobs 2 vs 1 |"
echo "| --- | --- | --- | --- | --- |"
row "tiled matmul --repeat 101 --warmup 0" \
  --spec workloads/validation/nki_matmul_tiled.json --repeat 101 --warmup 0
row "exp_tiled 12800000x512 --repeat 20" \
  --workload exp_tiled --shape in_tensor,out_tensor=12800000x512 --repeat 20
row "exp_tiled 12800000x512 --repeat 100" \
  --workload exp_tiled --shape in_tensor,out_tensor=12800000x512 --repeat 100
row "validate --known-gaps" \
  validate --known-gaps workloads/validation/known_gaps.txt

echo
echo "| matmul version | instructions | ms per recorded run (1 core) | M instructions/s | hardware | faster than hardware |"
echo "| --- | --- | --- | --- | --- | --- |"
R=100
for v in tiled:51.8 hoist_load:42.96 block_free:22.07 fully_optimized:6.97; do
  name=${v%%:*}
  hw=${v##*:}
  spec=workloads/validation/nki_matmul_$name.json
  n=$("$BIN" --spec "$spec" --repeat 1 --warmup 0 |
    grep -o '[0-9]* instructions per run' | awk '{print $1}')
  read -r _ c1 < <(measure --spec "$spec" --repeat 1 --warmup 0 --jobs 1)
  read -r _ cr < <(measure --spec "$spec" --repeat $((R + 1)) --warmup 0 --jobs 1)
  awk -v v="$name" -v n="$n" -v c1="$c1" -v cr="$cr" -v r="$R" -v hw="$hw" 'BEGIN {
    ms = (cr - c1) / r * 1e3
    printf "| %s | %d | %.2f | %.1f | %s ms | %.1fx |\n",
      v, n, ms, n / ms / 1e3, hw, hw / ms }'
done
