#!/usr/bin/env python3
"""fb-capture.py grab FBDEV STEM | ppm STEM OUT.ppm — the page of a Linux fbdev that is on the glass.

grab (in the guest, where no QMP capture exists: vkms): copies /dev/fbN's bytes to STEM.raw and the
geometry the kernel reports in /sys/class/graphics/fbN (virtual_size, stride, bits_per_pixel, pan:
the page panned to, modes: the visible size) to STEM.geom; cheap under TCG.
ppm (on the host): the visible page as a PPM. 16 bpp is read as RGB565 (vc4's fbdev emulation,
fbtft SPI panels: red in the top 5 bits, fb_var_screeninfo red.offset 11), each channel widened
by repeating its top bits (r << 3 | r >> 2; green g << 2 | g >> 4); 32 bpp as XRGB8888. Prints
"WxH BPP bpp, page at y=N"."""
import os
import shutil
import sys


def grab(dev, stem):
    sysfs = "/sys/class/graphics/" + os.path.basename(dev)
    with open(stem + ".geom", "w") as g:
        for name in ("virtual_size", "stride", "bits_per_pixel", "pan", "modes"):
            g.write("%s=%s\n" % (name, open(os.path.join(sysfs, name)).read().strip().splitlines()[0]))
    with open(dev, "rb") as src, open(stem + ".raw", "wb") as dst:
        shutil.copyfileobj(src, dst)


def ppm(stem, out):
    geom = dict(line.rstrip("\n").split("=", 1) for line in open(stem + ".geom"))
    vh = int(geom["virtual_size"].split(",")[1])
    stride, bpp = int(geom["stride"]), int(geom["bits_per_pixel"])
    px, py = (int(v) for v in geom["pan"].split(","))
    # fbdev emulation's mode line: "U:1024x768p-60"
    w, h = (int(v) for v in geom["modes"].split(":")[1].split("p")[0].split("x"))
    data = open(stem + ".raw", "rb").read()
    assert len(data) >= stride * vh, "short read: %d of %d bytes" % (len(data), stride * vh)
    pix = bytearray(w * h * 3)
    for y in range(h):
        row = data[(y + py) * stride:(y + py + 1) * stride]
        for x in range(w):
            if bpp == 16:
                v = row[2 * (x + px)] | row[2 * (x + px) + 1] << 8
                r, g, b = v >> 11, (v >> 5) & 63, v & 31
                r, g, b = r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2
            else:
                o = 4 * (x + px)
                b, g, r = row[o], row[o + 1], row[o + 2]
            pix[3 * (y * w + x):3 * (y * w + x) + 3] = bytes((r, g, b))
    with open(out, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + bytes(pix))
    print("%dx%d %d bpp, page at y=%d" % (w, h, bpp, py))


if __name__ == "__main__":
    if sys.argv[1] == "grab":
        grab(sys.argv[2], sys.argv[3])
    else:
        ppm(sys.argv[2], sys.argv[3])
