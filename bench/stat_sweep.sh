#!/usr/bin/env bash
# The large sweep of honest float32 evaluations against the statistical tier: every program of
# the first ladder and the two convolutional programs at a test's scale, small_conv and
# small_cnn_train_step (or NAMES), inputs in [-1, 1), [-0.1, 0.1) and [0, 0.01), SEEDS seeds each
# (default 10); per draw, the four summation orders and the CUDA host path, each checked under
# `--profile ieee`. Prints per program and range the checks run, those with NO VERDICT
# (overflow or a negative square root on such inputs), and the worst error over the
# statistical bound (IMPROBABLE would be above 1). The hidden test "[.stat_sweep]" in
# tests/test_stat_tier.cpp; it fails if any evaluation is IMPROBABLE or FAIL.
#   SEEDS=N bash bench/stat_sweep.sh [BUILD_DIR] [NAMES...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=${1:-$root/build}/tests/shlo_tests
shift 1 2>/dev/null || true
SHLO_SWEEP_SEEDS="${SEEDS:-10}" SHLO_SWEEP_PROGRAMS="${*:-}" "$tests" "[.stat_sweep]"
