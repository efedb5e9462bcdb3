"""What the daemon-level Python checks share: reading a JSON file another process replaces,
waiting for an observable state with a deadline (never a fixed sleep), stopping a daemon, and the
recorded-response server on loopback that stands in for a market-data provider."""
import json
import os
import subprocess
import sys
import time

REPLAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "FetchTests", "replay_server.py")


def read_json(path):
    """The object in `path`, or None while it is missing or (never, with atomic writers) torn."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


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
