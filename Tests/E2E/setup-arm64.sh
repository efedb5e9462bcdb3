#!/bin/bash
# setup-arm64.sh — prepares the arm64 guest of run-vm.sh --arch arm64 (idempotent; a second run does
# nothing): a Raspberry Pi OS-like Debian 13 arm64 root with systemd, the runtime libraries of the
# arm64 package (libswiftlang, libdrm, libinput, …), python3-libevdev for the touch injector and
# Debian's arm64 kernel, made with mmdebstrap (its maintainer scripts run under qemu-user through
# binfmt_misc, registered here), then a busybox initramfs with guest-init.sh as /init and the few
# modules it loads (decompressed: busybox's modprobe reads no .ko.xz). The guest mounts the root
# read-only over 9p under a tmpfs overlay, as the x86-64 systemd guest does with the host's root.
# Cache: $TB_VM_ARM64_CACHE (default /var/cache/tickerboard-vm-arm64): root/, vmlinuz, initramfs,
# kver. Measured here: the root about 6 min and 900 MB the first time, the initramfs seconds.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/module-deps.sh"
CACHE="${TB_VM_ARM64_CACHE:-/var/cache/tickerboard-vm-arm64}"
mkdir -p "$CACHE"
log() { echo "setup-arm64: $*" >&2; }
need=()
# arch-test: mmdebstrap refuses a foreign --arch without it ("E: install arch-test for foreign
# architecture support"); it is only a Recommends of mmdebstrap, and we install without those.
for p in qemu-system-arm qemu-user-static binfmt-support mmdebstrap arch-test cpio xz-utils kmod; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing: ${need[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# mmdebstrap runs the arm64 maintainer scripts through binfmt_misc and qemu-user.
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64

PKGS="systemd,systemd-sysv,udev,kmod,procps,busybox-static,curl,man-db,python3,python3-libevdev,fonts-dejavu-core,tzdata"
PKGS="$PKGS,libswiftlang,libcurl4t64,libdrm2,libfreetype6,libinput10,libpng16-16t64,libudev1,libmosquitto1,linux-image-arm64"
if [ ! -d "$CACHE/root" ] || [ "$(cat "$CACHE/root.stamp" 2>/dev/null)" != "$PKGS" ]; then
  log "making the arm64 root (mmdebstrap trixie: $PKGS)"
  rm -rf "$CACHE/root" "$CACHE/root.new"; T0=$(date +%s)
  mmdebstrap --quiet --arch=arm64 --variant=apt --include="$PKGS" trixie "$CACHE/root.new" >&2
  mv "$CACHE/root.new" "$CACHE/root"; echo "$PKGS" > "$CACHE/root.stamp"
  log "root: $(( $(date +%s) - T0 )) s, $(du -sh "$CACHE/root" | cut -f1)"
fi
R="$CACHE/root"
KVER=$(ls "$R/lib/modules" | sort -V | tail -1)
[ -n "$KVER" ] && [ -f "$R/boot/vmlinuz-$KVER" ] || { log "no kernel in $R"; exit 1; }
echo "$KVER" > "$CACHE/kver"
cp -f "$R/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"

# --- initramfs: arm64 busybox, /init, and the modules guest-init.sh and the tests load
STAMP="$(cat "$HERE/guest-init.sh" "$HERE/module-deps.sh" "$HERE/setup-arm64.sh" | md5sum | cut -c1-16)-$KVER"
if [ ! -f "$CACHE/initramfs.cpio.gz" ] || [ "$(cat "$CACHE/initramfs.stamp" 2>/dev/null)" != "$STAMP" ]; then
  KDIR="$R/lib/modules/$KVER"
  [ -f "$KDIR/modules.dep" ] || depmod -b "$R/usr" "$KVER" 2>/dev/null || depmod -b "$R" "$KVER"
  STAGE="$(mktemp -d)"
  mkdir -p "$STAGE"/{bin,dev,proc,sys,newroot,lib/modules/"$KVER"}
  cp "$R/usr/bin/busybox" "$STAGE/bin/busybox"
  for a in $(qemu-aarch64-static "$STAGE/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$STAGE/bin/$a"; done
  install -m 755 "$HERE/guest-init.sh" "$STAGE/init"
  for p in $(module_files "$KDIR" 9p 9pnet_virtio overlay virtio-gpu vgem uinput); do
    d="$STAGE/lib/modules/$KVER/$(dirname "$p")"; mkdir -p "$d"
    case "$p" in
      *.xz) xz -dc "$KDIR/$p" > "$d/$(basename "${p%.xz}")";;
      *.zst) zstd -qdc "$KDIR/$p" > "$d/$(basename "${p%.zst}")";;
      *) cp "$KDIR/$p" "$d/";;
    esac
  done
  cp "$KDIR"/modules.builtin "$KDIR"/modules.builtin.modinfo "$KDIR"/modules.order "$STAGE/lib/modules/$KVER/" 2>/dev/null || true
  depmod -b "$STAGE" "$KVER"
  (cd "$STAGE" && find . | cpio -o -H newc 2>/dev/null) | gzip -1 > "$CACHE/initramfs.cpio.gz.new"
  rm -rf "$STAGE"
  mv "$CACHE/initramfs.cpio.gz.new" "$CACHE/initramfs.cpio.gz"
  echo "$STAMP" > "$CACHE/initramfs.stamp"
fi
log "ok: arm64 kernel $KVER, root $R, cache $CACHE"
