# The helpers the shell tests share; source it after setting $tmp (a scratch folder).
#   check NAME EXPECTED_RC COMMAND...   runs COMMAND (stdout to $tmp/out, stderr to $tmp/err)
#                                       and counts a failure in $fails when the exit differs.
# check_timeout (seconds, 0: none) turns a hang into a failure (exit 124) instead of a stall.
fails=0
check_timeout=${check_timeout:-0}
check() {
  local name=$1 want=$2
  shift 2
  if [ "$check_timeout" -gt 0 ]; then
    timeout "$check_timeout" "$@" >"$tmp/out" 2>"$tmp/err"
  else
    "$@" >"$tmp/out" 2>"$tmp/err"
  fi
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; head -c 4000 "$tmp/out" "$tmp/err"; fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}
