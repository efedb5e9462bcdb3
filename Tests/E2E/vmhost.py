#!/usr/bin/env python3
"""vmhost.py OUT QEMU_PID DEADLINE — the host side of a test VM while it runs.

Talks QMP on OUT/qmp.sock. The guest asks for a screen capture by creating OUT/NAME.shot-request
(the output dir is a 9p share, so the file appears here at once); this takes a QMP `screendump`
into OUT/NAME (PPM) and answers by creating OUT/NAME.done. Each NAME is captured once. Exits 0 when qemu exits, 124 after
quitting qemu at DEADLINE (epoch seconds). Standard library only.
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
            try:
                qmp.command("screendump", filename=os.path.join(out, target))
            except (RuntimeError, OSError, EOFError) as e:
                print("vmhost: screendump %s: %s" % (target, e), file=sys.stderr)
            open(os.path.join(out, target + ".done"), "w").close()
        time.sleep(0.02)
    return 0


if __name__ == "__main__":
    sys.exit(main())
