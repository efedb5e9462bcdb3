#!/usr/bin/env python3
"""worst-inputs.py BINARY [FUZZ_DIR] — the worst inputs we know how to build inside the documented
limits (docs/configuration.md, "Limits"), each given to the program that parses it, with its peak RSS and time.

A benchmark, not a timed test: it prints one `WORST name rss_mb=R seconds=S exit=E detail` line per
input and exits 1 only when an input makes its parser exceed 256 MB of RSS or crash (exit status
above 128), the bounds issue 13 sets. The time is reported, never judged (it depends on the machine).

BINARY is the release `tickerboard`; FUZZ_DIR (e.g. .build/fuzz/release, from `Tests/fuzz.sh`) holds
the libFuzzer harnesses, through which the parsers without a command of their own (TZif, every
provider's parser at once) are given one input each. Those are address-sanitizer builds, whose shadow
memory and allocator inflate RSS: their figures are printed, not judged. The provider response is
judged through the real fetcher instead (`tickerboard-fetch --once` against Tests/FetchTests'
loopback replay server), as it runs on a kiosk.
"""
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Headless"))
from tbcheck import start_replay  # noqa: E402

RSS_LIMIT_MB = 256
MIB = 1 << 20


def measure(argv):
    """Runs argv with stdout/stderr discarded; (peak RSS in MB, seconds, exit status)."""
    start = time.monotonic()
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no", ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=0")
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024.0, seconds, code


def csv_unsorted_rows(path):
    # 500 000 rows (the row limit) in random date order, long decimal fields, to just under 64 MiB:
    # the parser must sort and deduplicate everything it keeps.
    rnd = random.Random(1)
    with open(path, "w") as f:
        f.write("Date,Open,High,Low,Close,Adj Close,Volume\n")
        for _ in range(500_000):
            y, m, d = rnd.randint(1980, 2030), rnd.randint(1, 12), rnd.randint(1, 28)
            p = "%.13f" % rnd.uniform(1, 99999)
            f.write("%04d-%02d-%02d,%s,%s,%s,%s,%s,%d\n" % (y, m, d, p, p, p, p, p, rnd.randint(0, 10 ** 12)))
    return "500000 unsorted rows"


def csv_wide_header(path):
    # The 4096-byte header limit spent on 64 columns of long names, then minimal rows to 64 MiB.
    names = ["Date", "Close"] + ["x%062d" % i for i in range(62)]
    header = ",".join(names)[:4095]
    with open(path, "w") as f:
        f.write(header + "\n")
        row_count = 0
        size = len(header) + 1
        day = 0
        while size < 60 * MIB and row_count < 500_000:
            row = "%s,1\n" % time.strftime("%Y-%m-%d", time.gmtime(day * 86400))
            f.write(row)
            size += len(row)
            row_count += 1
            day += 1
    return "64 header columns in 4095 bytes, %d minimal rows" % row_count


def csv_long_lines(path):
    # Lines at the 4096-byte line limit, every one of them a bad row, to 64 MiB.
    line = "2024-01-02," + "9" * 4084 + "\n"
    with open(path, "w") as f:
        f.write("Date,Open,High,Low,Close,Adj Close,Volume\n")
        for _ in range((64 * MIB - 100) // len(line)):
            f.write(line)
    return "%d lines of 4096 bytes" % ((64 * MIB - 100) // len(line))


def config_unknown_keys(path):
    with open(path, "w") as f:
        n = 0
        while f.tell() < MIB - 64:
            f.write("[chart]\nunknown-key-%d = %s\n" % (n, "v" * 40))
            n += 1
    return "1 MB of unknown keys"


def config_instruments(path):
    # 100 [instrument] sections (the limit), each with every key at its longest legal value.
    with open(path, "w") as f:
        f.write("[power]\nschedule = " + "; ".join(["Mon-Fri 07:00-22:00"] * 32) + "\n")
        for i in range(100):
            f.write("[instrument I%02d]\nname = %s\ndaily = /nonexistent/%s.csv\ntime-zone = America/New_York\n"
                    % (i, ("N%02d" % i) * 21, "d" * 200))
    return "100 instruments, 32 schedule clauses"


def tzif_max_transitions(path):
    # A valid TZif v2 file of the 1 MiB limit: as many transitions as fit, alternating two types.
    n = (MIB - 200) // 9 - 2
    v1 = b"TZif2" + b"\0" * 15 + struct.pack(">6l", 0, 0, 0, 0, 1, 4) + struct.pack(">lbB", 0, 0, 0) + b"UTC\0"
    times = b"".join(struct.pack(">q", -(1 << 40) + i * 3600) for i in range(n))
    idx = bytes(i & 1 for i in range(n))
    types = struct.pack(">lbB", 3600, 1, 0) + struct.pack(">lbB", 0, 0, 4)
    v2 = b"TZif2" + b"\0" * 15 + struct.pack(">6l", 0, 0, 0, n, 2, 8) + times + idx + types + b"ABC\0XYZ\0"
    # the harness: an even first byte selects TZif, the rest is the file
    with open(path, "wb") as f:
        f.write(b"\0" + v1 + v2 + b"\nABC-1\n")
    return "%d transitions" % n


def yahoo_huge(path):
    # A chart response at the fetcher's default body limit (8 MiB): 5Y of minute bars' worth.
    n = 190_000
    result = {"chart": {"result": [{"meta": {"currency": "USD", "symbol": "X", "exchangeTimezoneName": "America/New_York",
                                              "dataGranularity": "1m"},
                                     "timestamp": list(range(1_600_000_000, 1_600_000_000 + 60 * n, 60)),
                                     "indicators": {"quote": [{"close": [100.0 + (i % 97) / 7 for i in range(n)]}]}}],
                        "error": None}}
    with open(path, "w") as f:
        json.dump(result, f)
    return "%d bars, %.1f MiB" % (n, os.path.getsize(path) / MIB)


def fetch_huge(binary, tmp):
    """`tickerboard-fetch --once` of one instrument whose provider answers with yahoo_huge's body."""
    body = os.path.join(tmp, "y.json")
    detail = yahoo_huge(body)
    server, port = start_replay([{"match": "/v8/finance/chart/X", "status": 200, "content_type": "application/json",
                                  "body_file": body}], tmp)
    try:
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        conf = os.path.join(tmp, "fetch.conf")
        with open(conf, "w") as f:
            f.write("[data]\ndirectory = %s\n[provider yahoo]\nbase-url = http://127.0.0.1:%s\n"
                    "[instrument X]\nsymbol = X\nproviders = yahoo\nintraday = X.csv\n" % (data, port))
        fetch = os.path.join(os.path.dirname(binary), "tickerboard-fetch")
        return detail, measure([fetch, "--once", "--config", conf]), os.path.getsize(body)
    finally:
        server.kill()
        server.wait()


def main():
    binary = sys.argv[1]
    fuzz = sys.argv[2] if len(sys.argv) > 2 else None
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tb-worst-") as tmp:
        out = os.path.join(tmp, "out.png")
        cases = [
            ("csv-unsorted-rows", csv_unsorted_rows, "x.csv", lambda p: [binary, "render", "--data", p, "--output", out]),
            ("csv-wide-header", csv_wide_header, "w.csv", lambda p: [binary, "render", "--data", p, "--output", out]),
            ("csv-long-lines", csv_long_lines, "l.csv", lambda p: [binary, "render", "--data", p, "--output", out]),
            ("config-unknown-keys", config_unknown_keys, "u.conf", lambda p: [binary, "check-config", p]),
            ("config-instruments", config_instruments, "i.conf", lambda p: [binary, "check-config", p]),
        ]
        judged = len(cases)
        if fuzz:
            cases += [
                ("tzif-max-transitions (asan harness, not judged)", tzif_max_transitions, "tz.bin",
                 lambda p: [os.path.join(fuzz, "fuzz-timezone"), p]),
                ("yahoo-response, all five parsers (asan harness, not judged)", yahoo_huge, "y.json",
                 lambda p: [os.path.join(fuzz, "fuzz-providers"), "-rss_limit_mb=4096", "-malloc_limit_mb=4096", p]),
            ]
        for i, (name, build, file, argv) in enumerate(cases):
            path = os.path.join(tmp, file)
            detail = build(path)
            rss, seconds, code = measure(argv(path))
            bad = i < judged and (rss > RSS_LIMIT_MB or code < 0 or code > 128)
            failed += bad
            print("WORST %s rss_mb=%.0f seconds=%.2f exit=%d %s, %.1f MiB%s" % (
                name, rss, seconds, code, detail, os.path.getsize(path) / MIB, "  <-- over the bound" if bad else ""), flush=True)
            os.unlink(path)
        detail, (rss, seconds, code), size = fetch_huge(binary, tmp)
        bad = rss > RSS_LIMIT_MB or code < 0 or code > 128
        failed += bad
        judged += 1
        print("WORST yahoo-response-fetch rss_mb=%.0f seconds=%.2f exit=%d %s through tickerboard-fetch --once%s" % (
            rss, seconds, code, detail, "  <-- over the bound" if bad else ""), flush=True)
    print("worst-inputs: %d of %d judged over %d MB or crashed" % (failed, judged, RSS_LIMIT_MB))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
