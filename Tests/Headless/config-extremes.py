#!/usr/bin/env python3
"""Every config check-config accepts (and every one it refuses) starts the real daemon (headless) and
survives a reload into another accepted config; every config it refuses has `FILE:LINE: key: message` lines. The configs are
the values that once trapped (issue 13), the largest values each key accepts, a FIFO as the config,
and the seed corpus of fuzz-config. Waits are for observable states, bounded by deadlines.

usage: config-extremes.py TICKERBOARD_BINARY DATA_CSV
"""
import glob, json, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json as status, stop, wait_for  # noqa: E402

BIN, CSV = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="tb-extremes-")
shutil.copy(CSV, os.path.join(work, "A.csv"))
INST = "[instrument A]\ndaily = %s/A.csv\nintraday = %s/A.csv\ntime-zone = America/New_York\n" % (work, work)
cases = {
    "lone-dash-schedule": "[power]\nschedule = - 07:00-22:00\n" + INST,
    "huge-stale-after": "[data]\nstale-after = 1e300d\n" + INST,
    "huge-idle": "[power]\nblank-after-idle = 1e300d\n" + INST,
    "huge-period": "[burn-in]\nperiod = 1e300\n" + INST,
    "huge-interval": "[chart]\ninstrument-interval = 1e300h\n" + INST,
    "wild-curve": "[chart]\nmorph-curve = cubic-bezier(0.5, 1e308, 0.5, -1e308)\n" + INST,
    "huge-mode": "[display]\nmode = 100000x100000@inf\n" + INST,
    "huge-calibration": "[input]\ncalibration = 1e300 0 0 0 1 0\n" + INST,
    "extremes": "[display]\nmode = 640x360@1000\n[input]\ncalibration = 1000 -1000 1000 -1000 1000 -1000\n"
                "[data]\nstale-after = 36500d\n[chart]\ncycle-interval = 2s\ninstrument-interval = 7d\n"
                "touch-pause = 24h\nmorph-duration = 10s\nmorph-curve = cubic-bezier(0, 5, 1, -5)\n"
                "currency-symbol = EUREUREU\ndecimals = 6\ngrouping-separator = space\n"
                "[power]\nschedule = " + ", ".join(["Sun-Sat 23:59-00:00"] * 32) + "\nblank-after-idle = 7d\n"
                "[burn-in]\nshift = 16\nperiod = 10s\n" + INST,
    "smallest": "[chart]\ncycle-interval = 2s\nmorph-duration = 0\ntouch-pause = 0\n[power]\nblank-after-idle = 0.001s\n"
                "[burn-in]\nshift = 0\nperiod = 10s\n[data]\nstale-after = 1s\n" + INST,
}
for seed in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "Fuzz", "corpus", "fuzz-config", "*"))):
    cases["seed-" + os.path.basename(seed)] = open(seed, errors="replace").read()
results = []


def result(name, ok, detail=""):
    results.append(ok)
    print("RESULT %s %s%s" % (name, "PASS" if ok else "FAIL", (" " + detail) if detail else ""), flush=True)


def check(path):
    t0 = time.monotonic()
    try:
        out = subprocess.run([BIN, "check-config", path], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, ["no answer within 120 s"], time.monotonic() - t0
    return out.returncode, out.stdout.splitlines(), time.monotonic() - t0


accepted, every = [], []
for name, text in cases.items():
    path = os.path.join(work, name + ".conf")
    with open(path, "w") as f:
        f.write(text)
    every.append(path)
    code, lines, _ = check(path)
    errors = [l for l in lines if not l.startswith("warning: ") and not l.endswith("warning(s))")]
    if code == 0:
        accepted.append(path)
    else:
        located = all(re.match(re.escape(path) + r":\d+: ([\w-]+: )?.+", l) or l.startswith(path + ": ")
                      or l.startswith("/") for l in errors)
        result("refused-" + name, bool(errors) and located, "; ".join(errors)[:300])

# A FIFO nobody writes to: opening it to read would wait for ever, so an answer at all (the refusal)
# shows check-config never opened it; how soon is reported.
fifo = os.path.join(work, "fifo.conf")
os.mkfifo(fifo)
code, lines, took = check(fifo)
result("fifo-check-config", code == 1 and any("not a regular file" in l for l in lines), "%s in %.2f s" % (lines, took))

# Every config starts the daemon (a refused key falls back to its default: the screen comes up
# whatever the file says), which then reloads into the next accepted one and exits on TERM.
for i, path in enumerate(every + [fifo]):
    live = os.path.join(work, "live.conf")
    if path == fifo:
        os.path.exists(live) and os.unlink(live)
        os.mkfifo(live)
    else:
        shutil.copy(path, live)
    state = os.path.join(work, "s.json")
    if os.path.exists(state):
        os.unlink(state)
    log = os.path.join(work, "log.txt")
    daemon = subprocess.Popen([BIN, "run", "--config", live, "--display", "headless", "--size", "320x180",
                               "--status", state, "--time-scale", "50"], stderr=open(log, "w"), stdout=subprocess.DEVNULL)
    name = os.path.basename(path)[:-5]
    started = wait_for(lambda: status(state), 20)
    nxt = accepted[(i + 1) % len(accepted)]
    if path == fifo:
        os.unlink(live)
    shutil.copy(nxt, live)
    before = (status(state) or {}).get("time", 0)
    daemon.send_signal(signal.SIGHUP)
    reloaded = wait_for(lambda: (status(state) or {}).get("time", 0) > before + 30, 20)
    alive = daemon.poll() is None
    code = stop(daemon, signal.SIGTERM, 20)
    traps = [l for l in open(log) if "Fatal error" in l or "Crash" in l]
    result("runs-" + name, bool(started) and bool(reloaded) and alive and code == 0 and not traps,
           "started=%s reloaded=%s exit=%s %s" % (bool(started), bool(reloaded), code, traps[:1]))

print("config-extremes: %d passed, %d failed (%d configs run, %d of them accepted)" % (results.count(True), results.count(False), len(every) + 1, len(accepted)))
if all(results):
    shutil.rmtree(work, ignore_errors=True)
else:
    print("artefacts in", work)
sys.exit(0 if all(results) else 1)
