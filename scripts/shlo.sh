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
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSHLO_SANITIZE="${SHLO_SANITIZE:-OFF}" >/dev/null
cmake --build "$build" -j "$jobs"

if [ "$what" = test ]; then
  cd "$build"
  ctest --output-on-failure -j "$jobs"
else
  # The main job. For now: the command's help and a smoke run of every domain.
  "$build/shlo" --help
  echo
  echo "== smoke: exp(1/2) and 0.1 + 0.2 in every domain =="
  "$build/shlo" calc exp 1/2 --domain all
  "$build/shlo" calc add 0.1 0.2 --domain all
fi
