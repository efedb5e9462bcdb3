#!/usr/bin/env python3
"""vmhost.py OUT QEMU_PID DEADLINE — the host side of a test VM while it runs.

Talks QMP on OUT/qmp.sock. The guest asks for a screen capture by creating OUT/NAME.shot-request
(the output dir is a 9p share, so the file appears here at once); this takes a QMP `screendump`
into OUT/NAME (PPM) and answers by creating OUT/NAME.done. Each NAME is captured once. Exits 0 when qemu exits, 124 after
quitting qemu at DEADLINE (epoch seconds). Standard library only.

Two heads (run-vm.sh --gpu virtio2, device id tbgpu): OUT/NAME.head1.shot-request captures head 1
into OUT/NAME (answered by NAME.head1.done); OUT/STEM.heads.shot-request captures head 0 into
OUT/STEM.head0.ppm and at once head 1 into OUT/STEM.head1.ppm (answered by STEM.heads.done). Every
.done file holds one line per capture, "FILE HEAD START END": the host's CLOCK_MONOTONIC seconds
around the screendump, so a judge knows how far apart two heads were taken (a tape moves meanwhile).
"""
import json
import os
import socket
import sys
import time


class QMP:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb", buffering=0)
        self.read()  # greeting
        self.command("qmp_capabilities")

    def read(self):
        while True:
            line = self.file.readline()
            if not line:
                raise EOFError("QMP closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def command(self, name, **arguments):
        request = {"execute": name}
        if arguments:
            request["arguments"] = arguments
        self.file.write((json.dumps(request) + "\n").encode())
        reply = self.read()
        if "error" in reply:
            raise RuntimeError("%s: %s" % (name, reply["error"]))
        return reply.get("return")


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def main():
    out, pid, deadline = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    qmp = None
    for _ in range(200):  # qemu creates the socket a moment after it starts
        try:
            qmp = QMP(os.path.join(out, "qmp.sock"))
            break
        except OSError:
            if not alive(pid):
                return 0
            time.sleep(0.05)
    if qmp is None:
        print("vmhost: no QMP socket", file=sys.stderr)
        return 1
    handled = set()
    while alive(pid):
        if time.time() > deadline:
            try:
                qmp.command("quit")
            except (OSError, EOFError, RuntimeError):
                pass
            return 124
        for name in sorted(os.listdir(out)):
            if not name.endswith(".shot-request"):
                continue
            target = name[: -len(".shot-request")]
            # Never delete the request: the guest's 9p client may still be working on the file it
            # just created (truncate, utimes), and it would see ENOENT. Remember it instead.
            if target in handled:
                continue
            handled.add(target)
            if target.endswith(".heads"):
                stem = target[: -len(".heads")]
                shots = [(stem + ".head0.ppm", 0), (stem + ".head1.ppm", 1)]
            elif target.endswith(".head1"):
                shots = [(target[: -len(".head1")], 1)]
            else:
                shots = [(target, None)]
            lines = []
            for filename, head in shots:
                args = {"filename": os.path.join(out, filename)}
                if head is not None:
                    args.update(device="tbgpu", head=head)
                start = time.monotonic()
                try:
                    qmp.command("screendump", **args)
                except (RuntimeError, OSError, EOFError) as e:
                    print("vmhost: screendump %s: %s" % (filename, e), file=sys.stderr)
                lines.append("%s %d %.6f %.6f\n" % (filename, head or 0, start, time.monotonic()))
            # (written whole, then renamed: the guest may look the moment the name appears)
            done = os.path.join(out, target + ".done")
            with open(done + ".tmp", "w") as f:
                f.write("".join(lines))
            os.rename(done + ".tmp", done)
        time.sleep(0.02)
    return 0


if __name__ == "__main__":
    sys.exit(main())
