#!/bin/bash
# A constructor row without its den must not build. Compiles den (interp/den_exact.cpp) twice:
# as it is (the control: it must compile), and with one extra test-only row that has no den
# function (ast/ctors/all.def, SHLO_TEST_ROW_WITHOUT_DEN): that must fail, and because the
# switch generated from the rows finds no den for that row, not for another reason.
# usage: den_missing_case.sh CXX SOURCE_DIR -I... (include flags)
set -u
cxx=$1 src=$2
shift 2
compile() { "$cxx" -std=c++20 -fsyntax-only -Werror=switch "$@" "$src/interp/den_exact.cpp" 2>&1; }
if ! out=$(compile "$@"); then
  echo "FAIL: den does not compile as it is (the control):"; echo "$out" | head -20; exit 1
fi
if out=$(compile -DSHLO_TEST_ROW_WITHOUT_DEN "$@"); then
  echo "FAIL: den compiled with a row that has no den case"; exit 1
fi
if ! echo "$out" | grep -Eq "no matching function for call to .den\(.*Ctor::testRowWithoutDen"; then
  echo "FAIL: den failed to compile with the extra row, but not for the missing case:"; echo "$out" | head -20; exit 1
fi
echo "ok: a row without a den case does not build (and den builds without it)"
