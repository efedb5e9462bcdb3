#!/bin/bash
# setup.sh — prepares the qemu end-to-end harness (idempotent; a second run does nothing).
#   1. apt installs of Tests/E2E/apt-packages.txt (only the missing ones)
#   2. Debian's current kernel, downloaded (not installed: installing it would pull an init system
#      and run update-initramfs on the host), unpacked, depmod'ed, and its vmlinux extracted so qemu
#      can PVH-boot it without the slow in-guest XZ decompression under TCG
#   3. vkms.ko built out of tree (Debian's kernel lacks CONFIG_DRM_VKMS); TB_VM_VKMS=0 skips it
#   4. a busybox initramfs with the handful of modules the tests need (guest-init.sh as /init)
#   5. the guest's module tree (hard links into the unpacked kernel, plus vkms.ko, depmod'ed): a
#      systemd guest (run-vm.sh --systemd) sees it as /lib/modules/KVER, so `modprobe vkms` and udev's
#      module autoloading work there as on an installed system
# Cache: $TB_VM_CACHE (default /var/cache/tickerboard-vm). It must not live under /tmp, /run or
# /var/tmp: the guest mounts fresh tmpfs there.
# TB_VM_KERNEL=backports: the newest kernel of bookworm-backports instead (apt lists of its own in
# the cache; the host's sources are not touched), for the drivers' newer features (virtio-gpu's
# FB_DAMAGE_CLIPS since 6.4, vkms' plane rotation since 6.5). Use a cache of its own for it
# (display-e2e.sh does).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/module-deps.sh"
CACHE="${TB_VM_CACHE:-/var/cache/tickerboard-vm}"
mkdir -p "$CACHE"
log() { echo "setup: $*" >&2; }
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"; }

missing=""
while read -r p; do
  [ -n "$p" ] && [ "${p#\#}" = "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done < "$HERE/apt-packages.txt"
UPDATED=0
if [ -n "$missing" ]; then
  log "installing:$missing"
  apt_get update -qq >/dev/null; UPDATED=1
  # shellcheck disable=SC2086
  apt_get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- kernel: the ABI name changes with every point release, so resolve it through the meta package.
APTK=()
if [ "${TB_VM_KERNEL:-}" = backports ]; then
  mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main" > "$CACHE/apt/sources.list"
  APTK=(-o Dir::Etc::sourcelist="$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
        -o Dir::State::Lists="$CACHE/apt/lists" -o Dir::Cache="$CACHE/apt/cache")
  kpkg() { apt-cache "${APTK[@]}" pkgnames linux-image- 2>/dev/null | grep -E '^linux-image-[0-9.]+\+deb12-amd64$' | sort -V | tail -1; }
  [ -f "$CACHE/kernel/boot/vmlinuz-$(cat "$CACHE/kver" 2>/dev/null)" ] || apt-get "${APTK[@]}" update -qq >/dev/null 2>&1 || true
else
  kpkg() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
fi
KPKG="$(kpkg)"
if [ -z "$KPKG" ] && [ "$UPDATED" = 0 ] && [ ${#APTK[@]} = 0 ]; then apt_get update -qq >/dev/null; UPDATED=1; KPKG="$(kpkg)"; fi
[ -n "$KPKG" ] || { log "cannot resolve a kernel package (linux-image-amd64${TB_VM_KERNEL:+, $TB_VM_KERNEL})"; exit 1; }
KVER="${KPKG#linux-image-}"
if [ ! -f "$CACHE/kernel/boot/vmlinuz-$KVER" ]; then
  log "downloading $KPKG"
  rm -rf "$CACHE/dl" "$CACHE/kernel.new"; mkdir -p "$CACHE/dl"
  (cd "$CACHE/dl" && apt-get "${APTK[@]}" download "$KPKG" >/dev/null 2>&1)
  dpkg-deb -x "$CACHE"/dl/"$KPKG"_*.deb "$CACHE/kernel.new"
  dpkg-deb -f "$CACHE"/dl/"$KPKG"_*.deb Version > "$CACHE/kdebver"
  depmod -b "$CACHE/kernel.new" "$KVER"          # the .deb ships no modules.dep
  rm -rf "$CACHE/kernel" "$CACHE/dl"; mv "$CACHE/kernel.new" "$CACHE/kernel"
fi
echo "$KVER" > "$CACHE/kver"
if [ ! -f "$CACHE/vmlinux-$KVER" ]; then
  python3 - "$CACHE/kernel/boot/vmlinuz-$KVER" "$CACHE/vmlinux-$KVER.tmp" <<'PY'
import lzma, subprocess, sys
blob = open(sys.argv[1], "rb").read()
start = blob.find(b"\xfd7zXZ\x00")              # Debian's 6.1 builds with CONFIG_KERNEL_XZ
if start >= 0:
    elf = lzma.LZMADecompressor().decompress(blob[start:])
else:                                           # 6.12 (backports) with CONFIG_KERNEL_ZSTD
    start = blob.find(b"\x28\xb5\x2f\xfd")
    # zstd complains of the bytes after the frame; the frame itself decompresses whole
    elf = subprocess.run(["zstd", "-dcq"], input=blob[start:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
assert elf[:4] == b"\x7fELF", "bzImage payload is not an ELF vmlinux"
open(sys.argv[2], "wb").write(elf)
PY
  mv "$CACHE/vmlinux-$KVER.tmp" "$CACHE/vmlinux-$KVER"
fi

# --- vkms: the only driver here with a real (hrtimer) vblank. Built from the same Debian version.
if [ "${TB_VM_VKMS:-1}" = 1 ] && ! { [ -f "$CACHE/vkms/vkms.ko" ] && modinfo -F vermagic "$CACHE/vkms/vkms.ko" | grep -q "^$KVER "; }; then
  log "building vkms.ko"
  DEBVER="$(cat "$CACHE/kdebver")"
  W="$(mktemp -d)"
  if [ ${#APTK[@]} -gt 0 ]; then
    # backports: its headers and kbuild tools are unpacked here, never installed on the host; no
    # module BTF (the host has no pahole, and vkms needs none)
    SRCPKG="linux-source-$(echo "$KVER" | cut -d. -f1,2)" KBASE="${KVER%-amd64}"
    (cd "$W" && apt-get "${APTK[@]}" download "$SRCPKG=$DEBVER" "linux-headers-$KVER=$DEBVER" \
      "linux-headers-$KBASE-common=$DEBVER" "linux-kbuild-$KBASE=$DEBVER" >/dev/null 2>&1)
    for d in "$W"/linux-headers-*.deb "$W"/linux-kbuild-*.deb; do dpkg-deb -x "$d" "$W/root"; done
    KHDR="$W/root/usr/src/linux-headers-$KVER"
    sed -i "s|^include /usr/src/|include $W/root/usr/src/|" "$KHDR/Makefile"
    KMAKE=(CONFIG_DEBUG_INFO_BTF_MODULES=)
  else
    SRCPKG="linux-source-${KVER%%.0-*}" KHDR="/usr/src/linux-headers-$KVER" KMAKE=()
    dpkg-query -W -f='${Status}' "linux-headers-$KVER" 2>/dev/null | grep -q "install ok installed" \
      || apt_get install -y -qq --no-install-recommends "linux-headers-$KVER" >/dev/null
    (cd "$W" && apt-get download "$SRCPKG=$DEBVER" >/dev/null 2>&1)
  fi
  dpkg-deb --fsys-tarfile "$W"/"$SRCPKG"_*.deb | tar -xO "./usr/src/$SRCPKG.tar.xz" \
    | xz -dc -T2 | tar -x -C "$W" "$SRCPKG/drivers/gpu/drm/vkms"
  make -s -C "$KHDR" M="$W/$SRCPKG/drivers/gpu/drm/vkms" CONFIG_DRM_VKMS=m "${KMAKE[@]}" modules
  mkdir -p "$CACHE/vkms"; cp "$W/$SRCPKG/drivers/gpu/drm/vkms/vkms.ko" "$CACHE/vkms/vkms.ko"
  rm -rf "$W"
  rm -f "$CACHE/initramfs.stamp"
fi

# --- initramfs: busybox + /init + only the modules we load (and their dependencies).
STAMP="$(cat "$HERE/guest-init.sh" "$HERE/module-deps.sh" "$HERE/setup.sh" | md5sum | cut -c1-16)-$KVER-$([ -f "$CACHE/vkms/vkms.ko" ] && echo vkms || true)"
if [ ! -f "$CACHE/initramfs.cpio.gz" ] || [ "$(cat "$CACHE/initramfs.stamp" 2>/dev/null)" != "$STAMP" ]; then
  KDIR="$CACHE/kernel/lib/modules/$KVER"
  STAGE="$(mktemp -d)"
  mkdir -p "$STAGE"/{bin,dev,proc,sys,newroot,lib/modules/"$KVER"}
  cp /bin/busybox "$STAGE/bin/busybox"
  # `busybox --list` includes busybox itself; linking it over the binary makes /init fail with ELOOP.
  for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$STAGE/bin/$a"; done
  install -m 755 "$HERE/guest-init.sh" "$STAGE/init"
  # overlay: a systemd guest's root is an overlay over the read-only 9p root (run-vm.sh --systemd)
  # vgem: the render-only card of run-vm.sh --render-first (a Raspberry Pi's layout)
  for p in $(module_files "$KDIR" 9p 9pnet_virtio virtio_pci bochs virtio-gpu vgem overlay); do
    mkdir -p "$STAGE/lib/modules/$KVER/$(dirname "$p")"; cp "$KDIR/$p" "$STAGE/lib/modules/$KVER/$p"
  done
  if [ -f "$CACHE/vkms/vkms.ko" ]; then
    mkdir -p "$STAGE/lib/modules/$KVER/extra"; cp "$CACHE/vkms/vkms.ko" "$STAGE/lib/modules/$KVER/extra/"
  fi
  cp "$KDIR"/modules.builtin "$KDIR"/modules.builtin.modinfo "$KDIR"/modules.order "$STAGE/lib/modules/$KVER/"
  depmod -b "$STAGE" "$KVER"
  (cd "$STAGE" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 > "$CACHE/initramfs.cpio.gz.new"
  rm -rf "$STAGE"
  mv "$CACHE/initramfs.cpio.gz.new" "$CACHE/initramfs.cpio.gz"
  echo "$STAMP" > "$CACHE/initramfs.stamp"
fi
# --- the guest's /lib/modules/KVER (systemd guests): hard links, so it costs no space
MODTREE="$CACHE/modtree/lib/modules/$KVER"
MSTAMP="$KVER-$([ -f "$CACHE/vkms/vkms.ko" ] && md5sum < "$CACHE/vkms/vkms.ko" | cut -c1-16 || true)"
if [ "$(cat "$CACHE/modtree.stamp" 2>/dev/null)" != "$MSTAMP" ]; then
  rm -rf "$CACHE/modtree"; mkdir -p "$(dirname "$MODTREE")"
  cp -al "$CACHE/kernel/lib/modules/$KVER" "$MODTREE"
  # depmod's outputs are links into the kernel tree too: unlink them before it writes its own
  for f in dep dep.bin alias alias.bin softdep symbols symbols.bin builtin.bin builtin.alias.bin devname; do rm -f "$MODTREE/modules.$f"; done
  if [ -f "$CACHE/vkms/vkms.ko" ]; then mkdir -p "$MODTREE/extra"; cp "$CACHE/vkms/vkms.ko" "$MODTREE/extra/"; fi
  depmod -b "$CACHE/modtree" "$KVER"
  echo "$MSTAMP" > "$CACHE/modtree.stamp"
fi
log "ok: kernel $KVER, vkms $([ -f "$CACHE/vkms/vkms.ko" ] && echo yes || echo no), cache $CACHE"
