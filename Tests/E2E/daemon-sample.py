#!/usr/bin/python3
"""daemon-sample.py PID LOG SECONDS [INTERVAL] — samples a running `tickerboard run` (in the guest).

Every INTERVAL s (default 0.1) sends SIGUSR1 to PID, waits for the new `stats:` line in LOG (its
stderr) and prints `t frames flips missed cpu_ms wakeups vblank` (t: CLOCK_MONOTONIC s). Standard library.
"""
import os
import re
import signal
import sys
import time

STATS = re.compile(r"frames (\d+), flips (\d+), missed vblanks (\d+), last vblank (\d+),.*cpu (\d+) ms, max rss \d+ kB, wakeups (\d+)")


def stats_lines(path):
    with open(path, errors="replace") as f:
        return [l for l in f if "stats:" in l]


def main():
    pid, log, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    start = time.clock_gettime(time.CLOCK_MONOTONIC)
    tick = 0
    while True:
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        if now - start > seconds:
            break
        before = len(stats_lines(log))
        t = time.clock_gettime(time.CLOCK_MONOTONIC)
        os.kill(pid, signal.SIGUSR1)
        lines = []
        for _ in range(200):
            lines = stats_lines(log)
            if len(lines) > before:
                break
            time.sleep(0.005)
        m = STATS.search(lines[-1]) if len(lines) > before else None
        if m:
            frames, flips, missed, vblank, cpu, wakeups = m.groups()
            print("%.4f %s %s %s %s %s %s" % (t, frames, flips, missed, cpu, wakeups, vblank), flush=True)
        tick += 1
        delay = start + tick * interval - time.clock_gettime(time.CLOCK_MONOTONIC)
        if delay > 0:
            time.sleep(delay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
