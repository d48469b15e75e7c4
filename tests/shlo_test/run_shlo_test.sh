#!/bin/bash
# Runs `shlo test` on each file given and checks the verdicts: every test whose name ends in
# _control must FAIL (it holds a wrong expected value), every other test must PASS, nothing
# may be an ERROR, and the exit status must be 1 (a control failed).
# Usage: run_shlo_test.sh SHLO DOMAIN FILE...
set -u
shlo=$1 domain=$2
shift 2
status=0
for file in "$@"; do
  out=$("$shlo" test --domain "$domain" "$file" 2>&1)
  rc=$?
  bad=$(printf '%s\n' "$out" | awk '
    /^PASS / { split($2, n, /[ :(]/); if (n[1] ~ /_control$/) print "control passed: " $0; next }
    /^FAIL / { split($2, n, /[ :(]/); if (n[1] !~ /_control$/) print "test failed: " $0; controls++; next }
    { print "unexpected line: " $0 }
    END { if (controls == 0) print "no control failed" }')
  if [ -n "$bad" ] || [ "$rc" != 1 ]; then
    echo "FAILED $file (exit $rc):"
    printf '%s\n' "$out" "$bad" | sed 's/^/  /'
    status=1
  else
    echo "ok $file: $(printf '%s\n' "$out" | grep -c '^PASS') passed, $(printf '%s\n' "$out" | grep -c '^FAIL') control(s) failed"
  fi
done
exit $status
