#!/usr/bin/env python3
"""The daemon's real loop, measured per presented frame: `tickerboard bench --mode daemon` runs the
daemon's own core, shell, renderer and present path on the headless display (a simulated 60 Hz
scanout that copies what it is given) through each named workload, with the allocation counter
Tests/Bench/alloc-count.c preloaded (compiled here with the system's cc), and prints what the
kernel and the counter said per frame.

    frame-cost.py BINARY [--size WxH ...] [--workload NAME ...] [--frames N] [--guard FAULTS]
                  [--guard-allocs BYTES]

Prints the bench's RESULT line a workload and size. With --guard, exits 1 when a steady-state frame
costs more than FAULTS minor page faults (a count, never a time): a frame that copies the whole
picture into a fresh allocation costs about 2,000 at 1080p (8 MB / 4 KiB pages), one that reuses its
buffers next to none. With --guard-allocs, also when a frame asks malloc for more than BYTES.
The independent side of the check is the kernel's own count (getrusage's ru_minflt, which
/proc/PID/stat's minflt field equals) and glibc's allocator entry points, not the daemon's books.

Beside the daemon's tape figures, a FLOOR line: Tests/Bench/loop-floor.c, a loop in plain C with
none of the daemon's code, measures what waking at 60 Hz costs on this host with nothing drawn, and
a tape frame (the daemon's band rows interpolated and copied to a scanout buffer) paced at 60 Hz
against the same frames back to back, run right after the daemon's tape workload. The TAPE line sets
the daemon's tape frame against both.
Figures only: times are never a verdict here.
"""
import argparse
import os
import subprocess
import sys
import tempfile

WORKLOADS = ["morph", "scrub", "tape", "turned-90", "shift-by-copy", "watchlist"]
HERE = os.path.dirname(os.path.abspath(__file__))


def build_counter(work):
    """The allocation counter as a shared object, or None (and why) without a C compiler."""
    out = os.path.join(work, "alloc-count.so")
    src = os.path.join(HERE, "..", "Bench", "alloc-count.c")
    for cc in ("cc", "clang", "gcc"):
        try:
            subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", out, src], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            return out
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


def build_floor(work):
    """Tests/Bench/loop-floor.c built with the system's C compiler, or None without one."""
    out = os.path.join(work, "loop-floor")
    src = os.path.join(HERE, "..", "Bench", "loop-floor.c")
    for cc in ("cc", "clang", "gcc"):
        try:
            # -O3: gcc 12 vectorizes the interpolation only there (the daemon's kernel is vectorized).
            subprocess.run([cc, "-O3", "-o", out, src], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            return out
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


def floor(program, size, rows, frames):
    """The FLOOR line and its fields for a screen of `size` and a band of `rows`."""
    w, h = size.split("x")
    p = subprocess.run([program, w, h, str(rows), str(frames)], text=True, capture_output=True, timeout=300)
    lines = [l for l in p.stdout.splitlines() if l.startswith("FLOOR ")]
    if p.returncode != 0 or not lines:
        return None, {}
    return lines[-1], dict(kv.split("=", 1) for kv in lines[-1].split()[1:] if "=" in kv)


def compare_floor(program, size, tape, frames):
    """Prints the FLOOR line for the rows the daemon's tape frame drew, and the TAPE line."""
    rows = max(1, round(float(tape["drawn_fraction"]) * int(size.split("x")[1])))
    line, f = floor(program, size, rows, frames)
    if not line:
        print(f"frame-cost: {size}: loop-floor gave no figures", file=sys.stderr)
        return
    print(line, flush=True)
    cpu, paced, hot = float(tape["cpu_ms_per_frame"]), float(f["tape_paced_ms"]), float(f["tape_back_to_back_ms"])
    print(f"TAPE {size}: the daemon's frame {cpu:.4f} ms = {cpu / paced:.2f}x the C loop's paced frame "
          f"({paced:.4f} ms), which is {paced / hot:.2f}x its frames back to back ({hot:.4f} ms); "
          f"waking at 60 Hz alone {float(f['wake_ms']):.4f} ms", flush=True)


def measure(binary, name, size, frames, counter):
    env = dict(os.environ)
    if counter:
        env["LD_PRELOAD"] = counter
    p = subprocess.run([binary, "bench", "--mode", "daemon", "--workload", name, "--size", size,
                        "--frames", str(frames)], env=env, text=True, capture_output=True, timeout=900)
    lines = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        raise SystemExit(f"frame-cost: {name} {size}: bench exited {p.returncode}: {p.stderr[-2000:]}")
    fields = dict(kv.split("=", 1) for kv in lines[-1].split()[1:] if "=" in kv)
    return lines[-1], fields


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--size", action="append")
    ap.add_argument("--workload", action="append", choices=WORKLOADS)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--guard", type=float)
    ap.add_argument("--guard-allocs", type=float)
    a = ap.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as work:
        counter = build_counter(work)
        if not counter:
            print("frame-cost: no C compiler: allocations are not counted", file=sys.stderr)
        floor_program = build_floor(work) if counter else None
        for size in a.size or ["1920x1080"]:
            for name in a.workload or WORKLOADS:
                line, r = measure(a.binary, name, size, a.frames, counter)
                print(line, flush=True)
                if name == "tape" and floor_program:
                    # Right after the daemon's tape, so both meet the same neighbours.
                    compare_floor(floor_program, size, r, a.frames)
                faults = float(r["faults_per_frame"])
                if a.guard is not None and faults > a.guard:
                    failed.append(f"{name} {size}: {faults} minor page faults per frame (at most {a.guard})")
                if a.guard_allocs is not None and counter:
                    if "alloc_bytes_per_frame" not in r:
                        failed.append(f"{name} {size}: the preloaded counter was not found")
                    elif float(r["alloc_bytes_per_frame"]) > a.guard_allocs:
                        failed.append(f"{name} {size}: {r['alloc_bytes_per_frame']} bytes allocated per frame "
                                      f"(at most {a.guard_allocs:.0f})")
                if int(r.get("peak_rss_kb", "0")) <= 0:
                    failed.append(f"{name} {size}: no peak RSS")
    for f in failed:
        print("FAIL frame-cost: " + f, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
