#!/usr/bin/env python3
"""check-screen.py FILE pattern|pattern-rot90|console — checks a QMP screendump (binary PPM) of display-check.

pattern: the four bars (red, green, blue, yellow) fill the top 3/5 of the screen and the band below
         is dark grey (0x20) with a white moving block; samples must match within a tolerance.
pattern-rot90: the same pattern turned 90° clockwise (`display-check --rotation 90`): its top edge
         along the screen's right edge, drawn at the screen's size transposed.
console: none of the bar colours is on screen at the bar sample points (the console is back).
--block-x X (pattern): the band's row through the block's middle holds exactly one white run, the
         block's full width (w/8) starting at X: the last frame's block, whole, and no trace of an
         earlier one (what a flip that sent the driver too few damaged rectangles would leave).
Prints one line of detail; exit 0 when the check holds. Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ppm import parse_ppm  # noqa: E402

BARS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
BAND = (32, 32, 32)


def read_ppm(path):
    return parse_ppm(open(path, "rb").read(), path)


def pixel(img, x, y):
    width, _, rgb = img
    i = (y * width + x) * 3
    return tuple(rgb[i:i + 3])


def close(a, b, tol=12):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    block_x = int(sys.argv[sys.argv.index("--block-x") + 1]) if "--block-x" in sys.argv else None
    img = read_ppm(path)
    w, h, _ = img
    def at(x, y):
        return pixel(img, x, y)
    if mode == "pattern-rot90":
        # The unturned pattern's (x, y) lands on screen at (w-1-y, x): sample through that.
        screen_w = w
        def at(x, y):  # noqa: F811
            return pixel(img, screen_w - 1 - y, x)
        w, h = h, w
        mode = "pattern"
    samples = []  # (expected, got) pairs
    for i, colour in enumerate(BARS):
        for fy in (0.1, 0.3, 0.5):
            x = int(w * (i + 0.5) / 4)
            samples.append((colour, at(x, int(h * fy))))
    bar_hits = sum(close(e, g) for e, g in samples)
    band = [at(int(w * fx), int(h * 0.62)) for fx in (0.05, 0.5, 0.95)]
    band_hits = sum(close(BAND, g) for g in band)
    detail = "%dx%d bars %d/%d band %d/3 first=%s" % (w, h, bar_hits, len(samples), band_hits, samples[0][1])
    if mode == "pattern":
        ok = bar_hits == len(samples) and band_hits == 3
        if block_x is not None:
            bar_bottom = h * 3 // 5
            block_h = max(1, h // 5)
            y = bar_bottom + (h - bar_bottom - block_h) // 2 + block_h // 2
            runs, start = [], None
            for x in range(w + 1):
                white = x < w and close((255, 255, 255), at(x, y))
                if white and start is None:
                    start = x
                elif not white and start is not None:
                    runs.append((start, x - start))
                    start = None
            want = (block_x, max(1, w // 8))
            detail += " block runs %s (want %s)" % (runs, [want])
            ok = ok and runs == [want]
    elif mode == "console":
        ok = bar_hits == 0
    else:
        raise SystemExit("unknown mode " + mode)
    print(detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
