#!/usr/bin/env bash
# Threads: one program in given domains with 1 and 2 threads (or THREADS="1 2 4"): wall time,
# speed-up over 1 thread, and whether every output file is the same byte for byte as the
# 1-thread run's. A benchmark, not a test: run it by hand on an otherwise idle machine, and
# record the load average it prints (other work on the cores lowers the speed-up).
#   bench/threads.sh [FILE] [DOMAIN...]   (default cifar8_train_step.mlir, f64 interval:256)
# REPS=N runs each thread count N times (interleaved, so that a burst of other work hits
# every count alike) and reports the best and the median wall time; the speed-up is best over
# best. CPU is user + system time (system: page faults, file writes) of the best run.
# BEFORE=path/to/an/older/shlo runs that build too, interleaved with this one (rep by rep), and
# reports its rows first: a before/after comparison on the same minutes of the machine. Every
# run's outputs are compared with this build's first run.
# Each domain's line "serial fraction" is this build's last 1-thread run's (shlo run --timing;
# the last, so that with REPS > 1 it is a warm run: a virtual machine's first run can spend a
# third of its time faulting in memory the host took back, docs/measurements.md "All cores"):
# the share of its CPU time outside loops that split over the threads, which bounds the
# speed-up on 2 threads at 2 / (1 + fraction); it holds on a loaded machine too.
# TIMER names GNU time where it is not /usr/bin/time. OpenMP's settings pass through: OMP_WAIT_POLICY=passive keeps waiting threads from spinning
# (less user time with 2 threads; on a loaded machine, much less wall time too). So does
# GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (the heap on transparent huge pages: far fewer page
# faults, which on a virtual machine can be most of the system time).
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${ARTIFACTS:-../shared/artifacts/lean4-mlir}
file=${1:-$artifacts/cifar8_train_step.mlir}
shift || true
domains=("$@")
[ ${#domains[@]} -gt 0 ] || domains=(f64 interval:256)
shlo=${SHLO:-build/shlo}
builds=(after)
declare -A binary=([after]="$shlo")
if [ -n "${BEFORE:-}" ]; then
  builds=(before after)
  binary[before]=$BEFORE
fi
threads=(${THREADS:-1 2})
reps=${REPS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$(basename "$file"), inputs uniform in [0, 0.01) (seed 1); $(nproc) cores; $reps run(s) each; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-14s %-6s %8s %10s %10s %10s %10s %9s %s\n" domain build threads "best (s)" "median (s)" "user (s)" "sys (s)" speed-up "outputs as with ${threads[0]} thread(s)"
for d in "${domains[@]}"; do
  reference="$work/$d-reference"
  for ((rep = 0; rep < reps; rep++)); do
    for b in "${builds[@]}" ; do
      for t in "${threads[@]}"; do
        out="$work/$d-$b-$t-$rep"
        timing=()
        [ "$b" = after ] && [ "$t" = 1 ] && [ "$rep" = $((reps - 1)) ] && timing=(--timing)
        "${TIMER:-/usr/bin/time}" -f "%e %U %S" -o "$work/time" "${binary[$b]}" run "$file" -d "$d" --threads "$t" --random-inputs 1 --range 0,0.01 --out "$out" \
          "${timing[@]}" >"$work/stdout" 2>"$work/err" || { cat "$work/err"; exit 1; }
        [ ${#timing[@]} -eq 0 ] || grep "serial fraction" "$work/stdout" >"$work/serial-$d" || true
        cat "$work/time" >>"$work/times-$d-$b-$t"
        if [ ! -d "$reference" ] && [ "$b" = after ]; then
          mv "$out" "$reference"  # this build's first run: the one every other run is compared with
        else
          echo "$out" >>"$work/pending-$d"
        fi
        if [ -d "$reference" ] && [ -s "$work/pending-$d" ]; then
          while read -r o; do
            diff -rq "$reference" "$o" >/dev/null && echo identical >>"$work/same-$d-${o#$work/$d-}" || echo DIFFERENT >>"$work/same-$d-${o#$work/$d-}"
            rm -rf "$o"
          done <"$work/pending-$d"
          : >"$work/pending-$d"
        fi
      done
    done
  done
  for b in "${builds[@]}"; do
    base=""
    for t in "${threads[@]}"; do
      read -r best user sys < <(sort -n "$work/times-$d-$b-$t" | head -1)
      median=$(sort -n "$work/times-$d-$b-$t" | awk '{w[NR] = $1} END {print (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2}')
      [ -n "$base" ] || base=$best
      verdicts=$(cat "$work"/same-"$d-$b-$t"-* 2>/dev/null || true)
      if grep -q DIFFERENT <<<"$verdicts"; then
        same="DIFFERENT"
      elif [ "$b" = after ] && [ "$t" = "${threads[0]}" ]; then
        same="(reference)"
      else
        same="identical"
      fi
      printf "%-14s %-6s %8s %10.2f %10.2f %10.2f %10.2f %9.2f %s\n" "$d" "$b" "$t" "$best" "$median" "$user" "$sys" \
        "$(awk -v a="$base" -v b="$best" 'BEGIN{print a/b}')" "$same"
    done
  done
  [ ! -s "$work/serial-$d" ] || echo "$d, 1 thread: $(cat "$work/serial-$d")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
