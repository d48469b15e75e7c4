#!/usr/bin/env bash
# The data-parallel theorem on another optimizer family than the printer's one data-parallel pair:
# scripts/dp_pair.py makes a pair from a printed train step by the printer's rules, and
# `shlo dp-check` judges it.
#   1. The rules are the printer's: from cifar8_adam_train_step.mlir they give
#      cifar8_adamdp_train_step.mlir (the gradients all-reduced to their mean over 2 replicas) and
#      cifar8_adam256_train_step.mlir (the batch doubled), byte for byte.
#   2. The momentum step (cifar8_mom_train_step.mlir) made data-parallel: R = 2 in f32 and R = 4 in
#      interval:64 PASS, the velocities and the passed-through first moments included, the loss
#      report-only; the control (the all-reduced sum divided by R - 1) FAILs.
#   3. The Lean project's own data-parallel gate: the same batch on every replica against the
#      single-device step on it PASSes, the loss judged too; divided by R - 1 it FAILs.
# Usage: dp_family_test.sh SHLO ARTIFACTS_DIR SCRIPTS_DIR
set -u
shlo=$1
artifacts=$2
pair="python3 $3/dp_pair.py $shlo"
for f in cifar8_adam_train_step cifar8_adamdp_train_step cifar8_adam256_train_step cifar8_mom_train_step cifar8_train_step; do
  [ -f "$artifacts/$f.mlir" ] || { echo "SKIPPED: $f.mlir is absent from $artifacts"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/check_lib.sh"
expect() {  # expect DESCRIPTION PATTERN: the last output contains the pattern
  grep -qE "$2" "$tmp/out" || { echo "FAIL $1: no '$2' in"; cat "$tmp/out"; fails=$((fails + 1)); }
}

check "the rules on the Adam step" 0 $pair "$artifacts/cifar8_adam_train_step.mlir" --batch 128 --replicas 2 --dp "$tmp/adamdp.mlir" --full "$tmp/adam256.mlir"
check "the data-parallel rule gives the printer's adamdp text" 0 cmp "$tmp/adamdp.mlir" "$artifacts/cifar8_adamdp_train_step.mlir"
check "the batch rule gives the printer's adam256 text" 0 cmp "$tmp/adam256.mlir" "$artifacts/cifar8_adam256_train_step.mlir"
# Controls of the comparisons: the pair made for another replica count is another text.
check "the rules for 4 replicas" 0 $pair "$artifacts/cifar8_adam_train_step.mlir" --batch 64 --replicas 4 --dp "$tmp/adamdp4.mlir" --full "$tmp/adam256b.mlir"
check "control: 4 replicas of 64 are not the printer's 2 of 128" 1 cmp -s "$tmp/adamdp4.mlir" "$artifacts/cifar8_adamdp_train_step.mlir"
check "the full step on 256 examples does not depend on how it is split" 0 cmp "$tmp/adam256b.mlir" "$artifacts/cifar8_adam256_train_step.mlir"

mom=$artifacts/cifar8_mom_train_step.mlir
check "momentum pair, 2 replicas of 4" 0 $pair "$mom" --batch 4 --replicas 2 --dp "$tmp/momdp2.mlir" --full "$tmp/mom8.mlir"
check "momentum pair in f32" 0 "$shlo" dp-check "$tmp/momdp2.mlir" "$tmp/mom8.mlir" -r 2 --random-inputs 1 --range 0,0.01 -d f32
expect "every output judged" "^68 outputs judged, 1 report-only, 0 FAIL"
expect "the loss is report-only" "%loss .*REPORT-ONLY +\(varies per replica\)"
expect "a parameter passes" "^0 +%v194 .* PASS"
expect "a passed-through first moment passes" "^22 +%W1m .* PASS"
expect "a velocity passes" "^44 +%v197 .* PASS"

check "momentum pair, 4 replicas of 1" 0 $pair "$mom" --batch 1 --replicas 4 --dp "$tmp/momdp4.mlir" --full "$tmp/mom4.mlir"
grep -q "replica_groups = dense<\[\[0, 1, 2, 3\]\]>" "$tmp/momdp4.mlir" || { echo "FAIL the 4-replica text has no group of 4"; fails=$((fails + 1)); }
check "momentum pair in interval:64, inputs of both signs" 0 "$shlo" dp-check "$tmp/momdp4.mlir" "$tmp/mom4.mlir" -r 4 --random-inputs 3 --range -0.5,0.5 -d interval:64
expect "every output judged" "^68 outputs judged, 1 report-only, 0 FAIL"

# The Lean project's own gate: every replica gets the same batch (the arguments have the same type
# in both programs, so dp-check gives each to every replica), and the mean of R equal gradients is
# the single-device step's; the loss is then the same on every replica and judged too.
check "momentum step on 4 examples" 0 $pair "$mom" --batch 4 --replicas 1 --dp "$tmp/unused.mlir" --full "$tmp/mom4b.mlir"
check "duplicated batch: 2 replicas of the same 4 examples" 0 "$shlo" dp-check "$tmp/momdp2.mlir" "$tmp/mom4b.mlir" -r 2 --random-inputs 1 --range 0,0.01 -d f32
expect "every output judged, the loss too" "^69 outputs judged, 0 report-only, 0 FAIL"

sed 's/\(%arn[A-Za-z0-9]* = stablehlo.constant dense<\)2\.0>/\11.0>/' "$tmp/momdp2.mlir" >"$tmp/momdp2_r_minus_1.mlir"
check "control: the control's text differs" 1 cmp -s "$tmp/momdp2.mlir" "$tmp/momdp2_r_minus_1.mlir"
check "control: all_reduce divided by R - 1" 1 "$shlo" dp-check "$tmp/momdp2_r_minus_1.mlir" "$tmp/mom8.mlir" -r 2 --random-inputs 1 --range 0,0.01 -d f32
expect "the control fails on the parameters" "^68 outputs judged, 1 report-only, [1-9][0-9]* FAIL"
check "control: the duplicated batch's all_reduce divided by R - 1" 1 "$shlo" dp-check "$tmp/momdp2_r_minus_1.mlir" "$tmp/mom4b.mlir" -r 2 --random-inputs 1 --range 0,0.01 -d f32
expect "the duplicated batch's control fails" "^69 outputs judged, 0 report-only, [1-9][0-9]* FAIL"

check "an SGD step (each gradient fused into its update) is refused" 1 $pair "$artifacts/cifar8_train_step.mlir" --batch 4 --replicas 2 --dp "$tmp/x.mlir" --full "$tmp/y.mlir"
grep -q "an SGD step fuses them: not supported" "$tmp/err" || { echo "FAIL message"; cat "$tmp/err"; fails=$((fails + 1)); }

[ "$fails" = 0 ] && echo "all dp-family tests passed" || { echo "$fails dp-family test(s) failed"; exit 1; }
