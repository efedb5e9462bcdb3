# lib.sh — what every host-side E2E script shares; sourced first thing (`. "$(dirname "$0")/lib.sh"`).
# Sets HERE (the script's directory), ROOT (the repository) and T0; counts the checks.
#   result NAME PASS|FAIL|SKIP DETAIL   one `RESULT …` line per check (run-e2e.sh sums them)
#   finish                              the script's summary line; exits 0 iff nothing failed
#   field KEY FILE                      the last KEY=value in FILE
#   between V LO HI                     true iff V is a number within [LO, HI]
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
T0=$(date +%s)
PASSED=0 FAILED=0 SKIPPED=0
result() {
  echo "RESULT $1 $2 ${3:-}"
  case "$2" in PASS) PASSED=$((PASSED + 1));; SKIP) SKIPPED=$((SKIPPED + 1));; *) FAILED=$((FAILED + 1));; esac
}
finish() { echo "E2E: $PASSED passed, $FAILED failed, $SKIPPED skipped ($(( $(date +%s) - T0 )) s)"; [ "$FAILED" = 0 ]; exit $?; }
field() { grep -h -o "$1=[^ ]*" "$2" 2>/dev/null | tail -1 | cut -d= -f2; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }'; }
