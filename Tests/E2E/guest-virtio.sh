#!/bin/sh
# guest-virtio.sh [damage] — the in-guest half of display-e2e.sh's virtio-gpu runs (run-vm.sh --gpu
# virtio: card0 = virtio-gpu, QMP screendumps); `damage`: the run on the bookworm-backports kernel
# only. Leaves logs and captures in $OUT; the host judges them.
B="$OUT/tickerboard"
shot() {   # shot NAME: ask the host for a QMP screendump into $OUT/NAME and wait for it (≤ 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
echo "kernel $(uname -r), cards: $(cut -d' ' -f1 /sys/kernel/debug/dri/0/name)"
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
echo "guest done"
