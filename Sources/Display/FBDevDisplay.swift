import CLinux
import DisplayModel
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

/// A legacy framebuffer device (`/dev/fbN`) for boards without KMS: ioctl + mmap, page flipping
/// with `FBIOPAN_DISPLAY` when the virtual height holds two pages, `FBIO_WAITFORVSYNC` when the
/// driver has it (before the pan, or with one page before copying the damage), only the damaged
/// rectangles copied (per page), `FBIOBLANK` for screen power, and a timerfd at the refresh rate
/// for pacing either way. The console VT is put in
/// `KD_GRAPHICS` so fbcon's cursor and blanking stay off our picture, and restored at shutdown.
public final class FBDevDisplay: Display {
    public let devicePath: String
    /// The driver's id string, e.g. `bochs-drmdrmfb`.
    public let driverName: String
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    /// 2 when flipping with FBIOPAN_DISPLAY, 1 when drawing into the visible page.
    public let pageCount: Int
    public let hasVSyncIoctl: Bool
    public var flipsCompleted: Int { pacer.completed }
    /// `pan` (two pages, FBIOPAN_DISPLAY) or `copy` (into the visible page).
    public var presentMethod: String { pageCount == 2 ? "pan" : "copy" }
    public internal(set) var yieldsToKMS = false
    public var pacingMethod: String { hasVSyncIoctl ? "vsync-ioctl+timer" : "timer" }

    private let file: OwnedDescriptor
    private let memory: UnsafeMutableRawPointer
    private let memoryLength: Int
    private let lineLength: Int
    /// 4 (XRGB8888) or 2 (RGB565, converted and dithered as it is copied).
    public let bytesPerPixel: Int
    private var variable: fb_var_screeninfo
    private let originalVariable: fb_var_screeninfo
    private var visiblePage = 0
    private var damage: ScanoutDamage
    private let device: FBDevice
    /// Set after FBIOBLANK switched the screen off; presents wait until it is back on.
    private var blanked = false
    private let pacingTimer: PacingTimer
    private var pacer: FramePacer
    private var console: (file: OwnedDescriptor, mode: CInt)?
    private var isShutDown = false

    public init(path: String = "/dev/fb0") throws(DisplayError) {
        devicePath = path
        let file: OwnedDescriptor  // closed with it when the rest of the set-up fails
        do { file = OwnedDescriptor(try FileDescriptor.open(path, .readWrite)) } catch let e {
            throw DisplayError(e == .permissionDenied ? .accessDenied : .noDisplay, device: path, operation: "open", errno: e)
        }
        let fd = file.rawValue
        func failure(_ op: String, _ kind: DisplayError.Kind = .failed, detail: String? = nil, errno: Errno? = .current) -> DisplayError {
            DisplayError(kind, device: path, operation: op, errno: errno, detail: detail)
        }
        let device = FBDevice(fd: fd)
        let fix: fb_fix_screeninfo
        var v: fb_var_screeninfo
        do { fix = try device.fixedInfo() } catch { throw failure("FBIOGET_FSCREENINFO", errno: error) }
        do { v = try device.variableInfo() } catch { throw failure("FBIOGET_VSCREENINFO", errno: error) }
        originalVariable = v
        driverName = withUnsafeBytes(of: fix.id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // XRGB8888, or RGB565 (vc4's fbdev emulation, fbtft SPI panels at /dev/fb1), drawn dithered.
        let xrgb = v.bits_per_pixel == 32 && v.red.offset == 16 && v.green.offset == 8 && v.blue.offset == 0
        let rgb565 = v.bits_per_pixel == 16 && v.red.offset == 11 && v.red.length == 5 && v.green.offset == 5
            && v.green.length == 6 && v.blue.offset == 0 && v.blue.length == 5
        guard xrgb || rgb565 else {
            throw failure("pixel format", .unsupported,
                          detail: "\(v.bits_per_pixel) bpp with red at bit \(v.red.offset); need XRGB8888 or RGB565", errno: nil)
        }
        bytesPerPixel = xrgb ? 4 : 2
        width = Int(v.xres)
        height = Int(v.yres)
        lineLength = Int(fix.line_length)
        // Two pages if the virtual screen already holds them, or if the driver lets us make it so.
        var pages = Int(v.yres_virtual) >= 2 * height ? 2 : 1
        if pages == 1, Int(fix.smem_len) >= 2 * height * lineLength {
            var bigger = v
            bigger.yres_virtual = v.yres * 2
            if let got = try? device.setVariableInfo(bigger), Int(got.yres_virtual) >= 2 * height { v = got; pages = 2 }
        }
        // Panning needs the driver to accept a y offset; check it on page 0 (a no-op move).
        if pages == 2 {
            var pan = v
            pan.xoffset = 0
            pan.yoffset = 0
            if (try? device.pan(pan)) == nil { pages = 1 }
        }
        pageCount = pages
        variable = v
        memoryLength = Int(fix.smem_len)
        guard let p = mmap(nil, memoryLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw failure("mmap \(fix.smem_len) bytes")
        }
        memory = p
        // pixclock is picoseconds per pixel; 0 means the driver does not say (DRM's emulation).
        let hTotal = Double(v.xres + v.left_margin + v.right_margin + v.hsync_len)
        let vTotal = Double(v.yres + v.upper_margin + v.lower_margin + v.vsync_len)
        let hz = v.pixclock > 0 ? 1e12 / (Double(v.pixclock) * hTotal * vTotal) : 60
        refreshHz = hz.isFinite && hz >= 10 && hz <= 240 ? hz : 60
        hasVSyncIoctl = FBDevDisplay.vsyncIoctlWorks(device, refreshHz: refreshHz)
        do { pacingTimer = try PacingTimer() } catch { munmap(p, memoryLength); throw failure("timerfd_create", errno: error) }
        // No flip events here: a frame counts as shown at the next tick of the mode's rate.
        pacer = FramePacer(refreshHz: refreshHz, source: .timer, timerReason: "fbdev has no flip events")
        damage = ScanoutDamage(bufferCount: pages, bounds: IntRect(x0: 0, y0: 0, x1: width, y1: height))
        self.device = device
        self.file = file
        enterGraphicsMode()
    }

    deinit {
        shutdown()
        munmap(memory, memoryLength)
    }

    public var pollDescriptor: CInt? { pacingTimer.descriptor }
    public var canPresent: Bool { pacer.canPresent && !isShutDown }

    public func present(_ frame: Picture, damage frameDamage: [IntRect], shift: ScanoutShift,
                        placement: CopyPlacement) throws(DisplayError) -> Int {
        let placed = placement.placedSize(width: frame.width, height: frame.height)
        guard placed.width == width, placed.height == height else {
            throw DisplayError(.invalidRequest, device: devicePath, operation: "present",
                               detail: "frame is \(frame.width)x\(frame.height) placed \(placed.width)x\(placed.height), screen is \(width)x\(height)")
        }
        guard !isShutDown else { return 0 }
        // The pages' backlog is in the frame's coordinates: a new placement leaves them lacking all.
        if placement != self.placement || damage.bounds != frame.bounds {
            self.placement = placement
            damage = ScanoutDamage(bufferCount: pageCount, bounds: frame.bounds)
        }
        let target = pageCount == 2 ? 1 - visiblePage : 0
        let region = damage.write(frameDamage, into: target)
        // One page: the copy goes straight to the glass, so start it at the vblank to keep the
        // beam from crossing a half-written region (where the driver can wait for one).
        if pageCount == 1, hasVSyncIoctl, !region.isEmpty { try? device.waitForVSync() }
        let page = memory + target * height * lineLength
        let bytes: Int
        if bytesPerPixel != 2 {
            bytes = frame.copy(region, placement: placement, to: page, pitch: lineLength)
        } else if placement.isIdentity {
            bytes = frame.copyRGB565(region, to: page, pitch: lineLength)
        } else {
            // 16 bpp (SPI panels) turned or moved by copy: placed into a kept picture, then
            // dithered where it lands, as an upright frame would be.
            var kept = placedPicture.flatMap { $0.width == width && $0.height == height ? $0 : nil } ?? PixelBuffer(width: width, height: height)
            placedPicture = nil  // uniquely referenced while written
            let keptPitch = kept.stride * 4
            kept.pixels.withUnsafeMutableBytes { _ = frame.copy(region, placement: placement, to: $0.baseAddress!, pitch: keptPitch) }
            let whole = region.rects.contains { $0 == frame.bounds }
            let landed = whole ? DamageRegion.full(kept.bounds)
                : DamageRegion(region.rects.map { placement.placed($0, width: frame.width, height: frame.height) }, bounds: kept.bounds)
            bytes = kept.copyRGB565(landed, to: page, pitch: lineLength)
            placedPicture = kept
        }
        if pageCount == 2 {
            // Blocks until the next vblank; only on drivers that have it, and at most one frame.
            if hasVSyncIoctl { try? device.waitForVSync() }
            var pan = variable
            pan.xoffset = 0
            pan.yoffset = UInt32(target * height)
            do { try device.pan(pan) } catch {
                throw DisplayError(.failed, device: devicePath, operation: "FBIOPAN_DISPLAY", errno: error)
            }
            visiblePage = target
        }
        lastPresentBytes = bytes
        do { try pacingTimer.tryApply(pacer.presented(at: MonotonicClock.now(), flipEvent: false), to: &pacer) } catch {
            throw DisplayError(.failed, device: devicePath, operation: "timerfd_settime", errno: error)
        }
        return bytes
    }

    /// Bytes written to the framebuffer by the last present.
    public private(set) var lastPresentBytes = 0
    /// How frames are placed by copy, and for 16 bpp the placed picture dithering reads.
    private var placement = CopyPlacement.identity
    private var placedPicture: PixelBuffer?

    /// Screen power with FBIOBLANK (sync signals off, and the backlight where the driver drives
    /// one) instead of a black picture lit from behind. False when the driver cannot blank.
    public func setPowered(_ on: Bool) -> Bool {
        guard !isShutDown else { return false }
        do { try device.blank(!on) } catch { return false }
        blanked = !on
        // A driver may drop what the pages held while blanked: the next frame is whole.
        if on { damage.invalidateAll() }
        return true
    }

    public func handleReadable() -> [DisplayEvent] {
        guard let done = pacingTimer.expired(&pacer) else { return [] }
        return [.flipCompleted(vblankNanos: done.vblankNanos, sequence: done.sequence)]
    }

    /// Pans back to page 0 with the original geometry and returns the VT to text mode.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        pacingTimer.disarm()
        if blanked { try? device.blank(false) }
        let original = originalVariable
        if pageCount == 2 || original.yres_virtual != variable.yres_virtual {
            _ = try? device.setVariableInfo(original)
            var pan = original
            pan.yoffset = 0
            try? device.pan(pan)
        }
        if let console {
            try? VTDevice(fd: console.file.rawValue).setDisplayMode(console.mode)
            console.file.close()
            self.console = nil
        }
    }

    /// Whether FBIO_WAITFORVSYNC really waits for a vblank: some drivers (DRM's fbdev emulation on
    /// hardware without vblank) accept it but return at odd times, which would only stall the loop.
    /// Waits in a row must be about one refresh period apart: the median of five periods, so a
    /// busy machine that descheduled us for one of them (a loaded host, a VM) does not make a
    /// working ioctl look broken and the screen paced by the timer alone.
    private static func vsyncIoctlWorks(_ device: FBDevice, refreshHz: Double) -> Bool {
        guard (try? device.waitForVSync()) != nil else { return false }
        var periods: [Double] = []
        var last = MonotonicClock.now()
        for _ in 0..<5 {
            guard (try? device.waitForVSync()) != nil else { return false }
            let now = MonotonicClock.now()
            periods.append(Double(now - last) / 1e9)
            last = now
        }
        return VSyncProbe.periodsMatch(periods, refreshHz: refreshHz)
    }

    /// KD_GRAPHICS stops fbcon drawing (cursor, blanking, kernel messages) over the picture.
    /// Without a console (a serial-only board, a container) there is nothing to do.
    private func enterGraphicsMode() {
        for path in ["/dev/tty0", "/dev/tty"] {
            guard let tty = try? FileDescriptor.open(path, .readWrite, options: .noControllingTerminal) else { continue }
            let file = OwnedDescriptor(tty)
            let vt = VTDevice(fd: file.rawValue)
            if let mode = try? vt.displayMode(), (try? vt.setDisplayMode(CInt(KD_GRAPHICS))) != nil {
                console = (file, mode)
                return
            }
            file.close()
        }
    }
}
