#!/usr/bin/env bash
# End-to-end checks of the shlo command: exit codes, files written, inputs read back.
# Usage: cli_test.sh SHLO ARTIFACTS_DIR
set -u
shlo=$1
artifacts=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/check_lib.sh"
cat >"$tmp/add.mlir" <<'MLIR'
module @m {
  func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
    %v0 = stablehlo.add %x, %y : tensor<2xf32>
    return %v0 : tensor<2xf32>
  }
}
MLIR
check "help" 0 "$shlo" --help
check "parse summary" 0 "$shlo" parse "$tmp/add.mlir"
grep -q "add  *1" "$tmp/out" || { echo "FAIL parse summary counts"; fails=$((fails + 1)); }
check "parse --print round trip" 0 "$shlo" parse --print "$tmp/add.mlir"
cmp -s "$tmp/out" "$tmp/add.mlir" || { echo "FAIL --print differs"; fails=$((fails + 1)); }
sed 's/%y : tensor/%z : tensor/' "$tmp/add.mlir" >"$tmp/bad.mlir"
check "parse error exits 1" 1 "$shlo" parse "$tmp/bad.mlir"
grep -q "bad.mlir:3:29: use of undefined value %z" "$tmp/err" || { echo "FAIL located error"; cat "$tmp/err"; fails=$((fails + 1)); }
check "run with random inputs" 0 "$shlo" run "$tmp/add.mlir" -d exact --random-inputs 4 --out "$tmp/o1"
for f in o1/inputs/x.npy o1/inputs/y.npy o1/result0.npy o1/result0.txt; do
  [ -f "$tmp/$f" ] || { echo "FAIL missing $f"; fails=$((fails + 1)); }
done
check "run on the saved inputs" 0 "$shlo" run "$tmp/add.mlir" -d exact --inputs "$tmp/o1/inputs" --out "$tmp/o2"
cmp -s "$tmp/o1/result0.txt" "$tmp/o2/result0.txt" || { echo "FAIL same inputs, different results"; fails=$((fails + 1)); }
check "missing input exits 2" 2 "$shlo" run "$tmp/add.mlir" --inputs "$tmp/nowhere"
grep -q "x.npy: cannot open file" "$tmp/err" || { echo "FAIL missing-input message"; cat "$tmp/err"; fails=$((fails + 1)); }
# -d cuda: runs on a GPU, or says why not and exits 2 (never a silent CPU fallback)
"$shlo" run "$tmp/add.mlir" -d cuda --random-inputs 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ]; then
  grep -q -- "--domain cuda: .*CUDA" "$tmp/err" && echo "ok   run -d cuda without a device exits 2" ||
    { echo "FAIL run -d cuda message"; cat "$tmp/err"; fails=$((fails + 1)); }
elif [ "$rc" = 0 ]; then echo "ok   run -d cuda on a device"; else echo "FAIL run -d cuda: exit $rc"; fails=$((fails + 1)); fi
check "run -d cuda-host" 0 "$shlo" run "$tmp/add.mlir" -d cuda-host --random-inputs 4 --out "$tmp/o3"
check "run -d cuda-host --timing" 0 "$shlo" run "$tmp/add.mlir" -d cuda-host --random-inputs 4 --timing
grep -q -- "--timing: the CUDA backends do not time ops one by one" "$tmp/out" || { echo "FAIL --timing on cuda-host said nothing"; cat "$tmp/out"; fails=$((fails + 1)); }
check "run -d f32 --timing has no such line" 0 "$shlo" run "$tmp/add.mlir" -d f32 --random-inputs 4 --timing
grep -q -- "--timing: the CUDA backends" "$tmp/out" && { echo "FAIL --timing's CUDA line on f32"; fails=$((fails + 1)); }
check "check the host path's outputs" 0 "$shlo" check "$tmp/add.mlir" --inputs "$tmp/o3/inputs" --outputs "$tmp/o3" --profile cuda
# shlo check's verdicts and exit statuses: 3 IMPROBABLE, 4 NO VERDICT, 2 bad input.
# A sum of 4096 ones (x * 0 + 1: exact terms): 4096 + 0.5 lies within the sound bound (about
# 1) but outside the statistical one (about 0.13).
cat >"$tmp/ones.mlir" <<'MLIR'
module @m {
  func.func @f(%x: tensor<4096xf32>) -> tensor<f32> {
    %zero = stablehlo.constant dense<0.0> : tensor<4096xf32>
    %one = stablehlo.constant dense<1.0> : tensor<4096xf32>
    %t = stablehlo.multiply %x, %zero : tensor<4096xf32>
    %o = stablehlo.add %t, %one : tensor<4096xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%o init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    return %s : tensor<f32>
  }
}
MLIR
check "run the sum of ones" 0 "$shlo" run "$tmp/ones.mlir" -d f32 --random-inputs 1 --out "$tmp/ones"
check "check the sum of ones" 0 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones"
check "check the sum of ones with the sampled tier" 0 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --sampled
grep -q "sampled tier: 64 tangent passes" "$tmp/out" && grep -q "half for the sampled tier" "$tmp/out" ||
  { echo "FAIL --sampled in the report's head"; cat "$tmp/out"; fails=$((fails + 1)); }
check "--sampled --json" 0 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --sampled --json
grep -q '"sampled": {' "$tmp/out" || { echo "FAIL --sampled in the JSON"; cat "$tmp/out"; fails=$((fails + 1)); }
# --allow FUNCTION=ULPS: said in the report's head; a bad one is bad input, exit 2, named.
check "--allow sets an allowance" 0 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --allow exp=2.5,log=4
grep -q "profile ieee with exp 2.5, log 4 (ulps, set by hand)" "$tmp/out" || { echo "FAIL --allow in the report"; cat "$tmp/out"; fails=$((fails + 1)); }
check "--allow of an unknown function is refused" 2 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --allow cosh=2
grep -q "no allowance for 'cosh' (expected one of div sqrt rsqrt exp log tanh logistic)" "$tmp/err" || { echo "FAIL --allow cosh message"; cat "$tmp/err"; fails=$((fails + 1)); }
check "--allow without ulps is refused" 2 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --allow exp
check "--allow below half an ulp is refused" 2 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --allow exp=0.4
check "--allow with trailing text is refused" 2 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --allow exp=2x
hlen=$(od -An -tu2 -j8 -N2 "$tmp/ones/result0.npy" | tr -d ' ')
printf '\x00\x04\x80\x45' | dd of="$tmp/ones/result0.npy" bs=1 seek=$((10 + hlen)) conv=notrunc status=none  # 4096.5
check "an output outside the statistical bound is IMPROBABLE, exit 3" 3 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones"
grep -q "IMPROBABLE" "$tmp/out" && grep -q "probability <=" "$tmp/out" || { echo "FAIL improbable report"; cat "$tmp/out"; fails=$((fails + 1)); }
check "outside both statistical bounds with --sampled, exit 3" 3 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --sampled
check "a larger --delta cannot make it pass" 3 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --delta 0.01
check "a tiny --delta widens the statistical bound" 0 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --delta 1e-300
check "--delta 0 is refused" 2 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones" --delta 0
printf '\x00\x10\x80\x45' | dd of="$tmp/ones/result0.npy" bs=1 seek=$((10 + hlen)) conv=notrunc status=none  # 4098
check "an output outside the sound bound FAILs, exit 1" 1 "$shlo" check "$tmp/ones.mlir" --inputs "$tmp/ones/inputs" --outputs "$tmp/ones"
# exp(88.5) + exp(88.5) overflows float32: an infinite bound is NO VERDICT, never PASS.
cat >"$tmp/exp.mlir" <<'MLIR'
module @m {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = stablehlo.exponential %x : tensor<4xf32>
    %h = stablehlo.add %e, %e : tensor<4xf32>
    return %h : tensor<4xf32>
  }
}
MLIR
check "run exp near overflow" 0 "$shlo" run "$tmp/exp.mlir" -d f32 --random-inputs 2 --range 88.5,88.7 --out "$tmp/exp"
check "an infinite bound is NO VERDICT, exit 4" 4 "$shlo" check "$tmp/exp.mlir" --inputs "$tmp/exp/inputs" --outputs "$tmp/exp"
grep -q "NO VERDICT" "$tmp/out" && ! grep -q "PASS" "$tmp/out" && grep -q "exp.mlir:4:.*%h = stablehlo.add" "$tmp/out" ||
  { echo "FAIL no-verdict report"; cat "$tmp/out"; fails=$((fails + 1)); }
# A NaN input names the file and the argument.
printf '\x00\x00\xc0\x7f' | dd of="$tmp/o3/inputs/x.npy" bs=1 seek=$(( $(od -An -tu2 -j8 -N2 "$tmp/o3/inputs/x.npy" | tr -d ' ') + 10 )) conv=notrunc status=none
check "a NaN input is bad input, exit 2" 2 "$shlo" check "$tmp/add.mlir" --inputs "$tmp/o3/inputs" --outputs "$tmp/o3"
grep -q "x.npy: element \[0\] of input %x is NaN" "$tmp/err" || { echo "FAIL NaN input message"; cat "$tmp/err"; fails=$((fails + 1)); }
# shlo check on 2 replicas: an all_reduce whose per-replica outputs are read from r0/, r1/
cat >"$tmp/ar.mlir" <<'MLIR'
module @m {
  func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %s : tensor<3xf32>
  }
}
MLIR
check "run on 2 replicas" 0 "$shlo" run "$tmp/ar.mlir" -d f32 -r 2 --random-inputs 9 --out "$tmp/ar"
mkdir -p "$tmp/ar_in" && ln -s "$tmp/ar/r0/inputs" "$tmp/ar_in/r0" && ln -s "$tmp/ar/r1/inputs" "$tmp/ar_in/r1"
check "check on 2 replicas" 0 "$shlo" check "$tmp/ar.mlir" -r 2 --inputs "$tmp/ar_in" --outputs "$tmp/ar"
[ "$(grep -c PASS "$tmp/out")" -ge 2 ] || { echo "FAIL one row per replica"; cat "$tmp/out"; fails=$((fails + 1)); }
check "check on 2 replicas, inputs where run saved them" 0 "$shlo" check "$tmp/ar.mlir" -r 2 --inputs "$tmp/ar" --outputs "$tmp/ar"
cp -r "$tmp/ar" "$tmp/ar2" && rm "$tmp/ar2/r1/result0.npy"
check "check on 2 replicas, one replica's output missing" 2 "$shlo" check "$tmp/ar.mlir" -r 2 --inputs "$tmp/ar_in" --outputs "$tmp/ar2"
grep -q "output %s of replica 1" "$tmp/err" || { echo "FAIL missing replica output not named"; cat "$tmp/err"; fails=$((fails + 1)); }
check "bad domain exits 2" 2 "$shlo" run "$tmp/add.mlir" -d float --random-inputs 1
check "no inputs given exits 2" 2 "$shlo" run "$tmp/add.mlir"
if [ -d "$artifacts" ]; then
  check "data-parallel artifact on 2 replicas" 0 "$shlo" run "$artifacts/cifar8_adamdp_train_step.mlir" -d f32 -r 2 --random-inputs 1 --range 0,0.01 --out "$tmp/dp"
  [ -f "$tmp/dp/r1/result0.npy" ] && [ -f "$tmp/dp/r1/inputs/x.npy" ] || { echo "FAIL per-replica files"; fails=$((fails + 1)); }
  check "all_reduce on 1 replica is refused" 1 "$shlo" run "$artifacts/cifar8_adamdp_train_step.mlir" -d f32 --random-inputs 1
  grep -q -- "--replicas 2" "$tmp/err" || { echo "FAIL replica message"; cat "$tmp/err"; fails=$((fails + 1)); }
  # shlo check: an artifact's own f32 outputs pass; one element moved far away fails, named.
  lf="$artifacts/linear_fwd.mlir"
  check "f32 run for check" 0 "$shlo" run "$lf" -d f32 --random-inputs 3 --range 0,0.1 --out "$tmp/lf"
  check "check own f32 outputs" 0 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf" --report "$tmp/lf.html"
  grep -q "PASS" "$tmp/out" || { echo "FAIL check verdict"; cat "$tmp/out"; fails=$((fails + 1)); }
  grep -q "<svg" "$tmp/lf.html" || { echo "FAIL html report without histograms"; fails=$((fails + 1)); }
  cp "$tmp/lf/result0.npy" "$tmp/lf/orig.npy"
  hlen=$(od -An -tu2 -j8 -N2 "$tmp/lf/result0.npy" | tr -d ' ')
  # element [3, 4] of the 128x10 result (flat 34) becomes 1e30 (0x7149F2CA, little-endian)
  printf '\xca\xf2\x49\x71' | dd of="$tmp/lf/result0.npy" bs=1 seek=$((10 + hlen + 4 * 34)) conv=notrunc status=none
  check "check a perturbed output fails" 1 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf"
  grep -q "FAIL" "$tmp/out" && grep -q "\[3, 4\]" "$tmp/out" || { echo "FAIL perturbed index not named"; cat "$tmp/out"; fails=$((fails + 1)); }
  check "check --json" 1 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf" --json
  grep -q '"verdict": "FAIL"' "$tmp/out" && grep -q '"over_bound": 1' "$tmp/out" || { echo "FAIL json"; cat "$tmp/out"; fails=$((fails + 1)); }
  rm "$tmp/lf/result0.npy"
  check "check with a missing output exits 2" 2 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf"
  grep -q "result0.npy" "$tmp/err" || { echo "FAIL missing output not named"; cat "$tmp/err"; fails=$((fails + 1)); }
  check "check with a bad profile exits 2" 2 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf" --profile fast
  cp "$tmp/lf/inputs/b0.npy" "$tmp/lf/result0.npy"
  check "check with a misshaped output exits 2" 2 "$shlo" check "$lf" --inputs "$tmp/lf/inputs" --outputs "$tmp/lf"
  grep -q "result0.npy: shape is 10," "$tmp/err" || { echo "FAIL misshaped output message"; cat "$tmp/err"; fails=$((fails + 1)); }
  # shlo agree: den of the lifted nodes against the text, on saved or drawn inputs; the control
  # runs a text with one operand changed against the original's lift.
  check "agree in f64 on saved inputs" 0 "$shlo" agree "$lf" -d f64 --inputs "$tmp/lf/inputs"
  grep -q "^0 .*%v2 .*addBcast .*PASS" "$tmp/out" && grep -q "values compared: 2 " "$tmp/out" || { echo "FAIL agree rows"; cat "$tmp/out"; fails=$((fails + 1)); }
  check "agree exactly" 0 "$shlo" agree "$lf" -d exact --random-inputs 5 --range -1,1
  sed 's/stablehlo.add %v0, %v1/stablehlo.add %v1, %v1/' "$lf" >"$tmp/lf_wrong.mlir"
  check "agree: a changed operand fails" 1 "$shlo" agree "$lf" -d exact --random-inputs 5 --run-instead "$tmp/lf_wrong.mlir"
  grep -q "first disagreement: %v2 = addBcast at .*linear_fwd.mlir:5" "$tmp/out" || { echo "FAIL agree failure not located"; cat "$tmp/out"; fails=$((fails + 1)); }
  check "agree in interval:64" 0 "$shlo" agree "$lf" -d interval:64 --random-inputs 5 --range -1,1
  grep -q "^0 .*%v2 .*addBcast .*PASS" "$tmp/out" || { echo "FAIL agree interval rows"; cat "$tmp/out"; fails=$((fails + 1)); }
  check "agree in interval:64: a changed operand fails" 1 "$shlo" agree "$lf" -d interval:64 --random-inputs 5 --run-instead "$tmp/lf_wrong.mlir"
  grep -q "first disagreement: %v2 = addBcast at .*linear_fwd.mlir:5.*(disjoint)" "$tmp/out" || { echo "FAIL agree interval failure not located"; cat "$tmp/out"; fails=$((fails + 1)); }
  check "agree in mpfr is refused" 2 "$shlo" agree "$lf" -d mpfr:64 --random-inputs 1
  grep -q "use --domain interval:64" "$tmp/err" || { echo "FAIL agree mpfr refusal says why"; cat "$tmp/err"; fails=$((fails + 1)); }
  check "agree without inputs exits 2" 2 "$shlo" agree "$lf"
  check "agree with a missing input exits 2" 2 "$shlo" agree "$lf" --inputs "$tmp/nowhere"
  grep -q "x.npy" "$tmp/err" || { echo "FAIL agree missing input not named"; cat "$tmp/err"; fails=$((fails + 1)); }
  check "run --timing" 0 "$shlo" run "$lf" -d f64 --random-inputs 1 --timing
  grep -q "GFLOP/s" "$tmp/out" || { echo "FAIL run --timing table"; cat "$tmp/out"; fails=$((fails + 1)); }
  grep -q "serial fraction" "$tmp/out" || { echo "FAIL run --timing serial fraction"; cat "$tmp/out"; fails=$((fails + 1)); }
  grep -Eq "^wall time: parse [0-9.]+ s, heap touch [0-9.]+ s \(inputs drawn or read alongside\), inputs [0-9.]+ s in all, ops [0-9.]+ s, outputs [0-9.]+ s$" "$tmp/out" ||
    { echo "FAIL run --timing wall time of the steps"; cat "$tmp/out"; fails=$((fails + 1)); }
  # The slowest instructions: each row's file:line:column holds the op the row names (the
  # control: the row is checked against a line of the file, which a wrong location fails).
  grep -q "^slowest [0-9]* of [0-9]* instructions run" "$tmp/out" || { echo "FAIL run --timing slowest list"; cat "$tmp/out"; fails=$((fails + 1)); }
  rows=0
  while read -r where op _; do
    line=$(echo "$where" | awk -F: '{print $(NF-1)}')
    rows=$((rows + 1))
    sed -n "${line}p" "$lf" | grep -q "stablehlo.$op" || { echo "FAIL run --timing: $where is not a $op"; fails=$((fails + 1)); }
  done < <(sed -n '/^slowest/,$p' "$tmp/out" | grep "^  .*\.mlir:[0-9]*:[0-9]* ")
  [ "$rows" -ge 3 ] || { echo "FAIL run --timing: $rows slowest rows"; cat "$tmp/out"; fails=$((fails + 1)); }
  # shlo rebatch: the printer's batch variant, checked by agree; a batch of 0 is refused.
  check "rebatch to 8" 0 "$shlo" rebatch "$lf" 8 -o "$tmp/lf8.mlir"
  grep -q "batch 128 -> 8; retyped: %x" "$tmp/err" && grep -q "%x: tensor<8x784xf32>" "$tmp/lf8.mlir" ||
    { echo "FAIL rebatch"; cat "$tmp/err"; fails=$((fails + 1)); }
  check "agree on the rebatched program" 0 "$shlo" agree "$tmp/lf8.mlir" -d exact --random-inputs 5
  check "rebatch to 0 exits 2" 2 "$shlo" rebatch "$lf" 0
  check "rebatch of a program the printer did not write exits 1" 1 "$shlo" rebatch "$tmp/add.mlir" 8
  grep -q "add.mlir: rebatch: no instruction is a printer constructor's" "$tmp/err" || { echo "FAIL rebatch refusal message"; cat "$tmp/err"; fails=$((fails + 1)); }
  check "run --profile is gone (check --profile is the accuracy profile)" 2 "$shlo" run "$lf" -d f64 --random-inputs 1 --profile
else
  echo "skip artifact checks: $artifacts is absent"
fi
# shlo test (the check dialect) and shlo run on functions without arguments
cat >"$tmp/checks.mlir" <<'MLIR'
func.func @sums() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.add %a, %a : tensor<2xf32>
  check.expect_eq_const %b, dense<[2.0, 4.0]> : tensor<2xf32>
  func.return
}
MLIR
check "test: every check passes, exit 0" 0 "$shlo" test "$tmp/checks.mlir"
grep -qx "PASS sums" "$tmp/out" || { echo "FAIL test PASS line"; cat "$tmp/out"; fails=$((fails + 1)); }
sed 's/dense<\[2.0, 4.0\]>/dense<[2.0, 5.0]>/' "$tmp/checks.mlir" >"$tmp/checks_fail.mlir"
check "test: a failed check exits 1" 1 "$shlo" test "$tmp/checks_fail.mlir"
grep -qx "FAIL sums: check.expect_eq_const at line 4: index \[1\], got 4, expected 5" "$tmp/out" ||
  { echo "FAIL test FAIL line"; cat "$tmp/out"; fails=$((fails + 1)); }
check "test: in exact arithmetic the expected values are exact" 0 "$shlo" test -d exact "$tmp/checks.mlir"
grep -qx "PASS sums (expected values are the exact results)" "$tmp/out" || { echo "FAIL test exact note"; cat "$tmp/out"; fails=$((fails + 1)); }
printf 'func.func @f() {\n  %%a = stablehlo.nope\n}\n' >"$tmp/checks_bad.mlir"
check "test: bad input exits 2" 2 "$shlo" test "$tmp/checks_bad.mlir"
grep -q "checks_bad.mlir:2:" "$tmp/out" || { echo "FAIL test bad input not located"; cat "$tmp/out"; fails=$((fails + 1)); }
check "test: a missing file exits 2" 2 "$shlo" test "$tmp/nowhere.mlir"
cat >"$tmp/lapack.mlir" <<'MLIR'
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  stablehlo.custom_call @lapack_sgetrf(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  return
}
MLIR
check "test: a custom call outside the check targets is refused, exit 2" 2 "$shlo" test "$tmp/lapack.mlir"
grep -q "lapack.mlir:3:3: unsupported custom call target 'lapack_sgetrf'" "$tmp/out" ||
  { echo "FAIL test custom call refusal"; cat "$tmp/out"; fails=$((fails + 1)); }
cat >"$tmp/two.mlir" <<'MLIR'
module @two attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @first() -> (tensor<f32> {jax.result_info = ""}) {
    %c = stablehlo.constant dense<1.5> : tensor<f32>
    %0 = call @double(%c) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func public @second() -> tensor<f32> {
    %c = stablehlo.constant dense<2.5> : tensor<f32>
    return %c : tensor<f32>
  }
  func.func private @double(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %x, %x : tensor<f32>
    return %0 : tensor<f32>
  }
}
MLIR
check "run: two public functions and no main need --function" 2 "$shlo" run "$tmp/two.mlir"
grep -q "choose one with --function NAME" "$tmp/err" || { echo "FAIL run ambiguous entry message"; cat "$tmp/err"; fails=$((fails + 1)); }
check "run --function without arguments needs no inputs" 0 "$shlo" run "$tmp/two.mlir" --function first -d exact --out "$tmp/o_two"
grep -qx "3" "$tmp/o_two/result0.txt" || grep -q "^3$" "$tmp/o_two/result0.txt" || { echo "FAIL run --function value"; cat "$tmp/o_two/result0.txt"; fails=$((fails + 1)); }
check "run --function of a missing function exits 2" 2 "$shlo" run "$tmp/two.mlir" --function third
[ "$fails" = 0 ] && echo "cli: all passed" || echo "cli: $fails failed"
[ "$fails" = 0 ]
