#!/usr/bin/env python3
"""The daemon's real loop, measured per presented frame: the headless daemon (its own core, shell,
renderer and present path; a simulated 60 Hz display) runs a named workload, and between two
readings of its status file in steady state this reads the kernel's counters for the process
(/proc/PID/stat: minor page faults, user and system time; /proc/PID/status: VmHWM) and the
status file's frames and scanout copy fraction.

    frame-cost.py BINARY [--size WxH ...] [--workload NAME ...] [--frames N] [--guard FAULTS]

Prints one RESULT line a workload and size. With --guard, exits 1 when a steady-state frame costs
more than FAULTS minor page faults (a count, never a time): a frame that copies the whole picture
into a fresh allocation costs about 2,000 at 1080p (8 MB / 4 KiB pages), one that reuses its
buffers next to none.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json, stop, wait_for  # noqa: E402

# Each workload keeps frames coming: a cycle every 2 s (a 1.2 s morph each) on the built-in sample
# market, sped up so that most frames are morph frames; the tape crawls on its own.
WORKLOADS = {
    "morph": ("[chart]\ncycle-interval = 2s\n", 3),
    "tape": ("[chart]\ncycle-interval = 0\n[tape]\nposition = bottom\nspeed = 100\n", 1),
    "turned-90": ("[display]\nrotation = 90\n[chart]\ncycle-interval = 2s\n", 3),
    "shift-by-copy": ("[chart]\ncycle-interval = 2s\n[burn-in]\nshift = 2\nperiod = 10s\n", 10),
    "watchlist": ("[chart]\ncycle-interval = 2s\nwatchlist = cycle\ninstrument-interval = 5s\n", 3),
}


def proc_counters(pid):
    """(minor faults, user + system seconds) of the process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # after "pid (comm)": state is fields[0], minflt fields[7], utime fields[11], stime fields[12]
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[7]), (int(fields[11]) + int(fields[12])) / ticks


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def measure(binary, name, size, frames, work):
    conf_text, time_scale = WORKLOADS[name]
    conf = os.path.join(work, name + ".conf")
    status = os.path.join(work, name + "-" + size + ".json")
    with open(conf, "w") as f:
        f.write("[display]\nrender-threads = 1\n" + conf_text if "[display]" not in conf_text
                else conf_text.replace("[display]\n", "[display]\nrender-threads = 1\n"))
    if os.path.exists(status):
        os.unlink(status)
    p = subprocess.Popen([binary, "run", "--config", conf, "--display", "headless", "--size", size,
                          "--status", status, "--time-scale", str(time_scale)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def frames_now():
            s = read_json(status)
            return s if s and s.get("frames", 0) >= 0 else None

        # Warm: the glyphs cached, the buffers made, the first morphs drawn.
        first = wait_for(lambda: (s := frames_now()) and s["frames"] >= 120 and s, 120)
        if not first:
            raise SystemExit(f"frame-cost: {name} {size}: no 120 frames in 120 s ({read_json(status)})")
        f0, cpu0 = proc_counters(p.pid)
        n0 = first["frames"]
        last = wait_for(lambda: (s := frames_now()) and s["frames"] >= n0 + frames and s, 240)
        f1, cpu1 = proc_counters(p.pid)
        if not last:
            raise SystemExit(f"frame-cost: {name} {size}: no {frames} more frames in 240 s")
        n = last["frames"] - n0
        hwm = status_kb(p.pid, "VmHWM")
        return {
            "workload": name, "size": size, "frames": n,
            "faults_per_frame": round((f1 - f0) / n, 2),
            "cpu_ms_per_frame": round((cpu1 - cpu0) * 1000 / n, 3),
            "scanout_copy_fraction": last.get("scanout_copy_fraction"),
            "peak_rss_kb": hwm,
            "status_peak_rss_kb": last.get("peak_rss_kb"),
        }
    finally:
        stop(p, signal.SIGTERM, 20)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--size", action="append")
    ap.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--guard", type=float)
    a = ap.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as work:
        for size in a.size or ["1920x1080"]:
            for name in a.workload or list(WORKLOADS):
                r = measure(a.binary, name, size, a.frames, work)
                print("RESULT frame-cost " + " ".join(f"{k}={v}" for k, v in r.items()), flush=True)
                if a.guard is not None and r["faults_per_frame"] > a.guard:
                    failed.append(f"{name} {size}: {r['faults_per_frame']} minor page faults per frame (at most {a.guard})")
                if r["status_peak_rss_kb"] is None:
                    failed.append(f"{name} {size}: the status file has no peak_rss_kb")
    for f in failed:
        print("FAIL frame-cost: " + f, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
