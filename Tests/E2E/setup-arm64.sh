#!/bin/bash
# setup-arm64.sh — prepares the arm64 guest of run-vm.sh --arch arm64 (idempotent; a second run does
# nothing): a Raspberry Pi OS-like Debian 13 arm64 root with systemd, the runtime libraries of the
# arm64 package (libswiftlang, libdrm, libinput, …), python3-libevdev for the touch injector and
# Debian's arm64 kernel, made with mmdebstrap (its maintainer scripts run under qemu-user through
# binfmt_misc, registered here), then a busybox initramfs with guest-init.sh as /init and the few
# modules it loads (decompressed: busybox's modprobe reads no .ko.xz). The guest mounts the root
# read-only over 9p under a tmpfs overlay, as the x86-64 systemd guest does with the host's root.
# Cache: $TB_VM_ARM64_CACHE (default /var/cache/tickerboard-vm-arm64): root/, vmlinuz, initramfs,
# kver; 16k/ the same kernel built for 16 KiB pages (vmlinuz, initramfs, kver, tree/: its modules). Measured here: the root about 6 min and 900 MB the first time, the initramfs seconds.
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
# make_initramfs KDIR KVER DEST: DEST/initramfs.cpio.gz from the root's busybox and KDIR's modules
make_initramfs() {
  local KDIR=$1 KVER=$2 DEST=$3 STAMP STAGE p d
  STAMP="$(cat "$HERE/guest-init.sh" "$HERE/module-deps.sh" "$HERE/setup-arm64.sh" | md5sum | cut -c1-16)-$KVER"
  [ -f "$DEST/initramfs.cpio.gz" ] && [ "$(cat "$DEST/initramfs.stamp" 2>/dev/null)" = "$STAMP" ] && return 0
  [ -f "$KDIR/modules.dep" ] || depmod -b "${KDIR%/lib/modules/$KVER}" "$KVER"
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
  (cd "$STAGE" && find . | cpio -o -H newc 2>/dev/null) | gzip -1 > "$DEST/initramfs.cpio.gz.new"
  rm -rf "$STAGE"
  mv "$DEST/initramfs.cpio.gz.new" "$DEST/initramfs.cpio.gz"
  echo "$STAMP" > "$DEST/initramfs.stamp"
}
KDIR="$R/lib/modules/$KVER"
[ -f "$KDIR/modules.dep" ] || depmod -b "$R/usr" "$KVER" 2>/dev/null || depmod -b "$R" "$KVER"
make_initramfs "$KDIR" "$KVER" "$CACHE"

# --- the same kernel with 16 KiB pages (Debian's arm64-16k flavour; the Raspberry Pi 5's kernel uses
# 16 KiB pages): in $CACHE/16k, for run-vm.sh --arch arm64 --kernel 16k. Downloaded with the host's apt
# against the root's sources (no change to the root), unpacked, its own modules in its initramfs.
K16="$CACHE/16k"
if [ ! -f "$K16/vmlinuz" ]; then
  log "fetching Debian's arm64-16k kernel"
  W="$(mktemp -d)"; mkdir -p "$W/lists/partial" "$W/cache/archives/partial"
  APT=(-o Dir::Etc::SourceList="$R/etc/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$W/lists"
       -o Dir::Cache="$W/cache" -o Dir::State::status="$R/var/lib/dpkg/status" -o APT::Architecture=arm64
       -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o Acquire::Languages=none)
  apt-get "${APT[@]}" update -qq >&2
  IMG=$(apt-cache "${APT[@]}" depends linux-image-arm64-16k | sed -n 's/^ *Depends: \(linux-image-[^ ]*-arm64-16k\)$/\1/p' | head -1)
  [ -n "$IMG" ] || { log "no linux-image-arm64-16k in $(cat "$R/etc/apt/sources.list" | head -1)"; exit 1; }
  (cd "$W" && apt-get "${APT[@]}" download "$IMG" >&2)
  rm -rf "$K16.new"; mkdir -p "$K16.new/tree"
  dpkg-deb -x "$W"/linux-image-*.deb "$K16.new/tree"
  K16VER=$(ls "$K16.new/tree/lib/modules" 2>/dev/null || ls "$K16.new/tree/usr/lib/modules")
  [ -d "$K16.new/tree/lib/modules/$K16VER" ] || { mkdir -p "$K16.new/tree/lib"; ln -s ../usr/lib/modules "$K16.new/tree/lib/modules"; }
  cp "$K16.new/tree/boot/vmlinuz-$K16VER" "$K16.new/vmlinuz"
  echo "$K16VER" > "$K16.new/kver"
  rm -rf "$W" "$K16"; mv "$K16.new" "$K16"
fi
make_initramfs "$K16/tree/lib/modules/$(cat "$K16/kver")" "$(cat "$K16/kver")" "$K16"

log "ok: arm64 kernel $KVER, root $R, cache $CACHE"
