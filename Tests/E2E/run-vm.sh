#!/bin/bash
# run-vm.sh — boots Debian's kernel in qemu (TCG: KVM does not work on this machine kind) with the
# host's root shared read-only over 9p, runs ONE shell command in the guest as root, and powers off.
#
# usage: run-vm.sh [--arch amd64|arm64 [--kernel 16k]] [--gpu bochs|virtio|virtio2|portrait|none] [--vkms] [--render-first] [--systemd] [--mem MiB] [--timeout SEC] --out DIR -- CMD...
#
# In the guest: / is the host root (read-only); /tmp and /run are fresh tmpfs (host /tmp is NOT
# visible, so put binaries in DIR); $OUT=/run/e2e is DIR, read-write. A guest script takes a screen
# capture with `touch $OUT/NAME.shot-request` and waits for $OUT/NAME.done (vmhost.py answers with a
# QMP screendump to DIR/NAME, PPM). stdout+stderr of CMD go to DIR/output.log, printed at the end.
# --systemd: systemd is PID 1 (over a writable overlay of the host root, see guest-init.sh) and CMD runs
# as its oneshot unit tb-e2e.service; `modprobe` finds the guest kernel's modules, vkms included.
# --arch arm64: qemu-system-aarch64 -M virt (TCG) with Debian 13's arm64 kernel, and as the guest's
# root the arm64 Debian 13 tree of setup-arm64.sh instead of the host's (--gpu virtio is
# virtio-gpu-pci there); --systemd works the same.
# --gpu virtio2: virtio-gpu with two heads (max_outputs=2): card0 has Virtual-1 and Virtual-2, a
# head each (the device's id is tbgpu): `touch $OUT/NAME.head1.shot-request` captures head 1 into
# DIR/NAME, `touch $OUT/STEM.heads.shot-request` both heads back to back (see vmhost.py).
# --gpu portrait: virtio-gpu whose one head prefers 720x1280 (a portrait-native panel such as the
# Raspberry Pi Touch Display 2); with TB_VM_APPEND="video=Virtual-1:panel_orientation=right_side_up"
# its connector says how the panel is mounted.
# --render-first: vgem (a render-only card, as a Raspberry Pi's v3d) is loaded first and so is card0,
# the display card after it (a Pi's layout).
# Exit status: CMD's; 124 on timeout; 125 when the VM failed before CMD finished.
# Needs setup.sh first (kernel, initramfs in $TB_VM_CACHE, default /var/cache/tickerboard-vm).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${TB_VM_CACHE:-/var/cache/tickerboard-vm}"
ARCH=amd64
for a in "$@"; do [ "$a" = arm64 ] && [ "${prev:-}" = --arch ] && ARCH=arm64; prev=$a; done
[ "$ARCH" = arm64 ] && CACHE="${TB_VM_ARM64_CACHE:-/var/cache/tickerboard-vm-arm64}"
KVER="$(cat "$CACHE/kver" 2>/dev/null)" || { echo "run-vm: run Tests/E2E/setup$([ "$ARCH" = arm64 ] && echo -arm64).sh first" >&2; exit 125; }
GPU=bochs VKMS=0 RENDER_FIRST=0 INIT=sh MEM=768 TIMEOUT=180 OUT="" KFLAVOUR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) GPU="$2"; shift 2;;
    --vkms) VKMS=1; shift;;
    --arch) shift 2;;
    --kernel) KFLAVOUR="$2"; shift 2;;
    --render-first) RENDER_FIRST=1; shift;;
    --systemd) INIT=systemd; shift;;
    --mem) MEM="$2"; shift 2;;
    --timeout) TIMEOUT="$2"; shift 2;;
    --out) OUT="$2"; shift 2;;
    --) shift; break;;
    *) echo "run-vm: unknown option $1" >&2; exit 125;;
  esac
done
[ -n "$OUT" ] && [ $# -gt 0 ] || { echo "usage: run-vm.sh [options] --out DIR -- CMD..." >&2; exit 125; }
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
rm -f "$OUT"/{output.log,exitcode,console.log,init-error,qmp.sock,t-switch-root} "$OUT"/*.shot-request "$OUT"/*.done

case "$GPU" in
  bochs)  GPUDEV=(-device VGA);        MODS="bochs";;
  virtio) GPUDEV=(-device virtio-vga); [ "$ARCH" = arm64 ] && GPUDEV=(-device virtio-gpu-pci); MODS="virtio-gpu";;
  virtio2) GPUDEV=(-device virtio-vga,max_outputs=2,edid=off,xres=1024,yres=768,id=tbgpu); [ "$ARCH" = arm64 ] && GPUDEV=(-device virtio-gpu-pci,max_outputs=2,edid=off,xres=1024,yres=768,id=tbgpu); MODS="virtio-gpu";;
  portrait) GPUDEV=(-device virtio-vga,xres=720,yres=1280); [ "$ARCH" = arm64 ] && GPUDEV=(-device virtio-gpu-pci,xres=720,yres=1280); MODS="virtio-gpu";;
  none)   GPUDEV=();                   MODS="";;
  *) echo "run-vm: bad --gpu $GPU" >&2; exit 125;;
esac
if [ "$VKMS" = 1 ]; then
  [ -f "$CACHE/vkms/vkms.ko" ] || { echo "run-vm: vkms.ko not built (setup.sh)" >&2; exit 125; }
  MODS="$MODS vkms"
fi
[ "$RENDER_FIRST" = 1 ] && MODS="vgem $MODS"
# arm64: the guest's root has its own /lib/modules (VM_CACHE empty: guest-init.sh keeps it)
VMCACHE="$CACHE"; [ "$ARCH" = arm64 ] && { VMCACHE=""; MODS="$MODS uinput"; }
{ echo "VM_MODULES=\"$MODS\""; echo "VM_INIT=$INIT VM_KVER=$KVER VM_CACHE=\"$VMCACHE\""; } > "$OUT/vm.conf"
# POSIX single quoting (the guest's /bin/sh is dash, which cannot read bash's $'…' from printf %q).
squote() { local s=${1//\'/\'\\\'\'}; printf " '%s'" "$s"; }
{ printf 'cd /tmp &&'; for a in "$@"; do squote "$a"; done; echo; } > "$OUT/cmd"

KERNEL="$CACHE/vmlinux-$KVER" INITRD="$CACHE/initramfs.cpio.gz"   # uncompressed: qemu PVH-boots it, skipping XZ decompression under TCG
QEMU=(qemu-system-x86_64 -nodefaults -no-reboot -display none -accel tcg,thread=multi -cpu max -machine pc -smp 2 -m "$MEM")
CONSOLE=ttyS0 ROOTDIR=/
if [ "$ARCH" = arm64 ]; then
  KERNEL="$CACHE/vmlinuz" INITRD="$CACHE/initramfs.cpio.gz"
  # --kernel 16k: Debian's arm64-16k kernel (16 KiB pages, as the Raspberry Pi 5's), setup-arm64.sh
  if [ "$KFLAVOUR" = 16k ]; then
    KERNEL="$CACHE/16k/vmlinuz" INITRD="$CACHE/16k/initramfs.cpio.gz" KVER="$(cat "$CACHE/16k/kver")"
    sed -i "s/VM_KVER=[^ ]*/VM_KVER=$KVER/" "$OUT/vm.conf"
  fi
  QEMU=(qemu-system-aarch64 -nodefaults -no-reboot -display none -accel tcg,thread=multi -cpu max -machine virt -smp 2 -m "$MEM")
  CONSOLE=ttyAMA0 ROOTDIR="$CACHE/root"
fi
T0=$(date +%s.%N)
# -nodefaults: no NIC (its option ROM costs boot time), no default VGA; -no-reboot: poweroff ends qemu.
timeout -k 5 $((TIMEOUT + 20)) "${QEMU[@]}" \
  -kernel "$KERNEL" -initrd "$INITRD" \
  -append "console=$CONSOLE quiet loglevel=4 panic=-1 vt.global_cursor_default=0 ${TB_VM_APPEND:-}" \
  -serial "file:$OUT/console.log" -qmp "unix:$OUT/qmp.sock,server=on,wait=off" \
  -virtfs local,path="$ROOTDIR",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$OUT,mount_tag=tbout,security_model=none,multidevs=remap" \
  "${GPUDEV[@]}" > "$OUT/qemu.log" 2>&1 &
TPID=$!
stop_vm() {   # only the processes this script started, by PID
  kill -0 "$TPID" 2>/dev/null || return 0
  kill -TERM "$TPID" 2>/dev/null; sleep 1; kill -KILL "$TPID" 2>/dev/null
}
trap stop_vm EXIT
trap 'echo "run-vm: interrupted" >&2; exit 130' INT TERM
QPID=""
for _ in $(seq 100); do
  QPID=$(cat /proc/$TPID/task/$TPID/children 2>/dev/null | cut -d' ' -f1)
  [ -n "$QPID" ] && break; sleep 0.05
done
RC=""
if [ -n "$QPID" ]; then
  python3 "$HERE/vmhost.py" "$OUT" "$QPID" "$(( $(date +%s) + TIMEOUT ))" 2>>"$OUT/vmhost.log"
  [ $? = 124 ] && { echo "run-vm: timeout after ${TIMEOUT}s" >&2; RC=124; }
fi
wait "$TPID" 2>/dev/null
T1=$(date +%s.%N)
[ -s "$OUT/output.log" ] && cat "$OUT/output.log"
if [ -z "$RC" ]; then
  if [ -f "$OUT/exitcode" ]; then RC=$(cat "$OUT/exitcode"); else
    echo "run-vm: no exit code from the guest; console tail:" >&2
    tail -n 20 "$OUT/console.log" >&2; cat "$OUT/qemu.log" "$OUT/init-error" 2>/dev/null >&2
    RC=125
  fi
fi
echo "run-vm: wall $(awk "BEGIN{printf \"%.1f\", $T1 - $T0}") s, exit $RC, out $OUT" >&2
exit "$RC"
