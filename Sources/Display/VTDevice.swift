import CLinux
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

// The unsafe half of the console's terminal: the VT and KD ioctls, each with a typed error.
// VirtualTerminal and FBDevDisplay decide; this only asks the kernel.

/// An open VT (`/dev/ttyN`, `/dev/tty0`) descriptor's ioctls. Does not own the descriptor.
struct VTDevice {
    let fd: CInt

    /// VT_GETMODE: how switching away from this VT is handled now.
    func mode() throws(Errno) -> vt_mode {
        var mode = vt_mode()
        _ = try retryingOnInterrupt { ioctl(fd, UInt(VT_GETMODE), &mode) }
        return mode
    }

    /// VT_SETMODE.
    func setMode(_ mode: vt_mode) throws(Errno) {
        var m = mode
        _ = try retryingOnInterrupt { ioctl(fd, UInt(VT_SETMODE), &m) }
    }

    /// VT_RELDISP with 1: allows a pending switch away (VT_PROCESS mode).
    func allowRelease() throws(Errno) {
        _ = try retryingOnInterrupt { ioctl(fd, UInt(VT_RELDISP), CInt(1)) }
    }

    /// VT_RELDISP with VT_ACKACQ: acknowledges that the VT is ours again.
    func acknowledgeAcquire() throws(Errno) {
        _ = try retryingOnInterrupt { ioctl(fd, UInt(VT_RELDISP), CInt(VT_ACKACQ)) }
    }

    /// KDGETMODE: KD_TEXT or KD_GRAPHICS.
    func displayMode() throws(Errno) -> CInt {
        var mode: CInt = 0
        _ = try retryingOnInterrupt { ioctl(fd, UInt(KDGETMODE), &mode) }
        return mode
    }

    /// KDSETMODE (the argument is a value, not a pointer): KD_GRAPHICS stops fbcon drawing.
    func setDisplayMode(_ mode: CInt) throws(Errno) {
        _ = try retryingOnInterrupt { ioctl(fd, UInt(KDSETMODE), mode) }
    }
}
