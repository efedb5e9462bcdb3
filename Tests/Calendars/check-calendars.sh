#!/usr/bin/env bash
# Checks tickerboard's exchange calendars session by session, 2000-2030, against the
# `exchange-calendars` package from PyPI (the oracle, installed here into a venv if missing; it
# is never a dependency of tickerboard). Differences must be listed in exceptions.txt.
# usage: check-calendars.sh [TICKERBOARD-BINARY] [EXCHANGE ...]   (default .build/release/tickerboard)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/tickerboard}
shift || true
if [ ! -x "$binary" ]; then
    swift build -c release --product tickerboard
fi
venv=${TICKERBOARD_ORACLE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tickerboard/calendars-venv}
if ! "$venv/bin/python" -c 'import exchange_calendars' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q exchange-calendars
fi
"$venv/bin/python" -c 'import exchange_calendars as x; print("calendars: exchange-calendars", x.__version__)'
"$venv/bin/python" Tests/Calendars/check-calendars.py "$binary" "$@"
# The screen's market hours (power-plan) from the same oracle's sessions, when all exchanges are checked.
if [ $# -eq 0 ]; then "$venv/bin/python" Tests/Calendars/check-power-plan.py "$binary"; fi
# The header's countdown ("closes in 42 min") from the same oracle's session times.
if [ $# -eq 0 ]; then "$venv/bin/python" Tests/Calendars/check-countdown.py "$binary" Tests/E2E/fixtures/daemon/TBE2E.csv; fi
