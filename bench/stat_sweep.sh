#!/usr/bin/env bash
# The large sweep of honest float32 evaluations against the statistical tier: every program of
# the first ladder and the two convolutional programs at a test's scale, small_conv and
# small_cnn_train_step (or NAMES), inputs in [-1, 1), [-0.1, 0.1) and [0, 0.01), SEEDS seeds each
# (default 10); per draw, the four summation orders and the CUDA host path, each checked under
# `--profile ieee`. Prints per program and range the checks run, those with NO VERDICT
# (overflow or a negative square root on such inputs), and the worst error over the
# statistical bound (IMPROBABLE would be above 1). The hidden test "[.stat_sweep]" in
# tests/test_stat_tier.cpp; it fails if any evaluation is IMPROBABLE or FAIL.
# SAMPLED=1 judges with the sampled tier too (`shlo check --sampled`); BATCH=B rebatches each
# artifact to B examples first (`shlo rebatch`: the sampled tier holds about 1 KB per element,
# so full-size train steps do not fit a small machine).
# RANGES="-1,1 ..." sweeps those input ranges only.
#   SEEDS=N [SAMPLED=1] [BATCH=8] [RANGES="LO,HI ..."] bash bench/stat_sweep.sh [BUILD_DIR] [NAMES...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift 1 2>/dev/null || true
dir=
if [ -n "${BATCH:-}" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  artifacts=${ARTIFACTS:-$root/../shared/artifacts/lean4-mlir}
  for name in ${*:-linear_fwd linear_train_step mlp_fwd mlp_train_step cnn_fwd cifar_fwd cifar8_fwd cifar8_bn_fwd cnn_train_step \
              cifar8_train_step cifar8_mom_train_step cifar8_adam_train_step cifar8_adamdp_train_step}; do
    [ -f "$artifacts/$name.mlir" ] || continue
    "$build/shlo" rebatch "$artifacts/$name.mlir" "$BATCH" -o "$dir/$name.mlir" 2>/dev/null ||
      echo "$name: not rebatched, swept at full size" >&2
  done
fi
SHLO_SWEEP_SEEDS="${SEEDS:-10}" SHLO_SWEEP_RANGES="${RANGES:-}" SHLO_SWEEP_PROGRAMS="${*:-}" SHLO_SWEEP_SAMPLED="${SAMPLED:-0}" SHLO_SWEEP_DIR="$dir" \
  "$build/tests/shlo_tests" "[.stat_sweep]"
