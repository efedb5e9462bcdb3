#!/bin/sh
# guest-virtio.sh [damage] — the in-guest half of display-e2e.sh's virtio-gpu runs (run-vm.sh --gpu
# virtio2: card0 = virtio-gpu with two heads, Virtual-1 and Virtual-2, QMP screendumps of each);
# `damage`: the run on the bookworm-backports kernel only (run-vm.sh --gpu virtio). Leaves logs and
# captures in $OUT; the host judges them (display-e2e.sh, outputs-judge.sh).
B="$OUT/tickerboard"
shot() {   # shot NAME: ask the host for a QMP screendump into $OUT/NAME and wait for it (≤ 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt "${2:-300}" ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
echo "kernel $(uname -r), cards: $(cut -d' ' -f1 /sys/kernel/debug/dri/0/name)"

# --- issue 34: one daemon driving both outputs (the status file's "outputs" list says how each is
# doing: one object per line, {"name": ..., "connector": ..., "state": "running" | "waiting: why",
# "flips": N, ...}). Every wait is for what that file says, bounded by the kernel's uptime.
uptime_cs() { read -r u _ < /proc/uptime; echo "${u%.*}${u#*.}"; }
snap() { ST=$(cat "$1" 2>/dev/null); }   # one version of the status file (the daemon replaces it whole)
of() {   # of NAME KEY: KEY of output NAME in $ST ("waiting: no display", 123, ...)
  printf '%s\n' "$ST" | grep "\"name\": \"$1\"" | head -1 | sed -n "s/.*\"$2\": \"\{0,1\}\([^\",}]*\).*/\1/p"
}
st_time() { printf '%s\n' "$ST" | sed -n 's/^ *"time": \([0-9.]*\).*/\1/p' | cut -d. -f1; }
both() {   # first=STATE,FLIPS,CONNECTOR,SCENE second=... time=T (the status file's)
  for o in first second; do printf '%s=%s,%s,%s,%s ' $o "$(of $o state | tr ' ' _)" "$(of $o flips)" "$(of $o connector)" "$(of $o scene)"; done
  printf 'time=%s' "$(printf '%s\n' "$ST" | sed -n 's/^ *"time": \([0-9.]*\).*/\1/p')"
}
# wait_status FILE SECONDS COND: until COND (shell code on $ST, of, st_time) holds; 1 after SECONDS,
# 2 at once when the daemon writes a status without "outputs" (it drives one output only)
wait_status() {
  ws_f=$1 ws_lim=$(( $(uptime_cs) + $2 * 100 )); shift 2
  while :; do
    snap "$ws_f"
    eval "$*" && return 0
    case "$ST" in *'"time"'*) case "$ST" in *'"outputs"'*) ;; *) return 2;; esac;; esac
    [ "$(uptime_cs)" -ge $ws_lim ] && return 1
    sleep 0.1
  done
}
running() { [ "$(of "$1" state)" = running ] && [ "$(of "$1" flips)" -gt "${2:-0}" ] 2>/dev/null; }
waiting() { case "$(of "$1" state)" in waiting*) true;; *) false;; esac; }
# later T: a status written at least 2 s after T (two rewrites: flips counted over a stretch)
later() { [ -n "$(st_time)" ] && [ "$(st_time)" -ge $(( $1 + 2 )) ]; }
# note LOG TAG: the status now, as "TAG: first=STATE,FLIPS,CONNECTOR second=... time=T"
note() { echo "$2: $(both)" >> "$1"; }
start_daemon() {   # start_daemon CONF LOG STATUS: P = its pid; true once both outputs run
  rm -f /tmp/ready-o "$3"
  $B run --config "$OUT/$1" --ready-file /tmp/ready-o --status "$3" 2>> "$2" &
  P=$!
  wait_file /tmp/ready-o 1200 || echo "no ready file in 60 s" >> "$2"
  wait_status "$3" 60 'running first && running second'; rc=$?
  note "$2" started
  [ $rc = 2 ] && echo "status without \"outputs\": $(printf '%s' "$ST" | tr -d '\n' | cut -c1-300)" >> "$2"
  [ $rc = 0 ]
}
stop_daemon() { kill -TERM "$1" 2>/dev/null; wait "$1"; echo "exit=$?" >> "$2"; }
outputs_phases() {
  S1=/sys/class/drm/card0-Virtual-1/status S2=/sys/class/drm/card0-Virtual-2/status
  echo on > $S2; uevent
  # two-outputs-own-scenes and one-output-unplugged-other-runs: the chart on Virtual-1, the tape on Virtual-2
  L=$OUT/outputs-own.log J=/tmp/st-own.json
  if start_daemon outputs-own.conf $L $J; then
    # (the chart may still draw itself in: captures until the judge's scenes check holds, <= 10)
    for try in 1 2 3 4 5 6 7 8 9 10; do
      shot own$try.heads
      /usr/bin/python3 $OUT/outputs-check.py scenes $OUT/own$try.head0.ppm $OUT/own$try.head1.ppm > /dev/null 2>&1 && break
      sleep 0.3
    done
    echo "own_shot=own$try" >> $L
    # Virtual-2 unplugged: the second waits, the first runs on (its flips: the chart is still, so
    # they may stand; its state stays running); replugged: the tape again
    echo off > $S2; uevent
    wait_status $J 60 'waiting second'; note $L unplug2_waiting; T=$(st_time)
    wait_status $J 30 "later ${T:-0}"; note $L unplug2_later
    shot unplug2.heads
    echo on > $S2; uevent
    F=$(of second flips)
    wait_status $J 60 "running second ${F:-0}"; note $L replug2_running; T=$(st_time); F=$(of second flips)
    wait_status $J 30 "later ${T:-0} && running second ${F:-0}"; note $L replug2_later
    shot replug2.heads
    # Virtual-1 unplugged: the first waits, the tape on the second keeps flipping
    echo off > $S1; uevent
    wait_status $J 60 'waiting first'; note $L unplug1_waiting; T=$(st_time)
    wait_status $J 30 "later ${T:-0}"; note $L unplug1_later
    shot unplug1.heads
    echo detect > $S1; uevent
    F=$(of first flips)
    wait_status $J 60 "running first ${F:-0}"; note $L replug1_running
    shot replug1.heads
  fi
  stop_daemon $P $L
  echo on > $S2; echo detect > $S1; uevent
  # tape-spans-two-outputs: one tape across Virtual-1 (left) and Virtual-2 (right)
  L=$OUT/outputs-span.log J=/tmp/st-span.json
  if start_daemon outputs-span.conf $L $J; then
    note $L rate_a; T=$(st_time)
    wait_status $J 30 "later ${T:-0}"; note $L rate_b
    shot spanA.heads; snap $J; T=$(st_time)
    # B: at least 6 s of the daemon's clock later (20 px/s: >= 120 px of tape) and both still flipping
    F1=$(of first flips) F2=$(of second flips)
    wait_status $J 60 "[ \"\$(st_time)\" -ge $(( ${T:-0} + 6 )) ] && running first ${F1:-0} && running second ${F2:-0}"
    note $L span_b
    shot spanB.heads
  fi
  stop_daemon $P $L
}
if [ "${1:-}" = damage ]; then
  # (w) on the backports kernel (its plane has FB_DAMAGE_CLIPS): 90 flips that damage only the band
  # of the moving block; the last frame stays on screen (idle) until it is captured, then SIGTERM
  # gives the screen back.
  $B display-check --device /dev/dri/card0 --frames 90 --idle-seconds 600 --done-file /tmp/done-d > $OUT/damage.log 2>&1 &
  P=$!
  wait_file /tmp/done-d && shot damage.ppm
  kill -TERM $P; wait $P; echo "exit=$?" >> $OUT/damage.log
  # vkms (card1) turns the picture by its plane here: what the kernel holds on the primary plane
  # while display-check shows the turned frame
  if [ -e /dev/dri/card1 ]; then
    $B display-check --device /dev/dri/card1 --frames 30 --rotation 90 --idle-seconds 600 --done-file /tmp/done-r > $OUT/vkms-rot90.log 2>&1 &
    P=$!
    # (a file of its own: display-check still writes its log at its own offset)
    wait_file /tmp/done-r && echo "kernel_plane0_$(awk '/plane-0/ { p = 1 } p && /rotation=/ { print $1; exit }' /sys/kernel/debug/dri/1/state)" > $OUT/vkms-rot90.state
    kill -TERM $P; wait $P; echo "exit=$?" >> $OUT/vkms-rot90.log
  fi
  echo "guest done"
  exit 0
fi
# (v) the pattern, flipped 120 times
$B display-check --device /dev/dri/card0 --frames 120 --ready-file /tmp/ready-v > $OUT/virtio.log 2>&1 &
P=$!
wait_file /tmp/ready-v && shot virtio.ppm
wait $P; echo "exit=$?" >> $OUT/virtio.log
# (v') turned 90°
$B display-check --device /dev/dri/card0 --frames 60 --rotation 90 --ready-file /tmp/ready-vr > $OUT/virtio-rot90.log 2>&1 &
P=$!
wait_file /tmp/ready-vr && shot virtio-rot90.ppm
wait $P; echo "exit=$?" >> $OUT/virtio-rot90.log
# (v'') the second head: disconnected until forced on (QEMU enables head 0 only); display-check
# on it alone, a screendump of each head while it shows its frames
S1=/sys/class/drm/card0-Virtual-1/status S2=/sys/class/drm/card0-Virtual-2/status
uevent() { echo change > /sys/class/drm/card0/uevent; }
echo "head1_before=$(cat $S2 2>/dev/null || echo none)" > $OUT/virtio-head1.log
echo on > $S2; uevent
$B display-check --device /dev/dri/card0 --connector Virtual-2 --frames 60 --ready-file /tmp/ready-h1 >> $OUT/virtio-head1.log 2>&1 &
P=$!
wait_file /tmp/ready-h1 && shot virtio-head1.heads
wait $P; echo "exit=$?" >> $OUT/virtio-head1.log
T=$(cut -d' ' -f1 /proc/uptime); outputs_phases; echo "outputs phases: $(awk "BEGIN { printf \"%.1f\", $(cut -d' ' -f1 /proc/uptime) - $T }") s"
echo "guest done"
