#!/usr/bin/env bash
# The lifter on every artifact: wall time of `shlo lift` (parse, lift and the render's JSON
# together, an upper bound on the lift itself), the share of instruction lines in expression
# nodes and the verbatim lines. A benchmark, not a test: run it by hand.
#   bench/lift.sh [FILES...]     (default: every artifact)
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${ARTIFACTS:-../shared/artifacts/lean4-mlir}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$artifacts"/*.mlir)
shlo=${SHLO:-build/shlo}
printf "%-32s %9s %9s %12s %9s\n" file "KiB" "time (s)" "in nodes" verbatim
for f in "${files[@]}"; do
  start=$(date +%s.%N)
  summary=$("$shlo" lift "$f" -o /dev/null | sed -n 1p)  # sed reads it all: no SIGPIPE
  end=$(date +%s.%N)
  share=$(sed -n 's/.*nodes (\([0-9.]*%\)).*/\1/p' <<<"$summary")
  verbatim=$(sed -n 's/.*), \([0-9]*\) verbatim.*/\1/p' <<<"$summary")
  printf "%-32s %9d %9.2f %12s %9s\n" "$(basename "$f")" $(($(stat -c %s "$f") / 1024)) "$(awk "BEGIN{print $end - $start}")" "$share" "$verbatim"
done
