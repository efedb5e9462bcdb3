#!/usr/bin/env python3
"""The header's countdown (`[chart] countdown = on`) against the `exchange-calendars` package: for
sessions of six exchanges in 2026-2027, at moments before the open, before the close, in the lunch
break and after a Friday's close, `tickerboard render --config … --now T --values` must say what the
oracle's session times give: "opens in 37 min", "closes in 42 min", "closes in 2 h 11 min" (whole
minutes rounded up), "reopens in 20 min", and no countdown when the open is more than 12 hours
away ("opens Mon 09:30").

usage: check-countdown.py TICKERBOARD FIXTURE.csv
"""
import os
import shutil
import subprocess
import sys
import tempfile

import exchange_calendars as xcals

EXCHANGES = {"XNYS": "America/New_York", "XLON": "Europe/London", "XETR": "Europe/Berlin",
             "XTKS": "Asia/Tokyo", "XHKG": "Asia/Hong_Kong", "XASX": "Australia/Sydney"}


def note(binary, conf, t):
    out = subprocess.run([binary, "render", "--config", conf, "--now", str(int(t)), "--values"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("note="):
            return line[5:]
    return ""


def words(seconds):
    minutes = max(1, -(-int(seconds) // 60))
    return "%d min" % minutes if minutes < 60 else "%d h %d min" % (minutes // 60, minutes % 60)


def main():
    binary, fixture = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="tb-countdown-")
    shutil.copy(fixture, os.path.join(work, "A.csv"))
    failures, checked = [], 0
    for mic, zone in EXCHANGES.items():
        conf = os.path.join(work, mic + ".conf")
        with open(conf, "w") as f:
            f.write("[data]\ndirectory = %s\n[instrument A]\ndaily = A.csv\nexchange = %s\ntime-zone = %s\n"
                    "[chart]\ncountdown = on\n" % (work, mic, zone))
        sched = xcals.get_calendar(mic, start="2026-01-01", end="2027-12-31").schedule
        rows = list(sched.iterrows())
        for i in range(3, len(rows), 61):
            session, row = rows[i]
            opening, closing = row["open"].timestamp(), row["close"].timestamp()
            lunch = (row["break_start"].timestamp(), row["break_end"].timestamp()) \
                if "break_start" in row and row["break_start"] == row["break_start"] else None
            cases = [(opening - 37 * 60, "opens in 37 min"), (closing - 42 * 60, "closes in 42 min")]
            if lunch is None:
                cases.append((closing - (2 * 3600 + 10 * 60 + 30), "closes in " + words(2 * 3600 + 10 * 60 + 30)))
            else:
                cases.append((lunch[1] - 20 * 60, "reopens in 20 min"))
            if session.day_of_week == 4:
                cases.append((closing + 3600, None))
            for t, want in cases:
                got = note(binary, conf, t)
                parts = got.split(" · ")
                second = parts[1] if len(parts) > 1 else ""
                ok = second == want if want else (second.startswith(("opens ", "Opens")) and " in " not in second)
                checked += 1
                if not ok:
                    failures.append("%s %s at %d: want %r, note %r" % (mic, session.date(), t, want or "opens DAY HH:MM", got))
    for f in failures[:20]:
        print("countdown: " + f)
    print("countdown: %d moments on %d exchanges against exchange-calendars, %d wrong" % (checked, len(EXCHANGES), len(failures)))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
