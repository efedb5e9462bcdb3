#!/usr/bin/python3
"""touch-inject.py — plays a touch script on a uinput multitouch touchscreen (in the qemu guest).

usage: /usr/bin/python3 touch-inject.py [--size WxH] [--name NAME] STEP [STEP ...]

The screen's ABS range is 0..W-1 x 0..H-1 (10 units/mm, INPUT_PROP_DIRECT), so udev tags it
ID_INPUT_TOUCHSCREEN and libinput's transformed coordinates for a WxH output are the raw values.
Steps (positions in panel pixels; values outside the range are sent as they are):
  create | destroy            make / remove the device (the script starts without one)
  create-nores                make it without a resolution (no physical size: libinput guesses one)
  create-degenerate           an extra touchscreen whose axes have no range (min == max), kept to the end
  down SLOT X Y | move SLOT X Y | up SLOT   one contact change, each followed by a frame (SYN_REPORT)
  tap X Y                     down, 50 ms, up
  drag X1 Y1 X2 Y2 STEPS MS   slot 0 down at 1, STEPS moves to 2, MS ms apart, then up
  press X1 Y1 X2 Y2 STEPS MS  like drag, without the final up (for "removed mid-drag")
  flood SECONDS RATE          slot 0 down, RATE motion frames/s for SECONDS (raw writes every 10 ms), up
  waitfor FILE TEXT N         wait (<= 30 s) until FILE has N lines containing TEXT (e.g. the reader's
                              "DEVICE added" for our device: better than a fixed settle time)
  create-mouse | create-keyboard   a relative mouse (left/right buttons) / a keyboard (ESC..D, space, arrows)
  create-button               a presence sensor as gpio-keys makes one of a PIR: one key, KEY_WAKEUP (143)
  rel DX DY                   mouse motion (libinput accelerates it)
  mdown | mup | click         left mouse button
  key CODE                    keyboard key press and release (Linux key code: KEY_1 = 2)
  button                      the presence sensor fires: KEY_WAKEUP press and release
  sleep S                     wait
  mark TEXT                   print "MARK TEXT <CLOCK_MONOTONIC s>" (to line up with the reader's log)
Prints one line per step to stdout.
Needs Debian's python3-libevdev and /dev/uinput.
"""
import fcntl
import os
import struct
import sys
import time

import libevdev
from libevdev import EV_ABS, EV_KEY, EV_REL, EV_SYN, InputAbsInfo, InputEvent


class Screen:
    def __init__(self, width, height, name, resolution=10):
        dev = libevdev.Device()
        dev.name = name
        dev.id = {"bustype": 0x06, "vendor": 0x7462, "product": 0x0001, "version": 1}
        dev.enable(libevdev.INPUT_PROP_DIRECT)
        dev.enable(EV_KEY.BTN_TOUCH)
        x = InputAbsInfo(minimum=0, maximum=width - 1, resolution=resolution)
        y = InputAbsInfo(minimum=0, maximum=height - 1, resolution=resolution)
        for code, info in ((EV_ABS.ABS_X, x), (EV_ABS.ABS_Y, y), (EV_ABS.ABS_MT_POSITION_X, x),
                           (EV_ABS.ABS_MT_POSITION_Y, y), (EV_ABS.ABS_MT_SLOT, InputAbsInfo(minimum=0, maximum=9)),
                           (EV_ABS.ABS_MT_TRACKING_ID, InputAbsInfo(minimum=0, maximum=65535))):
            dev.enable(code, info)
        self.node = open("/dev/uinput", "r+b", buffering=0)   # ours, so a flood can write raw events
        self.uinput = dev.create_uinput_device(self.node)
        self.contacts = {}      # slot -> [tracking id, x, y]
        self.next_id = 100

    def frame_events(self, slot, pos):
        """Events for one contact change (pos None = lift), ending with SYN_REPORT."""
        ev = [InputEvent(EV_ABS.ABS_MT_SLOT, slot)]
        if pos is None:
            ev.append(InputEvent(EV_ABS.ABS_MT_TRACKING_ID, -1))
            self.contacts.pop(slot, None)
        else:
            if slot not in self.contacts:
                self.contacts[slot] = [self.next_id, 0, 0]
                self.next_id += 1
                ev.append(InputEvent(EV_ABS.ABS_MT_TRACKING_ID, self.contacts[slot][0]))
            self.contacts[slot][1:] = [int(pos[0]), int(pos[1])]
            ev += [InputEvent(EV_ABS.ABS_MT_POSITION_X, int(pos[0])), InputEvent(EV_ABS.ABS_MT_POSITION_Y, int(pos[1]))]
        if self.contacts:           # legacy single-touch axes follow the lowest active slot
            first = self.contacts[min(self.contacts)]
            ev += [InputEvent(EV_ABS.ABS_X, first[1]), InputEvent(EV_ABS.ABS_Y, first[2])]
        ev += [InputEvent(EV_KEY.BTN_TOUCH, 1 if self.contacts else 0), InputEvent(EV_SYN.SYN_REPORT, 0)]
        return ev

    def send(self, slot, pos):
        self.uinput.send_events(self.frame_events(slot, pos))


class Simple:
    """A mouse, a keyboard or a presence button."""
    def __init__(self, kind):
        dev = libevdev.Device()
        dev.name = "tickerboard e2e " + kind
        dev.id = {"bustype": 0x06, "vendor": 0x7462, "product": {"mouse": 2, "keyboard": 3}.get(kind, 4), "version": 1}
        if kind == "button":
            dev.enable(libevdev.evbit(1, 143))
        elif kind == "mouse":
            for c in (EV_REL.REL_X, EV_REL.REL_Y, EV_KEY.BTN_LEFT, EV_KEY.BTN_RIGHT):
                dev.enable(c)
        else:   # udev calls it a keyboard when it has ESC, the digits and Q..D (codes 1..32)
            for code in list(range(1, 33)) + [57, 105, 106]:
                dev.enable(libevdev.evbit(1, code))
        self.uinput = dev.create_uinput_device()

    def send(self, *events):
        self.uinput.send_events(list(events) + [InputEvent(EV_SYN.SYN_REPORT, 0)])


def now():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def main(argv):
    width, height, name = 1024, 768, "tickerboard e2e touchscreen"
    args = argv[1:]
    while args and args[0].startswith("--"):
        opt, val, args = args[0], args[1], args[2:]
        if opt == "--size":
            width, height = (int(v) for v in val.split("x"))
        elif opt == "--name":
            name = val
        else:
            print(__doc__, file=sys.stderr)
            return 2
    screen, graveyard, extra = None, [], {}
    num = lambda: float(args.pop(0))
    while args:
        step = args.pop(0)
        if step == "create":
            screen = Screen(width, height, name)
            print("create %s %s" % (screen.uinput.devnode, name), flush=True)
            continue
        if step == "create-nores":
            screen = Screen(width, height, name, resolution=0)
            print("create-nores %s %s" % (screen.uinput.devnode, name), flush=True)
            continue
        if step == "create-degenerate":
            extra["degenerate"] = Screen(1, 1, name + " degenerate", resolution=0)
            print("create-degenerate %s" % extra["degenerate"].uinput.devnode, flush=True)
            continue
        if step in ("create-mouse", "create-keyboard", "create-button"):
            kind = step[len("create-"):]
            extra[kind] = Simple(kind)
            print("%s %s" % (step, extra[kind].uinput.devnode), flush=True)
            continue
        if step == "rel":
            dx, dy = int(num()), int(num())
            extra["mouse"].send(InputEvent(EV_REL.REL_X, dx), InputEvent(EV_REL.REL_Y, dy))
            print("rel %d %d" % (dx, dy), flush=True)
            continue
        if step in ("mdown", "mup", "click"):
            m = extra["mouse"]
            if step in ("mdown", "click"):
                m.send(InputEvent(EV_KEY.BTN_LEFT, 1))
            if step == "click":
                time.sleep(0.05)
            if step in ("mup", "click"):
                m.send(InputEvent(EV_KEY.BTN_LEFT, 0))
            print(step, flush=True)
            continue
        if step == "key":
            code = int(num())
            k = extra["keyboard"]
            k.send(InputEvent(libevdev.evbit(1, code), 1))
            time.sleep(0.03)
            k.send(InputEvent(libevdev.evbit(1, code), 0))
            print("key %d" % code, flush=True)
            continue
        if step == "button":
            b = extra["button"]
            b.send(InputEvent(libevdev.evbit(1, 143), 1))
            time.sleep(0.03)
            b.send(InputEvent(libevdev.evbit(1, 143), 0))
            print("button", flush=True)
            continue
        if step == "sleep":
            time.sleep(num())
            continue
        if step == "mark":
            print("MARK %s %.6f" % (args.pop(0), now()), flush=True)
            continue
        if step == "waitfor":
            path, text, count = args.pop(0), args.pop(0), int(num())
            start, seen = now(), 0
            while now() - start < 30:
                try:
                    with open(path, errors="replace") as f:
                        seen = sum(1 for line in f if text in line)
                except OSError:
                    seen = 0
                if seen >= count:
                    break
                time.sleep(0.05)
            print("waitfor %r x%d in %s: %s after %.2f s" % (text, count, path, "ok" if seen >= count else "TIMEOUT",
                  now() - start), flush=True)
            continue
        if screen is None:
            print("touch-inject: %s before create" % step, file=sys.stderr)
            return 2
        if step == "destroy":
            node = screen.uinput.devnode
            # UI_DEV_DESTROY now: python-libevdev only destroys it when the object is collected, which
            # may be at exit. The fd stays open (and the object alive) so that the late destroy cannot
            # hit a reused fd number.
            fcntl.ioctl(screen.node, 0x5502)
            graveyard.append(screen)
            screen = None
            print("destroy %s" % node, flush=True)
        elif step in ("down", "move"):
            slot, x, y = int(num()), num(), num()
            screen.send(slot, (x, y))
            print("%s %d %g %g" % (step, slot, x, y), flush=True)
        elif step == "up":
            slot = int(num())
            screen.send(slot, None)
            print("up %d" % slot, flush=True)
        elif step == "tap":
            x, y = num(), num()
            screen.send(0, (x, y))
            time.sleep(0.05)
            screen.send(0, None)
            print("tap %g %g" % (x, y), flush=True)
        elif step in ("drag", "press"):
            x1, y1, x2, y2, steps, ms = num(), num(), num(), num(), int(num()), num()
            screen.send(0, (x1, y1))
            for i in range(1, steps + 1):
                time.sleep(ms / 1000)
                screen.send(0, (x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps))
            if step == "drag":
                time.sleep(ms / 1000)
                screen.send(0, None)
            print("%s %g %g -> %g %g in %d steps" % (step, x1, y1, x2, y2, steps), flush=True)
        elif step == "flood":
            seconds, rate = num(), num()
            screen.send(0, (width / 2, height / 2))
            # 100 frames of struct input_event (timeval, type, code, value), positions all different
            ev = lambda t, c, v: struct.pack("llHHi", 0, 0, t, c, v)
            blob = b"".join(ev(3, 0x35, (i * 7 + 1) % width) + ev(3, 0x36, (i * 3 + 1) % height) + ev(3, 0x00, (i * 7 + 1) % width)
                            + ev(3, 0x01, (i * 3 + 1) % height) + ev(0, 0, 0) for i in range(100))
            per_frame_events = 5
            sent, start = 0, now()
            while now() - start < seconds:
                while sent < int((now() - start) * rate):
                    os.write(screen.node.fileno(), blob)
                    sent += 100
                time.sleep(0.01)
            elapsed = now() - start
            screen.send(0, None)
            print("flood %d frames (%d evdev events) in %.2f s = %.0f frames/s" % (sent, sent * per_frame_events, elapsed,
                  sent / elapsed), flush=True)
        else:
            print("touch-inject: unknown step %s" % step, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
