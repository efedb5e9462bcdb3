#!/usr/bin/env python3
"""`tickerboard render --config` draws what the daemon shows: the real daemon on the headless display
settles on a config, and `render --config` at the moment its status file names (and, for a crawling
tape, the moment on the daemon's clock its preview names in its PNG text) writes the same pixels as
the daemon's preview and the same picture keys as its status file. Screens: an instrument with minute
bars on Xetra in de-DE (1D against the previous close, the config's name and currency), one whose
data the provider refused (the reason in the placeholder), a wall with an alert's banner at a dimmed
level beside a tape band, and the portfolio's screen (`ctl show portfolio`) under a `ctl message`
beside a tape band. Every wait is for an observable state; nothing sleeps a fixed time.

usage: render-config-check.py TICKERBOARD_BINARY DATA_CSV
Prints RESULT <name> PASS|FAIL lines and a closing 'N passed, N failed' line.
"""
import json, os, shutil, signal, struct, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json, read_png, stop, wait_for  # noqa: E402

BIN, CSV = sys.argv[1], sys.argv[2]
SIZE = "800x480"  # the Raspberry Pi's 7" panel
KEYS = ["instrument_name", "range", "scene", "price", "range_change", "range_change_percent", "price_text", "change_text",
        "last_price", "previous_close", "day_change", "day_change_percent",
        "baseline", "baseline_kind", "session_state", "as_of", "last_data_time", "waiting_for", "problem", "note"]
results = []


def result(name, ok, detail=""):
    results.append(ok)
    print("RESULT %s %s%s" % (name, "PASS" if ok else "FAIL", (" " + detail) if detail else ""), flush=True)


def minute_bars(path, date, previous_close):
    """A Xetra session of minute bars on `date` (CET), 09:00 to the 17:35 closing auction."""
    with open(path, "w") as f:
        f.write("Datetime,Open,High,Low,Close,Adj Close,Volume\n")
        for i in range(0, 8 * 60 + 36, 5):
            h, m = 9 + i // 60, i % 60
            v = previous_close + 6 + 4 * ((i * 7919) % 23) / 23 - i / 120
            f.write("%s %02d:%02d:00+01:00,%.2f,%.2f,%.2f,%.2f,%.2f,100\n" % (date, h, m, v, v + 0.5, v - 0.5, v, v))


def png_text(png):
    """The tEXt chunks of PNG bytes, {keyword: value}."""
    pos, text = 8, {}
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"tEXt":
            keyword, _, value = png[pos + 8:pos + 8 + length].partition(b"\0")
            text[keyword.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + length
    return text


def settled_preview(state, preview, want=lambda s: True, crawling=False):
    """(status, PNG bytes) of one settled picture showing what `want` asks of the status.

    Still: the status says every frame so far is settled, the preview is read, and the status still
    names the same frame afterwards (the preview of a settled frame is written as it is shown, so
    the newest one is that frame's). Under a crawling tape frames never stop and the preview is
    written at most once a second: the status first says the picture is settled and as wanted, then
    a preview written after that status is taken (and a status written after it says so again)."""
    def settled(s):
        return s and s.get("frames") and s.get("settled_frame") == s.get("frames") and want(s)

    def still():
        s = read_json(state)
        if not settled(s) or not os.path.exists(preview):
            return None
        # The preview of the settled frame is written right after it is shown, the status on its own
        # schedule: the status must come after the preview to vouch for it.
        if os.stat(state).st_mtime_ns < os.stat(preview).st_mtime_ns:
            return None
        png = open(preview, "rb").read()
        again = read_json(state)
        return (s, png) if again and again.get("frames") == s["frames"] else None
    if not crawling:
        return wait_for(still, 60)

    def confirmed():
        mtime = os.stat(state).st_mtime_ns if os.path.exists(state) else None
        s = read_json(state)
        return (s, mtime) if settled(s) and mtime == os.stat(state).st_mtime_ns else None
    got = wait_for(confirmed, 60)
    if not got:
        return None
    since = got[1]

    def fresh():
        try:
            written = os.stat(preview).st_mtime_ns
            png = open(preview, "rb").read()
            if written <= since or os.stat(preview).st_mtime_ns != written:
                return None
        except OSError:
            return None
        s = read_json(state)
        return (s, png) if settled(s) and os.stat(state).st_mtime_ns >= written else None
    return wait_for(fresh, 30)


def plain(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def compare(name, conf, work, args=(), ctl=(), want=lambda s: True, crawling=False, values=True):
    """The daemon on `conf` (told `ctl`'s requests once it runs) settled as `want` asks, against
    `render --config conf ARGS` at its moment. Returns (status, render's values, daemon's picture)."""
    preview, state, log, sock = (os.path.join(work, n) for n in ("preview.png", "status.json", "daemon.log", "control"))
    daemon = subprocess.Popen([BIN, "run", "--config", conf, "--display", "headless", "--size", SIZE,
                               "--preview", preview, "--status", state] + (["--control", sock] if ctl else []),
                              stderr=open(log, "w"), stdout=subprocess.DEVNULL)
    try:
        told = []
        if ctl and not wait_for(lambda: os.path.exists(sock) and read_json(state), 30):
            told.append("no control socket")
        elif ctl:
            for request in ctl:
                r = subprocess.run([BIN, "ctl", "--socket", sock] + list(request), capture_output=True, text=True)
                told.append(r.returncode == 0 or "%s: %s" % (request, r.stderr.strip()))
        got = settled_preview(state, preview, want, crawling) if all(t is True for t in told) else None
    finally:
        stop(daemon, signal.SIGTERM, 10)
    if not got:
        result(name + "-pixels", False, "the daemon never settled as wanted (%s; see %s)" % (told, log))
        if values:
            result(name + "-values", False, "no status")
        return None
    status, png = got
    with open(os.path.join(work, "daemon.png"), "wb") as f:
        f.write(png)
    # The moment of the preview's frame on the daemon's clock: where a crawling tape is.
    at = png_text(png).get("tickerboard-time")
    out = os.path.join(work, "render.png")
    r = subprocess.run([BIN, "render", "--config", conf, "--size", SIZE, "--now", str(int(status["time"])),
                        "--output", out] + (["--values"] if values else []) + (["--at", at] if at else [])
                       + list(args), capture_output=True, text=True)
    if r.returncode != 0 or not at:
        result(name + "-pixels", False, "render exit %d: %s; the preview's time %r" % (r.returncode, r.stderr.strip(), at))
        if values:
            result(name + "-values", False, "")
        return None
    w1, h1, a = read_png(os.path.join(work, "daemon.png"))
    w2, h2, b = read_png(out)
    differing = sum(1 for y in range(min(h1, h2)) for x in range(min(w1, w2)) if a[y][3 * x:3 * x + 3] != b[y][3 * x:3 * x + 3])
    result(name + "-pixels", (w1, h1) == (w2, h2) and differing == 0,
           "daemon %dx%d, render %dx%d at %s s, %d pixels differ" % (w1, h1, w2, h2, at, differing))
    rendered = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    if values:
        mismatched = ["%s: status %r, render %r" % (k, plain(status.get(k)), rendered.get(k)) for k in KEYS
                      if plain(status.get(k)) != rendered.get(k)]
        result(name + "-values", not mismatched and all(k in rendered for k in KEYS),
               "; ".join(mismatched) or "all %d keys equal (price_text=%r change_text=%r problem=%r)"
               % (len(KEYS), rendered.get("price_text"), rendered.get("change_text"), rendered.get("problem")))
    return status, rendered, a


def seen(rows, band, background):
    """What the picture shows, counted: the rows above the tape band whose commonest colour is lighter
    than the background (a banner across the screen), the distinct colours in the band (its type),
    and the brightest channel anywhere."""
    def lum(p):
        return sum(p)

    banner = 0
    for y in range(band[1]):
        row = rows[y]
        counts = {}
        for x in range(0, len(row), 3 * 4):
            counts[row[x:x + 3]] = counts.get(row[x:x + 3], 0) + 1
        if lum(max(counts, key=counts.get)) > lum(background) + 60:
            banner += 1
    colours = {rows[y][x:x + 3] for y in range(band[1], band[3]) for x in range(3 * band[0], 3 * band[2], 3)}
    return banner, len(colours), max(max(r) for r in rows)


work = tempfile.mkdtemp(prefix="tb-render-config-")
try:
    # 1. Minute bars on Xetra, de-DE, the config's name and currency; 1D against the previous close.
    data = os.path.join(work, "data")
    os.mkdir(data)
    shutil.copy(CSV, os.path.join(data, "TB.csv"))
    rows = [l.split(",") for l in open(CSV).read().strip().splitlines()[1:]]
    last_date, previous_close = rows[-1][0], float(rows[-2][4])
    minute_bars(os.path.join(data, "TB-1m.csv"), last_date, previous_close)
    conf = os.path.join(work, "one.conf")
    with open(conf, "w") as f:
        f.write("[data]\ndirectory = %s\n[chart]\nlocale = de-DE\ncycle-interval = 0\nstart-range = 1D\nwatchlist = off\n"
                "[instrument TB]\nname = Tickerboard AG\ndaily = TB.csv\nintraday = TB-1m.csv\ncurrency = EUR\n"
                "exchange = XETR\n" % data)
    got = compare("render-config-xetra", conf, os.path.join(work))
    if got:
        status, values, _ = got
        ok = (values.get("instrument_name") == "Tickerboard AG" and values.get("range") == "1D"
              and values.get("baseline_kind") == "previous-close" and abs(float(values.get("baseline") or 0) - previous_close) < 1e-9
              and "€" in values.get("price_text", "") and "," in values.get("price_text", ""))
        result("render-config-xetra-header", ok, "name=%r range=%r baseline=%r (%r) price_text=%r"
               % (values.get("instrument_name"), values.get("range"), values.get("baseline"), values.get("baseline_kind"),
                  values.get("price_text")))

    # 2. The provider refused the symbol: the placeholder gives the reason, as the status file does.
    work2 = os.path.join(work, "refused")
    data2 = os.path.join(work2, "data")
    os.makedirs(data2)
    with open(os.path.join(data2, "DAX.status"), "w") as f:
        json.dump({"provider": "yahoo", "symbol": "^GDAXI", "last_error": "daily: yahoo: HTTP 404 Not Found: No data found, symbol may be delisted",
                   "attempted_at": 1796000000, "error_since": 1796000000}, f)
    conf2 = os.path.join(work2, "refused.conf")
    with open(conf2, "w") as f:
        f.write("[data]\ndirectory = %s\n[chart]\ncycle-interval = 0\nwatchlist = off\n"
                "[instrument DAX]\nname = DAX\ndaily = DAX.csv\nexchange = XETR\n" % data2)
    got = compare("render-config-refused", conf2, work2)
    if got:
        _, values, _ = got
        result("render-config-refused-reason", "not found" in (values.get("problem") or "") and bool(values.get("waiting_for")),
               "problem=%r waiting_for=%r" % (values.get("problem"), values.get("waiting_for")))

    # 3. An alert that has fired (its banner along the foot), the schedule's dimmed level (30 % all
    # week, drawn in software on a display without a backlight) and a tape band at the foot: the
    # band crawls, so render draws the moment on the daemon's clock the preview names.
    work4 = os.path.join(work, "alert")
    data4 = os.path.join(work4, "data")
    os.makedirs(data4)
    shutil.copy(CSV, os.path.join(data4, "TB.csv"))
    level = int(float(rows[-1][4])) - 1   # under the last close: the alert fires at once
    conf4 = os.path.join(work4, "alert.conf")
    instrument = "[instrument TB]\nname = Tickerboard AG\ndaily = TB.csv\nexchange = XETR\ncurrency = EUR\n"
    with open(conf4, "w") as f:
        f.write("[data]\ndirectory = %s\n[chart]\ncycle-interval = 0\nwatchlist = off\n[power]\nschedule = Mon-Sun 30%%\n"
                "[tape]\nposition = bottom\n%s[alert tb-hoch]\ninstrument = TB\nabove = %d\n" % (data4, instrument, level))
    got = compare("render-config-alert-dim-tape", conf4, work4, crawling=True,
                  want=lambda s: s.get("alerts") == ["tb-hoch"] and s.get("level") == 30)
    if got:
        status, values, picture = got
        band = tuple(int(v) for v in values.get("tape_band", "0,0,0,0").split(","))
        banner, colours, brightest = seen(picture, band, picture[0][0:3])
        # Dimmed to 30 % in linear light the lightest colour (E6EDF3) is 868A8E: nothing reaches 0xB0.
        result("render-config-alert-dim-tape-shown", banner >= 20 and colours >= 8 and brightest < 0xB0 and band[3] == 480,
               "alerts %s, level %s, %d banner rows, %d colours in the band %s, brightest channel %d"
               % (status.get("alerts"), status.get("level"), banner, colours, band, brightest))

    # 4. The portfolio's screen (`ctl show portfolio`) under a message (`ctl message`) beside a tape
    # band, at full level: render --scene portfolio --message draws the same.
    work5 = os.path.join(work, "portfolio")
    os.makedirs(work5)
    conf5 = os.path.join(work5, "portfolio.conf")
    with open(conf5, "w") as f:
        f.write("[data]\ndirectory = %s\n[chart]\ncycle-interval = 0\nwatchlist = off\n[portfolio]\ncurrency = EUR\n"
                "[tape]\nposition = bottom\n%squantity = 10\ncost = 150\n" % (data4, instrument))
    text = "Hauptversammlung 14:00 · Saal 2"
    got = compare("render-config-portfolio-message", conf5, work5, args=["--scene", "portfolio", "--message", text],
                  ctl=[["show", "portfolio"], ["message", text]], crawling=True, values=False,
                  want=lambda s: s.get("instrument_id") == "portfolio" and s.get("message") == text)
    if got:
        status, _, picture = got
        r = subprocess.run([BIN, "render", "--config", conf5, "--size", SIZE, "--values"], capture_output=True, text=True)
        band = tuple(int(v) for v in dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
                     .get("tape_band", "0,0,0,0").split(","))
        banner, colours, brightest = seen(picture, band, picture[0][0:3])
        result("render-config-portfolio-message-shown",
               banner >= 20 and colours >= 8 and brightest > 0xE0 and (status.get("instrument_name") or "").startswith("Portfolio"),
               "%r, message %r, %d banner rows, %d colours in the band %s, brightest channel %d"
               % (status.get("instrument_name"), status.get("message"), banner, colours, band, brightest))

    # 5. The README's quick-start watchlist, as written there, on data shaped like the fetcher's: the
    # screens it describes (Apple under its name, SAP in euros, bitcoin around the clock in UTC, its
    # 1D the last 24 hours even at 03:45 Berlin time).
    readme = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")).read()
    block = readme.split("<<'CONF'\n", 1)[1].split("\nCONF\n", 1)[0]
    work3 = os.path.join(work, "readme")
    data3 = os.path.join(work3, "data")
    os.makedirs(data3)
    for ident in ("AAPL", "SAP", "BTC", "ETH"):
        shutil.copy(CSV, os.path.join(data3, ident + ".csv"))
    minute_bars(os.path.join(data3, "SAP-1m.csv"), last_date, previous_close)
    start = 1796000000 - 1796000000 % 86400 - 86400   # two UTC days of minute bars, to 02:45 UTC
    # Five-minute bars, as the keyless exchanges' intraday answers are (the README's BTC-5m.csv).
    with open(os.path.join(data3, "BTC-5m.csv"), "w") as f:
        f.write("Datetime,Open,High,Low,Close,Adj Close,Volume\n")
        for t in range(start, 1796000000 - 1796000000 % 86400 + 2 * 3600 + 45 * 60 + 1, 300):
            v = 60000 + 500 * ((t // 300 * 7919) % 17) / 17 + (t - start) / 100
            stamp = time.strftime("%Y-%m-%d %H:%M:%S+00:00", time.gmtime(t))
            f.write("%s,%.2f,%.2f,%.2f,%.2f,%.2f,1\n" % (stamp, v, v, v, v, v))
    shutil.copy(os.path.join(data3, "SAP-1m.csv"), os.path.join(data3, "AAPL-1m.csv"))
    conf3 = os.path.join(work3, "tickerboard.conf")
    with open(conf3, "w") as f:
        f.write("[data]\ndirectory = %s\n%s\n" % (data3, block))
    now = 1796000000 - 1796000000 % 86400 + 2 * 3600 + 45 * 60   # 03:45 in Berlin (CET)

    def values_of(ident, rng):
        r = subprocess.run([BIN, "render", "--config", conf3, "--instrument", ident, "--range", rng, "--now", str(now),
                            "--values", "--size", SIZE], capture_output=True, text=True)
        return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line), r.stderr.strip()
    btc, err = values_of("BTC", "1D")
    # 1D is the 24 hours up to the newest bar: its baseline is the price as that window opens (a
    # calendar day would start at 00:00 UTC, 2 h 45 min back).
    opens = now - 86400
    window_open = round(60000 + 500 * ((opens // 300 * 7919) % 17) / 17 + (opens - start) / 100, 2)
    span = (int(btc.get("last_data_time") or 0) - now) if btc.get("last_data_time") else None
    ok = (btc.get("range") == "1D" and btc.get("session_state") == "open" and "UTC" in (btc.get("note") or "")
          and "EDT" not in (btc.get("note") or "") and "EST" not in (btc.get("note") or "") and span == 0
          and btc.get("baseline_kind") == "first" and abs(float(btc.get("baseline") or 0) - window_open) < 0.005)
    result("readme-btc-24-7", ok, "range=%s state=%s note=%r baseline=%s (%s; the price 24 h back: %s) %s"
           % (btc.get("range"), btc.get("session_state"), btc.get("note"), btc.get("baseline"), btc.get("baseline_kind"),
              window_open, err))
    sap, err = values_of("SAP", "1D")
    aapl, err2 = values_of("AAPL", "1M")
    result("readme-sap-and-apple", "€" in (sap.get("price_text") or "") and sap.get("baseline_kind") == "previous-close"
           and aapl.get("instrument_name") == "Apple" and (aapl.get("price_text") or "").startswith("$"),
           "SAP %r %s; AAPL %r %r %s %s" % (sap.get("price_text"), sap.get("baseline_kind"), aapl.get("instrument_name"),
                                          aapl.get("price_text"), err, err2))
finally:
    if os.environ.get("KEEP_RENDER_CHECK"):
        print("kept %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)

passed = sum(results)
print("%d passed, %d failed" % (passed, len(results) - passed))
sys.exit(0 if passed == len(results) else 1)
