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
# (Builtins only, no process per poll: the daemon driving two outputs keeps both vCPUs of this TCG
# guest busy, and a fork costs tens of milliseconds here.)
snap() {   # one version of the status file into $ST (the daemon replaces it whole)
  ST=""
  [ -r "$1" ] || return 0
  while IFS= read -r sl; do ST="$ST$sl
"; done < "$1"
}
of() {   # of NAME KEY: KEY of output NAME in $ST ("waiting: no display", 123, ...)
  while IFS= read -r ol; do
    case "$ol" in *"\"name\": \"$1\""*) ;; *) continue;; esac
    case "$ol" in *"\"$2\": "*) ;; *) return;; esac
    ov=${ol#*\"$2\": }
    case "$ov" in \"*) ov=${ov#\"}; ov=${ov%%\"*};; *) ov=${ov%%[,\}]*};; esac
    echo "$ov"; return
  done <<EOF
$ST
EOF
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
    sleep 0.2
  done
}
at_rest() {   # the first output's core: nothing moves, and its settled frame is the one counted last
  case "$ST" in *'"animating": false'*) ;; *) return 1;; esac
  case "$ST" in *'"frames": '*'"settled_frame": '*) ;; *) return 1;; esac
  fr=${ST#*\"frames\": }; fr=${fr%%,*}; sf=${ST#*\"settled_frame\": }; sf=${sf%%,*}
  [ "$fr" = "$sf" ]
}
running() { [ "$(of "$1" state)" = running ] && [ "$(of "$1" flips)" -gt "${2:-0}" ] 2>/dev/null; }
waiting() { case "$(of "$1" state)" in waiting*) true;; *) false;; esac; }
# note LOG TAG: the status now, as "TAG: first=STATE,FLIPS,CONNECTOR,SCENE second=... time=T up=U"
# (U: the guest's uptime when read; the status's own time is its first output's, which an idle
# first output does not move)
note() { echo "$2: $(both) up=$(cut -d' ' -f1 /proc/uptime)" >> "$1"; }
start_daemon() {   # start_daemon CONF LOG STATUS: P = its pid; true once both outputs run
  rm -f /tmp/ready-o "$3"; echo "launch: up=$(cut -d' ' -f1 /proc/uptime)" >> "$2"
  $B run --config "$OUT/$1" --ready-file /tmp/ready-o --status "$3" 2>> "$2" &
  P=$!
  wait_file /tmp/ready-o 1200 && echo "ready: up=$(cut -d' ' -f1 /proc/uptime)" >> "$2" || echo "no ready file in 60 s" >> "$2"
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
    # the chart draws itself in first: the capture once the first output's core is at rest (its
    # settled frame is the one counted last; the tape on the second moves on regardless)
    wait_status $J 60 'at_rest'; note $L at_rest
    shot own.heads
    # Virtual-2 unplugged: the second waits and its flips stand, the first stays running (the chart
    # is still: it need not flip); replugged: the tape again, flipping
    echo off > $S2; uevent
    wait_status $J 60 'waiting second'; note $L unplug2_waiting
    sleep 1   # the window measured (the second's flips must stand over it), not a wait
    snap $J; note $L unplug2_later
    shot unplug2.heads
    echo on > $S2; uevent
    F=$(of second flips)
    wait_status $J 60 "running second ${F:-0}"; note $L replug2_running; F=$(of second flips)
    wait_status $J 60 "running second $(( ${F:-0} + 20 ))"; note $L replug2_later
    shot replug2.heads
    # Virtual-1 unplugged: the first waits and its flips stand, the tape on the second flips on
    echo off > $S1; uevent
    wait_status $J 60 'waiting first'; note $L unplug1_waiting; F=$(of second flips)
    wait_status $J 60 "running second $(( ${F:-0} + 20 )) && waiting first"; note $L unplug1_later
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
    note $L rate_a
    # N pairs of both heads back to back (A), then, once the tape has moved on (8 s of the guest's
    # clock: 80 px at 10 px/s, more than the widest gap between words) and both outputs flipped on, N more (B)
    for i in 1 2 3 4; do shot spanA$i.heads; done
    snap $J; T=$(uptime_cs); F1=$(of first flips) F2=$(of second flips)
    wait_status $J 90 "[ \$(uptime_cs) -ge $(( T + 800 )) ] && running first $(( ${F1:-0} + 20 )) && running second $(( ${F2:-0} + 20 ))"
    note $L rate_b
    for i in 1 2 3 4; do shot spanB$i.heads; done
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
OT0=$(cut -d' ' -f1 /proc/uptime); outputs_phases; echo "outputs phases: $(awk "BEGIN { printf \"%.1f\", $(cut -d' ' -f1 /proc/uptime) - $OT0 }") s"
echo "guest done"
