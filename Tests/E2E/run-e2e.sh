#!/usr/bin/env bash
# run-e2e.sh — every end-to-end check on a real kernel in qemu (Tests/run-all.sh calls this).
# Today: the display backends (display-e2e.sh). Exit status non-zero when any check failed.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
exec bash "$HERE/display-e2e.sh" "$@"
