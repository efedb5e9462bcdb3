#!/bin/sh
# touch-guest.sh CACHE — the in-guest half of touch-e2e.sh (run-vm.sh --gpu portrait: a 720x1280 head). Loads uinput and
# evdev from the harness' kernel tree in CACHE, starts systemd-udevd, then runs `input-check`
# ($OUT/input-check: the binary under test) while $OUT/touch-inject.py plays touches on a uinput
# touchscreen. Leaves one log per phase in $OUT; the host judges them.
CACHE=${1:?usage: touch-guest.sh CACHE}
B="$OUT/input-check"
INJ="timeout 120 /usr/bin/python3 $OUT/touch-inject.py --size 1024x768"
FOUND='input: found "tickerboard e2e touchscreen"'   # the reader has opened our device
REMOVED='input: removed "tickerboard e2e touchscreen"'   # the reader has let it go
# The sleeps between gestures pace the input (a tap, a drag and a swipe are told apart by their
# timing; each MARK stamps a phase that touch-check.py finds by time). Nothing waits for the reader
# by time: a device goes away only once the reader has logged the gesture it was sent (a removed
# device takes its unread events with it), and the script goes on once the reader says "removed".
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
stop() { kill -TERM "$1" 2>/dev/null; wait "$1"; }

# uinput and evdev are modules of the guest kernel; its tree is in the host cache (read-only here).
modprobe -d "$CACHE/kernel" -a uinput evdev || echo "modprobe uinput evdev failed"
echo "uinput: $(ls -l /dev/uinput 2>&1)"
UDEVD=/lib/systemd/systemd-udevd; [ -x "$UDEVD" ] || UDEVD=/usr/lib/systemd/systemd-udevd
"$UDEVD" --daemon 2>&1 | head -3
udevadm trigger --action=add --subsystem-match=input
udevadm settle -t 10
echo "udevd: $([ -e /run/udev/control ] && echo running || echo missing)"

# (a) rotation 0: tap, slow drag, swipe, a second finger, out-of-range contact, then the device
# removed in the middle of a drag and created again, and a tap on the new one.
$B --seconds 90 --size 1024x768 --ready-file /tmp/ready-a > "$OUT/touch-a.log" 2>&1 &
P=$!
wait_file /tmp/ready-a
$INJ create waitfor "$OUT/touch-a.log" "$FOUND" 1 \
  mark tap tap 700 400 sleep 0.5 \
  mark drag drag 100 300 600 300 40 30 sleep 0.5 \
  mark swipe drag 800 500 300 500 8 16 sleep 0.5 \
  mark two-fingers down 0 200 200 down 1 600 600 move 1 650 600 up 1 sleep 0.4 up 0 sleep 0.5 \
  mark outside down 0 5000 -300 move 0 -20 900 sleep 0.4 up 0 sleep 0.5 \
  mark removal press 300 300 400 300 10 30 destroy waitfor "$OUT/touch-a.log" "$REMOVED" 1 create waitfor "$OUT/touch-a.log" "$FOUND" 2 \
  mark re-added tap 512 384 waitfor "$OUT/touch-a.log" 'GESTURE tap x=512.0 y=384.0' 1 \
  mark end destroy waitfor "$OUT/touch-a.log" "$REMOVED" 2 > "$OUT/inject-a.log" 2>&1
echo "inject a: exit $?"
stop $P; echo "exit=$?" >> "$OUT/touch-a.log"

# (b) rotation 90: taps on the four physical corners
$B --seconds 60 --size 1024x768 --rotation 90 --ready-file /tmp/ready-b > "$OUT/touch-b.log" 2>&1 &
P=$!
wait_file /tmp/ready-b
$INJ create waitfor "$OUT/touch-b.log" "$FOUND" 1 mark report waitfor "$OUT/report-done.log" 'report done' 1 \
  tap 1023 0 sleep 0.3 tap 1023 767 sleep 0.3 tap 0 767 sleep 0.3 tap 0 0 waitfor "$OUT/touch-b.log" 'GESTURE tap' 4 \
  destroy waitfor "$OUT/touch-b.log" "$REMOVED" 1 > "$OUT/inject-b.log" 2>&1 &
I=$!
# meanwhile, the `tickerboard inputs` listing while the touchscreen is there (it stays until then)
i=0; until grep -q "MARK report" "$OUT/inject-b.log" 2>/dev/null || [ $i -ge 400 ]; do sleep 0.05; i=$((i + 1)); done
$B --report > "$OUT/report.log" 2>&1
echo "report done" > "$OUT/report-done.log"
wait $I; echo "inject b: exit $?"
stop $P; echo "exit=$?" >> "$OUT/touch-b.log"

# (c) calibration: udev sets LIBINPUT_CALIBRATION_MATRIX (mirror x) on the touchscreen; one reader
# without a matrix of its own, one with ours (mirror y) composed on top, both at once.
mkdir -p /run/udev/rules.d
cat > /run/udev/rules.d/99-tickerboard-e2e.rules <<'RULE'
ACTION=="add|change", SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="tickerboard e2e touchscreen", ENV{LIBINPUT_CALIBRATION_MATRIX}="-1 0 1 0 1 0"
RULE
udevadm control --reload
$B --seconds 60 --size 1024x768 --ready-file /tmp/ready-c0 > "$OUT/touch-c0.log" 2>&1 &
P0=$!
$B --seconds 60 --size 1024x768 --calibration "1 0 0 0 -1 1" --ready-file /tmp/ready-c1 > "$OUT/touch-c1.log" 2>&1 &
P1=$!
wait_file /tmp/ready-c0; wait_file /tmp/ready-c1
$INJ create waitfor "$OUT/touch-c0.log" "$FOUND" 1 waitfor "$OUT/touch-c1.log" "$FOUND" 1 \
  tap 100 200 waitfor "$OUT/touch-c0.log" 'GESTURE tap' 1 waitfor "$OUT/touch-c1.log" 'GESTURE tap' 1 \
  destroy waitfor "$OUT/touch-c0.log" "$REMOVED" 1 waitfor "$OUT/touch-c1.log" "$REMOVED" 1 > "$OUT/inject-c.log" 2>&1
echo "inject c: exit $?"
udevadm info /dev/input/event* 2>/dev/null | grep -m1 LIBINPUT_CALIBRATION_MATRIX
stop $P0; echo "exit=$?" >> "$OUT/touch-c0.log"
stop $P1; echo "exit=$?" >> "$OUT/touch-c1.log"
rm -f /run/udev/rules.d/99-tickerboard-e2e.rules; udevadm control --reload

# (d) flood: 10,000 motion frames a second for 10 s, then a tap that must come through at once
$B --seconds 120 --size 1024x768 --quiet --ready-file /tmp/ready-d > "$OUT/touch-d.log" 2>&1 &
P=$!
wait_file /tmp/ready-d
# (the tap comes once the reader has taken in the whole flood: its contact's end)
$INJ create waitfor "$OUT/touch-d.log" "$FOUND" 1 mark flood flood 10 10000 waitfor "$OUT/touch-d.log" 'GESTURE scrubEnded' 1 \
  mark after tap 400 300 waitfor "$OUT/touch-d.log" 'GESTURE tap x=400.0 y=300.0' 1 destroy waitfor "$OUT/touch-d.log" "$REMOVED" 1 \
  > "$OUT/inject-d.log" 2>&1
echo "inject d: exit $?"
stop $P; echo "exit=$?" >> "$OUT/touch-d.log"
# (f) a mouse acts like one finger (relative motion accumulated and clamped to the picture), and
# keys map to commands: 1, 6, left, right, space, A
$B --seconds 60 --size 1024x768 --ready-file /tmp/ready-f > "$OUT/touch-f.log" 2>&1 &
P=$!
wait_file /tmp/ready-f
$INJ create-mouse create-keyboard waitfor "$OUT/touch-f.log" 'found "tickerboard e2e mouse"' 1 \
  waitfor "$OUT/touch-f.log" 'found "tickerboard e2e keyboard"' 1 \
  rel -3000 -3000 sleep 0.2 mdown sleep 0.1 rel 40 0 sleep 0.05 rel 40 0 sleep 0.4 mup sleep 0.3 \
  rel 4000 4000 sleep 0.2 click sleep 0.3 \
  key 2 key 7 key 105 key 106 key 57 key 30 waitfor "$OUT/touch-f.log" 'KEY code=30 pressed=0' 1 > "$OUT/inject-f.log" 2>&1
echo "inject f: exit $?"
stop $P; echo "exit=$?" >> "$OUT/touch-f.log"

# (g) devices without a size: a touchscreen without resolution (works: libinput guesses a size), and
# one whose axes have no range (min == max: libinput refuses it; nothing else may break)
$B --seconds 60 --size 1024x768 --ready-file /tmp/ready-g > "$OUT/touch-g.log" 2>&1 &
P=$!
wait_file /tmp/ready-g
$INJ create-degenerate create-nores waitfor "$OUT/touch-g.log" "$FOUND" 1 tap 300 200 waitfor "$OUT/touch-g.log" 'GESTURE tap x=300.0 y=200.0' 1 \
  destroy waitfor "$OUT/touch-g.log" "$REMOVED" 1 > "$OUT/inject-g.log" 2>&1
echo "inject g: exit $?"
stop $P; echo "exit=$?" >> "$OUT/touch-g.log"

# (e) optional: the Swift test that drives its own uinput touchscreen through the path backend
# (skipped where /dev/uinput is missing, e.g. in a container), when touch-e2e.sh got TB_E2E_TESTS
if [ -x "$OUT/tests.xctest" ]; then
  timeout 120 "$OUT/tests.xctest" --testing-library swift-testing --filter uinputTouchscreenThroughLibinput \
    > "$OUT/swift-uinput-test.log" 2>&1
  echo "exit=$?" >> "$OUT/swift-uinput-test.log"
fi
# (p) portrait-panel-touch (issue 49 item 10): a portrait-native panel mounted on its side, as the
# Raspberry Pi Touch Display 2 (720x1280) in a landscape case: this guest's connector is 720x1280
# with "panel orientation" Right Side Up (video=Virtual-1:panel_orientation=right_side_up). The
# daemon with `rotation = auto` must draw the chart upright in landscape, and a tap on the 720x1280
# touchscreen (its axes are the panel's own, drm_connector.c: touch coordinates map 1:1 to the
# panel) must land where it was made: on the 1Y button. The host judges the captures and the range.
shot() {   # shot NAME: a QMP screendump into $OUT/NAME (the host answers; <= 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
skey() { sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" /tmp/st-p.json 2>/dev/null | head -1; }
# frames_now: the daemon's frame count from its SIGUSR1 statistics line (<= 10 s)
frames_now() {
  n=$(grep -c 'stats: ' "$OUT/portrait.log"); kill -USR1 $P; i=0
  until [ "$(grep -c 'stats: ' "$OUT/portrait.log")" -gt "$n" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
  grep 'stats: ' "$OUT/portrait.log" | tail -1 | sed -n 's/.*frames \([0-9]*\),.*/\1/p'
}
# still NAME: settled (status: not animating, the settled frame is the last one), captured, and the
# same frame count after the capture (<= 10 tries)
still() {
  for try in 1 2 3 4 5 6 7 8 9 10; do
    i=0; until [ "$(skey animating)" = false ] && [ -n "$(skey frames)" ] && [ "$(skey frames)" = "$(skey settled_frame)" ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
    f1=$(frames_now); shot "$1.try$try"; f2=$(frames_now)
    cp "$OUT/$1.try$try" "$OUT/$1" 2>/dev/null
    [ -n "$f1" ] && [ "$f1" = "$f2" ] && { echo "still $1: try $try, frame $f1"; return 0; }
  done
}
if [ -e /dev/dri/card0 ] && [ -f "$OUT/portrait.conf" ]; then
  # (the daemon writes portrait.log through a descriptor of its own, at its own offset: what this
  # script says goes to a file of its own)
  : > "$OUT/portrait-facts.log"
  . "$OUT/portrait-params.sh"
  echo "portrait: $(cat /sys/class/drm/card0-Virtual-1/modes | head -1), $("$OUT/input-check.bin" outputs 2>&1 | grep -o 'panel orientation [A-Za-z ]*')"
  "$OUT/input-check.bin" run --config "$OUT/portrait.conf" --ready-file /tmp/ready-p --status /tmp/st-p.json > "$OUT/portrait.log" 2>&1 &
  P=$!
  i=0; until [ -e /tmp/ready-p ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i + 1)); done
  still portrait-before.ppm
  echo "portrait_before: range=$(skey range) rotation=$(skey rotation) display=$(skey display)" >> "$OUT/portrait-facts.log"
  timeout 120 /usr/bin/python3 "$OUT/touch-inject.py" --size 720x1280 create waitfor "$OUT/portrait.log" "$FOUND" 1 \
    tap "$TAP_PX" "$TAP_PY" sleep 0.3 destroy > "$OUT/inject-p.log" 2>&1
  i=0; until [ "$(skey range)" = 1Y ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
  still portrait-after.ppm
  echo "portrait_after: range=$(skey range) rotation=$(skey rotation)" >> "$OUT/portrait-facts.log"
  stop $P; echo "exit=$?" >> "$OUT/portrait-facts.log"
fi
for f in a b c0 c1 d f g; do echo "----- touch-$f.log (tail)"; tail -n 4 "$OUT/touch-$f.log"; done
