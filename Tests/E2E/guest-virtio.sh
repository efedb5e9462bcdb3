#!/bin/sh
# guest-virtio.sh — the in-guest half of display-e2e.sh's virtio-gpu runs (run-vm.sh --gpu virtio:
# card0 = virtio-gpu, QMP screendumps). Leaves logs and captures in $OUT; the host judges them.
B="$OUT/tickerboard"
shot() {   # shot NAME: ask the host for a QMP screendump into $OUT/NAME and wait for it (≤ 10 s)
  : > "$OUT/$1.shot-request"; i=0
  while [ ! -e "$OUT/$1.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; [ -e "$1" ]; }
echo "cards: $(cut -d' ' -f1 /sys/kernel/debug/dri/0/name)"
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
