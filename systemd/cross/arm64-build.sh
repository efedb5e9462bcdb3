#!/usr/bin/env bash
# Cross-builds tickerboard and tickerboard-fetch for arm64 (a Raspberry Pi 3/4/5 on Raspberry Pi OS
# or Debian 13) on this x86-64 machine with Debian 13's own Swift (swiftlang 6.0.3; swift.org has no
# aarch64 toolchain that can be fetched here, and Debian's has no static stdlib, so the binaries
# need the libswiftlang package at run time).
#
# usage: systemd/cross/arm64-build.sh [--out DIR]
#   Prints the directory that holds both aarch64 executables (default: the cache's build dir).
#
# Two trees in the cache, made once with mmdebstrap and kept (a stamp names the package lists):
#   build-tree/  Debian 13 amd64 with swiftlang and the -dev packages: the compiler runs here (chroot)
#   sysroot/     Debian 13 arm64, extracted: the headers, .pc files and libraries to link against;
#                its .debs stay in sysroot/var/cache/apt/archives (build-deb.sh reads Depends there)
#   scratch/     SwiftPM's build directory, kept between runs (incremental builds)
# Cache: $TB_CROSS_CACHE (default /var/cache/tickerboard-cross). Needs root (chroot, bind mounts).
# Measured on this 2-core machine: the trees 50 s + 80 s and 5.2 GB the first time; a full build of
# both executables about 3 min, an incremental one seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TB_CROSS_CACHE:-/var/cache/tickerboard-cross}
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "arm64-build.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
say() { echo "arm64-build: $*" >&2; }
die() { echo "arm64-build: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot and bind mounts)"
for p in mmdebstrap qemu-user-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    say "installing $p"
    apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null
done

devs=libdrm-dev,libinput-dev,libudev-dev,libfreetype-dev,libpng-dev,zlib1g-dev,libcurl4-openssl-dev
build_pkgs="swiftlang,pkg-config,$devs"
sysroot_pkgs="swiftlang,libswiftlang,libc6-dev,libgcc-14-dev,libstdc++-14-dev,$devs"
mkdir -p "$cache"
exec 9> "$cache/lock"
flock 9   # one cross build at a time on this machine
tree() {   # tree NAME STAMP MMDEBSTRAP-ARGS...: (re)makes $cache/NAME unless its stamp matches
    local name=$1 stamp=$2; shift 2
    [ -d "$cache/$name" ] && [ "$(cat "$cache/$name.stamp" 2>/dev/null)" = "$stamp" ] && return 0
    say "making $name (mmdebstrap $*)"
    rm -rf "$cache/$name" "$cache/$name.new"
    local t0; t0=$(date +%s)
    mmdebstrap --quiet "$@" trixie "$cache/$name.new" >&2 || die "mmdebstrap $name failed"
    mv "$cache/$name.new" "$cache/$name"
    echo "$stamp" > "$cache/$name.stamp"
    say "$name: $(( $(date +%s) - t0 )) s, $(du -sh "$cache/$name" | cut -f1)"
}
tree build-tree "$build_pkgs" --variant=apt --include="$build_pkgs"
tree sysroot "$sysroot_pkgs" --arch=arm64 --variant=extract --skip=cleanup/apt/cache --include="$sysroot_pkgs"
# --variant=extract leaves out the merged-/usr links that libm.so's linker script reaches through
for l in lib bin sbin; do [ -e "$cache/sysroot/$l" ] || ln -s "usr/$l" "$cache/sysroot/$l"; done

bt="$cache/build-tree"
mkdir -p "$cache/scratch" "$bt/src" "$bt/sysroot" "$bt/scratch" "$bt/proc" "$bt/dev"
mounted=()
cleanup() { local i; for (( i=${#mounted[@]}-1; i>=0; i-- )); do umount -l "${mounted[$i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
bind() { mount --bind "$1" "$2"; mounted+=("$2"); }
mount -t proc proc "$bt/proc"; mounted+=("$bt/proc")
bind /dev "$bt/dev"
bind "$root" "$bt/src"
bind "$cache/sysroot" "$bt/sysroot"
bind "$cache/scratch" "$bt/scratch"

# SwiftPM reads .pc files itself: PKG_CONFIG_PATH must name the arm64 ones (else it finds the build
# tree's amd64 ones and links x86 libraries). -sdk reaches the Swift frontend (SwiftPM's --sdk alone
# gives the C side only, and Glibc's module map then points at the build tree's headers).
# -no-toolchain-stdlib-rpath and the rpath: the runtime where libswiftlang installs it on the Pi,
# not the sysroot's path on this machine.
pc=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig
t0=$(date +%s)
chroot "$bt" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
    PKG_CONFIG_SYSROOT_DIR=/sysroot PKG_CONFIG_PATH=$pc PKG_CONFIG_LIBDIR=$pc \
    sh -c 'cd /src && swift build -c release --scratch-path /scratch \
        --triple aarch64-unknown-linux-gnu --sdk /sysroot \
        -Xswiftc -sdk -Xswiftc /sysroot -Xswiftc -resource-dir -Xswiftc /sysroot/usr/lib/swift \
        -Xswiftc -use-ld=lld -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath=/usr/lib/swift/linux' >&2 \
    || die "swift build for aarch64 failed"
bin="$cache/scratch/aarch64-unknown-linux-gnu/release"
for x in tickerboard tickerboard-fetch; do
    file -b "$bin/$x" | grep -q 'ARM aarch64' || die "$bin/$x is not an aarch64 executable: $(file -b "$bin/$x")"
done
say "built in $(( $(date +%s) - t0 )) s: $bin"
if [ -n "$out" ]; then
    mkdir -p "$out"; cp "$bin/tickerboard" "$bin/tickerboard-fetch" "$out/"; bin=$(cd "$out" && pwd)
fi
echo "$bin"
