#!/usr/bin/env python3
"""A simulated month of the real daemon: `tickerboard run --display headless --time-scale N` through
DAYS simulated days of cycling and morphs (ranges, bars, draw-ins, two instruments), an intraday row
appended every simulated minute, the files replaced atomically (trimmed to a rolling window so the
data itself does not grow), garbage written over a file and repaired, reloads good and bad (a
config with errors, a FIFO as the config). It samples rss_kb and open_fds from the status file and
passes when, at the end, RSS is within 1 MB of its value after the first simulated day and the
descriptor count is unchanged. Every wait is for an observable state, bounded by a deadline.

Not reachable headless: touch (scrubs) and display loss and return (the headless display is never
lost); KioskCoreTests cover both on the core.

usage: soak.py TICKERBOARD_BINARY [--days 30] [--time-scale 10000]
"""
import argparse, datetime, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Headless"))
from tbcheck import read_json, stop, wait_for  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("binary")
ap.add_argument("--days", type=float, default=30)
ap.add_argument("--time-scale", type=float, default=10000)
ap.add_argument("--control-load", action="store_true",
                help="the tape on and a client on the control socket all along (status, instruments, messages, "
                     "next, ranges, pause and resume, screenshots): RSS within 2 MB")
args = ap.parse_args()
DAY = 86400

work = tempfile.mkdtemp(prefix="tb-soak-")
data = os.path.join(work, "data")
os.mkdir(data)
conf, state, log = (os.path.join(work, n) for n in ("tb.conf", "s.json", "log.txt"))
GOOD = ("[data]\ndirectory = %s\nstale-after = 2d\n[chart]\ncycle-interval = 8s\ninstrument-interval = 60s\n"
        "[burn-in]\nshift = 2\nperiod = 3min\n"
        "[instrument LIVE]\nname = Live\nintraday = LIVE-1m.csv\ndaily = LIVE.csv\ntime-zone = UTC\n"
        "[instrument OTHER]\nname = Other\ndaily = OTHER.csv\ntime-zone = UTC\n") % data
GOOD2 = GOOD.replace("cycle-interval = 8s", "cycle-interval = 5s").replace("ranges", "ranges")
BAD = GOOD + "[power]\nschedule = - 07:00-22:00\n[data]\nstale-after = 1e300d\n"
if args.control_load:
    GOOD, GOOD2, BAD = (c + "[tape]\nposition = bottom\nspeed = 80\n" for c in (GOOD, GOOD2, BAD))
sock_path = os.path.join(work, "control")
load_counts = {"ok": 0, "busy": 0, "error": 0}
stop_load = threading.Event()


def control_load():
    """One client after another on the control socket, as a dashboard and the bridge would be."""
    requests = [b"status", b"instruments", b"message \"Soak test: the market closes early\" 30s", b"next",
                b"range 1M", b"pause", b"resume", b"clear-message", b"range 1Y", b"screenshot"]
    devnull = os.open(os.devnull, os.O_WRONLY)
    i = 0
    while not stop_load.is_set():
        line = requests[i % len(requests)]
        i += 1
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                c.settimeout(5)
                c.connect(sock_path)
                if line == b"screenshot":
                    socket.send_fds(c, [line + b"\n"], [devnull])
                else:
                    c.sendall(line + b"\n")
                answer = b""
                while not answer.endswith(b"\n"):
                    chunk = c.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
            key = "ok" if answer.startswith(b"ok") or answer.startswith(b"{") else "busy" if b"busy" in answer else "error"
            load_counts[key] += 1
        except OSError:
            load_counts["error"] += 1
            time.sleep(0.05)
        time.sleep(0.02)
    os.close(devnull)


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def status():
    return read_json(state)


def stamp(t, daily=False):
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d") if daily else d.strftime("%Y-%m-%d %H:%M:00+00:00")


def price(minute):
    return 100 + 10 * ((minute * 7919) % 1000) / 1000.0


HEADER = "Date,Open,High,Low,Close,Adj Close,Volume\n"
IHEADER = "Datetime,Open,High,Low,Close,Adj Close,Volume\n"
WINDOW = 5 * 1440  # intraday rows kept: five days of minutes


def row(t, p, daily=False):
    return "%s,%.2f,%.2f,%.2f,%.2f,%.2f,1000\n" % (stamp(t, daily), p, p + 0.5, p - 0.5, p, p)


now0 = int(time.time()) // 60 * 60
intraday_rows = [row(now0 - 60 * i, price(-i)) for i in range(WINDOW, 0, -1)]
daily_rows = [row(now0 - DAY * i, price(i * 13), daily=True) for i in range(400, 0, -1)]
write_atomic(os.path.join(data, "LIVE-1m.csv"), IHEADER + "".join(intraday_rows))
write_atomic(os.path.join(data, "LIVE.csv"), HEADER + "".join(daily_rows))
write_atomic(os.path.join(data, "OTHER.csv"), HEADER + "".join(daily_rows[::-1][:300][::-1]))
write_atomic(conf, GOOD)

daemon = subprocess.Popen([args.binary, "run", "--config", conf, "--display", "headless", "--size", "320x180",
                           "--status", state, "--time-scale", str(args.time_scale)]
                          + (["--control", sock_path] if args.control_load else []),
                          stderr=open(log, "w"), stdout=subprocess.DEVNULL)
loader = threading.Thread(target=control_load, daemon=True) if args.control_load else None
failures = []
samples = []  # (simulated seconds since start, rss_kb, open_fds)
try:
    first = wait_for(lambda: (lambda s: s if s and s.get("price") is not None else None)(status()), 30)
    if not first:
        raise SystemExit("soak: the daemon never showed a price")
    start = first["time"]
    end = start + args.days * DAY
    if loader:
        loader.start()
    last_minute = int(start // 60)
    last_day = int(start // DAY)
    next_event = start + 3 * 3600
    event = 0
    scenes = set()
    last_seen = None
    real0 = time.monotonic()
    while True:
        if daemon.poll() is not None:
            failures.append("daemon exited with %s" % daemon.returncode)
            break
        s = status()
        if not s or s.get("time") == last_seen:
            time.sleep(0.01)
            continue
        last_seen = s["time"]
        t = s["time"]
        samples.append((t - start, s.get("rss_kb"), s.get("open_fds")))
        scenes.add((s.get("instrument_id"), s.get("scene"), s.get("range")))
        # An intraday row every simulated minute (appended in place, in one write per look).
        minute = int(t // 60)
        if minute > last_minute:
            new = [row(m * 60, price(m)) for m in range(last_minute + 1, minute + 1)][-WINDOW:]
            last_minute = minute
            intraday_rows = (intraday_rows + new)[-WINDOW:]
            with open(os.path.join(data, "LIVE-1m.csv"), "a") as f:
                f.write("".join(new))
        day = int(t // DAY)
        if day > last_day:
            last_day = day
            daily_rows = (daily_rows + [row(day * DAY, price(day), daily=True)])[-400:]
            write_atomic(os.path.join(data, "LIVE.csv"), HEADER + "".join(daily_rows))
        # Every few simulated hours, in turn: trim (atomic replace), garbage and repair, reloads.
        if t >= next_event:
            next_event = t + 3 * 3600
            kind = event % 6
            event += 1
            live = os.path.join(data, "LIVE-1m.csv")
            if kind == 0:
                write_atomic(live, IHEADER + "".join(intraday_rows))
            elif kind == 1:
                write_atomic(os.path.join(data, "OTHER.csv"), "\x00garbage,\xff\n" * 500)
                wait_for(lambda: any("OTHER.csv" in p["message"] for p in (status() or {}).get("problems", [])), 10) \
                    or failures.append("garbage in OTHER.csv not reported at %.0f s" % (t - start))
                write_atomic(os.path.join(data, "OTHER.csv"), HEADER + "".join(daily_rows[-300:]))
                wait_for(lambda: not any("OTHER.csv" in p["message"] for p in (status() or {}).get("problems", [])), 10) \
                    or failures.append("repaired OTHER.csv still reported at %.0f s" % (t - start))
            elif kind == 2:
                write_atomic(conf, BAD)
                daemon.send_signal(signal.SIGHUP)
                wait_for(lambda: any(p["key"] == "schedule" for p in (status() or {}).get("problems", [])), 10) \
                    or failures.append("bad reload not reported at %.0f s" % (t - start))
            elif kind == 3:
                write_atomic(conf, GOOD2 if event % 12 < 6 else GOOD)
                daemon.send_signal(signal.SIGHUP)
                wait_for(lambda: not (status() or {}).get("problems"), 10) \
                    or failures.append("good reload left problems at %.0f s" % (t - start))
            elif kind == 4:
                # A FIFO as the config: the reload must be refused at once, not block the daemon.
                os.unlink(conf)
                os.mkfifo(conf)
                daemon.send_signal(signal.SIGHUP)
                before = (status() or {}).get("time", 0)
                wait_for(lambda: (status() or {}).get("time", 0) > before + 600, 10) \
                    or failures.append("daemon stuck after a FIFO reload at %.0f s" % (t - start))
                os.unlink(conf)
                write_atomic(conf, GOOD)
                daemon.send_signal(signal.SIGHUP)
            else:
                write_atomic(live, "Datetime,Close\n" + "not a row\n" * 100)
                write_atomic(live, IHEADER + "".join(intraday_rows))
        if t >= end:
            break
    real = time.monotonic() - real0
finally:
    stop_load.set()
    if loader and loader.is_alive():
        loader.join(10)
    code = stop(daemon, signal.SIGTERM, 30)

good = [x for x in samples if x[1] is not None and x[2] is not None]
after_day = next((x for x in good if x[0] >= DAY), None)
last = good[-1] if good else None
peak = max((x[1] for x in good), default=0)
print("soak: %.1f simulated days in %.0f s real (x%g), %d samples, %d scene/range states"
      % ((last[0] if last else 0) / DAY, real if 'real' in dir() else 0, args.time_scale, len(good), len(scenes)))
if after_day and last:
    print("soak: rss after day 1 %d kB, at the end %d kB (%+d kB), peak %d kB; fds after day 1 %d, at the end %d"
          % (after_day[1], last[1], last[1] - after_day[1], peak, after_day[2], last[2]))
    bound = 2048 if args.control_load else 1024
    if abs(last[1] - after_day[1]) > bound:
        failures.append("rss moved %+d kB after day 1 (at most %d)" % (last[1] - after_day[1], bound))
    # A sample counts the control connections in flight at that moment (the load keeps several
    # open, a screenshot request brings a descriptor), so single samples differ by a few either
    # way; a leaked descriptor raises every sample from then on. The fewest open over the first
    # samples after day 1 against the fewest over the last ones.
    day_fds = [x[2] for x in good if DAY <= x[0]][:4]
    end_fds = [x[2] for x in good][-4:]
    if min(end_fds) > min(day_fds):
        failures.append("open fds: at least %d after day 1, at least %d at the end (samples %s, %s)"
                        % (min(day_fds), min(end_fds), day_fds, end_fds))
else:
    failures.append("no samples past day 1")
for d in range(0, int(args.days) + 1, max(1, int(args.days) // 6)):
    x = next((x for x in good if x[0] >= d * DAY), None)
    if x:
        print("soak:   day %2d  rss %6d kB  fds %d" % (d, x[1], x[2]))
if args.control_load:
    print("soak: control requests: %d answered, %d busy, %d failed" % (load_counts["ok"], load_counts["busy"], load_counts["error"]))
    if load_counts["ok"] < 100 or load_counts["error"] > load_counts["ok"] // 20:
        failures.append("the control socket under load: %s" % load_counts)
if code != 0:
    failures.append("exit status %s on TERM" % code)
traps = [l for l in open(log) if "Fatal error" in l or "Crash" in l]
if traps:
    failures.append("trap in the log: " + traps[0].strip())
for f in failures:
    print("soak: FAIL", f)
if failures:
    print("artefacts in", work)
    print(open(log).read()[-2000:])
else:
    shutil.rmtree(work, ignore_errors=True)
    print("soak: PASS")
sys.exit(1 if failures else 0)
