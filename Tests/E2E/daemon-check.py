#!/usr/bin/env python3
"""daemon-check.py — judges screen captures and statistics of `tickerboard run` (daemon-e2e.sh).
Standard library only (runs on the host, and in the guest for `locate-rot`).

  chart IMG                      the chart is on screen: background dominant, line colour along a
                                 polyline in the plot rect, baseline dashes (not black, not console)
  same A B [X0 Y0 X1 Y1 [LIMIT]] [--rot DEG]  A equals B in the region (B turned clockwise first;
                                 region in A's coordinates) within anti-aliasing tolerance
  indicator IMG X                the scrub indicator (1-px #C9D1D9 line) is at column X (±1)
  xs CSV RANGE W H INDEX         x (in a WxH picture) of point INDEX (negative: from the end) of RANGE
  locate-rot IMG REF LX LY [LX LY ...]  which quarter turn maps REF (the logical picture) onto IMG
                                 (searched once); per logical point its physical pixel, one line
                                 each: "q X Y share" (share: the turn's mismatch)
  stats LOG                      the last `stats:` line of a daemon log as key=value
  morph SAMPLES                  flips, missed and vblank span (and the rate) from daemon-sample.py output
  shifted BEFORE AFTER            the move (<= 2 px) between two captures around burn-in steps
  span LOG MARK [END]            frames and bytes copied to scanout between the readings around
                                 `mark MARK` (and `mark END`)
  scrub-copy LOG MARK FRAME_BYTES  a scrub's span (as `span`) copies little: its last frame and its
                                 mean per frame, without the span's first two whole frames, each
                                 at most 5 % of FRAME_BYTES
  dark IMG                       the picture is black (>= 99 % of pixels with every channel <= 16)
  no-chart IMG                   exit 0 when `chart` would fail (the console is back), silently
Images: binary PPM (QMP screendump) or 8-bit RGB/RGBA PNG (tickerboard render). Exit 0 = holds.
"""
import contextlib
import datetime
import math
import re
import struct
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ppm import parse_ppm  # noqa: E402

BACKGROUND = (0x0D, 0x11, 0x17)
UP, DOWN = (0x00, 0xC8, 0x05), (0xFF, 0x50, 0x00)
BASELINE = (0x8B, 0x94, 0x9E)
INDICATOR = (0xC9, 0xD1, 0xD9)


class Image:
    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb   # rgb: bytes, 3 per pixel

    def px(self, x, y):
        i = (y * self.width + x) * 3
        return self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]

    def px_rotated(self, q, x, y):
        """Pixel (x, y) of this picture turned clockwise by q quarter turns (without building it)."""
        w, h = self.width, self.height
        if q == 1:
            return self.px(y, h - 1 - x)
        if q == 2:
            return self.px(w - 1 - x, h - 1 - y)
        if q == 3:
            return self.px(w - 1 - y, x)
        return self.px(x, y)

    def rotated_size(self, q):
        return (self.height, self.width) if q % 2 else (self.width, self.height)


def read_ppm(data):
    w, h, pixels = parse_ppm(data)
    return Image(w, h, pixels)


def read_png(data):
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit("png: only 8-bit RGB/RGBA, not interlaced")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = bytearray()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if bpp == 3:
            out += line
        else:
            del line[3::4]
            out += line
    return Image(w, h, bytes(out))


def load(path):
    data = open(path, "rb").read()
    if data[:2] == b"P6":
        return read_ppm(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return read_png(data)
    raise SystemExit("%s: neither PPM nor PNG" % path)


def close(a, b, tol):
    return abs(a[0] - b[0]) <= tol and abs(a[1] - b[1]) <= tol and abs(a[2] - b[2]) <= tol


MIN_PRICE, MIN_TEXT, MIN_CHART_LABEL = 22.0, 13.0, 12.0


def _sizes(s):
    """TickerScreenLayout.textSizes: name, price, change, selector, bar labels."""
    return (max(MIN_TEXT, 28 * s), max(MIN_PRICE, 76 * s), max(MIN_TEXT, 30 * s),
            max(MIN_TEXT, 28 * s), max(MIN_CHART_LABEL, 24 * s))


def _chrome(s):
    """TickerScreenLayout.chromeHeight: the header above the plot and the selector below it."""
    name, price, change, selector, bars = _sizes(s)
    header = 50 * s + name + 6 * s + price + 18 * s + change + 52 * bars / 24
    return header, 24 * s + 106 * selector / 28


def layout(w, h, scale=None, buttons=6):
    """TickerScreenLayout (Sources/Chart/TickerScreen.swift), the same arithmetic in the same order,
    with `buttons` ranges in the selector (fewer than six when the instrument cannot draw some: daily
    data has no 1D)."""
    auto = max(0.25, min(max(w, h) / 1920, min(w, h) / 1080))
    s = max(0.25, min(scale if scale is not None and math.isfinite(scale) else auto, w / 800))
    if sum(_chrome(s)) > h * 0.8:
        lo, hi = 0.25, s
        for _ in range(40):
            mid = (lo + hi) / 2
            if sum(_chrome(mid)) > h * 0.8:
                hi = mid
            else:
                lo = mid
        s = lo
    name, price, change, selector, bars = _sizes(s)
    margin = 80 * s
    name_baseline = 50 * s + name
    price_baseline = name_baseline + 6 * s + price
    change_baseline = price_baseline + 18 * s + change
    top = change_baseline + 52 * bars / 24
    left, right = margin, w - margin
    bottom = max(top + 10, h - _chrome(s)[1])
    selector_y = h - 24 * s - selector
    slot = (w - 2 * margin) / 6
    centers = [w / 2 - slot * buttons / 2 + slot * (i + 0.5) for i in range(buttons)]
    pill_raise = 10 * selector / 28
    return dict(s=s, left=left, top=top, right=right, bottom=bottom, centers=centers,
                selector_y=selector_y, pill_raise=pill_raise, price_baseline=price_baseline,
                price_size=price, name_baseline=name_baseline, change_baseline=change_baseline)


# --- checks ---------------------------------------------------------------------------------------

def check_chart(path):
    img = load(path)
    w, h = img.width, img.height
    L = layout(w, h)
    bg = total = 0
    for y in range(0, h, 4):
        for x in range(0, w, 4):
            total += 1
            bg += close(img.px(x, y), BACKGROUND, 6)
    bg_share = bg / total
    # the line: per column of the plot, pixels in the line colour (up or down); a polyline has
    # them in (nearly) every column, in a short vertical run
    x0, x1 = int(L["left"]) + 2, int(L["right"]) - 2
    y0, y1 = int(L["top"]) - 4, int(L["bottom"]) + 4
    counts = {UP: 0, DOWN: 0}
    cols_with, runs_ok, ys = 0, 0, []
    for x in range(x0, x1):
        hits = {UP: [], DOWN: []}
        for y in range(y0, y1):
            r, g, b = img.px(x, y)
            # by hue, not exact value: anti-aliasing, and mid-morph the trend colour cross-fades
            if g >= 90 and g > r + 60 and g > b + 60:
                hits[UP].append(y)
            elif r >= 150 and r > g + 60 and r > b + 100:
                hits[DOWN].append(y)
        c = UP if len(hits[UP]) >= len(hits[DOWN]) else DOWN
        counts[UP] += len(hits[UP]); counts[DOWN] += len(hits[DOWN])
        if hits[c]:
            cols_with += 1
            ys.append(sum(hits[c]) / len(hits[c]))
            # a segment spans at most the plot height; a fill would cover the whole column
            if max(hits[c]) - min(hits[c]) < 0.8 * (y1 - y0):
                runs_ok += 1
    colour = "up/green" if counts[UP] >= counts[DOWN] else "down/red"
    col_share = cols_with / max(1, x1 - x0)
    spread = (max(ys) - min(ys)) if ys else 0
    # baseline: a row of the plot with many short runs in the baseline grey (a dashed/dotted line)
    best_runs, best_y = 0, -1
    for y in range(y0, y1):
        runs, inside = 0, False
        for x in range(x0, x1):
            on = close(img.px(x, y), BASELINE, 45)
            if on and not inside:
                runs += 1
            inside = on
        if runs > best_runs:
            best_runs, best_y = runs, y
    ok = bg_share > 0.5 and col_share > 0.9 and runs_ok > 0.9 * cols_with and spread > 0.1 * (y1 - y0) and best_runs >= 10
    print("%dx%d background %.0f%%, line %s in %.0f%% of plot columns (vertical spread %.0f px), "
          "baseline row y=%d with %d dashes" % (w, h, 100 * bg_share, colour, 100 * col_share, spread, best_y, best_runs))
    return 0 if ok else 1


def diff_share(a, b, region, step=1, tol=48, q=0):
    """Share of pixels of A in region that differ from B turned by q quarter turns."""
    x0, y0, x1, y1 = region
    n = bad = 0
    for y in range(y0, y1, step):
        for x in range(x0, x1, step):
            n += 1
            p, r = a.px(x, y), b.px_rotated(q, x, y)
            if abs(p[0] - r[0]) > tol or abs(p[1] - r[1]) > tol or abs(p[2] - r[2]) > tol:
                bad += 1
    return bad / max(1, n), n


def check_same(args):
    rot = 0
    if "--rot" in args:
        i = args.index("--rot")
        rot = int(args[i + 1]) // 90 % 4
        del args[i:i + 2]
    a, b = load(args[0]), load(args[1])
    if (a.width, a.height) != b.rotated_size(rot):
        print("size %dx%d vs %dx%d turned %d°" % (a.width, a.height, b.width, b.height, rot * 90))
        return 1
    region = [int(v) for v in args[2:6]] if len(args) >= 6 else [0, 0, a.width, a.height]
    share, n = diff_share(a, b, region, q=rot)
    limit = float(args[6]) if len(args) >= 7 else 0.01
    print("region %s: %.2f%% of %d pixels differ (limit %.1f%%)" % (region, 100 * share, n, 100 * limit))
    return 0 if share <= limit else 1


def indicator_columns(img):
    L = layout(img.width, img.height)
    y0, y1 = int(L["top"]) + 2, int(L["bottom"]) - 2
    found = []
    for x in range(int(L["left"]) - 2, int(L["right"]) + 3):
        n = sum(close(img.px(x, y), INDICATOR, 40) for y in range(y0, y1, 2))
        if n >= 0.6 * len(range(y0, y1, 2)):
            found.append(x)
    return found


def check_indicator(path, x):
    img = load(path)
    cols = indicator_columns(img)
    ok = len(cols) >= 1 and all(abs(c - x) <= 1.01 for c in cols)
    print("indicator at column(s) %s, expected %.1f" % (cols or "none", x))
    return 0 if ok else 1


def daily_dates(csv_path):
    rows = []
    for line in open(csv_path):
        f = line.strip().split(",")
        if len(f) >= 5 and re.match(r"\d{4}-\d\d-\d\d$", f[0]):
            rows.append((datetime.date.fromisoformat(f[0]), float(f[4])))
    rows.sort()
    return rows


def months_back(d, months):
    total = d.year * 12 + (d.month - 1) - months
    y, m = divmod(total, 12)
    m += 1
    nxt = datetime.date(y + (m == 12), m % 12 + 1, 1)
    return datetime.date(y, m, min(d.day, (nxt - datetime.timedelta(days=1)).day))


def selection(csv_path, rng):
    """Chart/Ranges.swift for daily data: points dated on or after newest − N calendar months."""
    rows = daily_dates(csv_path)
    months = {"1M": 1, "6M": 6, "1Y": 12, "5Y": 60}[rng]
    start = months_back(rows[-1][0], months)
    return [r for r in rows if r[0] >= start]


def point_x(csv_path, rng, w, h, index):
    pts = selection(csv_path, rng)
    L = layout(w, h)
    i = index % len(pts)
    return L["left"] + (L["right"] - L["left"]) * i / (len(pts) - 1), pts[i], len(pts)


def locate_rot(img_path, ref_path, points):
    img, ref = load(img_path), load(ref_path)
    best = None
    for q in range(4):
        if ref.rotated_size(q) != (img.width, img.height):
            continue
        share, _ = diff_share(img, ref, (0, 0, img.width, img.height), step=7, q=q)
        if best is None or share < best[0]:
            best = (share, q)
    if best is None or best[0] > 0.05:
        print("none %s" % (best,))
        return 1
    q = best[1]
    for lx, ly in points:
        w, h = ref.width, ref.height
        x, y = lx, ly
        for _ in range(q):           # clockwise quarter turn of a point in a w×h picture
            x, y, w, h = h - 1 - y, x, h, w
        print("%d %d %d %.4f" % (q * 90, round(x), round(y), best[0]))
    return 0


STATS = re.compile(r"frames (\d+), flips (\d+), missed vblanks (\d+), last vblank (\d+), render p50 ([\d.]+) ms p99 ([\d.]+) ms, "
                   r"copy p50 ([\d.]+) ms p99 ([\d.]+) ms, input-to-flip p50 ([\d.]+) ms p99 ([\d.]+) ms "
                   r"\((\d+) samples\)(?:, scanout copy (\d+) B/frame \(([\d.]+)% of a frame\), last (\d+) B(?:, total (\d+) B)?)?, "
                   r"cpu (\d+) ms, max rss (\d+) kB, wakeups (\d+)")
KEYS = ["frames", "flips", "missed", "vblank", "render_p50", "render_p99", "copy_p50", "copy_p99", "lat_p50", "lat_p99",
        "lat_n", "copy_bytes", "copy_pct", "last_copy_bytes", "copy_total", "cpu_ms", "rss_kb", "wakeups"]


def parse_stats(line):
    m = STATS.search(line)
    return dict(zip(KEYS, m.groups())) if m else None


def stats(path):
    last = None
    for line in open(path, errors="replace"):
        if "stats:" in line or "exiting;" in line:
            last = parse_stats(line) or last
    if not last:
        return 1
    print(" ".join("%s=%s" % kv for kv in last.items()))
    return 0


def span_readings(path, mark, end=None):
    """The statistics readings around a span: the one before the line `mark MARK`, and the one
    before `mark END` (without END: the first reading after MARK); None when one is missing."""
    before = after = None
    state = 0
    for line in open(path, errors="replace"):
        if line.strip() == "mark " + mark:
            state = 1
            continue
        if end and line.strip() == "mark " + end:
            break
        if "stats:" in line or "exiting;" in line:
            parsed = parse_stats(line)
            if not parsed or parsed.get("copy_total") is None:
                continue
            if state == 0:
                before = parsed
            else:
                after = parsed
                if not end:
                    break
    return (before, after) if before and after else None


def span(path, mark, end=None):
    """What the frames between two statistics readings (span_readings) copied to scanout."""
    readings = span_readings(path, mark, end)
    if not readings:
        print("frames= bytes= per_frame= last_copy_bytes=")
        return 1
    before, after = readings
    frames = int(after["frames"]) - int(before["frames"])
    total = int(after["copy_total"]) - int(before["copy_total"])
    print("frames=%d bytes=%d per_frame=%s last_copy_bytes=%s" % (
        frames, total, "%d" % (total // frames) if frames > 0 else "", after["last_copy_bytes"]))
    return 0


# A scrub's span starts with two whole frames, by design: the first scrub frame after the draw-in
# redraws everything (the scene turns from the draw-in to the line chart), and the next one brings
# the other scanout buffer up to date with it (double buffering). Measured: bochs spans (56-60
# frames) copy 2.0-2.1 frames more than all their frames at the last frame's size, vkms spans (a long
# drag whose strips vary) 3.1; with two whole frames out the rest is 1.8 % and 2.5 % of a frame.
SCRUB_WHOLE_FRAMES = 2
SCRUB_COPY_LIMIT = 0.05


def scrub_copy(path, mark, frame_bytes):
    readings = span_readings(path, mark)
    if not readings or frame_bytes <= 0:
        print("frames= bytes= last_pct= mean_pct= rest_pct= whole= detail=no_readings")
        return 1
    before, after = readings
    frames = int(after["frames"]) - int(before["frames"])
    total = int(after["copy_total"]) - int(before["copy_total"])
    last = int(after["last_copy_bytes"])
    # never more whole frames left out than the bytes hold, and at least one frame kept
    whole = max(0, min(SCRUB_WHOLE_FRAMES, total // frame_bytes, frames - 1))
    rest = (total - whole * frame_bytes) / (frames - whole) if frames > whole else float("nan")
    mean = total / frames if frames > 0 else float("nan")
    ok = frames > 0 and last <= SCRUB_COPY_LIMIT * frame_bytes and rest <= SCRUB_COPY_LIMIT * frame_bytes
    print("frames=%d bytes=%d last_pct=%.2f mean_pct=%.2f rest_pct=%.2f whole=%d" % (
        frames, total, 100 * last / frame_bytes, 100 * mean / frame_bytes, 100 * rest / frame_bytes, whole))
    return 0 if ok else 1


def shifted(before_path, after_path):
    """Which move by at most two pixels each way turns capture BEFORE into AFTER (burn-in steps; a
    loaded guest may capture after two): prints the best (dx, dy) and the share of the overlap's
    rows that still differ. A picture shown misplaced (rows or columns away) matches no such move."""
    a, b = load(before_path), load(after_path)
    if (a.width, a.height) != (b.width, b.height):
        print("sizes differ: %dx%d vs %dx%d" % (a.width, a.height, b.width, b.height))
        return 1
    w, h = a.width, a.height
    results = []
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            x0, x1 = max(0, dx), w + min(0, dx)
            rows = range(max(0, dy), h + min(0, dy))
            differing = sum(1 for y in rows if a.rgb[((y - dy) * w + x0 - dx) * 3:((y - dy) * w + x1 - dx) * 3]
                            != b.rgb[(y * w + x0) * 3:(y * w + x1) * 3])
            results.append((differing / len(rows), abs(dx) + abs(dy), dx, dy))
    results.sort()
    share, _, dx, dy = results[0]
    still = [r for r in results if r[2] == 0 and r[3] == 0][0][0]
    print("moved dx=%d dy=%d: %.2f %% of the rows differ after that move (%.2f %% without moving)"
          % (dx, dy, 100 * share, 100 * still))
    return 0 if (dx, dy) != (0, 0) and share <= 0.001 else 1


def morph(path):
    """Samples 't frames flips missed cpu wakeups vblank' every ~0.2 s: the flips and missed vblanks
    of the window against the span of the kernel's vblank counter over it (judged: no flip without a
    vblank of its own), and the rate inside each run of flipping (reported: it is speed)."""
    rows = [list(map(float, l.split())) for l in open(path) if l.strip() and not l.startswith("#")]
    if len(rows) < 3:
        print("rate= runs=0 samples=%d" % len(rows))
        return 1
    runs, cur = [], []
    for prev, row in zip(rows, rows[1:]):
        if row[2] > prev[2]:
            cur.append(row)
        elif cur:
            runs.append(cur); cur = []
    if cur:
        runs.append(cur)
    rates = []
    for run in runs:
        if len(run) >= 4:   # interior samples only: the first and last interval are partial
            a, b = run[0], run[-2]
            rates.append((b[2] - a[2]) / (b[0] - a[0]))
    first, last = rows[0], rows[-1]
    frames = last[1] - first[1]
    cpu = last[4] - first[4]
    print("rate=%s rates=%s runs=%d frames=%d flips=%d missed=%d vblanks=%d cpu_ms_per_frame=%s window_s=%.1f" % (
        "%.1f" % (sum(rates) / len(rates)) if rates else "", ",".join("%.1f" % r for r in rates), len(runs),
        frames, last[2] - first[2], last[3] - first[3], last[6] - first[6],
        "%.2f" % (cpu / frames) if frames else "", last[0] - first[0]))
    return 0


def check_dark(path):
    img = load(path)
    n = dark = 0
    for y in range(0, img.height, 2):
        for x in range(0, img.width, 2):
            n += 1
            dark += max(img.px(x, y)) <= 16
    share = dark / max(1, n)
    print("%dx%d %.1f %% black" % (img.width, img.height, 100 * share))
    return 0 if share >= 0.99 else 1


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "chart":
        return check_chart(args[0])
    if cmd == "same":
        return check_same(args)
    if cmd == "indicator":
        return check_indicator(args[0], float(args[1]))
    if cmd == "xs":
        x, p, n = point_x(args[0], args[1], int(args[2]), int(args[3]), int(args[4]))
        print("%.2f %s %.2f %d" % (x, p[0].isoformat(), p[1], n))
        return 0
    if cmd == "locate-rot":
        coords = [float(v) for v in args[2:]]
        if not coords or len(coords) % 2:
            print(__doc__, file=sys.stderr)
            return 2
        return locate_rot(args[0], args[1], list(zip(coords[::2], coords[1::2])))
    if cmd == "stats":
        return stats(args[0])
    if cmd == "shifted":
        return shifted(args[0], args[1])
    if cmd == "span":
        return span(args[0], args[1], args[2] if len(args) > 2 else None)
    if cmd == "scrub-copy":
        return scrub_copy(args[0], args[1], int(args[2]))
    if cmd == "morph":
        return morph(args[0])
    if cmd == "dark":
        return check_dark(args[0])
    if cmd == "no-chart":   # the chart is gone (the console is back): quiet, for a wait in the guest
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            return 0 if check_chart(args[0]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
