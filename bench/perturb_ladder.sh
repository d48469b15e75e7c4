#!/usr/bin/env bash
# What each tier of `shlo check` catches: for each artifact, the first dot_general's result is
# scaled by (1 + eps) (one matmul's result perturbed by the relative amount eps), the program
# run in f32 on the CPU, and its outputs checked against the unperturbed program. Prints, per
# artifact, the smallest eps on the grid 10^-7, 2 10^-7, 5 10^-7, 10^-6, ... 0.5 that the
# sound tier (FAIL) and the statistical tier (IMPROBABLE or FAIL) catch ("-": none on the grid).
#   bash bench/perturb_ladder.sh [BUILD_DIR] [ARTIFACTS_DIR] [NAMES...]   (RANGE=LO,HI for the inputs)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shlo=${1:-$root/build}/shlo
dir=${2:-$root/../shared/artifacts/lean4-mlir}
shift 2 2>/dev/null
names=${*:-linear_fwd linear_train_step mlp_fwd mlp_train_step cnn_fwd}
range=${RANGE:-0,0.01}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-24s %10s %14s %14s\n' artifact range "sound catches" "stat catches"
for a in $names; do
  file=$dir/$a.mlir
  "$shlo" run "$file" -d f32 --random-inputs 7 --range "$range" --out "$work/base" >/dev/null 2>&1 || { echo "$a: run failed"; continue; }
  # The first dot_general's result %vK becomes %vK_exact; %vK = %vK_exact * (1 + eps).
  line=$(grep -n -m1 'stablehlo.dot_general' "$file" | cut -d: -f1)
  res=$(sed -n "${line}p" "$file" | sed 's/^ *\(%[A-Za-z0-9_]*\) =.*/\1/')
  type=$(sed -n "${line}p" "$file" | sed 's/.*-> \(tensor<[^>]*>\)$/\1/')
  sound=- stat=-
  for eps in 1e-7 2e-7 5e-7 1e-6 2e-6 5e-6 1e-5 2e-5 5e-5 1e-4 2e-4 5e-4 1e-3 2e-3 5e-3 1e-2 2e-2 5e-2 0.1 0.2 0.5; do
    scale=$(awk -v e="$eps" 'BEGIN { printf "%.9e", 1 + e }')
    awk -v L="$line" -v r="$res" -v t="$type" -v s="$scale" 'NR == L { sub(r " =", r "_exact ="); print;
      print "    " r "_scale = stablehlo.constant dense<" s "> : " t;
      print "    " r " = stablehlo.multiply " r "_exact, " r "_scale : " t; next } { print }' "$file" >"$work/p.mlir"
    "$shlo" run "$work/p.mlir" -d f32 --inputs "$work/base/inputs" --out "$work/p" >/dev/null 2>&1 || { echo "$a: perturbed run failed"; break; }
    "$shlo" check "$file" --inputs "$work/base/inputs" --outputs "$work/p" --no-profile-search >/dev/null 2>&1
    rc=$?
    [ "$stat" = - ] && { [ $rc = 1 ] || [ $rc = 3 ]; } && stat=$eps
    [ "$sound" = - ] && [ $rc = 1 ] && sound=$eps
    [ "$sound" != - ] && break
  done
  printf '%-24s %10s %14s %14s\n' "$a" "$range" "$sound" "$stat"
done
