#!/bin/sh
# guest-damage.sh — the in-guest half of display-e2e.sh's damage run (run-vm.sh --gpu virtio on the
# bookworm-backports kernel, whose virtio-gpu plane has FB_DAMAGE_CLIPS). Leaves the log and the
# capture in $OUT.
B="$OUT/tickerboard"
shot() {   # shot NAME: ask the host for a QMP screendump into $OUT/NAME and wait for it (≤ 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
echo "kernel $(uname -r), cards: $(cut -d' ' -f1 /sys/kernel/debug/dri/0/name)"
# 90 flips that damage only the band of the moving block; the last frame stays on screen (idle)
# until it is captured, then SIGTERM gives the screen back.
$B display-check --device /dev/dri/card0 --frames 90 --idle-seconds 600 --done-file /tmp/done-d > $OUT/damage.log 2>&1 &
P=$!
wait_file /tmp/done-d && shot damage.ppm
kill -TERM $P; wait $P; echo "exit=$?" >> $OUT/damage.log
echo "guest done"
