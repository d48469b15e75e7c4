#!/usr/bin/env bash
# Whole-program benchmark: every artifact of the ladder in one domain, with time, the rate of
# the contractions and peak memory. A benchmark, not a test: run it by hand.
#   bench/ladder.sh [DOMAIN] [FILES...]     (default f64, every artifact)
set -euo pipefail
cd "$(dirname "$0")/.."
domain=${1:-f64}
shift || true
artifacts=${ARTIFACTS:-../shared/artifacts/lean4-mlir}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$artifacts"/*.mlir)
shlo=${SHLO:-build/shlo}
printf "%-32s %-8s %9s %12s %12s %12s %12s\n" file replicas "time (s)" "conv GF/s" "dot GF/s" "live MiB" "RSS MiB"
for f in "${files[@]}"; do
  r=1
  case "$f" in *dp*) r=2 ;; esac
  out=$( { /usr/bin/time -f "RSS %M" "$shlo" run "$f" -d "$domain" -r "$r" --random-inputs 1 --range 0,0.01 --timing; } 2>&1 )
  total=$(awk '$1=="total"{print $2}' <<<"$out")
  conv=$(awk '$1=="convolution"{print $5}' <<<"$out")
  dot=$(awk '$1=="dot_general"{print $5}' <<<"$out")
  live=$(awk '/peak live tensors/{print $4}' <<<"$out")
  rss=$(awk '$1=="RSS"{printf "%.1f", $2/1024}' <<<"$out")
  printf "%-32s %-8s %9s %12s %12s %12s %12s\n" "$(basename "$f")" "$r" "$total" "${conv:--}" "${dot:--}" "$live" "$rss"
done
