#!/usr/bin/python3
"""touch-check.py OUT — judges the logs touch-guest.sh left in OUT (input-check output per phase,
touch-inject output) and prints one `RESULT name PASS|FAIL detail` line per check. Exit status 1
if any check failed."""
import re
import sys

OUT = sys.argv[1]
results = []


def result(name, ok, detail):
    results.append(ok)
    print("RESULT %s %s %s" % (name, "PASS" if ok else "FAIL", detail), flush=True)


def lines(name):
    try:
        with open("%s/%s" % (OUT, name), errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def field(line, key):
    m = re.search(r"\b%s=(\S+)" % re.escape(key), line)
    return m.group(1) if m else None


def summary(log):
    s = [l for l in log if l.startswith("SUMMARY ")]
    return s[-1] if s else ""


def exited_ok(log):
    return "exit=0" in log


def contacts(log):
    """Gesture contacts in order: dict(began=(x, y), moves=[(x, y)], after=[lines up to the end],
    follow=None|'tap x y'|'swipe d', ended_line=index)."""
    out, cur = [], None
    for i, line in enumerate(log):
        if not line.startswith("GESTURE "):
            if cur is not None and cur.get("ended") is None:
                cur["between"].append(line)
            continue
        g = line[len("GESTURE "):]
        if g.startswith("scrubBegan"):
            cur = {"began": (float(field(g, "x")), float(field(g, "y"))), "moves": [], "between": [], "ended": None,
                   "follow": None, "start": i}
            out.append(cur)
        elif cur is None:
            continue
        elif g.startswith("scrubMoved"):
            cur["moves"].append((float(field(g, "x")), float(field(g, "y"))))
        elif g == "scrubEnded":
            cur["ended"] = i
        elif g.startswith("tap") or g.startswith("swipe"):
            cur["follow"] = g
    return out


def fmt(c):
    return "began %s, %d moves%s, %s, %s" % (c["began"], len(c["moves"]), (" to %s" % (c["moves"][-1],)) if c["moves"] else "",
                                           "ended" if c["ended"] is not None else "NOT ended", c["follow"] or "no tap/swipe")


# ---- (a) rotation 0
A = lines("touch-a.log")
CA = contacts(A)
result("a-reader", exited_ok(A) and len(CA) >= 7,
       "exit ok, %d contacts; %s" % (len(CA), summary(A)[8:160]) if exited_ok(A) else "input-check did not exit 0: %s" % A[-3:])
want = [
    ("tap", (700, 400), lambda c: not c["moves"] and c["follow"] == "tap x=700.0 y=400.0"),
    ("drag", (100, 300), lambda c: len(c["moves"]) >= 30 and c["moves"][-1] == (600, 300)
        and all(y == 300 for _, y in c["moves"]) and c["follow"] is None),
    ("swipe", (800, 500), lambda c: c["follow"] == "swipe left"),
    ("second-finger-ignored", (200, 200), lambda c: not c["moves"] and c["follow"] is None
        and any("TOUCH down slot=1 x=600.0 y=600.0" in l for l in c["between"])),
    ("out-of-range-clamped", (1023, 0), lambda c: c["moves"] and c["moves"][-1] == (0, 767)),
    # ended (by libinput's TOUCH cancel or by the removal itself), no tap, and the device removed
    # before the next contact
    ("removed-mid-drag", (300, 300), lambda c: c["ended"] is not None and c["follow"] is None
        and any(l.startswith("DEVICE removed") and "e2e touchscreen" in l
                for l in A[c["start"]:(CA[CA.index(c) + 1]["start"] if CA.index(c) + 1 < len(CA) else len(A))])),
    ("re-added-tap", (512, 384), lambda c: c["follow"] == "tap x=512.0 y=384.0"),
]
for i, (name, began, check) in enumerate(want):
    c = CA[i] if i < len(CA) else None
    ok = c is not None and c["began"] == began and c["ended"] is not None and bool(check(c))
    result("a-" + name, ok, fmt(c) if c else "contact %d missing" % (i + 1))
# TOUCH lines carry display coordinates 1:1 and time stamps that increase
downs = [l for l in A if l.startswith("TOUCH down")]
times = [int(field(l, "t_us")) for l in A if l.startswith("TOUCH ")]
result("a-touch-events", "TOUCH down slot=0 x=700.0 y=400.0" in " ".join(downs) and times == sorted(times) and len(times) > 100,
       "%d TOUCH lines, %d downs, times monotonic: %s" % (len(times), len(downs), times == sorted(times)))
added = [l for l in A if l.startswith("DEVICE added") and "e2e touchscreen" in l]
removed = [l for l in A if l.startswith("DEVICE removed") and "e2e touchscreen" in l]
result("a-hotplug", len(added) == 2 and len(removed) >= 1 and field(added[0], "id") != field(added[1], "id")
       and A.index(removed[0]) < A.index(added[1]),
       "touchscreen added %d times (ids %s), removed %d times, first removal before the re-add; %s" % (len(added), [field(l, "id") for l in added], len(removed),
       " / ".join(l.split(" now_us")[0] for l in added[:1])))

# ---- (b) rotation 90: physical corners -> logical corners
B = lines("touch-b.log")
taps = [g for g in (c["follow"] for c in contacts(B)) if g and g.startswith("tap")]
want_b = ["tap x=0.0 y=0.0", "tap x=767.0 y=0.0", "tap x=767.0 y=1023.0", "tap x=0.0 y=1023.0"]
result("b-rotation-90-corners", exited_ok(B) and taps == want_b,
       "panel (1023,0) (1023,767) (0,767) (0,0) -> %s" % ", ".join(t[4:] for t in taps))

R = lines("report.log")
ts = [l for l in R if "tickerboard e2e touchscreen" in l]
kb = [l for l in R if "AT Translated Set 2 keyboard" in l]
result("b-inputs-report", len(ts) == 1 and " touch " in ts[0] and "102.3x76.7mm" in ts[0] and len(kb) == 1 and "keyboard" in kb[0],
       " | ".join(" ".join(l.split()) for l in R if l.strip())[:300])

# ---- (c) calibration composed with udev's LIBINPUT_CALIBRATION_MATRIX
C0, C1 = lines("touch-c0.log"), lines("touch-c1.log")
d0 = [l for l in C0 if l.startswith("TOUCH down")]
d1 = [l for l in C1 if l.startswith("TOUCH down")]
cal = [l for l in C1 if "calibration" in l]
p0 = (field(d0[0], "x"), field(d0[0], "y")) if d0 else None
p1 = (field(d1[0], "x"), field(d1[0], "y")) if d1 else None
result("c-udev-matrix", p0 == ("924.0", "200.0"), "tap at panel (100,200) with udev's mirror-x matrix -> %s" % (p0,))
result("c-composed-matrix", p1 == ("924.0", "568.0") and bool(cal),
       "plus our mirror-y -> %s (not overwritten: that would give (100.0, 568.0)); %s" % (p1, cal[0][4:] if cal else "no log"))

# ---- (d) flood
# Memory may settle ~1 MiB higher (malloc arenas, libinput's event pool); a leak per event would grow
# by tens of MiB over 500,000 events, so 4 MiB is the bound.
D = lines("touch-d.log")
S = summary(D)
inj = " ".join(l for l in lines("inject-d.log") if l.startswith("flood"))
CD = contacts(D)
last = CD[-1] if CD else None
rss0, rss1 = int(field(S, "rss_kb_start") or 0), int(field(S, "rss_kb_end") or 0)
lag = float(field(S, "last_lag_ms") or 1e9)
# Caught up is judged by what it read: the tap injected after the flood is recognised; how late the
# last event was read is the host's speed under TCG, reported.
ok = exited_ok(D) and bool(S) and last is not None and last["follow"] == "tap x=400.0 y=300.0" and rss1 - rss0 < 4096
result("d-flood", ok, "%s; reader: %s motions, %s frames, max batch %s, max lag %s ms, lag after %s ms, rss %d -> %d KiB, cpu %s ms; tap after the flood: %s"
       % (inj, field(S, "touch_motion"), field(S, "frames"), field(S, "max_batch"), field(S, "max_lag_ms"), lag, rss0, rss1,
          field(S, "cpu_ms"), last["follow"] if last else None))

# ---- (f) mouse and keys
F = lines("touch-f.log")
CF = contacts(F)
ok = (exited_ok(F) and len(CF) == 2 and CF[0]["began"] == (0, 0) and len(CF[0]["moves"]) >= 1 and CF[0]["ended"] is not None
      and CF[1]["began"] == (1023, 767) and CF[1]["follow"] == "tap x=1023.0 y=767.0")
result("f-mouse-as-finger", ok, "; ".join(fmt(c) for c in CF) + "; %d POINTER lines" % sum(1 for l in F if l.startswith("POINTER")))
cmds = [field(l, "command") for l in F if l.startswith("KEY ") and " pressed=1 " in l]
want_k = ["selectRange(0)", "selectRange(5)", "previousRange", "nextRange", "togglePause", "none"]
result("f-keys", exited_ok(F) and cmds == want_k, "keys 1 6 left right space A -> %s" % " ".join(c or "?" for c in cmds))

# ---- (g) devices without a size
G = lines("touch-g.log")
CG = contacts(G)
nores = [l for l in G if l.startswith("DEVICE added") and "e2e touchscreen" in l]
degenerate = [l for l in G if "degenerate" in l]
ok = (exited_ok(G) and len(nores) == 1 and "size=unknown" in nores[0] and len(CG) == 1 and CG[0]["follow"] == "tap x=300.0 y=200.0"
      and not any(l.startswith("DEVICE added") for l in degenerate))
result("g-no-size-devices", ok, "no resolution: %s, %s; min == max: %s" % (
    " ".join(nores[0].split()[-4:-1]) if nores else "not added", fmt(CG[0]) if CG else "no contact",
    (degenerate[0].split(": ", 1)[-1] if degenerate else "not seen")[:120]))

# ---- (e) optional: InputTests' own uinput touchscreen through the path backend
E = lines("swift-uinput-test.log")
if E:
    passed = any("uinputTouchscreenThroughLibinput() passed" in l for l in E) and "exit=0" in E
    result("e-swift-uinput-test", passed, " | ".join(l for l in E if "uinputTouchscreen" in l or "Test run" in l)[:300])

sys.exit(0 if all(results) else 1)
