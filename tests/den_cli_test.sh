#!/usr/bin/env bash
# shlo den end to end: the domains it takes, and the one it refuses (ieee: an op-level domain
# that rounds each tensor to its element type; an SHlo expression has none).
# Usage: den_cli_test.sh SHLO
set -u
shlo=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/check_lib.sh"
# operand [1/2, -3]: its den is the two values themselves.
cat >"$tmp/e.json" <<'JSON'
{"constructor": "operand", "nats": {"n": 2}, "reals": {"v": ["1/2", "-3"]}, "strings": {"name": "%a0"}}
JSON
expect() {  # expect FILE TEXT: the file holds the text (fixed string)
  grep -qF -- "$2" "$tmp/$1" || { echo "FAIL: $1 lacks '$2':"; cat "$tmp/$1"; fails=$((fails + 1)); }
}
check "den in exact" 0 "$shlo" den "$tmp/e.json" -d exact
expect out "[0] 1/2"
expect out "[1] -3"
check "den in f64" 0 "$shlo" den "$tmp/e.json" -d f64
expect out "[0] 0.5"
check "den in interval:64" 0 "$shlo" den "$tmp/e.json" -d interval:64
check "den refuses -d ieee" 2 "$shlo" den "$tmp/e.json" -d ieee
expect err "shlo den: --domain ieee"
expect err "den takes exact | interval:P | mpfr:P | f64 | f32"
[ -s "$tmp/out" ] && { echo "FAIL: den -d ieee printed values:"; cat "$tmp/out"; fails=$((fails + 1)); }
check "den --help lists no ieee" 0 "$shlo" den --help
grep -q "ieee" "$tmp/out" && { echo "FAIL: den --help offers ieee"; fails=$((fails + 1)); }
check "den refuses an unknown domain" 2 "$shlo" den "$tmp/e.json" -d f16
[ "$fails" = 0 ] && echo "den cli: all passed" || echo "den cli: $fails failed"
[ "$fails" = 0 ]
