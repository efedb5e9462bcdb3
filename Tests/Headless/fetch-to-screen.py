#!/usr/bin/env python3
"""From the provider to the glass: recorded yahoo responses served on loopback, `tickerboard-fetch
--once` writing the files, then the real daemon (headless) showing each instrument with its price,
currency and the fetcher's "as of" time; a crypto pair (BTC-EUR) whose first exchange, coinbase,
answers 429 comes from the next, kraken (its documented reply, Tests/FetchTests/Fixtures/crypto),
and shows in euros, the currency of the pair. Waits are for observable states (files, status
values) with deadlines, never fixed sleeps.

usage: fetch-to-screen.py TICKERBOARD TICKERBOARD_FETCH PROVIDERS_DIR
Prints RESULT lines and 'N passed, N failed'.
"""
import json, os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json as load, start_replay, stop, wait_for  # noqa: E402

BIN, FETCH, PROVIDERS = sys.argv[1:4]
results = []
if not os.path.isdir(os.path.join(PROVIDERS, "yahoo")):
    # The recorded responses live in ../shared beside the checkout; without them the replay server
    # can only drop the connection, which would read as a fetcher failure.
    print("RESULT fetch-providers-present FAIL no recorded responses in %s (expected %s/yahoo/*.json)"
          % (os.path.abspath(PROVIDERS), PROVIDERS), flush=True)
    print("0 passed, 1 failed")
    sys.exit(1)


def result(name, ok, detail=""):
    results.append(ok)
    print("RESULT %s %s %s" % (name, "PASS" if ok else "FAIL", detail), flush=True)




work = tempfile.mkdtemp(prefix="tb-fetch-screen-")
data = os.path.join(work, "data")
os.mkdir(data)
yahoo = os.path.join(PROVIDERS, "yahoo")
crypto = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "FetchTests", "Fixtures", "crypto")
rules = [
    # A provider that is out of breath: every request answered 429 with a Retry-After of an hour.
    {"match": "/busy/", "status": 429, "content_type": "text/plain", "body": "Too Many Requests",
     "headers": {"Retry-After": "3600"}},
    {"match": "/v8/finance/chart/AAPL", "status": 200, "content_type": "application/json",
     "body_file": os.path.join(yahoo, "chart_AAPL_1d_6mo_2025-10-29.json")},
    {"match": "/v8/finance/chart/WSU.DE", "status": 200, "content_type": "application/json",
     "body_file": os.path.join(yahoo, "chart_WSU.DE_1d_2023-08-04_2023-08-09.json")},
    {"match": "/v8/finance/chart/BTC-USD", "status": 200, "content_type": "application/json",
     "body_file": os.path.join(yahoo, "chart_BTC-USD_1d_2020-01-01_2020-01-03.json")},
    {"match": "/0/public/OHLC?pair=XBTEUR&interval=1440", "status": 200, "content_type": "application/json",
     "body_file": os.path.join(crypto, "kraken", "ohlc_XBTEUR_1440.json")},
]
server, port = start_replay(rules, work)
daemon = None
try:
    conf = os.path.join(work, "tb.conf")
    with open(conf, "w") as f:
        f.write("[data]\ndirectory = %s\nstale-after = 100000d\n[chart]\ncycle-interval = 8s\nranges = 1M\n"
                "instrument-interval = 5s\n[provider yahoo]\nbase-url = http://127.0.0.1:%s\n"
                "[instrument AAPL]\nname = Apple\nsymbol = AAPL\nproviders = yahoo\ndaily = AAPL.csv\n"
                "[instrument WSU]\nname = WashTec\nsymbol = WSU.DE\nproviders = yahoo\ndaily = WSU.csv\n"
                "time-zone = Europe/Berlin\n"
                "[instrument BTC]\nname = Bitcoin\nsymbol = BTC-USD\nproviders = yahoo\ndaily = BTC.csv\n"
                # Keyless crypto (issue 52 item 5): coinbase is out of breath (429), kraken serves.
                "[provider coinbase]\nbase-url = http://127.0.0.1:%s/busy\n[provider kraken]\nbase-url = http://127.0.0.1:%s\n"
                "[instrument XBT]\nname = Bitcoin EUR\nsymbol = BTC-EUR\nproviders = coinbase kraken\ndaily = XBT.csv\n"
                "session = 24/7\n" % (data, port, port, port))
    out = subprocess.run([FETCH, "--once", "--config", conf], capture_output=True, text=True, timeout=120)
    files = {n: os.path.exists(os.path.join(data, n)) for n in ("AAPL.csv", "WSU.csv", "BTC.csv", "XBT.csv", "AAPL.status",
                                                                 "WSU.status", "BTC.status", "XBT.status")}
    result("fetch-once-writes-files", out.returncode == 0 and all(files.values()),
           "exit %d %s %s" % (out.returncode, files, out.stderr.strip()[-300:]))
    xbt = load(os.path.join(data, "XBT.status")) or {}
    asked = [l.split(" ", 1)[1] for l in open(os.path.join(work, "server.log")).read().splitlines() if "BTC-EUR" in l or "XBTEUR" in l]
    result("fetch-crypto-failover", xbt.get("provider") == "kraken" and xbt.get("currency") == "EUR" and not xbt.get("last_error")
           and asked == ["/busy/products/BTC-EUR/candles?granularity=86400", "/0/public/OHLC?pair=XBTEUR&interval=1440"],
           "status %s; asked %s" % ({k: xbt.get(k) for k in ("provider", "currency", "exchange_time_zone", "last_error")}, asked))
    expected = {}
    for ident in ("AAPL", "WSU", "BTC", "XBT"):
        lines = open(os.path.join(data, ident + ".csv")).read().strip().splitlines()
        expected[ident] = (float(lines[-1].split(",")[4]), load(os.path.join(data, ident + ".status")) or {})

    # An alert command that daemonizes (a child in a session of its own, the command ended): the
    # fetcher is its reaper, gives it the command's time (2 s here), kills it, and --once ends with
    # nothing of it left running (issue 54 item 16: it outlived the fetcher, outside the unit).
    pidfile = os.path.join(work, "daemonized.pid")
    conf2 = os.path.join(work, "alert.conf")
    with open(conf2, "w") as f:
        f.write("[data]\ndirectory = %s\n[provider yahoo]\nbase-url = http://127.0.0.1:%s\n"
                "[fetch]\nalert-command-timeout = 2s\n"
                "[instrument AAPL]\nsymbol = AAPL\nproviders = yahoo\ndaily = AAPL.csv\n"
                "[alert daemonizes]\ninstrument = AAPL\nabove = 1\n"
                "command = /bin/sh -c \"setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $! > %s\"\n"
                % (data, port, pidfile))
    for n in ("alerts.state", ".alerts.state"):
        if os.path.exists(os.path.join(data, n)):
            os.unlink(os.path.join(data, n))
    out = subprocess.run([FETCH, "--once", "--config", conf2], capture_output=True, text=True, timeout=120)
    pid = int(open(pidfile).read().strip()) if os.path.exists(pidfile) else None

    def gone(p):
        try:
            with open("/proc/%d/stat" % p) as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True
    left = pid is not None and wait_for(lambda: gone(pid), 10)
    result("fetch-once-daemonized-alert-command-ends", pid is not None and bool(left),
           "pid %s %s; exit %d %s" % (pid, "gone" if left else "still running", out.returncode, out.stderr.strip()[-300:]))
    if pid and not left:
        os.kill(pid, signal.SIGKILL)

    # The same daemonizing command under the service (not --once): the fetcher, its reaper, kills
    # what the command left once the command's time (2 s) is over, and goes on running.
    pidfile2 = os.path.join(work, "daemonized-service.pid")
    data2 = os.path.join(work, "data-service")
    os.mkdir(data2)
    conf4 = os.path.join(work, "alert-service.conf")
    with open(conf4, "w") as f:
        f.write(open(conf2).read().replace(data, data2).replace(pidfile, pidfile2))
    service = subprocess.Popen([FETCH, "--config", conf4, "--metrics", "off"], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(work, "fetch-alert-service.log"), "w"))
    pid2 = wait_for(lambda: int(open(pidfile2).read().strip()) if os.path.exists(pidfile2) and open(pidfile2).read().strip() else None, 60)
    left2 = pid2 is not None and wait_for(lambda: gone(pid2), 30)
    alive = service.poll() is None
    stop(service, signal.SIGTERM, 20)
    result("fetch-service-daemonized-alert-command-ends", pid2 is not None and bool(left2) and alive,
           "pid %s %s; the fetcher %s" % (pid2, "killed after the command's time" if left2 else "still running",
                                         "still running" if alive else "ended"))
    if pid2 and not left2:
        os.kill(pid2, signal.SIGKILL)

    # The service's metrics for Prometheus (issue 53 item 4): AAPL from `busy` first, which answers
    # 429, then from yahoo, which serves. tickerboard-fetch.prom must say one request and one
    # rate-limit answer for busy (backing off), one good request for yahoo, the file's good fetch,
    # and pass promtool's lint (fetched by headless-check into the cache; skipped when absent).
    conf3 = os.path.join(work, "metrics.conf")
    data3 = os.path.join(work, "data3")
    os.mkdir(data3)
    prom = os.path.join(work, "tickerboard-fetch.prom")
    with open(conf3, "w") as f:
        f.write("[data]\ndirectory = %s\n[provider busy]\nkind = yahoo\nbase-url = http://127.0.0.1:%s/busy\n"
                "[provider yahoo]\nbase-url = http://127.0.0.1:%s\n"
                "[instrument AAPL]\nsymbol = AAPL\nproviders = busy yahoo\ndaily = AAPL.csv\n" % (data3, port, port))
    service = subprocess.Popen([FETCH, "--config", conf3, "--metrics", prom], stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(work, "fetch-service.log"), "w"))
    def sample(text, line_start):
        for line in text.splitlines():
            if line.startswith(line_start + " "):
                return float(line.split()[-1])
        return None
    def served():
        text = open(prom).read() if os.path.exists(prom) else ""
        return text if sample(text, 'tickerboard_fetch_requests_total{provider="yahoo"}') else None
    text = wait_for(served, 60) or ""
    stop(service, signal.SIGTERM, 20)
    want = {'tickerboard_fetch_requests_total{provider="busy"}': 1, 'tickerboard_fetch_rate_limited_total{provider="busy"}': 1,
            'tickerboard_fetch_failures_total{provider="busy"}': 1, 'tickerboard_fetch_provider_backing_off{provider="busy"}': 1,
            'tickerboard_fetch_requests_total{provider="yahoo"}': 1, 'tickerboard_fetch_failures_total{provider="yahoo"}': 0,
            'tickerboard_fetch_rate_limited_total{provider="yahoo"}': 0, 'tickerboard_fetch_provider_backing_off{provider="yahoo"}': 0}
    got = {k: sample(text, k) for k in want}
    good = sample(text, 'tickerboard_fetch_last_success_timestamp_seconds{instrument="AAPL",slot="daily"}')
    promtool = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tickerboard", "promtool", "usr", "bin", "promtool")
    lint = "promtool not in the cache (headless-check.py fetches it): not run"
    lint_ok = True
    if os.access(promtool, os.X_OK) and text:
        r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        lint_ok = r.returncode == 0 and not (r.stdout + r.stderr).strip()
        lint = "promtool check metrics clean" if lint_ok else "promtool: " + (r.stdout + r.stderr).strip().replace("\n", "; ")[:300]
    result("fetch-metrics-per-provider", got == want and good is not None and abs(good - time.time()) < 120 and lint_ok,
           "%s; last success %s; %s" % (", ".join("%s %s" % (k.split("{")[0][len("tickerboard_fetch_"):] + "{" + k.split("{")[1], v)
                                                  for k, v in got.items()), good, lint))

    state = os.path.join(work, "s.json")
    daemon = subprocess.Popen([BIN, "run", "--config", conf, "--display", "headless", "--size", "480x270",
                               "--status", state, "--time-scale", "4"],
                              stderr=open(os.path.join(work, "daemon.log"), "w"), stdout=subprocess.DEVNULL)
    seen = {}
    def all_seen():
        st = load(state)
        if st and st.get("instrument_id") in expected and st.get("price") is not None and (st.get("note") or st.get("instrument_id") == "XBT"):
            seen[st["instrument_id"]] = st
        return len(seen) == len(expected)
    wait_for(all_seen, 90)
    for ident, (close, fetched) in expected.items():
        st = seen.get(ident)
        currency = fetched.get("currency")
        # A crypto pair's daily candles carry no time of their last trade: no "as of", and its euros
        # come from the pair (the config names no currency).
        ok = st is not None and abs(st["price"] - close) < 1e-6 and (
            "€" in (st.get("price_text") or "") if ident == "XBT" else "as of" in (st.get("note") or ""))
        result("screen-shows-" + ident, ok, "price=%s expected=%s currency=%s price_text=%r note=%r" % (
            (st or {}).get("price"), close, currency, (st or {}).get("price_text"), (st or {}).get("note")))
finally:
    if daemon:
        stop(daemon, signal.SIGTERM, 20)
    server.terminate()
    server.wait(timeout=10)
    if all(results):
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("artefacts in", work)

print("fetch-to-screen: %d passed, %d failed" % (results.count(True), results.count(False)))
sys.exit(0 if all(results) else 1)
