#!/usr/bin/env bash
# The Open MPI suppressions of the sanitized build (tests/lsan_openmpi.supp): 2 ranks of a program
# that starts and ends MPI exit 0 with no leak report; the control, the same program leaking a
# block of its own, fails with LeakSanitizer naming our function (the file hides only Open MPI).
# Usage: lsan_openmpi_test.sh PROBE MPIRUN   (ASAN_OPTIONS and LSAN_OPTIONS come from ctest)
set -u
probe=$1
mpi=("$2" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
"${mpi[@]}" -np 2 "$probe" >"$tmp/clean.txt" 2>&1
rc=$?
if [ "$rc" = 0 ] && ! grep -q "LeakSanitizer" "$tmp/clean.txt" && [ "$(grep -c "2 ranks" "$tmp/clean.txt")" = 2 ]; then
  echo "ok   MPI_Init/MPI_Finalize: no leak report"
else
  echo "FAIL MPI_Init/MPI_Finalize: exit $rc"; head -60 "$tmp/clean.txt"; fails=$((fails + 1))
fi
"${mpi[@]}" -np 2 "$probe" leak >"$tmp/leak.txt" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q "Direct leak of 4242 byte" "$tmp/leak.txt" && grep -q "leak_a_block_of_ours" "$tmp/leak.txt"; then
  echo "ok   the control: our own leak is reported"
else
  echo "FAIL the control: exit $rc, our leak not reported"; head -60 "$tmp/leak.txt"; fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "all suppression tests passed" || { echo "$fails suppression test(s) failed"; exit 1; }
