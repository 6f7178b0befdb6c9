#!/usr/bin/env bash
# The crbench program loads its back-ends as plugins (solvers/plugin.hpp): it links none of their
# libraries, a solve that needs none of them runs without any plugin, and each back-end's solver
# runs from its plugin and, without it, stops with exit status 2 and one line naming the file.
# Usage: tests/plugins.sh CRBENCH PLUGIN_DIR WORK_DIR PLUGIN...  (the plugins built)
set -euo pipefail
exe=$1 plugins=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work"
needed=$(readelf -d "$exe" | grep NEEDED || true)
for library in siconos mujoco libode Bullet mpi open-pal openblas lapack gfortran; do
  if grep -qi "$library" <<<"$needed"; then
    echo "FAIL: crbench links $library:"
    echo "$needed"
    exit 1
  fi
done
# No plugin folder at all: event-driven on dk-plane (one contact) needs none.
CRBENCH_PLUGIN_DIR=$work/none "$exe" run --case dk-plane --solver event-driven --json \
  > "$work/plain.json"
grep -q '"status": *"ok"' "$work/plain.json" ||
  { echo "FAIL: event-driven on dk-plane without plugins is not ok"; exit 1; }

declare -A runs=(
  [siconos_numerics]="--case ball-chain --set n=20 --solver moreau-jean --lcp lemke"
  [siconos_kernel]="--case bouncing-ball-siconos --solver siconos-moreau-jean"
  [mujoco]="--case bouncing-ball-siconos --solver mujoco"
  [ode]="--case bouncing-ball-siconos --solver ode"
  [bullet]="--case bouncing-ball-siconos --solver bullet"
)
for plugin in "$@"; do
  [ -f "$plugins/libcrbench_$plugin.so" ] || { echo "FAIL: $plugins/libcrbench_$plugin.so is missing"; exit 1; }
  # The MPI plugin is loaded under an MPI launcher only (tests/mpi_sweep.sh).
  [ "$plugin" = mpi ] && continue
  [ -n "${runs[$plugin]:-}" ] || { echo "FAIL: no run for the plugin $plugin"; exit 1; }
  read -r -a arguments <<<"${runs[$plugin]}"
  "$exe" run "${arguments[@]}" --json > "$work/$plugin.json"
  grep -q '"status": *"ok"' "$work/$plugin.json" ||
    { echo "FAIL: ${runs[$plugin]} is not ok:"; head -c 600 "$work/$plugin.json"; exit 1; }
  status=0
  CRBENCH_PLUGIN_DIR=$work/none "$exe" run "${arguments[@]}" > "$work/$plugin.out" \
    2> "$work/$plugin.err" || status=$?
  [ "$status" -eq 2 ] ||
    { echo "FAIL: ${runs[$plugin]} without its plugin: exit status $status, not 2"; exit 1; }
  [ "$(wc -l < "$work/$plugin.err")" -eq 1 ] && grep -q "libcrbench_$plugin.so" "$work/$plugin.err" ||
    { echo "FAIL: without its plugin, not one line naming it:"; cat "$work/$plugin.err"; exit 1; }
  echo "ok: $plugin"
done

# A damaged or foreign plugin is refused before it is mapped: exit 2 and one line naming the file
# and what is wrong, never a signal (a truncated library passes dlopen and dies of SIGBUS later).
damaged=$work/damaged
check_refused() {  # PLUGIN WHAT ARGUMENTS...
  local plugin=$1 what=$2 status=0
  shift 2
  CRBENCH_PLUGIN_DIR=$damaged "$@" > "$work/damaged.out" 2> "$work/damaged.err" || status=$?
  [ "$status" -eq 2 ] ||
    { echo "FAIL: $plugin $what: exit status $status, not 2"; cat "$work/damaged.err"; exit 1; }
  grep -q "$damaged/libcrbench_$plugin.so" "$work/damaged.err" ||
    { echo "FAIL: $plugin $what: the message does not name the file:"; cat "$work/damaged.err"; exit 1; }
}
for plugin in "$@"; do
  rm -rf "$damaged"
  mkdir -p "$damaged"
  if [ "$plugin" = mpi ]; then
    command -v mpirun > /dev/null || continue
    cp "$plugins/libcrbench_mpi.so" "$damaged/"
    truncate -s 4096 "$damaged/libcrbench_mpi.so"
    check_refused mpi truncated mpirun -n 2 -q --oversubscribe --allow-run-as-root \
      -x CRBENCH_PLUGIN_DIR "$exe" run --case dk-plane --solver event-driven
    grep -q "truncated" "$work/damaged.err" || { echo "FAIL: mpi: not said truncated"; exit 1; }
    echo "ok: damaged mpi"
    continue
  fi
  read -r -a arguments <<<"${runs[$plugin]}"
  cp "$plugins/libcrbench_$plugin.so" "$damaged/"
  truncate -s 4096 "$damaged/libcrbench_$plugin.so"
  check_refused "$plugin" truncated "$exe" run "${arguments[@]}"
  [ "$(wc -l < "$work/damaged.err")" -eq 1 ] && grep -q "truncated" "$work/damaged.err" ||
    { echo "FAIL: $plugin truncated: not one line saying so:"; cat "$work/damaged.err"; exit 1; }
  printf 'not a library\n' > "$damaged/libcrbench_$plugin.so"
  check_refused "$plugin" "not ELF" "$exe" run "${arguments[@]}"
  grep -q "not an ELF file" "$work/damaged.err" || { echo "FAIL: $plugin: not said non-ELF"; exit 1; }
  # Another plugin under this one's name: a whole library, but not this plugin.
  other=siconos_numerics
  [ "$plugin" = siconos_numerics ] && other=mpi
  cp "$plugins/libcrbench_$other.so" "$damaged/libcrbench_$plugin.so"
  check_refused "$plugin" foreign "$exe" run "${arguments[@]}"
  grep -q "is not a crbench plugin" "$work/damaged.err" ||
    { echo "FAIL: $plugin foreign: not said so:"; cat "$work/damaged.err"; exit 1; }
  echo "ok: damaged $plugin"
done
