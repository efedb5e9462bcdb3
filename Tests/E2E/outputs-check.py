#!/usr/bin/env python3
"""outputs-check.py — judges the two heads of one daemon driving two outputs (issue 34; display-e2e.sh's
virtio-gpu VM with two heads, guest-virtio.sh's `outputs` phases). Standard library only.

  tape IMG                  the full-screen tape: a band of type across the middle, the background
                            above and below it, and no chart
  scenes HEAD0 HEAD1        HEAD0 shows the chart (daemon-check.py's `chart`) and no tape; HEAD1 the
                            tape and no chart
  span A0 A1 B0 B1 SPEED GAP_S FRAME_S
                            one tape across both heads: A0/A1 and B0/B1 are two captures of the
                            pair, B taken later. How far each head's tape moved from A to B is
                            measured on that head alone (m0, m1). The type that was at head 1's
                            left edge in A must then be at head 0's right edge in B, m0 - e
                            columns in, where e is the seam's error plus the tape's motion between
                            the frames the two heads showed in A (and likewise e' from m1 for B):
                            both must be within SPEED * (GAP_S + 2 * FRAME_S) + 1 px (GAP_S: the
                            seconds from the start of one pair's first screendump to the end of
                            its second; FRAME_S: the slower output's frame interval) and at least
                            one exactly 0. An item-sized or one-pixel seam error fails.
Prints one line of detail; exit 0 when the check holds.
"""
import contextlib
import importlib.util
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("daemon_check", os.path.join(HERE, "daemon-check.py"))
dc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dc)

INK = 60          # a pixel whose channel differs from the background by more than this is type
TOL = 48          # per-channel tolerance of a pixel compare (anti-aliased edges at sub-pixel steps)


def background(img):
    counts = {}
    for y in range(0, img.height, 8):
        for x in range(0, img.width, 8):
            p = img.px(x, y)
            counts[p] = counts.get(p, 0) + 1
    return max(counts, key=counts.get)


def is_ink(p, bg):
    return abs(p[0] - bg[0]) > INK or abs(p[1] - bg[1]) > INK or abs(p[2] - bg[2]) > INK


def ink_rows(img, bg):
    return [y for y in range(img.height) if any(is_ink(img.px(x, y), bg) for x in range(0, img.width, 2))]


def profile(img, bg, y0, y1):
    """Per column, how many pixels of rows y0..y1 are type."""
    return [sum(1 for y in range(y0, y1) if is_ink(img.px(x, y), bg)) for x in range(img.width)]


def chart_quiet(path):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        rc = dc.check_chart(path)
    return rc, out.getvalue().strip()


def check_tape(path):
    img = dc.load(path)
    w, h = img.width, img.height
    bg = background(img)
    rows = ink_rows(img, bg)
    if not rows:
        return 1, "%dx%d: no type anywhere (background %s)" % (w, h, bg)
    top, bottom = min(rows), max(rows)
    prof = profile(img, bg, top, bottom + 1)
    cols = sum(1 for c in prof if c)
    chart_rc, chart_detail = chart_quiet(path)
    detail = "%dx%d: type in rows %d-%d (%d of them), in %d of %d columns; background %s elsewhere; chart check %s" % (
        w, h, top, bottom, len(rows), cols, w, bg, "holds" if chart_rc == 0 else "fails")
    ok = (h * 0.15 <= top and bottom <= h * 0.85 and bottom - top < h * 0.6 and cols >= w * 0.2 and chart_rc != 0)
    return (0 if ok else 1), detail


def check_scenes(h0, h1):
    c_rc, c_detail = chart_quiet(h0)
    t0_rc, _ = check_tape(h0)
    t_rc, t_detail = check_tape(h1)
    detail = "head 0: chart %s (%s), tape check %s; head 1: tape %s (%s)" % (
        "yes" if c_rc == 0 else "NO", c_detail, "fails" if t0_rc else "HOLDS", "yes" if t_rc == 0 else "NO", t_detail)
    return (0 if c_rc == 0 and t0_rc != 0 and t_rc == 0 else 1), detail


def pixels_differ(a, ax, b, bx, y0, y1):
    bad = 0
    for y in range(y0, y1):
        p, q = a.px(ax, y), b.px(bx, y)
        if abs(p[0] - q[0]) > TOL or abs(p[1] - q[1]) > TOL or abs(p[2] - q[2]) > TOL:
            bad += 1
    return bad


def region_mismatch(a, ax0, b, bx0, n, y0, y1):
    """Share of pixels differing between a's columns ax0.. and b's columns bx0.. (n columns)."""
    if n <= 0:
        return 1.0
    bad = sum(pixels_differ(a, ax0 + i, b, bx0 + i, y0, y1) for i in range(n))
    return bad / (n * (y1 - y0))


def motion(before, after, pb, pa, y0, y1, lo=4):
    """How many px the tape moved left from BEFORE to AFTER (after[x] = before[x + s]): the shift of
    the ink profiles that fits best, then its pixel mismatch share."""
    w = before.width
    best = None
    for s in range(lo, w - 64):
        n = w - s
        cost = sum(abs(pa[x] - pb[x + s]) for x in range(0, n, 2)) / (n / 2)
        if best is None or cost < best[0]:
            best = (cost, s)
    s = best[1]
    return s, region_mismatch(after, 0, before, s, w - s, y0, y1)


def check_span(args):
    a0, a1, b0, b1 = (dc.load(p) for p in args[:4])
    speed, gap, frame = float(args[4]), float(args[5]), float(args[6])
    w = a0.width
    sizes = set((i.width, i.height) for i in (a0, a1, b0, b1))
    if len(sizes) != 1:
        return 1, "the four captures differ in size: %s" % sorted(sizes)
    bg = background(a0)
    rows = sorted(set(ink_rows(a0, bg)) | set(ink_rows(a1, bg)) | set(ink_rows(b0, bg)) | set(ink_rows(b1, bg)))
    if not rows:
        return 1, "no type on either head"
    y0, y1 = rows[0], rows[-1] + 1
    pa0, pa1, pb0, pb1 = (profile(i, bg, y0, y1) for i in (a0, a1, b0, b1))
    m0, mis0 = motion(a0, b0, pa0, pb0, y0, y1)
    m1, mis1 = motion(a1, b1, pa1, pb1, y0, y1)
    tol = int(speed * (gap + 2 * frame)) + 1
    detail = "band rows %d-%d; head 0 moved %d px (mismatch %.2f%%), head 1 %d px (%.2f%%); window ±%d px (speed %g, gap %.3f s, frame %.3f s)" % (
        y0, y1 - 1, m0, 100 * mis0, m1, 100 * mis1, tol, speed, gap, frame)
    if mis0 > 0.01 or mis1 > 0.01 or m0 < 40 or m1 < 40 or m0 > w - 120:
        return 1, detail + ": each head's move between the captures is not a clean shift of 40 to %d px" % (w - 120)

    def seam(m):
        """The g for which b0's rightmost g columns are a1's leftmost g columns, searched within the
        window around m; returns (m - g, mismatch share, ink pixels compared)."""
        best = None
        for g in range(max(8, m - tol), m + tol + 1):
            if g >= w:
                continue
            cost = region_mismatch(b0, w - g, a1, 0, g, y0, y1)
            if best is None or cost < best[0]:
                best = (cost, g)
        cost, g = best
        ink = sum(pb0[w - g:])
        return m - g, cost, ink

    eA, costA, inkA = seam(m0)
    eB, costB, inkB = seam(m1)
    # For the report: the best fit far outside the window (an item-sized error shows there).
    anywhere = min(range(max(40, m0 - 300), min(w - 8, m0 + 300)), key=lambda g: sum(abs(pb0[w - g + i] - pa1[i]) for i in range(0, g, 2)) / (g / 2))
    detail += "; seam: head 1's left edge in A continues at head 0's right edge in B with e=%d (from m0, mismatch %.2f%%) and e'=%d (from m1, %.2f%%), over %d type pixels; best fit of the type profiles within ±300 px: e=%d" % (
        eA, 100 * costA, eB, 100 * costB, inkA, m0 - anywhere)
    ok = costA <= 0.01 and costB <= 0.01 and inkA >= 50 and (eA == 0 or eB == 0)
    return (0 if ok else 1), detail


def main(argv):
    if len(argv) >= 2 and argv[0] == "tape":
        rc, detail = check_tape(argv[1])
    elif len(argv) >= 3 and argv[0] == "scenes":
        rc, detail = check_scenes(argv[1], argv[2])
    elif len(argv) >= 8 and argv[0] == "span":
        rc, detail = check_span(argv[1:8])
    else:
        print(__doc__.strip())
        return 2
    print(detail)
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, IndexError, ZeroDivisionError) as e:   # a missing or odd capture: a FAIL that says so
        print("outputs-check: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
