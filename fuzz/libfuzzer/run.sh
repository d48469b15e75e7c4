#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each on its seed corpus.
#   fuzz/libfuzzer/run.sh BUILD_DIR RUNS [libFuzzer flags...]
# RUNS: executions per target (the fuzz_smoke test uses a short fixed number); -1 runs until a
# flag such as -max_total_time=3600 stops it. New inputs accumulate in BUILD_DIR/corpus/<target>,
# findings are written to BUILD_DIR/findings/. Extra parse seeds: the printer's artifacts, when
# SHLO_ARTIFACTS_DIR (default ../shared/artifacts/lean4-mlir beside the checkout) exists, and the
# chunks of tests/shlo_test/**/*.mlir (cut at each `// -----` line, as `shlo test` reads them).
# SHLO_FUZZ_TARGETS (default "parse npy corpus_json") picks the targets, e.g. one long campaign.
# Exit 0: nothing found; 1: a target crashed (the reproducer is in BUILD_DIR/findings/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR RUNS [libFuzzer flags...]}
runs=${2:?usage: run.sh BUILD_DIR RUNS [libFuzzer flags...]}
shift 2
cxx=${SHLO_FUZZ_CXX:-clang++}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=None "${launcher[@]}" >/dev/null
targets=(${SHLO_FUZZ_TARGETS:-parse npy corpus_json})
cmake --build "$build" -j "${JOBS:-2}" --target "${targets[@]/%/_fuzzer}" >/dev/null
artifacts=${SHLO_ARTIFACTS_DIR:-$root/../shared/artifacts/lean4-mlir}
mkdir -p "$build/findings"
# One seed per chunk of the shlo test files: the generic ops, calls, checks and hex literals.
test_seeds="$build/seeds/shlo_test"
rm -rf "$test_seeds" && mkdir -p "$test_seeds"
find "$root/tests/shlo_test" -name '*.mlir' | while read -r file; do
  awk -v out="$test_seeds/$(basename "$(dirname "$file")")_$(basename "$file" .mlir)" \
    '/^[ \t]*\/\/ -----[ \t]*$/ { ++chunk; next } { print > (out "_" chunk+0 ".mlir") }' "$file"
done
status=0
for target in "${targets[@]}"; do
  work="$build/corpus/$target"
  mkdir -p "$work"
  seeds=("$here/seeds/$target")
  [ "$target" = parse ] && seeds+=("$test_seeds")
  [ "$target" = parse ] && [ -d "$artifacts" ] && seeds+=("$artifacts")
  [ "$target" = corpus_json ] && seeds+=("$root/corpus")
  start=$(date +%s)
  if "$build/${target}_fuzzer" -runs="$runs" -dict="$here/$target.dict" -timeout=20 -max_len=65536 \
       -artifact_prefix="$build/findings/${target}-" -print_final_stats=1 "$@" "$work" "${seeds[@]}" \
       >"$build/$target.log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$target.log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz $target: $execs executions in $(( $(date +%s) - start )) s, nothing found"
  else
    echo "fuzz $target: FOUND a crash; the last lines of $build/$target.log:"
    tail -40 "$build/$target.log"
    status=1
  fi
done
exit $status
