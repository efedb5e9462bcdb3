#!/usr/bin/env python3
"""The real daemon loop on the headless display, as an integrator sees it: the preview PNG, the
status file, the log. Every wait is for an observable state (a status value, a file), bounded by a
deadline; nothing sleeps a fixed time to let something happen.

usage: headless-check.py TICKERBOARD_BINARY DATA_CSV
Prints RESULT <name> PASS|FAIL lines and a closing 'N passed, N failed' line.
"""
import json, os, shutil, signal, struct, subprocess, sys, tempfile, time, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json as status, read_png, stop, wait_for as _wait  # noqa: E402

BIN, CSV = sys.argv[1], sys.argv[2]
results = []


def result(name, ok, detail=""):
    results.append(ok)
    print("RESULT %s %s%s" % (name, "PASS" if ok else "FAIL", (" " + detail) if detail else ""), flush=True)


def coloured_pixels(path):
    """Saturated pixels (the line is green or red; text and background are grey) in the plot area."""
    w, h, rows = read_png(path)
    n = 0
    for y in range(int(h * 0.3), int(h * 0.75), 2):
        row = rows[y]
        for x in range(int(w * 0.1), int(w * 0.9), 2):
            r, g, b = row[3 * x], row[3 * x + 1], row[3 * x + 2]
            if max(r, g, b) - min(r, g, b) > 60:
                n += 1
    return n


def wait_for(what, predicate, deadline):
    """`what` names the state waited for, for whoever reads this script."""
    return _wait(predicate, deadline)


work = tempfile.mkdtemp(prefix="tb-headless-")
data = os.path.join(work, "data")
os.mkdir(data)
conf = os.path.join(work, "tb.conf")
with open(conf, "w") as f:
    f.write("[data]\ndirectory = %s\n[chart]\ncycle-interval = 8s\nranges = 1D 5D 1M\ninstrument-interval = 5s\n"
            "[instrument AAPL]\nname = Apple Inc.\ndaily = AAPL.csv\n"
            "[instrument SAMPLE2]\nname = Second\ndaily = B.csv\n" % data)
preview, state, log = (os.path.join(work, n) for n in ("p.png", "s.json", "log.txt"))
shutil.copy(CSV, os.path.join(data, "B.csv"))
daemon = subprocess.Popen([BIN, "run", "--config", conf, "--display", "headless", "--size", "480x270",
                           "--preview", preview, "--status", state, "--time-scale", "4"],
                          stderr=open(log, "w"), stdout=subprocess.DEVNULL)
try:
    # 1. First boot before data: the placeholder says which file it waits for, never the sample.
    s = wait_for("placeholder", lambda: (lambda st: st if st and st.get("waiting_for") and st.get("problems")
                                         and os.path.exists(preview) else None)(status(state)), 20)
    ok = bool(s) and "AAPL.csv" in (s.get("waiting_for") or "") and s.get("instrument_name") == "Apple Inc."
    problems = (s or {}).get("problems", [])
    ok = ok and any(p["file"] == conf and p["key"] == "daily" and p["line"] == 9 for p in problems)
    placeholder_pixels = coloured_pixels(preview) if ok else -1
    result("headless-placeholder", ok and placeholder_pixels == 0,
           "waiting_for=%r problems=%r coloured=%d" % ((s or {}).get("waiting_for"), problems, placeholder_pixels))

    # 2. The file arrives (atomic replace): within two seconds the chart and the price.
    last_close = float(open(CSV).read().strip().splitlines()[-1].split(",")[4])
    tmp = os.path.join(data, ".AAPL.csv.tmp")
    shutil.copy(CSV, tmp)
    mtime_before = os.stat(preview).st_mtime_ns
    t0 = time.monotonic()
    os.rename(tmp, os.path.join(data, "AAPL.csv"))
    s = wait_for("chart", lambda: (lambda st: st if st and st.get("price") is not None and st.get("instrument_id") == "AAPL"
                                   and os.stat(preview).st_mtime_ns != mtime_before else None)(status(state)), 10)
    elapsed = time.monotonic() - t0
    s2 = wait_for("preview", lambda: coloured_pixels(preview) > 50, 5)
    # How soon is the host's speed (reported); that the price and the chart come is judged.
    ok = bool(s) and abs(s["price"] - last_close) < 1e-6 and s.get("waiting_for") is None and s2
    result("headless-data-arrives", ok, "price=%s expected=%s after %.2f s, coloured=%s"
           % ((s or {}).get("price"), last_close, elapsed, coloured_pixels(preview)))

    # 2b. The fetcher's status beside the data: "as of" in exchange time and the provider's delay.
    last_date = open(CSV).read().strip().splitlines()[-1].split(",")[0]
    y, m, dd = (int(v) for v in last_date.split("-"))
    import calendar
    as_of = calendar.timegm((y, m, dd, 21, 0, 0)) # 16:00 in New York (EST) or 17:00 (EDT)
    tmp = os.path.join(data, ".AAPL.status.tmp")
    with open(tmp, "w") as f:
        json.dump({"provider": "yahoo", "last_price_time": as_of, "delay_seconds": 900}, f)
    os.rename(tmp, os.path.join(data, "AAPL.status"))
    s = wait_for("as of", lambda: (lambda st: st if st and "as of" in (st.get("note") or "") else None)(status(state)), 10)
    note = (s or {}).get("note") or ""
    result("headless-fetch-status-note", "delayed 15 min" in note and ("16:00 EST" in note or "17:00 EDT" in note)
           and "stale" in note, "note=%r" % note)

    # 3. A reload with a mistyped data path keeps the last good data and names FILE:LINE.
    price = (status(state) or {}).get("price")
    text = open(conf).read().replace("daily = AAPL.csv", "daily = AAPLL.csv")
    with open(conf, "w") as f:
        f.write(text)
    daemon.send_signal(signal.SIGHUP)
    s = wait_for("reload", lambda: (lambda st: st if st and any("AAPLL.csv" in p["message"] for p in st["problems"])
                                    else None)(status(state)), 10)
    logged = any(conf + ":9: daily:" in line and "AAPLL.csv" in line for line in open(log))
    names = {p["file"] + ":" + str(p["line"]) for p in (s or {}).get("problems", [])}
    ok = bool(s) and logged and (conf + ":9") in names
    # Still on AAPL (a reload stays on the instrument shown), still with its data.
    ok = ok and s.get("instrument_id") == "AAPL" and s.get("price") == price and s.get("waiting_for") is None
    result("headless-bad-reload-keeps-data", ok, "logged=%s problems=%s price=%s" % (logged, names, (s or {}).get("price")))

    # 4. Unattended cycling on the accelerated clock: every range of both instruments, and the bars;
    # never 1D, which daily closes alone cannot draw (two points, a ruler line).
    seen = set()
    def cycled():
        st = status(state)
        if st and st.get("instrument_id"):
            # A new instrument shows its first range drawing itself in (scene "draw").
            seen.add((st["instrument_id"], st["range"]))
            seen.add((st["instrument_id"], st["scene"]))
        return all((i, r) in seen for i in ("AAPL", "SAMPLE2") for r in ("5D", "1M", "bars"))
    ok = wait_for("cycle", cycled, 90)
    ok = ok and not any(r == "1D" for _, r in seen)
    result("headless-cycles-every-range", bool(ok), "seen=%s" % sorted(seen))

    # 5. The clock runs four times faster. Judged without the host's speed: each status file carries
    # the daemon's clock ("time") and the kernel stamps the real time it was written (its mtime), so
    # the lead of the one over the other grows between two writes, however late this script reads
    # them. The ratio of the two clocks is reported.
    def stamped():
        for _ in range(50):
            try:
                before = os.stat(state)
                st = json.load(open(state))
                after = os.stat(state)
            except (OSError, ValueError):
                time.sleep(0.02)
                continue
            if before.st_ino == after.st_ino and before.st_mtime_ns == after.st_mtime_ns:
                return st["time"], after.st_mtime_ns / 1e9
        return None
    a = stamped()
    wait_for("time", lambda: (stamped() or (0, 0))[0] > (a or (1e300, 0))[0] + 8, 20)
    b = stamped()
    ok = bool(a and b) and b[0] - b[1] > a[0] - a[1] and b[0] > a[0]
    ratio = (b[0] - a[0]) / max(1e-3, b[1] - a[1]) if a and b else 0
    result("headless-time-scale", ok, "the daemon's clock gained %.1f s on the real one between two writes; ratio %.1f (asked for 4)"
           % (((b[0] - b[1]) - (a[0] - a[1])) if a and b else float("nan"), ratio))

    # 6. render --values: the numbers of a frame, for scripts.
    out = subprocess.run([BIN, "render", "--data", CSV, "--range", "1Y", "--values"], capture_output=True, text=True)
    values = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    ok = out.returncode == 0 and abs(float(values.get("price", "nan")) - last_close) < 1e-6 \
        and abs(float(values["range_change"]) - (float(values["price"]) - float(values["baseline"]))) < 1e-6 \
        and abs(float(values["last_price"]) - last_close) < 1e-6
    result("render-values", ok, repr(values))
finally:
    code = stop(daemon, signal.SIGTERM, 20)
    result("headless-exits-on-term", code == 0, "exit %s" % code)

# 7. Two outputs headless (issue 51): with two [output] sections the headless display gives each a
# screen of its own. Both run, each its own scene, and the tape's output keeps flipping (it crawls).
# The status file, read with a parser that refuses a key given twice, lists both.
def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("duplicate keys %s" % dup)
    return dict(pairs)


def strict_status(path):
    try:
        with open(path) as f:
            return json.load(f, object_pairs_hook=no_duplicates)
    except (OSError, ValueError) as e:
        return {"_error": str(e)} if "duplicate" in str(e) else None


conf2, state2, log2 = (os.path.join(work, n) for n in ("two.conf", "two.json", "two-log.txt"))
with open(conf2, "w") as f:
    f.write("[data]\nstale-after = 36500d\n[chart]\ncycle-interval = 0\n"
            "[instrument TBE2E]\ndaily = %s\ntime-zone = America/New_York\n"
            "[output first]\nscene = chart\n[output second]\nscene = tape\n" % os.path.abspath(CSV))
two = subprocess.Popen([BIN, "run", "--config", conf2, "--display", "headless", "--size", "640x360", "--status", state2],
                       stderr=open(log2, "w"), stdout=subprocess.DEVNULL)
try:
    def both_running():
        st = strict_status(state2)
        outs = (st or {}).get("outputs") or []
        return st if len(outs) == 2 and all(o["state"] == "running" and o["flips"] > 0 for o in outs) else None
    st = wait_for("both outputs flipping", both_running, 30)
    outs = (st or {}).get("outputs") or []
    tape_flips = outs[1]["flips"] if len(outs) == 2 else 0
    crawled = wait_for("the tape crawling", lambda: (lambda s: s if s and len(s.get("outputs") or []) == 2
                       and s["outputs"][1]["flips"] >= tape_flips + 30 else None)(strict_status(state2)), 30)
    dup = (strict_status(state2) or {}).get("_error")
    # The same moment for Prometheus (issue 53 item 4): tickerboard.prom beside the status file,
    # read by prometheus_client's parser (PyPI, into a venv of its own: the oracle of the format).
    prom = os.path.join(work, "tickerboard.prom")
    wait_for("the metrics file", lambda: os.path.exists(prom), 10)
    families, why = {}, ""
    try:
        venv = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tickerboard", "prom-venv")
        py = os.path.join(venv, "bin", "python")
        if not os.path.exists(py) or subprocess.run([py, "-c", "import prometheus_client"], capture_output=True).returncode != 0:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
            subprocess.run([py, "-m", "pip", "install", "-q", "prometheus_client"], check=True, capture_output=True)
        out = subprocess.run([py, "-c", "import json, sys\nfrom prometheus_client.parser import text_string_to_metric_families as p\n"
                              "print(json.dumps({f.name: [f.type, [[s.name, s.labels, s.value] for s in f.samples]] "
                              "for f in p(open(sys.argv[1]).read())}))", prom], capture_output=True, text=True)
        families = json.loads(out.stdout) if out.returncode == 0 else {}
        why = out.stderr.strip().splitlines()[-1] if out.returncode != 0 else ""
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        why = str(e)
    # And promtool's own lint (`promtool check metrics`, Prometheus' checker of the exposition
    # format and naming conventions): Debian's prometheus package holds it; the package is only
    # downloaded and unpacked (installing it would start a Prometheus server).
    promtool_why = ""
    try:
        cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tickerboard", "promtool")
        promtool = os.path.join(cache, "usr", "bin", "promtool")
        if not os.access(promtool, os.X_OK):
            os.makedirs(cache, exist_ok=True)
            subprocess.run(["apt-get", "download", "-q", "prometheus"], cwd=cache, check=True, capture_output=True)
            deb = [f for f in os.listdir(cache) if f.startswith("prometheus_") and f.endswith(".deb")][0]
            subprocess.run(["dpkg-deb", "-x", deb, "."], cwd=cache, check=True, capture_output=True)
            os.unlink(os.path.join(cache, deb))
            os.unlink(os.path.join(cache, "usr", "bin", "prometheus"))
        with open(prom) as f:
            lint = subprocess.run([promtool, "check", "metrics"], stdin=f, capture_output=True, text=True)
        if lint.returncode != 0 or lint.stdout.strip() or lint.stderr.strip():
            promtool_why = "promtool: " + (lint.stdout + lint.stderr).strip().replace("\n", "; ")[:400]
    except (OSError, IndexError, subprocess.CalledProcessError) as e:
        promtool_why = "promtool not run: %s" % e
    why = "; ".join(w for w in (why, promtool_why) if w)

    def sample(family, **labels):
        for name, l, v in (families.get(family) or [None, []])[1]:
            if all(l.get(k) == val for k, val in labels.items()):
                return v
        return None
    prom_ok = not promtool_why and families.get("tickerboard_frames", [None])[0] == "counter" and (sample("tickerboard_frames") or 0) > 0 \
        and sample("tickerboard_screen_on") == 1 and sample("tickerboard_instrument_problem", instrument="TBE2E") == 0 \
        and (sample("tickerboard_instrument_data_age_seconds", instrument="TBE2E") or 0) > 0 \
        and sample("tickerboard_output_flips", output="first") is not None and sample("tickerboard_output_flips", output="second") is not None
    result("headless-prometheus-textfile", prom_ok, "%d families parsed, promtool check metrics clean%s; frames %s, screen_on %s, TBE2E problem %s, age %s s, flips %s/%s"
           % (len(families), (" (" + why + ")") if why else "", sample("tickerboard_frames"), sample("tickerboard_screen_on"),
              sample("tickerboard_instrument_problem", instrument="TBE2E"),
              sample("tickerboard_instrument_data_age_seconds", instrument="TBE2E"),
              sample("tickerboard_output_flips", output="first"), sample("tickerboard_output_flips", output="second")))
    ok = bool(st) and bool(crawled) and not dup and [o["scene"] for o in outs] == ["chart", "tape"] \
        and [o["connector"] for o in outs] == ["VIRTUAL-1", "VIRTUAL-2"] and st.get("price") is not None
    result("headless-two-outputs", ok, "outputs %s; the tape's flips %s -> %s; %s"
           % ([(o["name"], o["connector"], o["scene"], o["state"], o["flips"]) for o in outs], tape_flips,
              [o["flips"] for o in (crawled or {}).get("outputs", [])], dup or "no key twice in the status file"))
finally:
    code = stop(two, signal.SIGTERM, 20)
    result("headless-two-outputs-exit", code == 0, "exit %s; log: %s" % (code, " | ".join(open(log2).read().splitlines()[-3:])))
    if all(results):
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("artefacts in", work)
        print(open(log).read()[-3000:])
        print(open(log2).read()[-2000:])

# 8. The room's light (issue 52 item 6): an IIO sensor on a fake sysfs tree (TICKERBOARD_SYSFS_ROOT),
# `light-sensor = auto`. Its lux in the status file, and the level the steps give (20 lx: 40 %;
# 5,000 lx: 100 %, after the 30 s a change waits, 3 s at --time-scale 10); the sensor gone: null
# and the schedule's level alone (always on: 100 %).
sys_root = tempfile.mkdtemp(prefix="tb-iio-")
dev = os.path.join(sys_root, "bus", "iio", "devices", "iio:device0")
os.makedirs(dev)
lux_file = os.path.join(dev, "in_illuminance_input")
with open(os.path.join(dev, "name"), "w") as f:
    f.write("fake-als\n")
def set_lux(v):
    with open(lux_file + ".new", "w") as f:
        f.write("%s\n" % v)
    os.rename(lux_file + ".new", lux_file)
set_lux(20)
conf3, state3, log3 = (os.path.join(sys_root, n) for n in ("light.conf", "light.json", "light-log.txt"))
with open(conf3, "w") as f:
    f.write("[data]\nstale-after = 36500d\n[chart]\ncycle-interval = 0\n[power]\nlight-sensor = auto\n"
            "[instrument TBE2E]\ndaily = %s\ntime-zone = America/New_York\n" % os.path.abspath(CSV))
light = subprocess.Popen([BIN, "run", "--config", conf3, "--display", "headless", "--size", "320x240", "--status", state3,
                          "--time-scale", "10"], stderr=open(log3, "w"), stdout=subprocess.DEVNULL,
                         env=dict(os.environ, TICKERBOARD_SYSFS_ROOT=sys_root))
try:
    def seen(lux, level):
        st = status(state3) or {}
        return st if st.get("lux") == lux and st.get("level") == level else None
    dim = wait_for("20 lx at 40 %", lambda: seen(20, 40), 30)
    set_lux(5000)
    bright = wait_for("5000 lx at 100 %", lambda: seen(5000, 100), 30)
    os.unlink(lux_file)
    gone = wait_for("no reading, the schedule's 100 %", lambda: seen(None, 100), 30)
    logged = "the light sensor cannot be read" in open(log3).read()
    result("headless-light-sensor", bool(dim and bright and gone and logged),
           "20 lx: %s; 5000 lx: %s; gone: %s (logged %s)" % (
               dim and (dim["lux"], dim["level"]), bright and (bright["lux"], bright["level"]),
               gone and (gone["lux"], gone["level"]), logged))
finally:
    code = stop(light, signal.SIGTERM, 20)
    if not all(results):
        print(open(log3).read()[-2000:])
    shutil.rmtree(sys_root, ignore_errors=True)

print("headless: %d passed, %d failed" % (results.count(True), results.count(False)))
sys.exit(0 if all(results) else 1)
