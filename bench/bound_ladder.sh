#!/usr/bin/env bash
# How tight the sound bound is on the artifact ladder: for each artifact, a float32 CPU run on
# random inputs, then `shlo check --profile ieee` of its outputs. Prints, per artifact, the
# analysis time, the median and worst error/bound over all output elements, and the counts of
# "branch may flip" and unbounded elements.
#   bash bench/bound_ladder.sh [BUILD_DIR] [ARTIFACTS_DIR]     (RANGE=LO,HI for the inputs)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shlo=${1:-$root/build}/shlo
dir=${2:-$root/../shared/artifacts/lean4-mlir}
range=${RANGE:-0,0.01}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-28s %3s %10s %10s %12s %12s %8s %10s\n' artifact R "f32 s" "bound s" "median e/b" "worst e/b" flips unbounded
for file in "$dir"/*.mlir; do
  a=$(basename "$file" .mlir)
  R=1
  grep -q all_reduce "$file" && R=2
  out=$work/$a in=$work/$a/inputs
  "$shlo" run "$file" -d f32 -r "$R" --random-inputs 7 --range "$range" --out "$out" >"$work/$a.run" 2>&1 || { echo "$a: run failed"; continue; }
  [ "$R" = 1 ] || in=$out  # per replica: $out/r<k>/inputs
  "$shlo" check "$file" -r "$R" --inputs "$in" --outputs "$out" --profile ieee --json >"$work/$a.json" 2>"$work/$a.err" || true
  get() { sed -n "s/^  \"$1\": \\([^,]*\\),\\?\$/\\1/p" "$work/$a.json" | head -1; }
  sum() { grep "\"$1\"" "$work/$a.json" | sed 's/[^0-9]//g' | awk '{ s += $1 } END { print s + 0 }'; }
  t=$(sed -n 's/.*replica(s): \([0-9.]*\) s$/\1/p' "$work/$a.run")
  printf '%-28s %3s %10s %10.2f %12.4g %12.4g %8s %10s\n' "$a" "$R" "$t" "$(get analysis_seconds)" "$(get median_error_over_bound)" \
    "$(get worst_error_over_bound)" "$(sum branch_may_flip)" "$(sum unbounded)"
done
