#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root):
#   scripts/shlo.sh main   install what is missing, build, run the main job
#   scripts/shlo.sh test   install what is missing, build, run the whole test suite
#   scripts/shlo.sh sanitize   the whole test suite built with ASan + UBSan, in build-asan
# Environment: BUILD_DIR (default build), JOBS (default: all cores), SHLO_SANITIZE=ON for ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
case "$what" in main|test|sanitize) ;; *) echo "usage: scripts/shlo.sh main|test|sanitize" >&2; exit 2 ;; esac

if [ "$what" = sanitize ]; then
  # The Python module is left out: an ASan-built extension does not load into a plain python3.
  # mpi_ranks and lsan_openmpi set their own ASAN/LSAN options (tests/lsan_openmpi.supp: Open MPI's
  # allocations kept until exit); dp_check_cli gets a 3600 s timeout in this build.
  bash scripts/setup-deps.sh
  build=${BUILD_DIR:-build-asan}
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHLO_SANITIZE=ON -DSHLO_PYTHON=OFF >/dev/null
  cmake --build "$build" -j "${JOBS:-$(nproc)}"
  cd "$build"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "${JOBS:-$(nproc)}"
  exit
fi

bash scripts/setup-deps.sh
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSHLO_SANITIZE="${SHLO_SANITIZE:-OFF}" -DSHLO_SHARED="${SHLO_SHARED:-ON}" >/dev/null
cmake --build "$build" -j "$jobs"

if [ "$what" = test ]; then
  cd "$build"
  ctest --output-on-failure -j "$jobs"
else
  # The main job: the property suite on its default budget (about a minute).
  "$build/shlo" prop --time "${SHLO_PROP_TIME:-60}"
fi
