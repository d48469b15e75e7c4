#!/usr/bin/env bash
# all_reduce with two operands and with a body of several ops, as MPI ranks against the
# in-process run: the output files must be the same byte for byte (f32, exact), and a control
# with another fold (a one-op body) must give other files. Usage: mpi_variadic_test.sh SHLO MPIRUN
set -u
shlo=$1
mpirun=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
mpi=("$mpirun" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

program() {  # program BODY_OP SECOND: two operands; the body is `BODY_OP` then `SECOND` (or only BODY_OP)
  local tail="      stablehlo.return %z : tensor<f32>"
  [ -n "$2" ] && tail="      %w = stablehlo.$2 %z, %x : tensor<f32>
      stablehlo.return %w : tensor<f32>"
  cat <<MLIR
module @m {
  func.func @f(%a: tensor<3xf32>, %b: tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>) {
    %r:2 = "stablehlo.all_reduce"(%a, %b) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %z = stablehlo.$1 %x, %y : tensor<f32>
$tail
    }) { replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64> } : (tensor<3xf32>, tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>)
    return %r#0, %r#1 : tensor<3xf32>, tensor<2x2xf32>
  }
}
MLIR
}
# (x - y) - x = -y would be order-blind; (x - y) * x is not: the body of several ops.
program subtract multiply >"$tmp/many.mlir"
program subtract "" >"$tmp/one.mlir"
for d in f32 exact; do
  "$shlo" run "$tmp/many.mlir" -r 4 -d "$d" --random-inputs 3 --range -2,2 --out "$tmp/$d-one" >"$tmp/one.txt" 2>&1 ||
    { echo "FAIL in-process run $d"; cat "$tmp/one.txt"; fails=$((fails + 1)); continue; }
  "${mpi[@]}" -np 4 "$shlo" run "$tmp/many.mlir" --mpi -d "$d" --random-inputs 3 --range -2,2 --out "$tmp/$d-mpi" >"$tmp/mpi.txt" 2>&1 ||
    { echo "FAIL mpirun -np 4 $d"; cat "$tmp/mpi.txt"; fails=$((fails + 1)); continue; }
  if [ "$(find "$tmp/$d-mpi" -name 'result*.npy' | wc -l)" = 8 ] && diff -r "$tmp/$d-one" "$tmp/$d-mpi" >/dev/null; then
    echo "ok   two operands, body of two ops, R=4 $d: identical"
  else
    echo "FAIL two operands R=4 $d: the MPI run's outputs differ or are missing"; diff -r "$tmp/$d-one" "$tmp/$d-mpi" | head
    fails=$((fails + 1))
  fi
done
# Control: the one-op body folds to other values, so the comparison can see a difference.
if ! "$shlo" run "$tmp/one.mlir" -r 4 -d exact --random-inputs 3 --range -2,2 --out "$tmp/control" >"$tmp/control.txt" 2>&1; then
  echo "FAIL the control run"; cat "$tmp/control.txt"; fails=$((fails + 1))
elif diff -rq "$tmp/exact-one" "$tmp/control" >/dev/null; then
  echo "FAIL the control: another body gave the same files"; fails=$((fails + 1))
else
  echo "ok   control: the one-op body gives other files"
fi

[ "$fails" = 0 ] && echo "all variadic MPI tests passed" || { echo "$fails variadic MPI test(s) failed"; exit 1; }
