#!/usr/bin/env bash
# Runs every artifact of ../shared/artifacts on the GPU on random inputs, checks the float32
# outputs with `shlo check --profile cuda`, times the GPU run against the f32 CPU run, and
# prints one table. Meant to be run once on a machine with an NVIDIA GPU (about 5 minutes on
# 16 cores: the build, then per artifact a GPU run, a CPU run and the bound analysis).
#
#   bash scripts/gpu-check.sh            build with CUDA (architecture 90, or CUDA_ARCH=NN), run
#   bash scripts/gpu-check.sh --host     the same with the kernels' host path (no GPU needed)
#   ARTIFACTS="linear_fwd cnn_fwd" bash scripts/gpu-check.sh    a subset
# Exit: 0 all PASS, 1 some FAIL or error, 77 no GPU (without --host).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-cuda}
artifacts_dir=${ARTIFACTS_DIR:-$root/../shared/artifacts/lean4-mlir}
domain=cuda
[ "${1:-}" = "--host" ] && domain=cuda-host
range=${RANGE:-0,0.01}

export PATH="$PATH:/usr/local/cuda/bin"
echo "== build ($build)"
mkdir -p "$build"
log=$build/gpu-check-build.log
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSHLO_BUILD_BENCH=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" --target shlo cuda_device_test >>"$log" 2>&1 ||
  { echo "build failed: see $log"; tail -20 "$log"; exit 1; }
grep -m1 "CUDA:" "$log" || true
shlo=$build/shlo

if [ "$domain" = cuda ]; then
  echo "== kernels on the device against the host path and the cuda-profile bound"
  "$build/tests/cuda_device_test"
  rc=$?
  [ "$rc" = 77 ] && { echo "no GPU here: run with --host to exercise the host path"; exit 77; }
  [ "$rc" = 0 ] || echo "cuda_device_test FAILED"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list=${ARTIFACTS:-$(cd "$artifacts_dir" && ls *.mlir | sed 's/\.mlir$//')}
printf '\n%-28s %3s %10s %10s %8s %8s %12s %12s\n' artifact R "$domain s" "f32 s" speedup verdict "median e/b" "worst e/b"
status=0
seconds() { sed -n 's/.*replica(s): \([0-9.]*\) s$/\1/p' "$1" | head -1; }
for a in $list; do
  file=$artifacts_dir/$a.mlir
  R=1
  grep -q all_reduce "$file" && R=2
  gpu=$work/$a/gpu cpu=$work/$a/cpu
  if ! "$shlo" run "$file" -d "$domain" -r "$R" --random-inputs 1 --range "$range" --out "$gpu" >"$work/$a.gpu.log" 2>&1; then
    printf '%-28s %3s %s\n' "$a" "$R" "run failed: $(tail -1 "$work/$a.gpu.log")"; status=1; continue
  fi
  in=$gpu/inputs
  [ "$R" = 1 ] || in=$gpu  # per replica: $gpu/r<k>/inputs
  "$shlo" run "$file" -d f32 -r "$R" --inputs "$in" --out "$cpu" >"$work/$a.cpu.log" 2>&1
  "$shlo" check "$file" -r "$R" --inputs "$in" --outputs "$gpu" --profile cuda --json >"$work/$a.json" 2>"$work/$a.check.err"
  rc=$?
  verdict=$(sed -n 's/^  "verdict": "\([^"]*\)",\?$/\1/p' "$work/$a.json" | tr ' ' _)  # PASS FAIL IMPROBABLE NO_VERDICT
  [ "$verdict" = PASS ] || { verdict=${verdict:-FAIL}; status=1; }
  [ "$rc" = 2 ] && verdict="ERROR($(tail -1 "$work/$a.check.err" | cut -c1-60))"
  median=$(sed -n 's/^  "median_error_over_bound": \([^,]*\),\?$/\1/p' "$work/$a.json")
  worst=$(sed -n 's/^  "worst_error_over_bound": \([^,]*\),\?$/\1/p' "$work/$a.json")
  tg=$(seconds "$work/$a.gpu.log") tc=$(seconds "$work/$a.cpu.log")
  speed=$(awk -v g="$tg" -v c="$tc" 'BEGIN { if (g > 0) printf "%.1fx", c / g; else print "-" }')
  printf '%-28s %3s %10s %10s %8s %8s %12.4g %12.4g\n' "$a" "$R" "$tg" "$tc" "$speed" "$verdict" "${median:-0}" "${worst:-0}"
done
exit $status
