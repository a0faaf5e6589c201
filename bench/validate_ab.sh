#!/bin/bash
# validate (or any trnbench command) timed for two binaries alternated,
# round by round, so that both see the same machine: on a shared machine
# the load moves between rounds, and a before/after pair taken minutes
# apart compares the loads rather than the binaries.
#
#   bench/validate_ab.sh BEFORE AFTER [ROUNDS] [-- ARGS...]
#
# ARGS default to `validate --known-gaps workloads/validation/known_gaps.txt`;
# each is run at --jobs 1 and --jobs 2. Prints every run (wall, CPU = user +
# sys of the process and its children, page faults, the load average at the
# start), then the medians per binary and --jobs. Wall times mean something
# only on an idle machine; CPU and page faults hold better under load.
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:?usage: bench/validate_ab.sh BEFORE AFTER [ROUNDS] [-- ARGS...]}
B=${2:?usage: bench/validate_ab.sh BEFORE AFTER [ROUNDS] [-- ARGS...]}
ROUNDS=${3:-3}
shift $(($# < 3 ? $# : 3))
[[ ${1:-} == -- ]] && shift
ARGS=("$@")
if ((${#ARGS[@]} == 0)); then
  ARGS=(validate --known-gaps workloads/validation/known_gaps.txt)
fi
tmp=$(mktemp)
all=$(mktemp)
trap 'rm -f "$tmp" "$all"' EXIT
for ((i = 0; i < ROUNDS; ++i)); do
  for j in 1 2; do
    for bin in "$A" "$B"; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      /usr/bin/time -o "$tmp" -f "%e %U %S %R" "$bin" "${ARGS[@]}" --jobs "$j" \
        >/dev/null 2>&1 || true
      read -r wall user sys faults < <(tail -1 "$tmp")
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
      echo "$bin jobs $j: wall $wall s, CPU $cpu s (sys $sys), $faults page faults, load $load"
      echo "$bin $j $wall $cpu $faults" >>"$all"
    done
  done
done
echo
echo "| binary | --jobs | wall (median) | CPU (median) | page faults (median) |"
echo "| --- | --- | --- | --- | --- |"
for bin in "$A" "$B"; do
  for j in 1 2; do
    med() {
      awk -v b="$bin" -v j="$j" -v c="$1" '$1 == b && $2 == j {print $c}' "$all" |
        sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
    }
    echo "| $bin | $j | $(med 3) s | $(med 4) s | $(med 5) |"
  done
done
