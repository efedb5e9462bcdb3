#!/usr/bin/env python3
"""Checks `tickerboard power-plan` against the `exchange-calendars` package (the oracle).

For XNYS, XLON and XTKS, each alone and the three together, over Christmas and New Year
2025/26 with lead 30m and trail 30m (and a 15m/1h pair): the plan's `on` intervals must be exactly
the union of the oracle's sessions widened by lead and trail; the off intervals that name a holiday
are counted. check-calendars.sh runs it after the session check, in its venv:

usage: check-power-plan.py TICKERBOARD
"""
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

import exchange_calendars as xcals

FIRST, LAST = "2025-12-15", "2026-01-10"
CASES = [(["XNYS"], 30, 30), (["XLON"], 30, 30), (["XTKS"], 30, 30), (["XTKS"], 15, 60), (["XNYS", "XLON", "XTKS"], 30, 30)]


def expected(mics, lead, trail):
    windows = []
    for mic in mics:
        sched = xcals.get_calendar(mic, start="2025-01-01", end="2026-12-31").schedule.loc[FIRST:LAST]
        for _, row in sched.iterrows():
            windows.append((row["open"].to_pydatetime() - timedelta(minutes=lead),
                            row["close"].to_pydatetime() + timedelta(minutes=trail)))
    windows.sort()
    merged = []
    for a, b in windows:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a.astimezone(timezone.utc), b.astimezone(timezone.utc)) for a, b in merged]


def plan(binary, mics, lead, trail):
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(f"[power]\nfollow-markets = on\nlead = {lead}m\ntrail = {trail}m\n")
        for i, mic in enumerate(mics):
            f.write(f"[instrument I{i}]\nexchange = {mic}\ndaily = /nonexistent.csv\n")
        path = f.name
    try:
        out = subprocess.run([binary, "power-plan", "--config", path, "--from", FIRST, "--to", LAST,
                              "--time-zone", "UTC", "--tsv"], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    rows = []
    for line in out.splitlines():
        start, end, state, reason = line.split("\t")
        rows.append((datetime.fromisoformat(start), datetime.fromisoformat(end), state, reason))
    return rows


def main():
    binary = sys.argv[1]
    failures = 0
    for mics, lead, trail in CASES:
        rows = plan(binary, mics, lead, trail)
        ours = [(a, b) for a, b, state, _ in rows if state == "on"]
        want = expected(mics, lead, trail)
        # The plan is clipped to the range; the oracle's windows of the first and last day may reach out.
        lo, hi = rows[0][0], rows[-1][1]
        want = [(max(a, lo), min(b, hi)) for a, b in want if b > lo and a < hi]
        name = "+".join(mics) + f" lead {lead}m trail {trail}m"
        if ours != want:
            failures += 1
            print(f"FAIL {name}: {len(ours)} on intervals, oracle {len(want)}")
            for x in sorted(set(ours) ^ set(want)):
                print("   ", "ours " if x in ours else "oracle", x[0].isoformat(), x[1].isoformat())
        else:
            print(f"ok   {name}: {len(ours)} on intervals agree")
        off = [r for r in rows if r[2] == "off"]
        named = sum(1 for r in off if "closed:" in r[3])
        print(f"     {len(off)} off intervals, {named} name a holiday")
    sys.exit(1 if failures else 0)


main()
