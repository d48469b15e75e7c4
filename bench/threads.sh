#!/usr/bin/env bash
# Threads: one program in given domains with 1 and 2 threads (or THREADS="1 2 4"): wall time,
# speed-up over 1 thread, and whether every output file is the same byte for byte as the
# 1-thread run's. A benchmark, not a test: run it by hand on an otherwise idle machine, and
# record the load average it prints (other work on the cores lowers the speed-up).
#   bench/threads.sh [FILE] [DOMAIN...]   (default cifar8_train_step.mlir, f64 interval:256)
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${ARTIFACTS:-../shared/artifacts/lean4-mlir}
file=${1:-$artifacts/cifar8_train_step.mlir}
shift || true
domains=("$@")
[ ${#domains[@]} -gt 0 ] || domains=(f64 interval:256)
shlo=${SHLO:-build/shlo}
threads=(${THREADS:-1 2})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$(basename "$file"), inputs uniform in [0, 0.01) (seed 1); $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-14s %8s %10s %10s %9s %s\n" domain threads "time (s)" "CPU (s)" speed-up "outputs as with ${threads[0]} thread(s)"
for d in "${domains[@]}"; do
  base=""
  for t in "${threads[@]}"; do
    out="$work/$d-$t"
    /usr/bin/time -f "%e %U" -o "$work/time" "$shlo" run "$file" -d "$d" --threads "$t" --random-inputs 1 --range 0,0.01 --out "$out" \
      >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
    read -r seconds cpu <"$work/time"
    if [ -z "$base" ]; then
      base=$seconds; same="(reference)"
    else
      same=$(diff -rq "$work/$d-${threads[0]}" "$out" >/dev/null && echo "identical" || echo "DIFFERENT")
    fi
    printf "%-14s %8s %10.2f %10.2f %9.2f %s\n" "$d" "$t" "$seconds" "$cpu" "$(awk -v a="$base" -v b="$seconds" 'BEGIN{print a/b}')" "$same"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
