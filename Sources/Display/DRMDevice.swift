import CDRM
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

// The unsafe half of the KMS backend: libdrm calls, C structs turned into Swift values, mmap'd
// dumb buffers. libdrm has two error conventions, and each wrapper says which one it uses:
// the mode calls in xf86drmMode.c return -errno; the core calls in xf86drm.c return -1 and set errno.

/// One display mode of a connector, with the kernel's struct kept for modesetting.
struct DRMMode: Equatable {
    var info: drmModeModeInfo
    var width: Int { Int(info.hdisplay) }
    var height: Int { Int(info.vdisplay) }
    var isPreferred: Bool { info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }
    var name: String {
        withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    /// The exact rate from the timings (vrefresh is rounded to whole Hz: 59.94 shows as 60).
    var refreshHz: Double {
        let total = Double(info.htotal) * Double(info.vtotal)
        guard info.clock > 0, total > 0 else { return info.vrefresh > 0 ? Double(info.vrefresh) : 60 }
        var hz = Double(info.clock) * 1000 / total
        if info.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { hz *= 2 }
        if info.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { hz /= 2 }
        if info.vscan > 1 { hz /= Double(info.vscan) }
        return hz
    }
    static func == (a: DRMMode, b: DRMMode) -> Bool {
        withUnsafeBytes(of: a.info) { x in withUnsafeBytes(of: b.info) { y in x.elementsEqual(y) } }
    }
}

/// A connector as probed: status, size, modes, and the encoders that can drive it.
struct DRMConnector {
    enum Status: String { case connected, disconnected, unknown }
    var id: UInt32
    var name: String
    var status: Status
    var widthMM: Int
    var heightMM: Int
    var modes: [DRMMode]
    var currentEncoder: UInt32
    var encoders: [UInt32]
}

/// A CRTC's state as read back (to restore the console at exit).
struct DRMCrtcState {
    var crtcID: UInt32
    var framebufferID: UInt32
    var x: UInt32, y: UInt32
    var mode: drmModeModeInfo?
}

/// An open `/dev/dri/cardN`. Owns the descriptor.
final class DRMCard {
    let path: String
    let fd: CInt
    let driverName: String
    /// CRTCs and connectors driven by the outputs sharing this descriptor (one DRM master, several
    /// screens): an output choosing its pipe skips what a sibling holds.
    var claimedCRTCs: Set<UInt32> = []
    var claimedConnectors: Set<UInt32> = []

    init(path: String) throws(DisplayError) {
        let fd: CInt
        do { fd = try FileDescriptor.open(path, .readWrite).rawValue } catch let e {
            let kind: DisplayError.Kind = e == .permissionDenied || e == .notPermitted ? .accessDenied : .noDisplay
            throw DisplayError(kind, device: path, operation: "open", errno: e)
        }
        self.path = path
        self.fd = fd
        var name = "unknown"
        if let v = drmGetVersion(fd) {
            if let n = v.pointee.name { name = String(cString: n) }
            drmFreeVersion(v)
        }
        driverName = name
    }

    deinit { close(fd) }

    func error(_ operation: String, _ errno: Errno?, _ kind: DisplayError.Kind = .failed, detail: String? = nil) -> DisplayError {
        var kind = kind
        if errno == .permissionDenied || errno == .notPermitted { kind = .accessDenied }
        return DisplayError(kind, device: path, operation: operation, errno: errno, detail: detail)
    }

    /// `drmGetCap`; nil when the kernel does not know the capability. (-1/errno convention.)
    func capability(_ cap: Int32) -> UInt64? {
        var value: UInt64 = 0
        return drmGetCap(fd, UInt64(cap), &value) == 0 ? value : nil
    }

    /// `drmSetClientCap`; false when refused. (-1/errno convention.)
    func enableClientCapability(_ cap: Int32) -> Bool {
        drmSetClientCap(fd, UInt64(cap), 1) == 0
    }

    /// Becomes DRM master; succeeds when already master, fails while another process is.
    func becomeMaster() -> Bool {
        guard drmSetMaster(fd) == 0 else { return false }
        wasMaster = true
        return true
    }
    /// This descriptor has held DRM master. Without CAP_SYS_ADMIN only such a descriptor may take
    /// it again (drm_auth.c, drm_master_check_perm: `was_master` and the same process), so one
    /// opened while a desktop's compositor was master can never become master, even after it went.
    private(set) var wasMaster = false

    /// Whether nobody is DRM master of the card at `path` now: a fresh descriptor of the primary
    /// node becomes master when there is none (drm_file.c, drm_master_open), and gives it up
    /// again when closed here. False when it cannot be opened.
    static func isFree(_ path: String) -> Bool {
        guard let fd = try? FileDescriptor.open(path, .readWrite) else { return false }
        defer { try? fd.close() }
        return drmIsMaster(fd.rawValue) != 0
    }
    func dropMaster() { _ = drmDropMaster(fd) }

    /// Connector and CRTC ids of the card.
    func resources() throws(DisplayError) -> (connectors: [UInt32], crtcs: [UInt32]) {
        guard let res = drmModeGetResources(fd) else {
            // Render-only nodes and non-KMS drivers say EOPNOTSUPP or EINVAL here.
            throw error("drmModeGetResources", .current, .unsupported)
        }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        let connectors = (0..<Int(r.count_connectors)).map { r.connectors[$0] }
        let crtcs = (0..<Int(r.count_crtcs)).map { r.crtcs[$0] }
        return (connectors, crtcs)
    }

    /// Reads a connector. `probe` asks the driver to re-detect (slow on real hardware: EDID over
    /// DDC), which hotplug handling needs; otherwise the cached state is enough.
    func connector(_ id: UInt32, probe: Bool = true) -> DRMConnector? {
        guard let p = probe ? drmModeGetConnector(fd, id) : drmModeGetConnectorCurrent(fd, id) else { return nil }
        defer { drmModeFreeConnector(p) }
        let c = p.pointee
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        let status: DRMConnector.Status =
            c.connection == DRM_MODE_CONNECTED ? .connected : c.connection == DRM_MODE_DISCONNECTED ? .disconnected : .unknown
        return DRMConnector(
            id: c.connector_id, name: "\(typeName)-\(c.connector_type_id)", status: status,
            widthMM: Int(c.mmWidth), heightMM: Int(c.mmHeight),
            modes: (0..<Int(c.count_modes)).map { DRMMode(info: c.modes[$0]) },
            currentEncoder: c.encoder_id,
            encoders: (0..<Int(c.count_encoders)).map { c.encoders[$0] })
    }

    /// The CRTC to drive `connector` with: the one its encoder drives now (the console's, so the
    /// restore at exit is exact), else the first one any of its encoders can reach; never one
    /// another output on this descriptor holds (`own`: the asker's, which it may keep).
    func crtc(for connector: DRMConnector, crtcs: [UInt32], own: UInt32 = 0) -> UInt32? {
        let taken = claimedCRTCs.subtracting([own])
        if connector.currentEncoder != 0, let enc = drmModeGetEncoder(fd, connector.currentEncoder) {
            defer { drmModeFreeEncoder(enc) }
            if enc.pointee.crtc_id != 0 && !taken.contains(enc.pointee.crtc_id) { return enc.pointee.crtc_id }
        }
        for encoderID in connector.encoders {
            guard let enc = drmModeGetEncoder(fd, encoderID) else { continue }
            defer { drmModeFreeEncoder(enc) }
            for (index, crtc) in crtcs.enumerated()
            where enc.pointee.possible_crtcs & (1 << UInt32(index)) != 0 && !taken.contains(crtc) {
                return crtc
            }
        }
        return nil
    }

    func crtcState(_ id: UInt32) -> DRMCrtcState? {
        guard let p = drmModeGetCrtc(fd, id) else { return nil }
        defer { drmModeFreeCrtc(p) }
        let c = p.pointee
        return DRMCrtcState(crtcID: c.crtc_id, framebufferID: c.buffer_id, x: c.x, y: c.y,
                            mode: c.mode_valid != 0 ? c.mode : nil)
    }

    /// Index of a CRTC in the resources list, for vblank requests ("high crtc" bits).
    func crtcIndex(_ id: UInt32) -> Int? {
        (try? resources().crtcs.firstIndex(of: id)) ?? nil
    }

    /// Lights `crtc` with `framebuffer` on `connector` in `mode` (blocking modeset; -errno).
    func setCrtc(_ crtc: UInt32, framebuffer: UInt32, connector: UInt32, mode: DRMMode) throws(Errno) {
        var connectorID = connector
        var info = mode.info
        try Errno.checkNegated(drmModeSetCrtc(fd, crtc, framebuffer, 0, 0, &connectorID, 1, &info))
    }

    /// Puts a saved CRTC state back. A CRTC that was off must be disabled with no framebuffer,
    /// no connectors and no mode: vkms refuses fb 0 with the saved (all-zero) mode (ENOENT) and
    /// fb 0 with a connector (EINVAL).
    func restore(_ saved: DRMCrtcState, connector: UInt32) throws(Errno) {
        if var mode = saved.mode, saved.framebufferID != 0 {
            var connectorID = connector
            try Errno.checkNegated(drmModeSetCrtc(fd, saved.crtcID, saved.framebufferID, saved.x, saved.y, &connectorID, 1, &mode))
        } else {
            try Errno.checkNegated(drmModeSetCrtc(fd, saved.crtcID, 0, 0, 0, nil, 0, nil))
        }
    }

    /// Queues a flip; completion arrives as an event on `fd` with `userData` (-errno).
    func pageFlip(_ crtc: UInt32, framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(Errno) {
        try Errno.checkNegated(drmModePageFlip(fd, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData))
    }

    /// Tells drivers that scan out from a shadow (simpledrm, USB/SPI panels) which rectangles changed.
    func markDirty(_ framebuffer: UInt32, _ region: DamageRegion) -> Errno? {
        var clips = region.rects.map {
            drmModeClip(x1: UInt16(clamping: $0.x0), y1: UInt16(clamping: $0.y0), x2: UInt16(clamping: $0.x1), y2: UInt16(clamping: $0.y1))
        }
        guard !clips.isEmpty else { return nil }
        let rc = drmModeDirtyFB(fd, framebuffer, &clips, UInt32(clips.count))
        return rc < 0 ? Errno(rawValue: -rc) : nil
    }

    /// Asks for the current vblank count of the CRTC at `index` without waiting. Drivers without
    /// vblank support (bochs, virtio-gpu) fail this, which is how the backend knows to self-pace.
    func vblankCounterWorks(crtcIndex index: Int) -> Bool {
        var vbl = drmVBlank()
        var type = DRM_VBLANK_RELATIVE.rawValue
        if index == 1 {
            type |= DRM_VBLANK_SECONDARY.rawValue
        } else if index > 1 {
            type |= (UInt32(index) << UInt32(DRM_VBLANK_HIGH_CRTC_SHIFT)) & DRM_VBLANK_HIGH_CRTC_MASK.rawValue
        }
        vbl.request.type = drmVBlankSeqType(rawValue: type)
        vbl.request.sequence = 0
        return drmWaitVBlank(fd, &vbl) == 0
    }
}

/// A dumb buffer: kernel memory we fill with the CPU and scan out, mapped write-combined.
/// Never read it (reads from write-combined memory are uncached and very slow).
///
/// With a `margin` the buffer is that much larger on every side than the mode and the picture
/// sits in its middle; a burn-in shift then scans out a mode-sized framebuffer that starts
/// elsewhere in it (the framebuffer's offset), so moving the picture copies no pixel.
final class ScanoutBuffer {
    unowned let card: DRMCard
    /// The mode's size (what a framebuffer of this buffer shows).
    let width: Int, height: Int
    let margin: Int
    let handle: UInt32
    let pitch: Int
    let size: Int
    let pixels: UnsafeMutableRawPointer
    /// The framebuffer showing the picture unshifted.
    let framebufferID: UInt32
    /// Framebuffers at other offsets, made when first shown.
    private var shifted: [ScanoutShift: UInt32] = [:]
    /// The colour the margins were last filled with (nil: never, they hold whatever was there).
    private var marginFill: UInt32?

    init(card: DRMCard, width: Int, height: Int, margin: Int = 0) throws(DisplayError) {
        self.card = card
        self.width = width
        self.height = height
        self.margin = max(0, margin)
        let fullWidth = width + 2 * self.margin, fullHeight = height + 2 * self.margin
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        var rc = drmModeCreateDumbBuffer(card.fd, UInt32(fullWidth), UInt32(fullHeight), 32, 0, &handle, &pitch, &size)
        guard rc == 0 else {
            throw card.error("drmModeCreateDumbBuffer", Errno(rawValue: -rc), detail: "\(fullWidth)x\(fullHeight) 32 bpp")
        }
        var offset: UInt64 = 0
        rc = drmModeMapDumbBuffer(card.fd, handle, &offset)
        guard rc == 0 else {
            _ = drmModeDestroyDumbBuffer(card.fd, handle)
            throw card.error("drmModeMapDumbBuffer", Errno(rawValue: -rc))
        }
        guard let p = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, card.fd, off_t(offset)), p != MAP_FAILED else {
            let e = Errno.current
            _ = drmModeDestroyDumbBuffer(card.fd, handle)
            throw card.error("mmap dumb buffer", e)
        }
        self.handle = handle
        self.pitch = Int(pitch)
        self.size = Int(size)
        self.pixels = p
        let byteOffset = self.margin * Int(pitch) + self.margin * 4
        switch ScanoutBuffer.addFramebuffer(card, handle: handle, width: width, height: height, pitch: pitch, offset: byteOffset) {
        case .success(let fb): self.framebufferID = fb
        case .failure(let e):
            munmap(p, Int(size))
            _ = drmModeDestroyDumbBuffer(card.fd, handle)
            throw card.error("drmModeAddFB2", e, .unsupported, detail: "XRGB8888 \(width)x\(height) at offset \(byteOffset)")
        }
    }

    private static func addFramebuffer(_ card: DRMCard, handle: UInt32, width: Int, height: Int, pitch: UInt32,
                                       offset: Int) -> Result<UInt32, Errno> {
        let handles: [UInt32] = [handle, 0, 0, 0], pitches: [UInt32] = [pitch, 0, 0, 0]
        let offsets: [UInt32] = [UInt32(offset), 0, 0, 0]
        var fb: UInt32 = 0
        let rc = drmModeAddFB2(card.fd, UInt32(width), UInt32(height), tb_drm_format_xrgb8888, handles, pitches, offsets, &fb, 0)
        return rc == 0 ? .success(fb) : .failure(Errno(rawValue: -rc))
    }

    /// The framebuffer that shows the picture moved by `shift` (within the margin).
    func framebuffer(for shift: ScanoutShift) throws(Errno) -> UInt32 {
        let key = ScanoutShift(dx: shift.dx, dy: shift.dy, fill: 0)
        if key.isZero { return framebufferID }
        if let fb = shifted[key] { return fb }
        // The picture moves right by dx when the scanout starts dx pixels further left.
        let x = margin - shift.dx, y = margin - shift.dy
        guard x >= 0, y >= 0, x <= 2 * margin, y <= 2 * margin else { throw .invalidArgument }
        switch ScanoutBuffer.addFramebuffer(card, handle: handle, width: width, height: height, pitch: UInt32(pitch),
                                            offset: y * pitch + x * 4) {
        case .success(let fb):
            shifted[key] = fb
            return fb
        case .failure(let e): throw e
        }
    }

    /// Writes black everywhere (write-only, like every access to this memory).
    func clear() {
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        marginFill = 0
    }

    /// Copies `region` of `frame`, placed, into the picture area; returns the bytes written.
    func update(from frame: Picture, region: DamageRegion, placement: CopyPlacement) -> Int {
        frame.copy(region, placement: placement, to: pixels, pitch: pitch, originX: margin, originY: margin)
    }

    /// Paints the margins `color` unless they hold it already; returns the bytes written.
    func fillMargins(_ color: UInt32) -> Int {
        guard margin > 0, marginFill != color else { return 0 }
        marginFill = color
        let fullWidth = width + 2 * margin
        var bytes = 0
        func fill(row: Int, x0: Int, count: Int) {
            (pixels + row * pitch + x0 * 4).initializeMemory(as: UInt32.self, repeating: color, count: count)
            bytes += count * 4
        }
        for row in 0..<(height + 2 * margin) {
            if row < margin || row >= margin + height {
                fill(row: row, x0: 0, count: fullWidth)
            } else {
                fill(row: row, x0: 0, count: margin)
                fill(row: row, x0: margin + width, count: margin)
            }
        }
        return bytes
    }

    deinit {
        for fb in shifted.values { _ = drmModeRmFB(card.fd, fb) }
        _ = drmModeRmFB(card.fd, framebufferID)
        munmap(pixels, size)
        _ = drmModeDestroyDumbBuffer(card.fd, handle)
    }
}

/// Finds the card to use: the given path, else the first `/dev/dri/cardN` with a connected output.
enum DRMCardFinder {
    static func cardPaths() -> [String] {
        let names = FileSystem.list("/dev/dri").filter { $0.hasPrefix("card") && Int($0.dropFirst(4)) != nil }
        return names.sorted { Int($0.dropFirst(4))! < Int($1.dropFirst(4))! }.map { "/dev/dri/" + $0 }
    }

    /// What each card can do (opens each for a moment; probing connectors may read EDID).
    static func survey() -> [DRMCardSummary] { cardPaths().map(summary(of:)) }

    static func summary(of path: String) -> DRMCardSummary {
        let card: DRMCard
        do { card = try DRMCard(path: path) } catch {
            return DRMCardSummary(path: path, driver: "?", modeset: false, connectors: [], dumbBuffers: false,
                                  openProblem: error.errno.map { String(describing: $0) } ?? "\(error)")
        }
        let dumb = card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0
        guard let res = try? card.resources() else {
            return DRMCardSummary(path: path, driver: card.driverName, modeset: false, connectors: [], dumbBuffers: dumb)
        }
        let connectors = res.connectors.compactMap { id in
            card.connector(id).map { DRMCardSummary.Connector(name: $0.name, connected: $0.status == .connected) }
        }
        return DRMCardSummary(path: path, driver: card.driverName, modeset: true, connectors: connectors, dumbBuffers: dumb)
    }

    /// The choice `auto` makes on this machine now.
    static func choose(connector: String?) -> DRMCardChoice { DRMCardChoice.choose(survey(), connector: connector) }
}

/// What an atomic commit needs for one connector → CRTC → primary plane pipe: the object ids and
/// the ids of the properties we set (ids differ between drivers and boots, so they are looked up).
struct AtomicPipe {
    var connector: UInt32, crtc: UInt32, plane: UInt32
    var connectorCrtcID: UInt32
    var crtcModeID: UInt32, crtcActive: UInt32
    var planeFB: UInt32, planeCrtc: UInt32
    var planeSrc: (x: UInt32, y: UInt32, w: UInt32, h: UInt32)
    var planeDst: (x: UInt32, y: UInt32, w: UInt32, h: UInt32)
    /// The plane's FB_DAMAGE_CLIPS property, where the driver has it.
    var planeDamageClips: UInt32?
    /// The plane's `rotation` property and the bits it offers (DRM_MODE_ROTATE_*), where it has one.
    var planeRotation: UInt32?
    var supportedRotations: UInt64 = 0
}

/// Page-flip completions read from a DRM fd. libdrm's C callback appends here (this object is the
/// flip's `user_data`); the display takes them after each read.
final class DRMFlipEvents {
    fileprivate(set) var pending: [(sequence: UInt32, nanos: UInt64)] = []
    private var context = drmEventContext()

    init() {
        context.version = 2  // enough for page_flip_handler (atomic flip events use it too)
        context.page_flip_handler = pageFlipHandler
    }

    /// What a flip request passes as `user_data` so that its completion lands here.
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Reads what the kernel has for `card` (drmHandleEvent, only when the descriptor is readable:
    /// it is blocking) and hands over this output's completions. Outputs sharing the descriptor get
    /// theirs through their own `user_data`, kept until they ``take()`` them.
    func read(from card: DRMCard) -> [(sequence: UInt32, nanos: UInt64)] {
        var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 0) > 0 { _ = drmHandleEvent(card.fd, &context) }
        return take()
    }

    /// The completions a read of the shared descriptor (by any output) routed here.
    func take() -> [(sequence: UInt32, nanos: UInt64)] {
        defer { pending.removeAll() }
        return pending
    }

    /// Forgets completions not taken yet (the flip state was reset).
    func discard() { pending.removeAll() }
}

/// The C callback: capture-free, so it converts to a function pointer; state comes via user_data.
private let pageFlipHandler: @convention(c) (CInt, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void = {
    _, sequence, seconds, microseconds, userData in
    guard let userData else { return }
    let nanos = UInt64(seconds) * 1_000_000_000 + UInt64(microseconds) * 1000
    Unmanaged<DRMFlipEvents>.fromOpaque(userData).takeUnretainedValue().pending.append((sequence, nanos))
}

extension DRMCard {
    /// Sets a connector's property (DPMS); the errno when the driver refuses. (-errno convention.)
    func setConnectorProperty(_ connector: UInt32, _ property: UInt32, to value: UInt64) -> Errno? {
        let result = drmModeConnectorSetProperty(fd, connector, property, value)
        return result == 0 ? nil : Errno(rawValue: -result)
    }

    /// The name of an enum property's current value (the connector's "panel orientation"); nil
    /// when the object has no such property or its value names no entry.
    func enumValueName(of object: UInt32, type: UInt32, property wanted: String) -> String? {
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            let name = withUnsafeBytes(of: prop.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name == wanted else { continue }
            let value = props.pointee.prop_values[i]
            for e in 0..<Int(prop.pointee.count_enums) where prop.pointee.enums[e].value == value {
                return withUnsafeBytes(of: prop.pointee.enums[e].name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
        }
        return nil
    }

    /// Names and ids (and current values) of an object's properties.
    func properties(of object: UInt32, type: UInt32) -> [String: (id: UInt32, value: UInt64)] {
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return [:] }
        defer { drmModeFreeObjectProperties(props) }
        var out: [String: (id: UInt32, value: UInt64)] = [:]
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            let name = withUnsafeBytes(of: prop.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            out[name] = (prop.pointee.prop_id, props.pointee.prop_values[i])
            drmModeFreeProperty(prop)
        }
        return out
    }

    /// The pipe for atomic commits, or nil when some object or property is missing (then the
    /// caller stays on the legacy API). Needs DRM_CLIENT_CAP_ATOMIC enabled on this fd.
    func atomicPipe(connector: UInt32, crtc: UInt32, crtcIndex: Int) -> AtomicPipe? {
        guard let planes = drmModeGetPlaneResources(fd) else { return nil }
        defer { drmModeFreePlaneResources(planes) }
        var chosen: UInt32?
        for i in 0..<Int(planes.pointee.count_planes) {
            let id = planes.pointee.planes[i]
            guard let plane = drmModeGetPlane(fd, id) else { continue }
            let reachable = plane.pointee.possible_crtcs & (1 << UInt32(crtcIndex)) != 0
            let current = plane.pointee.crtc_id
            drmModeFreePlane(plane)
            guard reachable, properties(of: id, type: DRM_MODE_OBJECT_PLANE)["type"]?.value == UInt64(DRM_PLANE_TYPE_PRIMARY) else {
                continue
            }
            // Prefer the primary plane already on our CRTC (the console's).
            if chosen == nil || current == crtc { chosen = id }
        }
        guard let plane = chosen else { return nil }
        let c = properties(of: connector, type: DRM_MODE_OBJECT_CONNECTOR)
        let k = properties(of: crtc, type: DRM_MODE_OBJECT_CRTC)
        let p = properties(of: plane, type: DRM_MODE_OBJECT_PLANE)
        guard let cc = c["CRTC_ID"]?.id, let mode = k["MODE_ID"]?.id, let active = k["ACTIVE"]?.id,
              let fb = p["FB_ID"]?.id, let pc = p["CRTC_ID"]?.id,
              let sx = p["SRC_X"]?.id, let sy = p["SRC_Y"]?.id, let sw = p["SRC_W"]?.id, let sh = p["SRC_H"]?.id,
              let dx = p["CRTC_X"]?.id, let dy = p["CRTC_Y"]?.id, let dw = p["CRTC_W"]?.id, let dh = p["CRTC_H"]?.id
        else { return nil }
        return AtomicPipe(connector: connector, crtc: crtc, plane: plane, connectorCrtcID: cc, crtcModeID: mode,
                          crtcActive: active, planeFB: fb, planeCrtc: pc, planeSrc: (sx, sy, sw, sh), planeDst: (dx, dy, dw, dh),
                          planeDamageClips: p["FB_DAMAGE_CLIPS"]?.id, planeRotation: p["rotation"]?.id,
                          supportedRotations: p["rotation"].map { bitmaskValues(of: $0.id) } ?? 0)
    }

    /// The bits a bitmask property offers (its enum entries name bit positions).
    func bitmaskValues(of property: UInt32) -> UInt64 {
        guard let prop = drmModeGetProperty(fd, property) else { return 0 }
        defer { drmModeFreeProperty(prop) }
        guard prop.pointee.flags & UInt32(DRM_MODE_PROP_BITMASK) != 0 else { return 0 }
        var mask: UInt64 = 0
        for i in 0..<Int(prop.pointee.count_enums) where prop.pointee.enums[i].value < 64 {
            mask |= 1 << prop.pointee.enums[i].value
        }
        return mask
    }

    /// One atomic commit built by `fill` (-errno convention, like the other mode calls).
    private func commit(flags: UInt32, userData: UnsafeMutableRawPointer?,
                        _ fill: (OpaquePointer) -> Void) throws(Errno) {
        guard let req = drmModeAtomicAlloc() else { throw .noMemory }
        defer { drmModeAtomicFree(req) }
        fill(req)
        try Errno.checkNegated(drmModeAtomicCommit(fd, req, flags, userData))
    }

    /// Modeset: connector → CRTC with `mode`, primary plane showing `framebuffer` full screen,
    /// turned by the plane as `layout` says (its source is the framebuffer's size). `testOnly`:
    /// the kernel checks the request and changes nothing.
    func atomicModeset(_ pipe: AtomicPipe, mode: DRMMode, framebuffer: UInt32, layout: PlaneLayout,
                       testOnly: Bool) throws(Errno) {
        if layout.quarterTurns != 0 && pipe.planeRotation == nil { throw .notSupported }
        var info = mode.info
        var blob: UInt32 = 0
        try Errno.checkNegated(drmModeCreatePropertyBlob(fd, &info, MemoryLayout<drmModeModeInfo>.size, &blob))
        // The CRTC holds its own reference to the blob once committed.
        defer { _ = drmModeDestroyPropertyBlob(fd, blob) }
        let w = UInt64(mode.width), h = UInt64(mode.height)
        let sw = UInt64(layout.sourceWidth), sh = UInt64(layout.sourceHeight)
        var flags = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
        if testOnly { flags |= UInt32(DRM_MODE_ATOMIC_TEST_ONLY) }
        try commit(flags: flags, userData: nil) { req in
            _ = drmModeAtomicAddProperty(req, pipe.connector, pipe.connectorCrtcID, UInt64(pipe.crtc))
            _ = drmModeAtomicAddProperty(req, pipe.crtc, pipe.crtcModeID, UInt64(blob))
            _ = drmModeAtomicAddProperty(req, pipe.crtc, pipe.crtcActive, 1)
            addPlane(req, pipe, framebuffer: framebuffer)
            // Source rectangle in 16.16 fixed point, destination in pixels.
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeSrc.x, 0)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeSrc.y, 0)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeSrc.w, sw << 16)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeSrc.h, sh << 16)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeDst.x, 0)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeDst.y, 0)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeDst.w, w)
            _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeDst.h, h)
            // Set every time the plane has it: a turn left by the previous master must not stand.
            if let rotation = pipe.planeRotation {
                _ = drmModeAtomicAddProperty(req, pipe.plane, rotation, layout.rotationBits)
            }
        }
    }

    /// Page flip: only the plane's framebuffer changes; completion arrives as a flip event.
    /// `damage` (framebuffer coordinates) goes to FB_DAMAGE_CLIPS where the plane has it, so a
    /// driver that uploads or compresses (virtio-gpu, USB panels) touches only what changed; nil
    /// says "everything".
    func atomicFlip(_ pipe: AtomicPipe, framebuffer: UInt32, damage: DamageRegion?,
                    userData: UnsafeMutableRawPointer?) throws(Errno) {
        let flags = UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_NONBLOCK)
        var blob: UInt32 = 0
        if pipe.planeDamageClips != nil, let damage, !damage.isEmpty {
            var rects = damage.rects.map { drm_mode_rect(x1: Int32($0.x0), y1: Int32($0.y0), x2: Int32($0.x1), y2: Int32($0.y1)) }
            try Errno.checkNegated(drmModeCreatePropertyBlob(fd, &rects, rects.count * MemoryLayout<drm_mode_rect>.stride, &blob))
        }
        // The commit holds its own reference to the blob.
        defer { if blob != 0 { _ = drmModeDestroyPropertyBlob(fd, blob) } }
        try commit(flags: flags, userData: userData) { req in
            addPlane(req, pipe, framebuffer: framebuffer)
            // 0 (no blob) every time there is no list: a blob left from the last flip must not stand.
            if let clips = pipe.planeDamageClips { _ = drmModeAtomicAddProperty(req, pipe.plane, clips, UInt64(blob)) }
        }
    }

    private func addPlane(_ req: OpaquePointer, _ pipe: AtomicPipe, framebuffer: UInt32) {
        _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeFB, UInt64(framebuffer))
        _ = drmModeAtomicAddProperty(req, pipe.plane, pipe.planeCrtc, UInt64(pipe.crtc))
    }
}
