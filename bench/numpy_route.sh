#!/usr/bin/env bash
# `shlo check` on float32 outputs that another implementation computed: NumPy (the system
# BLAS for the products, im2col convolutions), bench/numpy_route.py: linear_fwd, mlp_fwd,
# cnn_fwd, linear_train_step, mlp_train_step. Per program, input range
# and seed: `shlo run --random-inputs SEED --range R` draws the inputs (and computes the
# interpreter's float32 outputs, for comparison), numpy_route.py computes five variants, and
# each is checked under --profile ieee (and the TF32 / bf16 variants under their own profile
# too). Prints one row per check: verdict, worst error over the statistical bound, worst error
# over the sound bound, and how many elements differ from the interpreter's float32 outputs.
# Expected: the honest variants (f32, pairwise, f64once) PASS under ieee; tf32 and bf16 are
# IMPROBABLE or FAIL under ieee and PASS under their own profile. Needs python3 with numpy
# (Debian: python3-numpy); a benchmark of the tier, not a test (it needs numpy, and the
# tests already hold an independent route of their own).
#   bench/numpy_route.sh [BUILD_DIR] [PROGRAMS...]     SEEDS="1 2 3" RANGES="-1,1 -0.1,0.1 0,0.01"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift 1 2>/dev/null || true
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(linear_fwd mlp_fwd cnn_fwd linear_train_step mlp_train_step)
artifacts=${ARTIFACTS:-$root/../shared/artifacts/lean4-mlir}
python=${PYTHON:-/usr/bin/python3}
"$python" -c "import numpy" 2>/dev/null || { echo "numpy_route.sh: $python has no numpy (apt-get install python3-numpy)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary() {  # verdict, worst error over the statistical bound, over the sound bound
  "$python" -c '
import json, sys
d = json.load(sys.stdin)
print(d["verdict"], "%.3g" % (d["worst_error_over_statistical_bound"] or 0), "%.3g" % (d["worst_error_over_bound"] or 0))'
}
differs() {  # elements of the result<i>.npy files of two folders that differ bit for bit
  "$python" "$root/bench/npy_differ.py" "$1" "$2"
}
printf "%-11s %-10s %4s  %-8s %-7s %-11s %10s %10s %9s\n" program range seed variant profile verdict "stat ratio" "sound ratio" "differ"
for p in "${programs[@]}"; do
  file=$artifacts/$p.mlir
  for range in ${RANGES:--1,1 -0.1,0.1 0,0.01}; do
    for seed in ${SEEDS:-1 2 3}; do
      d=$work/$p-$range-$seed
      "$build/shlo" run "$file" -d f32 --random-inputs "$seed" --range "$range" --out "$d/run" >/dev/null
      "$python" "$root/bench/numpy_route.py" "$p" "$d/run/inputs" "$d/np"
      for v in f32 pairwise f64once tf32 bf16; do
        profiles=(ieee)
        [ "$v" = tf32 ] && profiles+=(tf32)
        [ "$v" = bf16 ] && profiles+=(bf16)
        n=$(differs "$d/run" "$d/np/$v")
        for prof in "${profiles[@]}"; do
          set +e
          "$build/shlo" check "$file" -i "$d/run/inputs" -o "$d/np/$v" -p "$prof" --no-profile-search --json >"$d/check.json" 2>/dev/null
          rc=$?
          set -e
          [ $rc -le 4 ] && [ $rc -ne 2 ] || { echo "shlo check failed ($rc) on $p $range $seed $v $prof" >&2; exit 1; }
          read -r verdict stat sound < <(summary <"$d/check.json")
          printf "%-11s %-10s %4s  %-8s %-7s %-11s %10s %10s %9s\n" "$p" "[$range)" "$seed" "$v" "$prof" "$verdict" "$stat" "$sound" "$n"
        done
      done
    done
  done
done
