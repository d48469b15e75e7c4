#!/usr/bin/env bash
# Replicas as MPI ranks: `mpirun -np R shlo run --mpi` writes the same output files, byte for
# byte, as `shlo run -r R` in one process, in f32, f64, exact and interval (whose .txt files
# hold the exact values and enclosures), for R = 2 and 4, with two all_reduce group layouts.
# Usage: mpi_test.sh SHLO MPIRUN
set -u
shlo=$1
mpirun=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# Oversubscribed (R ranks on fewer cores); as root where CI runs as root.
mpi=("$mpirun" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

program() {  # program R: a product, a sum over every replica, a max over pairs {r, r + R/2}
  local R=$1 all="" pairs="" half=$(($1 / 2))
  for ((r = 0; r < R; r++)); do all+="${r:+}$([ $r -gt 0 ] && echo ", ")$r"; done
  for ((r = 0; r < half; r++)); do pairs+="$([ $r -gt 0 ] && echo ", ")[$r, $((r + half))]"; done
  cat <<MLIR
module @m {
  func.func @f(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %s = "stablehlo.all_reduce"(%d) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %z = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %z : tensor<f32>
    }) { replica_groups = dense<[[$all]]> : tensor<1x${R}xi64> } : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %t = stablehlo.constant dense<0.1> : tensor<3x2xf32>
    %e = stablehlo.multiply %d, %t : tensor<3x2xf32>
    %m = "stablehlo.all_reduce"(%e) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %z = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %z : tensor<f32>
    }) { replica_groups = dense<[$pairs]> : tensor<${half}x2xi64> } : (tensor<3x2xf32>) -> tensor<3x2xf32>
    return %s, %m : tensor<3x2xf32>, tensor<3x2xf32>
  }
}
MLIR
}

for R in 2 4; do
  program "$R" >"$tmp/p$R.mlir"
  for d in f32 f64 exact interval:64; do
    in_process="$tmp/$R-$d-one" ranks="$tmp/$R-$d-mpi"
    "$shlo" run "$tmp/p$R.mlir" -r "$R" -d "$d" --random-inputs 3 --range -1,1 --out "$in_process" >"$tmp/one.txt" 2>&1 ||
      { echo "FAIL in-process run R=$R $d"; cat "$tmp/one.txt"; fails=$((fails + 1)); continue; }
    "${mpi[@]}" -np "$R" "$shlo" run "$tmp/p$R.mlir" --mpi -d "$d" --random-inputs 3 --range -1,1 --out "$ranks" >"$tmp/mpi.txt" 2>&1 ||
      { echo "FAIL mpirun -np $R $d"; cat "$tmp/mpi.txt"; fails=$((fails + 1)); continue; }
    if diff -r "$in_process" "$ranks" >/dev/null; then
      echo "ok   R=$R $d: $(find "$ranks" -name 'result*' | wc -l) output files identical"
    else
      echo "FAIL R=$R $d: the MPI run's outputs differ"; diff -r "$in_process" "$ranks" | head; fails=$((fails + 1))
    fi
  done
done
# Integer all_reduce (i32 add, ui8 maximum): integer values travel between the ranks as
# their bit patterns and fold exactly as in one process.
cat >"$tmp/int.mlir" <<'MLIR'
module @m {
  func.func @f(%a: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xui8>) {
    %h = stablehlo.constant dense<1000.0> : tensor<4xf32>
    %s = stablehlo.multiply %a, %h : tensor<4xf32>
    %i = stablehlo.convert %s : (tensor<4xf32>) -> tensor<4xi32>
    %r = "stablehlo.all_reduce"(%i) ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %z = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %z : tensor<i32>
    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<4xi32>) -> tensor<4xi32>
    %u = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xui8>
    %m = "stablehlo.all_reduce"(%u) ({
    ^bb0(%x: tensor<ui8>, %y: tensor<ui8>):
      %z = stablehlo.maximum %x, %y : tensor<ui8>
      stablehlo.return %z : tensor<ui8>
    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<4xui8>) -> tensor<4xui8>
    return %r, %m : tensor<4xi32>, tensor<4xui8>
  }
}
MLIR
for d in f32 exact; do
  "$shlo" run "$tmp/int.mlir" -r 2 -d "$d" --random-inputs 3 --range -1,1 --out "$tmp/int-$d-one" >/dev/null 2>&1 &&
    "${mpi[@]}" -np 2 "$shlo" run "$tmp/int.mlir" --mpi -d "$d" --random-inputs 3 --range -1,1 --out "$tmp/int-$d-mpi" >"$tmp/mpi.txt" 2>&1 &&
    diff -r "$tmp/int-$d-one" "$tmp/int-$d-mpi" >/dev/null && echo "ok   integer all_reduce R=2 $d: identical" ||
    { echo "FAIL integer all_reduce R=2 $d"; cat "$tmp/mpi.txt"; fails=$((fails + 1)); }
done
# Control: the comparison sees a different run (another seed).
"$shlo" run "$tmp/p2.mlir" -r 2 -d exact --random-inputs 4 --range -1,1 --out "$tmp/other" >/dev/null 2>&1
diff -rq "$tmp/2-exact-one" "$tmp/other" >/dev/null && { echo "FAIL the control: another seed gave the same files"; fails=$((fails + 1)); }
# A replica count that disagrees with the ranks is refused.
"${mpi[@]}" -np 2 "$shlo" run "$tmp/p2.mlir" --mpi -r 4 --random-inputs 3 >"$tmp/bad.txt" 2>&1
rc=$?
if [ "$rc" = 0 ] || ! grep -q "but mpirun started 2 ranks" "$tmp/bad.txt"; then
  echo "FAIL --mpi -r 4 on 2 ranks: exit $rc"; cat "$tmp/bad.txt"; fails=$((fails + 1))
else
  echo "ok   --mpi -r 4 on 2 ranks refused"
fi
# shlo dp-check --mpi: DP's replicas on the ranks. A column-mean step: DP sums its 2 rows,
# all-reduces over 2 replicas and divides by the 4 rows of the whole batch; the control divides by 2.
pair() {  # pair DIVISOR
  cat >"$tmp/dp.mlir" <<MLIR
module @m {
  func.func @f(%x: tensor<2x2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %g = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %s = "stablehlo.all_reduce"(%g) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<2xf32>) -> tensor<2xf32>
    %n = stablehlo.constant dense<$1.0> : tensor<2xf32>
    %m = stablehlo.divide %s, %n : tensor<2xf32>
    %w2 = stablehlo.subtract %w, %m : tensor<2xf32>
    return %w2, %g : tensor<2xf32>, tensor<2xf32>
  }
}
MLIR
  sed -e 's/2x2xf32/4x2xf32/g' -e 's/dense<[0-9]*\.0> : tensor<2xf32>/dense<4.0> : tensor<2xf32>/' -e 's/%m = stablehlo.divide %s,/%m = stablehlo.divide %g,/' \
      -e '/all_reduce/,/replica_groups/d' "$tmp/dp.mlir" >"$tmp/full.mlir"
}
pair 4
for d in exact interval:64 f32; do
  "${mpi[@]}" -np 2 "$shlo" dp-check "$tmp/dp.mlir" "$tmp/full.mlir" -r 2 --mpi -d "$d" --random-inputs 5 >"$tmp/dp.txt" 2>&1
  rc=$?
  if [ "$rc" = 0 ] && grep -q "^1 outputs judged, 1 report-only, 0 FAIL" "$tmp/dp.txt" && [ "$(grep -c "outputs judged" "$tmp/dp.txt")" = 1 ]; then
    echo "ok   dp-check --mpi $d passes (one report, from rank 0)"
  else
    echo "FAIL dp-check --mpi $d: exit $rc"; cat "$tmp/dp.txt"; fails=$((fails + 1))
  fi
done
pair 2
"${mpi[@]}" -np 2 "$shlo" dp-check "$tmp/dp.mlir" "$tmp/full.mlir" -r 2 --mpi -d exact --random-inputs 5 >"$tmp/dp.txt" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^1 outputs judged, 1 report-only, 1 FAIL" "$tmp/dp.txt"; then
  echo "ok   dp-check --mpi: the control fails"
else
  echo "FAIL dp-check --mpi control: exit $rc"; cat "$tmp/dp.txt"; fails=$((fails + 1))
fi

[ "$fails" = 0 ] && echo "all MPI tests passed" || { echo "$fails MPI test(s) failed"; exit 1; }
