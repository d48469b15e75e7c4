#!/bin/bash
# The runner's own test: run_shlo_test.sh accepts a good file in every domain its header names
# and refuses, each with its reason, a passing control, a failing test and a file without a
# domains line.
# Usage: runner_selftest.sh SHLO
set -u
shlo=$1
here=$(dirname "$0")
runner="$here/run_shlo_test.sh"
dir="$here/runner_selftest"
status=0

# expect WANT_RC PATTERN FILE: the runner's exit status and a line of its output.
expect() {
  local want_rc=$1 pattern=$2 file=$3 out rc
  out=$(bash "$runner" "$shlo" from-header "$dir/$file" 2>&1)
  rc=$?
  if [ "$rc" != "$want_rc" ] || ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
    echo "FAILED on $file: wanted exit $want_rc and a line matching '$pattern', got exit $rc:"
    printf '%s\n' "$out" | sed 's/^/  /'
    status=1
  else
    echo "ok $file: $pattern"
  fi
}

expect 0 "passes.mlir in exact: 1 passed, 1 control(s) failed" passes.mlir
expect 0 "passes.mlir in f32: 1 passed, 1 control(s) failed" passes.mlir
expect 1 "control passed: PASS add_control" control_passes.mlir
expect 1 "test failed: FAIL add: check.expect_eq_const at line 7: index \[1\], got 4, expected 5" test_fails.mlir
expect 1 "does not name its domains" no_header.mlir
exit $status
