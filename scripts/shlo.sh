#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root):
#   scripts/shlo.sh main   install what is missing, build, run the main job
#   scripts/shlo.sh test   install what is missing, build, run the whole test suite
# Environment: BUILD_DIR (default build), JOBS (default: all cores), SHLO_SANITIZE=ON for ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
case "$what" in main|test) ;; *) echo "usage: scripts/shlo.sh main|test" >&2; exit 2 ;; esac

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
