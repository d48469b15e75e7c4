#!/bin/bash
# The outside-corpus runner (scripts/outside_corpus.py) on a tiny folder of our own: one run of
# each kind, and stand-ins for shlo that crash, hang or refuse an in-scope run, which must be
# BROKEN (and make the runner exit 1).
# Usage: outside_corpus_selftest.sh SHLO RUNNER
set -u
shlo=$1 runner=$2
dir=$(cd "$(dirname "$0")" && pwd)/outside_corpus_selftest
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
expect() {  # expect WHAT TEXT: TEXT must be a line of the last output
  if ! grep -qxF -- "$2" "$scratch/out"; then
    echo "FAILED: $1: no line '$2' in:"
    sed 's/^/  /' "$scratch/out"
    status=1
  fi
}

python3 "$runner" "$dir" --shlo "$shlo" > "$scratch/out"
rc=$?
[ "$rc" = 0 ] || { echo "FAILED: the runner exits $rc on a folder without BROKEN runs"; status=1; }
#      | file | runs | in scope | PASS | FAIL | (f16/bf16) | REFUSED | BROKEN | ACCEPTED |
expect "a pass and a refused i4 run" "| passes.mlir | 2 | 1 | 1 | 0 | 0 | 1 | 0 | 0 |"
expect "a failed check" "| fails.mlir | 1 | 1 | 0 | 1 | 0 | 0 | 0 | 0 |"
expect "an op outside the set" "| tan.mlir | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |"
expect "a disabled file, reported apart" "| disabled.mlir (RUN-DISABLED) | 1 | 1 | 1 | 0 | 0 | 0 | 0 | 0 |"
expect "the in-scope percentage" "  PASS over in-scope runs:        50.0 % (1 of 2)"
expect "the percentage without exclusions" "  PASS over all runs:             25.0 % (1 of 4)"
expect "the refusals" "  REFUSED over out-of-scope runs: 100.0 % (2 of 2); 0 of them without naming the construct"
expect "the disabled runs" "Disabled runs: 1 (1 in scope, 0 out of scope)"

# Stand-ins for shlo: each run crashes, hangs, or is refused although it is in scope.
printf '#!/bin/bash\nkill -SEGV $$\n' > "$scratch/crash"
printf '#!/bin/bash\nsleep 5\n' > "$scratch/hang"
printf '#!/bin/bash\necho "ERROR ${@: -1}:3:1: unsupported op '"'"'stablehlo.add'"'"'"\nexit 2\n' > "$scratch/refuse"
chmod +x "$scratch/crash" "$scratch/hang" "$scratch/refuse"
for stub in crash hang refuse; do
  python3 "$runner" "$dir" --shlo "$scratch/$stub" --timeout 1 > "$scratch/out"
  rc=$?
  [ "$rc" = 1 ] || { echo "FAILED: the runner exits $rc when shlo is a $stub stand-in (BROKEN runs)"; status=1; }
done
# the refusing stand-in: in-scope runs are BROKEN, out-of-scope ones REFUSED (located)
expect "an in-scope run refused" "| fails.mlir | 1 | 1 | 0 | 0 | 0 | 0 | 1 | 0 |"
expect "an out-of-scope run refused" "| tan.mlir | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |"
[ "$status" = 0 ] && echo "ok: the runner classifies PASS, FAIL, REFUSED, BROKEN and disabled runs"
exit $status
