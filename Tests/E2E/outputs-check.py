#!/usr/bin/env python3
"""outputs-check.py — judges the two heads of one daemon driving two outputs (issue 34; display-e2e.sh's
virtio-gpu VM with two heads, guest-virtio.sh's `outputs` phases). Standard library only.

  tape IMG                  the full-screen tape: a band of type across the middle, the background
                            above and below it, and no chart
  scenes HEAD0 HEAD1        HEAD0 shows the chart (daemon-check.py's `chart`) and no tape; HEAD1 the
                            tape and no chart
  span SPEED FRAME_S DIR N   one tape across both heads, from N pairs of pairs of captures in DIR:
                            spanA<i>.head0.ppm/.head1.ppm, then (the tape moved on) spanB<i>.*,
                            with vmhost.py's spanA<i>.heads.done times. How far each head's tape
                            moved from A to B is measured on that head alone (m0, m1), to a
                            fraction of a pixel on the columns' ink profiles. The type that was at
                            head 1's left edge in A must then be at head 0's right edge in B,
                            m0 - e columns in: e is the seam's error plus the skew d between the
                            frames the two heads showed in A (e' likewise, from m1, for B). The
                            outputs flip on timers of their own, so |d| <= SPEED * (GAP + FRAME_S)
                            (GAP: the seconds across a pair's two screendumps; FRAME_S: the slower
                            output's frame interval): every |e| must be within SPEED * (GAP + 2 *
                            FRAME_S) + 0.25 px (a late frame under TCG; an item-sized error fails),
                            and, d being as likely either way, the median of the 2N readings
                            within 0.5 px (a 1-px error fails).
  selftest BIN              the span judge on pictures `BIN render --scene tape` draws of one strip
                            cut in two at column 1024 (the frames of each pair up to 0.05 s
                            apart): it must pass the true seam and fail head 1 cut 1 px right,
                            1 px left or 40 px right (what proves the check can fail)
Prints one line of detail; exit 0 when the check holds.
"""
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("daemon_check", os.path.join(HERE, "daemon-check.py"))
dc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dc)

INK = 60          # a pixel whose channel differs from the background by more than this is type


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


def mass(img, bg, y0, y1):
    """Per column, the type's ink: the sum over rows y0..y1 of each pixel's largest channel distance
    from the background. A sub-pixel move of anti-aliased type moves this profile (each glyph's
    ink is kept), so it can be matched at fractions of a pixel where pixels cannot."""
    out = []
    for x in range(img.width):
        m = 0
        for y in range(y0, y1):
            p = img.px(x, y)
            m += max(abs(p[0] - bg[0]), abs(p[1] - bg[1]), abs(p[2] - bg[2]))
        out.append(float(m))
    return out


def fit(pa, pb, xs, shifts):
    """The real shift s (pb[x] = pa[x + s] for x in xs) that fits best: the best whole shift in
    SHIFTS, refined between it and its neighbours by linear interpolation. Returns (s, residual):
    the residual is the misfit's energy over pb's, 0 for a perfect fit."""
    n = len(pa)

    def at(x):
        return pa[x] if 0 <= x < n else 0.0

    def cost(k):
        return sum((pb[x] - at(x + k)) ** 2 for x in xs)

    k = min(shifts, key=cost)
    energy = sum(pb[x] ** 2 for x in xs) or 1.0
    best = (cost(k) / energy, float(k))
    for lo in (k - 1, k):   # the fraction f of [lo, lo + 1] that fits best, in closed form
        num = den = 0.0
        for x in xs:
            a0, a1 = at(x + lo), at(x + lo + 1)
            num += (pb[x] - a0) * (a1 - a0)
            den += (a1 - a0) ** 2
        f = min(1.0, max(0.0, num / den)) if den else 0.0
        c = sum((pb[x] - (1 - f) * at(x + lo) - f * at(x + lo + 1)) ** 2 for x in xs) / energy
        if c < best[0]:
            best = (c, lo + f)
    return best[1], best[0]


def crawl(pa, pb, lo=4):
    """How far the tape moved left from profile PA to PB: the whole shift whose overlap fits best
    (misfit over the overlap's energy), then refined by `fit`."""
    w = len(pa)

    def misfit(k):
        xs = range(0, w - k)
        e = sum(pb[x] ** 2 + pa[x + k] ** 2 for x in xs) or 1.0
        return sum((pb[x] - pa[x + k]) ** 2 for x in xs) / e

    k = min(range(lo, w - 120), key=misfit)
    return fit(pa, pb, range(0, w - k - 2), [k])


def pair_gap(done):
    """Seconds from the start of a pair's first screendump to the end of its second (vmhost.py's
    .done file: "FILE HEAD START END" per capture)."""
    times = [line.split() for line in open(done) if line.strip()]
    return float(times[-1][3]) - float(times[0][2])


def span_pair(a0, a1, b0, b1, speed, gap_a, gap_b, frame):
    """One A/B pair of pairs: (detail, [e, e'], ok-so-far). See the module doc."""
    w = a0.width
    sizes = set((i.width, i.height) for i in (a0, a1, b0, b1))
    if len(sizes) != 1:
        return "the four captures differ in size: %s" % sorted(sizes), [], False
    bg = background(a0)
    rows = sorted(set(ink_rows(a0, bg)) | set(ink_rows(a1, bg)) | set(ink_rows(b0, bg)) | set(ink_rows(b1, bg)))
    if not rows:
        return "no type on either head", [], False
    y0, y1 = rows[0], rows[-1] + 1
    pa0, pa1, pb0, pb1 = (mass(i, bg, y0, y1) for i in (a0, a1, b0, b1))
    # each head's crawl from A to B, on that head alone (B = A moved left by m)
    m0, r0 = crawl(pa0, pb0)
    m1, r1 = crawl(pa1, pb1)
    win_a = speed * (gap_a + 2 * frame) + 0.25
    win_b = speed * (gap_b + 2 * frame) + 0.25
    detail = "rows %d-%d, crawl %.2f/%.2f px (misfit %.3f/%.3f)" % (y0, y1 - 1, m0, m1, r0, r1)
    if r0 > 0.05 or r1 > 0.05 or min(m0, m1) < 40 or max(m0, m1) > w - 120:
        return detail + ": each head's crawl between the captures must be a clean move of 40 to %d px" % (w - 120), [], False

    def seam(m, win):
        """b0's columns that came from head 1 since A: b0[w - k] = a1[g - k]; g fitted near m.
        Returns (m - g, misfit, ink compared)."""
        kmax = int(m - win) - 3
        xs = range(w - kmax, w)
        # (pa1 placed right of an empty head 0: index x + g, x in xs, lands on pa1[x + g - w])
        g, r = fit([0.0] * w + pa1, pb0, xs, range(int(m - win) - 1, int(m + win) + 2))
        return m - g, r, sum(pb0[x] for x in xs)

    eA, rA, ink = seam(m0, win_a)
    eB, rB, _ = seam(m1, win_b)
    wide, _ = fit([0.0] * w + pa1, pb0, range(w - 36, w), range(40, w - 8))
    detail += ", seam e=%+.2f (±%.2f, misfit %.3f) e'=%+.2f (±%.2f, misfit %.3f), unbounded e=%+.1f" % (
        eA, win_a, rA, eB, win_b, rB, m0 - wide)
    if ink < 2000:
        return detail + ": too little type crossed the seam between the captures to judge it", [eA, eB], False
    ok = rA <= 0.05 and rB <= 0.05 and abs(eA) <= win_a and abs(eB) <= win_b
    return detail + ("" if ok else ": OUTSIDE"), [eA, eB], ok


def check_span(args):
    speed, frame, where, count = float(args[0]), float(args[1]), args[2], int(args[3])
    details, es, ok = [], [], True
    for i in range(1, count + 1):
        f = lambda stem, head: os.path.join(where, "%s%d.head%d.ppm" % (stem, i, head))
        try:
            imgs = [dc.load(f(stem, head)) for stem in ("spanA", "spanB") for head in (0, 1)]
            gaps = [pair_gap(os.path.join(where, "%s%d.heads.done" % (stem, i))) for stem in ("spanA", "spanB")]
        except (OSError, ValueError, IndexError, SystemExit) as e:
            details.append("%d: %s" % (i, e))
            ok = False
            continue
        d, e, good = span_pair(*imgs, speed=speed, gap_a=gaps[0], gap_b=gaps[1], frame=frame)
        details.append("%d: %s" % (i, d))
        es += e
        ok = ok and good
    es.sort()
    median = (es[(len(es) - 1) // 2] + es[len(es) // 2]) / 2 if es else float("nan")
    ok = ok and len(es) == 2 * count and abs(median) <= 0.5
    head = "%d seam readings (speed %g px/s, frames every %.3f s): median e %+.2f px (limit ±0.5), range %+.2f..%+.2f" % (
        len(es), speed, frame, median, es[0] if es else float("nan"), es[-1] if es else float("nan"))
    return (0 if ok else 1), head + "; " + "; ".join(details)


def selftest(binary):
    """See the module doc: renders one 2200x256 strip at six moments and judges cuts of it."""
    tmp = tempfile.mkdtemp(prefix="outputs-selftest.")
    conf = os.path.join(tmp, "tape.conf")
    with open(conf, "w") as f:
        f.write("[tape]\nposition = full\nspeed = 10\n")
    strips = {}
    for at in ("3", "3.03", "3.05", "11", "11.02", "11.04"):
        png = os.path.join(tmp, "at%s.png" % at)
        subprocess.run([binary, "render", "--config", conf, "--scene", "tape", "--at", at, "--size", "2200x256",
                        "--output", png], check=True, stdout=subprocess.DEVNULL)
        strips[at] = dc.load(png)

    def cut(img, x0, path):
        rows = b"".join(img.rgb[(y * img.width + x0) * 3:(y * img.width + x0 + 1024) * 3] for y in range(img.height))
        with open(path, "wb") as f:
            f.write(b"P6\n1024 %d\n255\n" % img.height + rows)

    # (A head 0, A head 1, B head 0, B head 1) moments of two pairs of pairs: heads up to 0.05 s apart
    moments = [("3", "3.03", "11.04", "11"), ("3.05", "3", "11", "11.02")]
    outcome = []
    for offset, want in ((1024, 0), (1025, 1), (1023, 1), (1064, 1)):
        where = os.path.join(tmp, "cut%d" % offset)
        os.mkdir(where)
        for i, m in enumerate(moments, 1):
            for stem, (t0, t1) in (("spanA", m[:2]), ("spanB", m[2:])):
                cut(strips[t0], 0, os.path.join(where, "%s%d.head0.ppm" % (stem, i)))
                cut(strips[t1], offset, os.path.join(where, "%s%d.head1.ppm" % (stem, i)))
                with open(os.path.join(where, "%s%d.heads.done" % (stem, i)), "w") as f:
                    f.write("a 0 0.000 0.005\nb 1 0.005 0.012\n")
        rc, detail = check_span(["10", "0.05", where, str(len(moments))])
        outcome.append((offset, want, rc, detail.split(";")[0]))
    ok = all(rc == want for _, want, rc, _ in outcome)
    return (0 if ok else 1), "; ".join("head 1 from strip column %d: %s (%s)" % (
        o, "PASS" if rc == 0 else "FAIL", d) + ("" if rc == w else " <- WRONG") for o, w, rc, d in outcome)


def main(argv):
    if len(argv) >= 2 and argv[0] == "tape":
        rc, detail = check_tape(argv[1])
    elif len(argv) >= 3 and argv[0] == "scenes":
        rc, detail = check_scenes(argv[1], argv[2])
    elif len(argv) >= 2 and argv[0] == "selftest":
        rc, detail = selftest(argv[1])
    elif len(argv) >= 5 and argv[0] == "span":
        rc, detail = check_span(argv[1:5])
    else:
        print(__doc__.strip())
        return 2
    print(detail)
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, IndexError, ZeroDivisionError, subprocess.CalledProcessError) as e:   # a missing or odd capture: a FAIL that says so
        print("outputs-check: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
