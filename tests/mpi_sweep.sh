#!/usr/bin/env bash
# MPI: `mpirun -n 2 crbench sweep|converge` writes the same files as one process, byte for byte
# (wall-time files aside), and a run whose rank is killed mid-way is completed by --resume into
# the same files again.
# Usage: tests/mpi_sweep.sh MPIEXEC CRBENCH SWEEP_FILE STUDY_FILE WORK_DIR
set -euo pipefail
mpiexec=$1 crbench=$2 sweep=$3 study=$4 work=$5
rm -rf "$work"
mkdir -p "$work"

# Open MPI refuses root unless told, and 2 ranks may exceed the slots of a small machine.
launch=("$mpiexec" -n 2)
if "$mpiexec" --version 2>&1 | grep -E "open-mpi|OpenRTE|Open MPI" > /dev/null; then
  launch+=(--oversubscribe)
  [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
fi

# kill_rank_1 LAUNCHER POINTS: once POINTS has 20 lines, SIGKILL the rank-1 process among the
# children and grandchildren of LAUNCHER (mpirun, or a timeout wrapping it); kill_rank_0 the same
# for rank 0.
kill_rank_0() { victim_rank=0 kill_rank "$@"; }
kill_rank_1() { victim_rank=1 kill_rank "$@"; }
kill_rank() {
  for _ in $(seq 1 600); do
    lines=$( (grep -c . "$2" 2>/dev/null) || true)
    [ "${lines:-0}" -ge 20 ] && break
    sleep 0.01
  done
  local victim="" pid
  for pid in $(pgrep -P "$1" || true) $(pgrep -P "$(pgrep -P "$1" | head -1)" || true); do
    [ "$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -E '^(OMPI_COMM_WORLD_RANK|PMI_RANK|PMIX_RANK)=' | head -1 | cut -d= -f2)" = "$victim_rank" ] && victim=$pid
  done
  [ -n "$victim" ] || { echo "FAIL: rank $victim_rank not found under the launcher"; exit 1; }
  kill -9 "$victim"
}

same() {  # same FOLDER_A FOLDER_B: identical files, the wall-time ones aside
  diff -r -x timing.jsonl -x 'work_precision.*' "$1" "$2" > "$work/diff.txt" ||
    { echo "FAIL: $1 and $2 differ:"; head -20 "$work/diff.txt"; exit 1; }
}

"$crbench" sweep --sweep "$sweep" --out "$work/single" --jobs 2 --no-figures > /dev/null
"${launch[@]}" "$crbench" sweep --sweep "$sweep" --out "$work/ranks" --jobs 1 --no-figures \
  > "$work/ranks.log"
grep -q "points computed" "$work/ranks.log" || { echo "FAIL: rank 0 wrote no summary"; exit 1; }
[ "$(grep -c "points computed" "$work/ranks.log")" -eq 1 ] ||
  { echo "FAIL: more than one rank printed the summary"; exit 1; }
same "$work/single" "$work/ranks"
echo "sweep: 2 ranks and 1 process wrote the same files"

# Kill the rank that is not rank 0 once some points are written; mpirun then ends the job.
"${launch[@]}" "$crbench" sweep --sweep "$sweep" --out "$work/killed" --jobs 1 --no-figures \
  > "$work/killed.log" 2>&1 &
launcher=$!
total=$(grep -c . "$work/single/points.jsonl")
kill_rank_1 "$launcher" "$work/killed/points.jsonl"
if wait "$launcher"; then echo "FAIL: the job with a killed rank exited with 0"; exit 1; fi
kept=$(grep -c . "$work/killed/points.jsonl" || true)
[ "$kept" -lt "$total" ] || { echo "FAIL: the killed run finished all $total points"; exit 1; }
"${launch[@]}" "$crbench" sweep --sweep "$sweep" --out "$work/killed" --jobs 1 --no-figures \
  --resume > "$work/resumed.log"
# A line the kill cut short is computed again.
computed=$(sed -n 's/.*: \([0-9]*\) of [0-9]* points computed.*/\1/p' "$work/resumed.log")
[ -n "$computed" ] && [ "$computed" -lt "$total" ] && [ "$computed" -ge $((total - kept)) ] &&
  [ "$computed" -le $((total - kept + 1)) ] ||
  { echo "FAIL: --resume did not keep the $kept points written:"; cat "$work/resumed.log"; exit 1; }
same "$work/single" "$work/killed"
echo "sweep: killed after $kept of $total points, --resume completed the same files"

# Under a launcher that keeps the job alive when a rank dies (Open MPI's --enable-recovery, as
# some Slurm set-ups do) rank 0 gives the silent rank up after CRBENCH_MPI_RANK_TIMEOUT seconds,
# records its points as rank_lost, writes the files and ends the job with a message naming it.
# (Open MPI 4.1's mpirun exits 0 under --enable-recovery whatever its processes return, so the
# message, not the status, is what is checked.)
if "$mpiexec" --enable-recovery "${launch[@]:3}" -n 1 true > /dev/null 2>&1; then
  CRBENCH_MPI_RANK_TIMEOUT=3 timeout 120 "${launch[@]}" --enable-recovery "$crbench" sweep \
    --sweep "$sweep" --out "$work/recovery" --jobs 1 --no-figures > "$work/recovery.log" 2>&1 &
  launcher=$!
  kill_rank_1 "$launcher" "$work/recovery/points.jsonl"
  status=0
  wait "$launcher" || status=$?
  [ "$status" -ne 124 ] || { echo "FAIL: the job with a lost rank hung until the timeout"; exit 1; }
  grep -q "rank 1 stopped answering" "$work/recovery.log" ||
    { echo "FAIL: no message naming the lost rank:"; cat "$work/recovery.log"; exit 1; }
  grep -q '"status":"rank_lost"' "$work/recovery/points.jsonl" ||
    { echo "FAIL: the lost rank's points are not recorded"; exit 1; }
  [ -f "$work/recovery/grid.csv" ] || { echo "FAIL: the files were not written"; exit 1; }
  "${launch[@]}" "$crbench" sweep --sweep "$sweep" --out "$work/recovery" --jobs 1 --no-figures \
    --resume > "$work/recovery-resumed.log"
  same "$work/single" "$work/recovery"
  echo "sweep: a rank lost under --enable-recovery was given up, and --resume completed the files"

  # Rank 0 killed: rank 1 hears no heartbeat from it for CRBENCH_MPI_RANK_TIMEOUT seconds and ends
  # by itself, naming rank 0, within the timeout and 30 s; --resume completes the files.
  start=$(date +%s)
  CRBENCH_MPI_RANK_TIMEOUT=3 timeout 120 "${launch[@]}" --enable-recovery "$crbench" sweep \
    --sweep "$sweep" --out "$work/recovery0" --jobs 1 --no-figures > "$work/recovery0.log" 2>&1 &
  launcher=$!
  kill_rank_0 "$launcher" "$work/recovery0/points.jsonl"
  status=0
  wait "$launcher" || status=$?
  took=$(( $(date +%s) - start ))
  [ "$status" -ne 124 ] || { echo "FAIL: the job whose rank 0 was killed hung"; exit 1; }
  [ "$took" -le 33 ] || { echo "FAIL: the job whose rank 0 was killed took $took s"; exit 1; }
  grep -q "rank 1: rank 0 stopped answering" "$work/recovery0.log" ||
    { echo "FAIL: no message naming rank 0:"; cat "$work/recovery0.log"; exit 1; }
  "${launch[@]}" "$crbench" sweep --sweep "$sweep" --out "$work/recovery0" --jobs 1 \
    --no-figures --resume > "$work/recovery0-resumed.log"
  same "$work/single" "$work/recovery0"
  echo "sweep: rank 0 killed under --enable-recovery, rank 1 ended in $took s, --resume completed the files"
fi

# converge exits 1 when a model is NOT CONFIRMED (its tables are written all the same).
"$crbench" converge --study "$study" --out "$work/converge-single" --jobs 2 --no-figures > /dev/null \
  || [ $? -eq 1 ]
"${launch[@]}" "$crbench" converge --study "$study" --out "$work/converge-ranks" --jobs 1 \
  --no-figures > /dev/null \
  || [ $? -eq 1 ]
same "$work/converge-single" "$work/converge-ranks"
echo "converge: 2 ranks and 1 process wrote the same files"
