#!/usr/bin/env python3
"""Compares every session of tickerboard's exchange calendars with the `exchange-calendars` package.

For each exchange, from 2000-01-01 to 2030-12-31 (the package covers that whole span for every one
of them), every session's date, open and close, and the lunch break, from both sides, in UTC. Each
difference must be covered by a line of exceptions.txt (MIC FROM TO KIND reason; KIND one of
missing = the package has a session we do not, extra = we have one it does not, open, close,
lunch); an exception that covers nothing fails too, so the file stays true. Prints the count of
sessions compared per exchange.

usage: check-calendars.py TICKERBOARD [EXCHANGE ...]
"""
import os
import subprocess
import sys

import exchange_calendars as xcals
import pandas as pd

FIRST, LAST = "2000-01-01", "2030-12-31"
EXCHANGES = ["XNYS", "XNAS", "XETR", "XLON", "XPAR", "XAMS", "XSWX", "XTKS", "XHKG", "XASX", "XTSE", "24/7"]
HERE = os.path.dirname(os.path.abspath(__file__))


def utc(ts):
    if ts is None or pd.isna(ts):
        return "-"
    return ts.tz_convert("UTC").strftime("%Y-%m-%dT%H:%MZ")


def oracle(mic):
    cal = xcals.get_calendar(mic, start=FIRST, end=LAST)
    sched = cal.schedule.loc[FIRST:LAST]
    out = {}
    for session, row in sched.iterrows():
        lunch = (utc(row["break_start"]), utc(row["break_end"])) if "break_start" in row else ("-", "-")
        out[session.strftime("%Y-%m-%d")] = (utc(row["open"]), utc(row["close"])) + lunch
    return out


def ours(binary, mic):
    text = subprocess.run([binary, "calendar", "--exchange", mic, "--from", FIRST, "--to", LAST, "--tsv"],
                          check=True, capture_output=True, text=True).stdout
    out = {}
    for line in text.splitlines():
        date, *rest = line.split("\t")
        out[date] = tuple(rest)
    return out


def load_exceptions():
    rules = []
    with open(os.path.join(HERE, "exceptions.txt")) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            mic, first, last, kind, reason = line.split(None, 4)
            assert kind in ("missing", "extra", "open", "close", "lunch"), f"exceptions.txt:{number}: kind {kind}"
            rules.append({"mic": mic, "first": first, "last": last, "kind": kind, "reason": reason,
                          "line": number, "used": 0})
    return rules


def main():
    binary = sys.argv[1]
    only = sys.argv[2:] or EXCHANGES
    rules = load_exceptions()
    failures = 0
    total = 0
    for mic in only:
        theirs, mine = oracle(mic), ours(binary, mic)
        diffs = []
        for date in sorted(set(theirs) | set(mine)):
            a, b = theirs.get(date), mine.get(date)
            if a is None:
                diffs.append((date, "extra", f"ours {b[0]}-{b[1]}, none in exchange-calendars"))
            elif b is None:
                diffs.append((date, "missing", f"exchange-calendars {a[0]}-{a[1]}, none in ours"))
            else:
                for kind, i in (("open", 0), ("close", 1)):
                    if a[i] != b[i]:
                        diffs.append((date, kind, f"ours {b[i]}, exchange-calendars {a[i]}"))
                if a[2:] != b[2:]:
                    diffs.append((date, "lunch", f"ours {b[2]}-{b[3]}, exchange-calendars {a[2]}-{a[3]}"))
        unexplained = []
        explained = 0
        for date, kind, what in diffs:
            rule = next((r for r in rules if r["mic"] == mic and r["kind"] == kind
                         and r["first"] <= date <= r["last"]), None)
            if rule:
                rule["used"] += 1
                explained += 1
            else:
                unexplained.append(f"{mic} {date} {kind}: {what}")
        compared = len(set(theirs) & set(mine))
        total += compared
        print(f"calendars: {mic}: {compared} sessions compared {FIRST}..{LAST}, {len(unexplained)} unexplained, "
              f"{explained} listed differences")
        for line in unexplained[:4000]:
            print("  " + line)
        failures += len(unexplained)
    for r in rules:
        if r["used"] == 0 and r["mic"] in only:
            print(f"calendars: exceptions.txt:{r['line']}: {r['mic']} {r['first']}..{r['last']} {r['kind']} covers no difference")
            failures += 1
    print(f"calendars: {total} sessions compared in all, {failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
