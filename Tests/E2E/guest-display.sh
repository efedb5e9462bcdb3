#!/bin/sh
# guest-display.sh — the in-guest half of display-e2e.sh (run-vm.sh --gpu bochs --vkms:
# card0 = bochs-drm with /dev/fb0, card1 = vkms). Runs the display-check scenarios and leaves logs
# and screen captures in $OUT; the host judges them. $OUT/tickerboard is the binary under test.
B="$OUT/tickerboard"
shot() {   # shot NAME: ask the host for a QMP screendump into $OUT/NAME and wait for it (≤ 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
# shot_until NAME MODE: captures until check-screen.py MODE accepts one (<= 20 tries): what is on
# the glass decides, not a number of seconds (fbdev's deferred I/O, the console's redraw).
shot_until() {
  for try in $(seq 1 20); do
    shot "$1.try$try"
    [ -s "$OUT/$1.try$try" ] && /usr/bin/python3 "$OUT/check-screen.py" "$OUT/$1.try$try" "$2" > /dev/null 2>&1 && break
    sleep 0.2
  done
  cp "$OUT/$1.try$try" "$OUT/$1" 2>/dev/null; echo "shot_until $1: try $try"
}
wait_text() { i=0; until grep -q "$2" "$1" 2>/dev/null || [ $i -ge 1200 ]; do sleep 0.05; i=$((i + 1)); done; }   # (<= 60 s)
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
# "Waits without using the CPU", judged by what the kernel counts whatever the host's speed: the
# process is asleep in epoll_wait (state S, wchan in the epoll code) at both ends of a window, and
# its threads were woken (voluntary + involuntary context switches) only a handful of times in it.
# A loop that polls or renders is woken 60 times a second of guest time however slow the guest;
# CPU ticks, by contrast, follow the host's load under TCG.
wakeups() { cat /proc/$1/task/*/status 2>/dev/null | awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s + 0 }'; }
in_epoll() { [ "$(awk '/^State:/ { print $2 }' /proc/$1/status 2>/dev/null)" = S ] && grep -q epoll /proc/$1/wchan 2>/dev/null; }
wait_in_epoll() { i=0; until in_epoll $1 || [ $i -ge 1200 ]; do sleep 0.05; i=$((i + 1)); done; in_epoll $1; }   # (<= 60 s)
# quiet_window PID PREFIX: waits until PID sleeps in epoll_wait, then measures a 1 s window; prints
# PREFIX_wakeups=N PREFIX_asleep=START,END (1 = in epoll_wait) and PREFIX_wchan=...
quiet_window() {
  wait_in_epoll $1; A0=$?; W1=$(wakeups $1)
  sleep 1   # the window measured, not a wait
  W2=$(wakeups $1); in_epoll $1; A1=$?
  echo "$2_wakeups=$((W2 - W1)) $2_asleep=$((1 - A0)),$((1 - A1)) $2_wchan=$(cat /proc/$1/wchan 2>/dev/null)"
}
echo "cards: $(cut -d' ' -f1 /sys/kernel/debug/dri/0/name) $(cut -d' ' -f1 /sys/kernel/debug/dri/1/name) fb0: $(cat /sys/class/graphics/fb0/name)"

# (a)+(b) bochs: 120 flips, a capture while it runs, then 2 s of idling on the last frame
$B display-check --device /dev/dri/card0 --frames 120 --idle-seconds 2 --ready-file /tmp/ready-a > $OUT/bochs.log 2>&1 &
P=$!
wait_file /tmp/ready-a && shot bochs.ppm
wait $P; echo "exit=$?" >> $OUT/bochs.log

# (a') bochs turned 90°: by the plane where its rotation property offers it, else a rotated copy
$B display-check --device /dev/dri/card0 --frames 60 --rotation 90 --ready-file /tmp/ready-r > $OUT/bochs-rot90.log 2>&1 &
P=$!
wait_file /tmp/ready-r && shot bochs-rot90.ppm
wait $P; echo "exit=$?" >> $OUT/bochs-rot90.log

# (a'') bochs at 1920x1080: two such buffers do not fit its 16 MB of video memory beside the
# console's, so the first flip fails for want of memory and the display goes single-buffered
$B display-check --device /dev/dri/card0 --mode 1920x1080 --frames 60 --ready-file /tmp/ready-big > $OUT/bochs-1080.log 2>&1 &
P=$!
wait_file /tmp/ready-big && shot bochs-1080.ppm
wait $P; echo "exit=$?" >> $OUT/bochs-1080.log

# (c) vkms: real vblank at 60 Hz
$B display-check --device /dev/dri/card1 --frames 120 --idle-seconds 1 > $OUT/vkms.log 2>&1
echo "exit=$?" >> $OUT/vkms.log
# (c') the same through the legacy API (SetCrtc + PageFlip) instead of atomic commits
$B display-check --device /dev/dri/card1 --frames 60 --legacy > $OUT/vkms-legacy.log 2>&1
echo "exit=$?" >> $OUT/vkms-legacy.log

# (c'') vkms turned 90° (its plane's rotation property where the module has one)
$B display-check --device /dev/dri/card1 --frames 60 --rotation 90 > $OUT/vkms-rot90.log 2>&1
echo "exit=$?" >> $OUT/vkms-rot90.log

# (d) fbdev on /dev/fb0 (bochs' fbdev emulation; KMS untouched by us)
# DRM's fbdev emulation copies mmap writes to the scanout buffer from a deferred-I/O worker
# (every 50 ms, later on a loaded TCG guest): capture until the pattern has arrived.
$B display-check --backend fbdev --device /dev/fb0 --frames 180 --ready-file /tmp/ready-d > $OUT/fbdev.log 2>&1 &
P=$!
wait_file /tmp/ready-d && shot_until fbdev.ppm pattern
wait $P; echo "exit=$?" >> $OUT/fbdev.log

# (d') fbdev on vkms' emulation: FBIO_WAITFORVSYNC waits for vkms' vblank (bochs has none)
for fb in /sys/class/graphics/fb*; do
  grep -q vkms "$fb/name" 2>/dev/null || continue
  echo "device=/dev/$(basename "$fb") name=$(cat "$fb/name")" > $OUT/fbdev-vkms.log
  $B display-check --backend fbdev --device "/dev/$(basename "$fb")" --frames 120 >> $OUT/fbdev-vkms.log 2>&1
  echo "exit=$?" >> $OUT/fbdev-vkms.log
  break
done

# (e) SIGTERM in the middle of flipping: the console's CRTC configuration comes back
$B display-check --device /dev/dri/card0 --frames 1000000 --ready-file /tmp/ready-e > $OUT/sigterm.log 2>&1 &
P=$!
wait_file /tmp/ready-e && shot sigterm-before.ppm
kill -TERM $P
wait $P; echo "exit=$?" >> $OUT/sigterm.log
grep -A12 '^plane\[' /sys/kernel/debug/dri/0/state | grep -m1 'allocated by' | sed 's/^[[:space:]]*/state: /' >> $OUT/sigterm.log
shot_until sigterm-after.ppm console

# (f) DRM master hand-over: a second instance starts while the first holds master, waits quietly,
# and takes over when the first exits. The first holds master until the second says it waits (a
# fixed number of frames could end before a slow guest has started the second).
$B display-check --device /dev/dri/card0 --frames 1000000 --ready-file /tmp/ready-f > $OUT/master-first.log 2>&1 &
P=$!
wait_file /tmp/ready-f
$B display-check --device /dev/dri/card0 --frames 60 > $OUT/master-second.log 2>&1 &
Q=$!
wait_text $OUT/master-second.log 'another process is DRM master'
kill -TERM $P; wait $P; echo "exit=$?" >> $OUT/master-first.log
wait $Q; echo "exit=$?" >> $OUT/master-second.log

# (g) hotplug: the connector is forced off and a change uevent sent (what a real unplug does), then
# back on. While it is gone the process must sleep in epoll_wait, hardly ever woken (quiet_window).
S=/sys/class/drm/card0-Virtual-1/status
$B display-check --device /dev/dri/card0 --frames 150 --ready-file /tmp/ready-g > $OUT/hotplug.log 2>&1 &
P=$!
wait_file /tmp/ready-g
echo off > $S; echo change > /sys/class/drm/card0/uevent
wait_text $OUT/hotplug.log 'event connectorLost'
Q=$(quiet_window $P lost)
echo detect > $S; echo change > /sys/class/drm/card0/uevent
wait $P; echo "exit=$?" >> $OUT/hotplug.log
echo "$Q" | tr ' ' '\n' >> $OUT/hotplug.log
# (h) starting with nothing connected is normal: wait (asleep in epoll_wait), light up when a display appears
echo off > $S
$B display-check --device /dev/dri/card0 --frames 60 --wait-for-output > $OUT/nooutput.log 2>&1 &
P=$!
wait_text $OUT/nooutput.log 'display-check: kms '   # set up, waiting for the output
Q=$(quiet_window $P waiting)
echo detect > $S; echo change > /sys/class/drm/card0/uevent
wait $P; echo "exit=$?" >> $OUT/nooutput.log
echo "$Q" | tr ' ' '\n' >> $OUT/nooutput.log
echo "guest done"
