"""What the daemon-level Python checks share: reading a JSON file another process replaces,
waiting for an observable state with a deadline (never a fixed sleep), and stopping a daemon."""
import json
import subprocess
import time


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
