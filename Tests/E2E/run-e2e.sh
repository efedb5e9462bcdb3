#!/usr/bin/env bash
# run-e2e.sh — every end-to-end check on a real kernel in qemu (Tests/run-all.sh calls this): each
# Tests/E2E/*-e2e.sh in turn (display, touch, …), one VM at a time. Their RESULT lines are passed
# through; the last line sums them up. Exit status non-zero when any script failed.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
T0=$(date +%s)
passed=0 failed=0 scripts_failed=0
for script in "$HERE"/*-e2e.sh; do
  [ -f "$script" ] && [ "$(basename "$script")" != run-e2e.sh ] || continue
  echo "== $(basename "$script")"
  log="$(mktemp /var/tmp/tb-e2e-log.XXXXXX)"
  bash "$script" 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || scripts_failed=$((scripts_failed + 1))
  passed=$((passed + $(grep -c '^RESULT [^ ]* PASS' "$log")))
  failed=$((failed + $(grep -c '^RESULT [^ ]* FAIL' "$log")))
  rm -f "$log"
done
echo "E2E (all): $passed passed, $failed failed, $scripts_failed script(s) failed ($(( $(date +%s) - T0 )) s)"
[ "$failed" = 0 ] && [ "$scripts_failed" = 0 ]
