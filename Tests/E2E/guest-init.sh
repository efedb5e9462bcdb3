#!/bin/sh
# guest-init.sh — /init of the test initramfs (busybox sh, PID 1).
# Mounts the run's output dir (9p tag "tbout") and reads its vm.conf, loads the display modules it
# names, mounts the host's root read-only (9p tag "hostroot") with fresh tmpfs on /tmp and /run, and
# switch_roots into it (not chroot: tools that detect a chroot refuse to work). The host's /bin/sh
# then runs $OUT/cmd with output to $OUT/output.log, writes $OUT/exitcode and powers off; qemu runs
# with -no-reboot, so that ends the VM. Any failure powers off too, and the host sees no exitcode.
# VM_INIT=systemd in vm.conf (run-vm.sh --systemd): the root is an overlay over the read-only host
# root (upper layer on a tmpfs: /etc, /var and /usr are writable, for dpkg -i, and gone at poweroff),
# with a machine id and the guest kernel's module tree as /lib/modules/KVER; systemd is PID 1 and
# boots straight to tb-e2e.service, a oneshot that runs $OUT/cmd the same way and powers off.
export PATH=/bin
say() { echo "tb-init: $*" > /dev/console; }
die() { say "FATAL: $*"; echo "$*" > /out/init-error 2>/dev/null; sync; poweroff -f; sleep 5; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
modprobe virtio_pci 2>/dev/null   # (built in on arm64)
modprobe -a 9pnet_virtio 9p || die "modprobe 9p"
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 tbout /out || die "mount tbout"
. /out/vm.conf
[ -n "$VM_MODULES" ] && { modprobe -a $VM_MODULES || say "modprobe $VM_MODULES failed"; }
R=/newroot
if [ "${VM_INIT:-sh}" = systemd ]; then
  modprobe overlay || die "modprobe overlay"
  mkdir -p /lower /rw
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose hostroot /lower || die "mount hostroot"
  mount -t tmpfs -o mode=755 tmpfs /rw && mkdir -p /rw/upper /rw/work
  mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay $R || die "mount overlay"
else
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose hostroot $R || die "mount hostroot"
fi
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
if [ "${VM_INIT:-sh}" = systemd ]; then
  echo 7b6f1d2a9c3e4f5081a2b3c4d5e6f708 > $R/etc/machine-id
  # (the host may have a /lib/modules/KVER of its own, from linux-headers: only a build link)
  # (an arm64 guest's root is Debian's own, modules included: VM_CACHE is empty then)
  [ -z "$VM_CACHE" ] || { mkdir -p $R/lib/modules && rm -rf "$R/lib/modules/$VM_KVER" && ln -s "$VM_CACHE/modtree/lib/modules/$VM_KVER" "$R/lib/modules/$VM_KVER"; }
  U=$R/etc/systemd/system
  # Units of the host's own setup that have no business in a test guest (and cost boot time).
  for u in systemd-timesyncd.service systemd-pstore.service postgresql.service e2scrub_reap.service \
           apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer man-db.timer; do
    rm -f "$U/$u"; ln -s /dev/null "$U/$u"
  done
  cat > $U/tb-e2e.service <<'UNIT'
[Unit]
Description=Tickerboard end-to-end command (run-vm.sh --systemd)
Wants=systemd-udevd.service systemd-udev-trigger.service systemd-journald.service
After=systemd-udevd.service systemd-udev-trigger.service systemd-journald.service

[Service]
Type=oneshot
TimeoutStartSec=infinity
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 OUT=/run/e2e
WorkingDirectory=/tmp
ExecStart=/bin/sh -c '/bin/sh /run/e2e/cmd > /run/e2e/output.log 2>&1 < /dev/null; echo $$? > /run/e2e/exitcode; sync'
ExecStopPost=/bin/systemctl poweroff --force --force
UNIT
  exec switch_root $R /lib/systemd/systemd --unit=tb-e2e.service
  die "switch_root to systemd failed"
fi
exec switch_root $R /bin/sh -c '
  export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 OUT=/run/e2e
  cd /tmp; /bin/sh /run/e2e/cmd > /run/e2e/output.log 2>&1 < /dev/null
  echo $? > /run/e2e/exitcode; sync; umount /run/e2e; /bin/busybox poweroff -f; sleep 10'
die "switch_root failed"
