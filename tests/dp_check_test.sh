#!/usr/bin/env bash
# shlo dp-check end to end on the printer's cifar8 pair (the data-parallel Adam step on 2
# replicas of 128 examples against the Adam step on 256): PASS in f32 with the per-replica loss
# found report-only; the control (a DP text whose
# all_reduce divides by R - 1) FAILs; bad input exits 2 naming the argument.
# Usage: dp_check_test.sh SHLO ARTIFACTS_DIR
set -u
shlo=$1
artifacts=$2
dp=$artifacts/cifar8_adamdp_train_step.mlir
full=$artifacts/cifar8_adam256_train_step.mlir
[ -f "$dp" ] && [ -f "$full" ] || { echo "SKIPPED: the cifar8 pair is absent from $artifacts"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/check_lib.sh"
expect() {  # expect DESCRIPTION PATTERN: the last output contains the pattern
  grep -qE "$2" "$tmp/out" || { echo "FAIL $1: no '$2' in"; cat "$tmp/out"; fails=$((fails + 1)); }
}

check "cifar8 pair in f32" 0 "$shlo" dp-check "$dp" "$full" -r 2 --random-inputs 1 --range 0,0.01 -d f32
cp "$tmp/out" "$tmp/f32.txt"
expect "68 outputs judged" "^68 outputs judged, 1 report-only, 0 FAIL"
expect "the loss is report-only" "%loss .*REPORT-ONLY +\(varies per replica\)"
expect "a parameter passes" "^0 +%v[0-9]+ .* 0 PASS"

# The control: divide the all-reduced sum of 2 replicas by 1.
sed 's/\(%arn[A-Za-z0-9]* = stablehlo.constant dense<\)2\.0>/\11.0>/' "$dp" >"$tmp/dp_r_minus_1.mlir"
cmp -s "$dp" "$tmp/dp_r_minus_1.mlir" && { echo "FAIL the control changed nothing"; fails=$((fails + 1)); }
check "control: all_reduce divided by R - 1" 1 "$shlo" dp-check "$tmp/dp_r_minus_1.mlir" "$full" -r 2 --random-inputs 1 --range 0,0.01 -d f32 --json
expect "the control fails" '"pass": false'

check "wrong replica count" 2 "$shlo" dp-check "$dp" "$full" -r 4 --random-inputs 1
grep -q "argument %x is tensor<128x3072xf32>.*neither the same type nor a shard of 4" "$tmp/err" || { echo "FAIL message"; cat "$tmp/err"; fails=$((fails + 1)); }
check "no inputs" 2 "$shlo" dp-check "$dp" "$full" -r 2
check "mpfr has no verdict" 2 "$shlo" dp-check "$dp" "$full" -r 2 --random-inputs 1 -d mpfr:64

[ "$fails" = 0 ] && echo "all dp-check tests passed" || { echo "$fails dp-check test(s) failed"; exit 1; }
