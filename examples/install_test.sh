#!/usr/bin/env bash
# The install + consumer test (ctest install_consumer): installs the build tree into a staging
# prefix inside it, then configures, builds and runs examples/consumer against that prefix only.
#   install_test.sh CMAKE BUILD_DIR CONSUMER_SOURCE CXX
set -euo pipefail
cmake=$1 build=$2 source=$3 cxx=$4
stage=$build/staging
rm -rf "$stage" "$build/consumer-build"
"$cmake" --install "$build" --prefix "$stage" > "$build/staging-install.log"
test -x "$stage/bin/shlo" && "$stage/bin/shlo" --version
test -f "$stage/include/shlo_oracle/shlo_oracle.hpp"
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
"$cmake" -S "$source" -B "$build/consumer-build" -DCMAKE_PREFIX_PATH="$stage" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > "$build/consumer-configure.log" || { cat "$build/consumer-configure.log"; exit 1; }
"$cmake" --build "$build/consumer-build"
"$build/consumer-build/consumer"
