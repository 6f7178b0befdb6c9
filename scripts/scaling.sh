#!/usr/bin/env bash
# Parallel efficiency of `crbench sweep`: the same sweep with 1 and 2 threads in one process, and
# with 1 and 2 MPI ranks of one thread each. Efficiency on P workers = T(1) / (P T(P)), where T is
# the wall time of the whole command (start-up, the serial parts and writing the files included),
# the fastest of REPEATS runs (interleaved); the rank runs are compared with `mpirun -n 1`, and with the plain
# single process too. Prints a Markdown table; the files of every run are compared byte for byte.
#
# Usage: bash scripts/scaling.sh [SWEEP_FILE] [REPEATS]
#   default: bench/sweeps/scaling/dk-plane-2500.json, 3 repeats
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=${1:-bench/sweeps/scaling/dk-plane-2500.json}
repeats=${2:-3}
crbench=build/release/crbench
[ -x "$crbench" ] || bash scripts/build.sh > /dev/null
command -v mpirun > /dev/null || { echo "scaling: mpirun not found (bash scripts/setup.sh)" >&2; exit 1; }
launch=(mpirun)
if mpirun --version 2>&1 | grep -q -E "open-mpi|OpenRTE|Open MPI"; then
  launch+=(--oversubscribe)
  [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run CONFIG COMMAND...: one run into $work/CONFIG; appends its wall time to $work/CONFIG.times.
run() {
  local config=$1
  shift
  rm -rf "${work:?}/$config"
  local start end
  start=$(date +%s%N)
  "$@" --out "$work/$config" --no-figures > /dev/null
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 ))" >> "$work/$config.times"
}
# The minimum in seconds: on a shared machine, the least disturbed run of the same work.
fastest() { sort -n "$work/$1.times" | head -1 | awk '{ printf "%.2f", $1 / 1000 }'; }
efficiency() { awk -v t1="$1" -v p="$2" -v tp="$3" 'BEGIN { printf "%.2f", t1 / (p * tp) }'; }

points=$(/usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
n = 1
for a in s['axes']: n *= a['count']
print(n)" "$sweep")
# Interleaved, so that the machine's slow spells fall on every configuration alike.
for _ in $(seq 1 "$repeats"); do
  run plain1 "$crbench" sweep --sweep "$sweep" --jobs 1
  run threads2 "$crbench" sweep --sweep "$sweep" --jobs 2
  run ranks1 "${launch[@]}" -n 1 "$crbench" sweep --sweep "$sweep" --jobs 1
  run ranks2 "${launch[@]}" -n 2 "$crbench" sweep --sweep "$sweep" --jobs 1
done
for config in threads2 ranks1 ranks2; do
  diff -r "$work/plain1" "$work/$config" > /dev/null ||
    { echo "scaling: $config wrote files that differ from one process" >&2; exit 1; }
done
t_plain=$(fastest plain1)
t_threads=$(fastest threads2)
t_rank1=$(fastest ranks1)
t_ranks=$(fastest ranks2)

echo "### Parallel efficiency of crbench sweep ($(basename "$sweep"), $points points, $(nproc) cores)"
echo
echo "Wall time of the whole command, the fastest of $repeats interleaved runs; efficiency on P workers ="
echo "T(1) / (P T(P)). The files of every configuration are byte-identical."
echo
echo "| configuration | wall time [s] | efficiency |"
echo "|---|---|---|"
echo "| 1 process, 1 thread (\`--jobs 1\`) | $t_plain | 1 |"
echo "| 1 process, 2 threads (\`--jobs 2\`) | $t_threads | $(efficiency "$t_plain" 2 "$t_threads") |"
echo "| \`mpirun -n 1\`, 1 thread | $t_rank1 | 1 |"
echo "| \`mpirun -n 2\`, 1 thread each | $t_ranks | $(efficiency "$t_rank1" 2 "$t_ranks") (vs \`mpirun -n 1\`); $(efficiency "$t_plain" 2 "$t_ranks") (vs 1 process) |"
