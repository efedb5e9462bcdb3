"""What the daemon-level Python checks share: reading a JSON file another process replaces,
waiting for an observable state with a deadline (never a fixed sleep), stopping a daemon, and the
recorded-response server on loopback that stands in for a market-data provider."""
import json
import os
import struct
import subprocess
import sys
import time
import zlib

REPLAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "FetchTests", "replay_server.py")


def read_json(path):
    """The object in `path`, or None while it is missing or (never, with atomic writers) torn."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if channels == 3 else bytes(v for j, v in enumerate(line) if j % 4 != 3))
        prev = line
    return width, height, rows


def wait_for(predicate, deadline):
    """Polls `predicate` until it returns something true or `deadline` seconds pass; its last value."""
    end = time.monotonic() + deadline
    while True:
        value = predicate()
        if value or time.monotonic() > end:
            return value
        time.sleep(0.02)


def stop(process, signal_number, timeout):
    """Sends the signal and waits; kills after `timeout`. Returns the exit code or "killed"."""
    process.send_signal(signal_number)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return "killed"


def start_replay(rules, work):
    """Serves `rules` (match, status, content_type, body_file) on a loopback port from the directory
    `work`; returns (process, port) once the server has said its port. The caller kills it."""
    path = os.path.join(work, "rules.json")
    with open(path, "w") as f:
        json.dump(rules, f)
    port_file = os.path.join(work, "port")
    server = subprocess.Popen([sys.executable, REPLAY, "--rules", path, "--port-file", port_file,
                               "--log", os.path.join(work, "server.log")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    port = wait_for(lambda: open(port_file).read().strip() if os.path.exists(port_file) else None, 20)
    if not port:
        server.kill()
        server.wait()
        raise RuntimeError("the replay server said no port in 20 s (see %s)" % os.path.join(work, "server.log"))
    return server, port
