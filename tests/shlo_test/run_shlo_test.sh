#!/bin/bash
# Runs `shlo test` on each file given and checks the verdicts: every test whose name ends in
# _control must FAIL (it holds a wrong expected value) with the failing check located (its
# line and the first mismatching index), every other test must PASS, at least one must PASS,
# nothing may be an ERROR, and the exit status must be 1 (a control failed).
# Usage: run_shlo_test.sh SHLO DOMAIN FILE...
#   DOMAIN "from-header": each file is run in every domain its first line names,
#   `// domains: f32 f64 exact interval:64`; a file without that line fails.
set -u
shlo=$1 domain=$2
shift 2
status=0

# check_file FILE DOMAIN: one run, judged.
check_file() {
  local file=$1 domain=$2 out rc bad
  out=$("$shlo" test --domain "$domain" "$file" 2>&1)
  rc=$?
  bad=$(printf '%s\n' "$out" | awk '
    /^PASS / { split($2, n, /[ :(]/); if (n[1] ~ /_control$/) print "control passed: " $0; else passed++; next }
    /^FAIL / { split($2, n, /[ :(]/); if (n[1] !~ /_control$/) print "test failed: " $0
               else if ($0 !~ / at line [0-9]+: index \[/) print "control failed without a location: " $0
               controls++; next }
    { print "unexpected line: " $0 }
    END { if (controls == 0) print "no control failed"; if (passed == 0) print "no test passed" }')
  if [ -n "$bad" ] || [ "$rc" != 1 ]; then
    echo "FAILED $file in $domain (exit $rc):"
    printf '%s\n' "$out" "$bad" | sed 's/^/  /'
    status=1
  else
    echo "ok $file in $domain: $(printf '%s\n' "$out" | grep -c '^PASS') passed, $(printf '%s\n' "$out" | grep -c '^FAIL') control(s) failed"
  fi
}

for file in "$@"; do
  if [ "$domain" != from-header ]; then
    check_file "$file" "$domain"
    continue
  fi
  domains=$(sed -n '1s|^// domains: ||p' "$file")
  if [ -z "$domains" ]; then
    echo "FAILED $file: its first line does not name its domains (// domains: f32 f64 ...)"
    status=1
    continue
  fi
  for d in $domains; do check_file "$file" "$d"; done
done
exit $status
