#!/usr/bin/env bash
# The install + consumer test (ctest install_consumer, install_consumer_shared): installs the
# build tree into a staging prefix inside it, then configures, builds and runs
# examples/consumer against that prefix only, linked to the static library or (shared, with
# SHLO_SHARED=ON) to libshlo_oracle.so, which ldd must show it loads from the staging prefix.
#   install_test.sh CMAKE BUILD_DIR CONSUMER_SOURCE CXX [static|shared]
set -euo pipefail
cmake=$1 build=$2 source=$3 cxx=$4 kind=${5:-static}
case "$kind" in static) suffix= ;; shared) suffix=-shared ;; *) echo "install_test.sh: static or shared, not $kind" >&2; exit 2 ;; esac
stage=$build/staging$suffix consumer=$build/consumer-build$suffix
rm -rf "$stage" "$consumer"
"$cmake" --install "$build" --prefix "$stage" > "$build/staging$suffix-install.log"
test -x "$stage/bin/shlo" && "$stage/bin/shlo" --version
test -f "$stage/include/shlo_oracle/shlo_oracle.hpp"
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
shared=OFF
if [ "$kind" = shared ]; then shared=ON; fi
"$cmake" -S "$source" -B "$consumer" -DCMAKE_PREFIX_PATH="$stage" -DCMAKE_CXX_COMPILER="$cxx" -DSHLO_CONSUMER_SHARED=$shared \
  -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > "$consumer.log" || { cat "$consumer.log"; exit 1; }
"$cmake" --build "$consumer"
if [ "$kind" = shared ]; then
  # The consumer must load the staged libshlo_oracle.so (and nothing of the build tree).
  loaded=$(ldd "$consumer/consumer" | awk '/libshlo_oracle\.so/ {print $3}')
  echo "consumer loads: ${loaded:-no libshlo_oracle.so}"
  case "$loaded" in "$stage"/*) ;; *) echo "install_test.sh: the consumer does not load $stage/lib*/libshlo_oracle.so" >&2; exit 1 ;; esac
fi
# The shared library's prop() runs the staged `shlo` (found beside the library), not $SHLO.
env -u SHLO "$consumer/consumer"
