#!/usr/bin/env bash
# What each tier of `shlo check` catches: for each artifact, the first dot_general's result is
# scaled by (1 + eps) (one matmul's result perturbed by the relative amount eps), the program
# run in f32 on the CPU, and its outputs checked against the unperturbed program under
# `--profile ieee`, inputs drawn with seed 7. Prints, per artifact, the smallest eps on the grid
# 10^-7, 2 10^-7, 5 10^-7, 10^-6, ... 0.5 that the sound tier (FAIL) and the statistical tier
# (IMPROBABLE or FAIL) catch ("-": none on the grid). One bound analysis per artifact judges
# every eps (the hidden test "[.perturb]" in tests/test_stat_tier.cpp). NAMES may also be the
# convolutional programs at a test's scale, small_conv and small_cnn_train_step.
# With SAMPLED=1, a third column: the statistical tier with the sampled one judging too (`shlo
# check --sampled`); cifar8_bn_fwd_8 is cifar8_bn_fwd at a batch of 8 (the sampled tier holds
# about 1 KB per element: the full batch of 128 needs gigabytes per tensor).
#   bash bench/perturb_ladder.sh [BUILD_DIR] [NAMES...]    (RANGE=LO,HI for the inputs, default 0,0.01)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=${1:-$root/build}/tests/shlo_tests
shift 1 2>/dev/null || true
names=${*:-linear_fwd mlp_fwd linear_train_step mlp_train_step cnn_fwd cifar_fwd cifar8_fwd cnn_train_step cifar8_train_step \
cifar8_bn_fwd cifar8_mom_train_step cifar8_adam_train_step cifar8_adamdp_train_step}
SHLO_PERTURB_PROGRAMS="$names" SHLO_PERTURB_RANGE="${RANGE:-0,0.01}" SHLO_PERTURB_SAMPLED="${SAMPLED:-0}" "$tests" "[.perturb]" |
  grep '^perturb '
