import CLinux
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

// The unsafe half of the fbdev backend: the framebuffer ioctls, each with a typed error
// (they all return -1 and set errno). FBDevDisplay decides; this only asks the driver.

/// An open `/dev/fbN` descriptor's ioctls. Does not own the descriptor.
struct FBDevice {
    let fd: CInt

    // Function-like _IOW macros are not imported into Swift: _IOW('F', 0x20, __u32).
    private static let waitForVSyncRequest: UInt = 0x4004_4620

    private func call(_ request: UInt, _ argument: UnsafeMutableRawPointer) throws(Errno) {
        _ = try retryingOnInterrupt { ioctl(fd, request, argument) }
    }

    func fixedInfo() throws(Errno) -> fb_fix_screeninfo {
        var fix = fb_fix_screeninfo()
        try call(UInt(FBIOGET_FSCREENINFO), &fix)
        return fix
    }

    func variableInfo() throws(Errno) -> fb_var_screeninfo {
        var v = fb_var_screeninfo()
        try call(UInt(FBIOGET_VSCREENINFO), &v)
        return v
    }

    /// FBIOPUT_VSCREENINFO; the driver may adjust the values, so the accepted ones come back.
    func setVariableInfo(_ info: fb_var_screeninfo) throws(Errno) -> fb_var_screeninfo {
        var v = info
        try call(UInt(FBIOPUT_VSCREENINFO), &v)
        return v
    }

    /// FBIOPAN_DISPLAY to `info`'s x/y offsets.
    func pan(_ info: fb_var_screeninfo) throws(Errno) {
        var v = info
        try call(UInt(FBIOPAN_DISPLAY), &v)
    }

    /// FBIO_WAITFORVSYNC: blocks until the next vertical blank of head 0.
    func waitForVSync() throws(Errno) {
        var head: UInt32 = 0
        try call(Self.waitForVSyncRequest, &head)
    }

    /// FBIOBLANK: `true` powers the display down (FB_BLANK_POWERDOWN: sync off, backlight off where
    /// the driver drives one), `false` unblanks. The argument is a value, not a pointer.
    func blank(_ off: Bool) throws(Errno) {
        // FB_BLANK_POWERDOWN (VESA_POWERDOWN + 1) and FB_BLANK_UNBLANK: an anonymous C enum.
        let level: CInt = off ? 4 : 0
        _ = try retryingOnInterrupt { ioctl(fd, UInt(FBIOBLANK), level) }
    }
}
