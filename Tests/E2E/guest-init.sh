#!/bin/sh
# guest-init.sh — /init of the test initramfs (busybox sh, PID 1).
# Mounts the run's output dir (9p tag "tbout") and reads its vm.conf, loads the display modules it
# names, mounts the host's root read-only (9p tag "hostroot") with fresh tmpfs on /tmp and /run, and
# switch_roots into it (not chroot: tools that detect a chroot refuse to work). The host's /bin/sh
# then runs $OUT/cmd with output to $OUT/output.log, writes $OUT/exitcode and powers off; qemu runs
# with -no-reboot, so that ends the VM. Any failure powers off too, and the host sees no exitcode.
export PATH=/bin
say() { echo "tb-init: $*" > /dev/console; }
die() { say "FATAL: $*"; echo "$*" > /out/init-error 2>/dev/null; sync; poweroff -f; sleep 5; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
modprobe -a virtio_pci 9pnet_virtio 9p || die "modprobe 9p"
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 tbout /out || die "mount tbout"
. /out/vm.conf
[ -n "$VM_MODULES" ] && { modprobe -a $VM_MODULES || say "modprobe $VM_MODULES failed"; }
R=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose hostroot $R || die "mount hostroot"
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t devtmpfs devtmpfs $R/dev
mount -t devpts devpts $R/dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mount -t tmpfs -o mode=755 tmpfs $R/run
mkdir -p $R/run/e2e
mount --move /out $R/run/e2e || die "move out"
cut -d' ' -f1 /proc/uptime > $R/run/e2e/t-switch-root
exec switch_root $R /bin/sh -c '
  export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 OUT=/run/e2e
  cd /tmp; /bin/sh /run/e2e/cmd > /run/e2e/output.log 2>&1 < /dev/null
  echo $? > /run/e2e/exitcode; sync; umount /run/e2e; /bin/busybox poweroff -f; sleep 10'
die "switch_root failed"
