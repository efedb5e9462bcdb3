import CDRM
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

/// Receives page-flip completions from libdrm's C callback (reached through `user_data`).
private final class FlipSink {
    var completions: [(sequence: UInt32, nanos: UInt64)] = []
}

/// The C callback: capture-free, so it converts to a function pointer; state comes via user_data.
private let pageFlipHandler: @convention(c) (CInt, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void = {
    _, sequence, seconds, microseconds, userData in
    guard let userData else { return }
    let nanos = UInt64(seconds) * 1_000_000_000 + UInt64(microseconds) * 1000
    Unmanaged<FlipSink>.fromOpaque(userData).takeUnretainedValue().completions.append((sequence, nanos))
}

/// A KMS/DRM display: one connector, one CRTC, two XRGB8888 dumb buffers, page flips with events
/// (atomic commits when the driver takes DRM_CLIENT_CAP_ATOMIC, else legacy SetCrtc + PageFlip),
/// paced by the vblank or, on drivers without one, by a timerfd at the mode's rate.
///
/// Its ``pollDescriptor`` is a private epoll set holding the DRM fd, the pacing timer, the
/// master-retry timer and a netlink uevent socket, so the caller's loop watches one descriptor.
public final class KMSDisplay: Display {
    /// How to choose the output.
    public struct Options: Sendable {
        /// `/dev/dri/cardN`; nil = the first card with a connected connector.
        public var devicePath: String?
        /// A connector name such as `HDMI-A-1`; nil = the first connected one.
        public var connectorName: String?
        /// `WxH` or `WxH@Hz`; nil = the connector's preferred mode.
        public var mode: ModeRequest?
        /// Start even when nothing is connected, and wait for a hotplug (needs `devicePath`).
        public var waitForOutput: Bool
        /// Pace with the timer even if the driver has a vblank counter (tests).
        public var forceTimerPacing: Bool
        /// Use the legacy modeset/page-flip API even when atomic is available.
        public var legacyOnly: Bool
        /// Make the buffers this much larger on every side so a burn-in shift of up to this many
        /// pixels moves the scanout instead of the pixels (0: no such room).
        public var shiftMargin: Int

        public init(devicePath: String? = nil, connectorName: String? = nil, mode: ModeRequest? = nil,
                    waitForOutput: Bool = false, forceTimerPacing: Bool = false, legacyOnly: Bool = false,
                    shiftMargin: Int = 0) {
            self.shiftMargin = max(0, min(64, shiftMargin))
            self.devicePath = devicePath
            self.connectorName = connectorName
            self.mode = mode
            self.waitForOutput = waitForOutput
            self.forceTimerPacing = forceTimerPacing
            self.legacyOnly = legacyOnly
        }
    }

    private enum State { case running, noOutput, noMaster, shutDown }
    private enum Token: UInt64 { case drm = 1, pacer, masterRetry, uevent }

    public var devicePath: String { card.path }
    public var driverName: String { card.driverName }
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var refreshHz: Double
    /// The connector in use, e.g. `Virtual-1` (empty while none is connected).
    public private(set) var connectorName = ""
    /// The mode in use, e.g. `1280x800@75`.
    public var modeDescription: String { "\(width)x\(height)@\(ModeRequest.formatHz(refreshHz))" }
    /// True when the driver has no usable vblank counter and flips are paced by a timer.
    public private(set) var pacedByTimer = false
    /// True when the driver cannot page-flip and frames are set with a modeset and DIRTYFB.
    public private(set) var usesDirtyFramebuffer = false
    /// True when modesets and flips are atomic commits.
    public var usesAtomic: Bool { atomicPipe != nil }
    /// True when flips carry FB_DAMAGE_CLIPS (atomic, and the plane has the property).
    public var usesDamageClips: Bool { atomicPipe?.planeDamageClips != nil }
    /// Room around the picture in the buffers: a burn-in shift up to this far copies nothing.
    public var scanoutShiftLimit: Int { buffers.first?.margin ?? 0 }
    public var shiftMethod: String { scanoutShiftLimit > 0 ? "fb-offset" : "copy" }
    /// Informational messages (pacing choice, master changes); the daemon routes them to its log.
    public var log: (String) -> Void = { _ in }

    public private(set) var flipsCompleted = 0
    /// vblanks (or pacing periods) skipped between consecutive flips.
    public private(set) var missedVblanks = 0

    private let card: DRMCard
    private let options: Options
    private let epoll: Epoll
    private let pacer: TimerFD
    private let masterRetry: TimerFD
    private let uevents: UEventMonitor?
    private let sink = FlipSink()
    private var eventContext = drmEventContext()
    private var state: State
    private var buffers: [ScanoutBuffer] = [] {
        didSet { damage = ScanoutDamage(bufferCount: buffers.count, bounds: IntRect(x0: 0, y0: 0, x1: width, y1: height)) }
    }
    /// What each buffer lacks of the newest frame.
    private var damage = ScanoutDamage(bufferCount: 1, bounds: IntRect(x0: 0, y0: 0, x1: 0, y1: 0))
    /// The shift of the framebuffer on screen (or flipping to it).
    private var shownShift = ScanoutShift.zero
    private var front = 0
    private var pendingFlip: Int?
    private var connectorID: UInt32 = 0
    private var crtcID: UInt32 = 0
    private var mode: DRMMode?
    private var saved: DRMCrtcState?
    private var atomicEnabled = false
    private var atomicPipe: AtomicPipe?
    private var didModeset = false
    private var queuedEvents: [DisplayEvent] = []
    private var lastSequence: UInt64?
    // Timer pacing: ticks at anchor + k·period stand in for vblanks.
    private var pacerArmed = false
    private var pacerAnchor: UInt64 = 0
    private var ticksSinceAnchor: UInt64 = 0
    private var tickSequence: UInt64 = 0
    private var lastTickNanos: UInt64 = 0
    private var awaitingTickAfter: UInt64?

    /// Opens the card and lights the output with a black frame.
    public init(options: Options = Options(), log: @escaping (String) -> Void = { _ in }) throws(DisplayError) {
        self.options = options
        self.log = log
        let card: DRMCard
        if let path = options.devicePath {
            card = try DRMCard(path: path)
        } else {
            var found: DRMCard?
            for path in DRMCardFinder.cardPaths() {
                guard let candidate = try? DRMCard(path: path), let conns = try? candidate.resources().connectors else { continue }
                // A named connector (`[display] connector = HDMI-A-1`) picks the card that has it.
                if conns.contains(where: {
                    guard let c = candidate.connector($0), c.status == .connected else { return false }
                    return options.connectorName.map { $0 == c.name } ?? true
                }) { found = candidate; break }
            }
            guard let found else {
                throw DisplayError(.noDisplay, device: "/dev/dri", operation: "find a card with a connected output",
                                   detail: DRMCardFinder.cardPaths().isEmpty ? "no /dev/dri/card* devices" : "nothing connected")
            }
            card = found
        }
        self.card = card
        guard card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0 else {
            throw card.error("DRM_CAP_DUMB_BUFFER", nil, .unsupported, detail: "driver \(card.driverName) has no dumb buffers")
        }
        do {
            epoll = try Epoll()
            pacer = try TimerFD()
            masterRetry = try TimerFD()
            try epoll.add(card.fd, events: .readable, token: Token.drm.rawValue)
            try epoll.add(pacer.descriptor.rawValue, events: .readable, token: Token.pacer.rawValue)
            try epoll.add(masterRetry.descriptor.rawValue, events: .readable, token: Token.masterRetry.rawValue)
        } catch {
            throw card.error("epoll/timerfd setup", error)
        }
        // Hotplug is optional: sandboxes may forbid netlink sockets.
        uevents = try? UEventMonitor(subsystems: ["drm"])
        if let uevents { try? epoll.add(uevents.descriptor.rawValue, events: .readable, token: Token.uevent.rawValue) }
        // Atomic implies universal planes: from here on the plane list includes the primary planes.
        atomicEnabled = !options.legacyOnly && card.enableClientCapability(DRM_CLIENT_CAP_ATOMIC)
        eventContext.version = 2  // enough for page_flip_handler (atomic flip events use it too)
        eventContext.page_flip_handler = pageFlipHandler
        width = options.mode?.width ?? 1024
        height = options.mode?.height ?? 768
        refreshHz = options.mode?.refreshHz ?? 60
        state = .noOutput

        guard let output = try chooseOutput() else {
            if options.waitForOutput && uevents != nil { return }
            throw card.error("find a connected connector", nil, .noDisplay)
        }
        try adopt(output)
        if card.becomeMaster() {
            try modeset()
        } else {
            state = .noMaster
            log("\(card.path): another process is DRM master; waiting for it to let go")
            try? masterRetry.arm(initial: .seconds(1), interval: .seconds(1))
        }
    }

    deinit { shutdown() }

    public var pollDescriptor: CInt? { epoll.descriptor.rawValue }

    public var canPresent: Bool { state == .running && pendingFlip == nil && awaitingTickAfter == nil }

    // MARK: - Presenting

    public func present(_ frame: PixelBuffer, damage frameDamage: [IntRect], shift requested: ScanoutShift) throws(DisplayError) -> Int {
        guard frame.width == width, frame.height == height else {
            throw card.error("present", nil, .invalidRequest,
                             detail: "frame is \(frame.width)x\(frame.height), mode is \(width)x\(height)")
        }
        let limit = scanoutShiftLimit
        guard abs(requested.dx) <= limit, abs(requested.dy) <= limit else {
            throw card.error("present", nil, .invalidRequest, detail: "shift \(requested.dx),\(requested.dy) beyond the margin \(limit)")
        }
        guard state == .running else {
            // Nothing on screen to update; the buffers remember what they lack.
            damage.note(frameDamage)
            return 0
        }
        guard pendingFlip == nil, awaitingTickAfter == nil else {
            throw card.error("present", nil, .invalidRequest, detail: "a flip is still pending; wait for canPresent")
        }
        let shift = limit > 0 ? requested : .zero
        let bounds = IntRect(x0: 0, y0: 0, x1: width, y1: height)
        let changed = DamageRegion(frameDamage, bounds: bounds)
        // Nothing new to draw (a burn-in step of a still picture): show the front buffer again,
        // moved; copying into the back buffer what it lacks would be work for nothing.
        let back = usesDirtyFramebuffer || (changed.isEmpty && damage.missing(in: front).isEmpty) ? front : 1 - front
        let region = damage.write(changed.rects, into: back)
        var bytes = buffers[back].update(from: frame, region: region)
        if limit > 0 { bytes += buffers[back].fillMargins(shift.fill) }
        let framebuffer: UInt32
        do { framebuffer = try buffers[back].framebuffer(for: shift) } catch {
            throw card.error("drmModeAddFB2 (shifted)", error, detail: "shift \(shift.dx),\(shift.dy)")
        }
        if usesDirtyFramebuffer {
            if !shift.sameOffset(as: shownShift) {
                try setCrtcForDirty(framebuffer)
                shownShift = shift
                _ = card.markDirty(framebuffer, .full(bounds))
            } else {
                _ = card.markDirty(framebuffer, Self.translate(region, by: shift, within: bounds))
            }
            waitForTick()
            return bytes
        }
        // On screen only this frame's damage differs from the last one, unless the picture moved.
        let clips: DamageRegion? = shift.sameOffset(as: shownShift) ? Self.translate(changed, by: shift, within: bounds) : nil
        do {
            let userData = Unmanaged.passUnretained(sink).toOpaque()
            if let pipe = atomicPipe {
                do {
                    try card.atomicFlip(pipe, framebuffer: framebuffer, damage: clips, userData: userData)
                } catch .invalidArgument {
                    log("\(card.path): atomic flip rejected (EINVAL); using legacy page flips")
                    atomicPipe = nil
                    try card.pageFlip(crtcID, framebuffer: framebuffer, userData: userData)
                }
            } else {
                try card.pageFlip(crtcID, framebuffer: framebuffer, userData: userData)
            }
            pendingFlip = back
            shownShift = shift
            if pacedByTimer { waitForTick() }
            return bytes
        } catch {
            switch error {
            case .permissionDenied, .notPermitted:
                loseMaster()
            case .noMemory, .noSpace:
                // Video memory too small for two buffers of this mode (bochs' 16 MB at 1080p, next
                // to the console's): keep the one on screen, draw into it, tell the driver what changed.
                log("\(card.path): no video memory for a second \(width)x\(height) buffer (\(error)); drawing single-buffered")
                let keep = buffers[front]
                buffers = [keep]
                front = 0
                usesDirtyFramebuffer = true
                startTimerPacing(reason: "single-buffered")
                _ = damage.write([], into: 0)
                bytes += keep.update(from: frame, region: .full(bounds))
                let fb = (try? keep.framebuffer(for: shift)) ?? keep.framebufferID
                if !shift.sameOffset(as: shownShift) { try setCrtcForDirty(fb) }
                shownShift = shift
                _ = card.markDirty(fb, .full(bounds))
                waitForTick()
                return bytes
            case .invalidArgument, .notSupported, .notImplemented:
                // No page flip in this driver (some shadow-buffered ones): set the frame directly
                // and tell the driver what changed, paced by the timer from now on.
                log("\(card.path): page flip unsupported (\(error)); using modeset + DIRTYFB")
                usesDirtyFramebuffer = true
                pacedByTimer = true
                try setCrtcForDirty(framebuffer)
                front = back
                shownShift = shift
                _ = card.markDirty(framebuffer, .full(bounds))
                waitForTick()
                return bytes
            default:
                throw card.error("drmModePageFlip", error)
            }
            return bytes
        }
    }

    /// The single-buffered path shows a framebuffer by setting the CRTC to it.
    private func setCrtcForDirty(_ framebuffer: UInt32) throws(DisplayError) {
        guard let mode else { return }
        do { try card.setCrtc(crtcID, framebuffer: framebuffer, connector: connectorID, mode: mode) } catch {
            throw card.error("drmModeSetCrtc", error)
        }
    }

    /// Damage of the picture as the framebuffer showing it moved by `shift` sees it.
    static func translate(_ region: DamageRegion, by shift: ScanoutShift, within bounds: IntRect) -> DamageRegion {
        DamageRegion(region.rects.map { IntRect(x0: $0.x0 + shift.dx, y0: $0.y0 + shift.dy, x1: $0.x1 + shift.dx, y1: $0.y1 + shift.dy) },
                     bounds: bounds)
    }

    // MARK: - Events

    public func handleReadable() -> [DisplayEvent] {
        var out = queuedEvents
        queuedEvents.removeAll()
        guard state != .shutDown, let ready = try? epoll.wait(timeout: .zero) else { return out }
        for event in ready {
            switch Token(rawValue: event.token) {
            case .drm: out += handleDRMEvents()
            case .pacer: out += handlePacerTick()
            case .masterRetry: out += retryMaster()
            case .uevent: out += handleUEvents()
            case nil: break
            }
        }
        out += queuedEvents
        queuedEvents.removeAll()
        return out
    }

    private func handleDRMEvents() -> [DisplayEvent] {
        _ = drmHandleEvent(card.fd, &eventContext)
        var out: [DisplayEvent] = []
        for completion in sink.completions {
            guard let flipped = pendingFlip else { continue }
            front = flipped
            pendingFlip = nil
            let sequence = UInt64(completion.sequence)
            if !pacedByTimer, sequence == 0 || sequence == lastSequence {
                // The counter does not advance: a driver without vblank that flips at once.
                startTimerPacing(reason: "flip events carry no vblank sequence")
                waitForTick()
            }
            if pacedByTimer {
                out += completeIfTicked(flipNanos: completion.nanos)
            } else {
                out.append(complete(sequence: sequence, nanos: completion.nanos))
            }
        }
        sink.completions.removeAll()
        return out
    }

    private func complete(sequence: UInt64, nanos: UInt64) -> DisplayEvent {
        if let last = lastSequence, sequence > last + 1 { missedVblanks += Int(sequence - last - 1) }
        lastSequence = sequence
        flipsCompleted += 1
        return .flipCompleted(vblankNanos: nanos, sequence: sequence)
    }

    // MARK: - Timer pacing (drivers without vblank)

    private var periodNanos: UInt64 { UInt64(1e9 / max(1, refreshHz)) }

    private func startTimerPacing(reason: String) {
        guard !pacedByTimer else { return }
        pacedByTimer = true
        log("\(card.path) (\(card.driverName)): \(reason); pacing flips with a timer at \(ModeRequest.formatHz(refreshHz)) Hz")
    }

    /// Marks the frame just queued as shown at the next pacing tick, arming the timer if idle.
    private func waitForTick() {
        awaitingTickAfter = tickSequence
        guard !pacerArmed else { return }
        pacerAnchor = MonotonicClock.now() + periodNanos
        ticksSinceAnchor = 0
        if (try? pacer.arm(atMonotonicNanos: pacerAnchor, intervalNanos: periodNanos)) != nil { pacerArmed = true }
    }

    private func handlePacerTick() -> [DisplayEvent] {
        let n = (try? pacer.readExpirations()) ?? 0
        guard n > 0 else { return [] }
        ticksSinceAnchor += n
        tickSequence += n
        lastTickNanos = pacerAnchor + (ticksSinceAnchor - 1) * periodNanos
        let out = completeIfTicked(flipNanos: nil)
        if out.isEmpty && awaitingTickAfter == nil && pendingFlip == nil {
            // A whole period with nothing to show: stop the timer so an idle display costs no
            // wakeups. (After a completion it stays armed: the next frame usually follows at once,
            // and re-anchoring then would stretch every period by the render time.)
            try? pacer.disarm()
            pacerArmed = false
        }
        return out
    }

    private func completeIfTicked(flipNanos: UInt64?) -> [DisplayEvent] {
        guard let after = awaitingTickAfter, pendingFlip == nil, tickSequence > after else { return [] }
        awaitingTickAfter = nil
        return [complete(sequence: tickSequence, nanos: max(lastTickNanos, flipNanos ?? 0))]
    }

    // MARK: - Hotplug

    private func handleUEvents() -> [DisplayEvent] {
        guard let events = try? uevents?.readEvents() else { return [] }
        let cardName = String(card.path.split(separator: "/").last ?? "")
        guard events.contains(where: { $0.deviceName == "dri/" + cardName || $0.devicePath.hasSuffix("/" + cardName) }) else {
            return []
        }
        switch state {
        case .running, .noMaster:
            if card.connector(connectorID)?.status == .connected { return [] }
            log("\(card.path): \(connectorName) disconnected")
            state = .noOutput
            resetFlipState()
            return [.connectorLost]
        case .noOutput:
            guard let output = try? chooseOutput() else { return [] }
            do {
                try adopt(output)
                guard card.becomeMaster() else {
                    state = .noMaster
                    try? masterRetry.arm(initial: .seconds(1), interval: .seconds(1))
                    return []
                }
                try modeset()
            } catch {
                log("\(error)")
                return []
            }
            log("\(card.path): \(connectorName) connected, \(modeDescription)")
            return [.connectorReturned]
        case .shutDown:
            return []
        }
    }

    private func resetFlipState() {
        pendingFlip = nil
        awaitingTickAfter = nil
        sink.completions.removeAll()
        try? pacer.disarm()
        pacerArmed = false
    }

    // MARK: - DRM master

    private func loseMaster() {
        guard state == .running else { return }
        state = .noMaster
        resetFlipState()
        log("\(card.path): lost DRM master; presenting stops until it comes back")
        queuedEvents.append(.masterLost)
        // Fire almost at once so the caller hears of the loss, then poll once a second.
        try? masterRetry.arm(initial: .milliseconds(1), interval: .seconds(1))
    }

    private func retryMaster() -> [DisplayEvent] {
        _ = try? masterRetry.readExpirations()
        guard state == .noMaster, !heldBack, card.becomeMaster() else { return [] }
        try? masterRetry.disarm()
        // If we never lit the CRTC, what it shows now (the console, restored by the previous
        // master) is what to give back at exit, not what the previous master was showing at start.
        if !didModeset { saved = card.crtcState(crtcID) }
        do {
            try modeset()
        } catch {
            // Master, yet the modeset failed: someone else may still be driving it; keep trying.
            state = .noMaster
            try? masterRetry.arm(initial: .seconds(1), interval: .seconds(1))
            return []
        }
        log("\(card.path): DRM master regained")
        return [.masterRegained]
    }

    public private(set) var panelQuarterTurns = 0

    /// DPMS through the connector's property (atomic drivers map it to the CRTC's ACTIVE): the
    /// panel goes dark and its backlight off, which a black frame cannot do.
    public func setPowered(_ on: Bool) -> Bool {
        guard state == .running else { return false }
        // A flip in flight would complete into a powered-down CRTC: let it land first.
        let deadline = MonotonicClock.now() + 500_000_000
        while pendingFlip != nil, MonotonicClock.now() < deadline {
            var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 50) > 0 { queuedEvents.append(contentsOf: handleDRMEvents()) }
        }
        guard let dpms = card.properties(of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))["DPMS"] else {
            return false
        }
        let value = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        let result = drmModeConnectorSetProperty(card.fd, connectorID, dpms.id, value)
        if result != 0 {
            log("\(card.path): DPMS \(on ? "on" : "off") failed: \(Errno(rawValue: -result))")
            return false
        }
        resetFlipState()
        return true
    }

    /// Gives up master voluntarily (our VT is switched away) and stays away until ``resume()``:
    /// nothing is presented and no retry takes the screen from whoever has it now.
    public func suspend() {
        heldBack = true
        try? masterRetry.disarm()
        guard state == .running else { return }
        resetFlipState()
        card.dropMaster()
        // No .masterLost: the caller asked for this and knows; it hears .masterRegained after resume().
        state = .noMaster
    }

    /// Takes the display back after ``suspend()`` (our VT is on screen again): master at once,
    /// then `.masterRegained` and a full frame.
    public func resume() {
        guard heldBack else { return }
        heldBack = false
        if state == .noMaster { try? masterRetry.arm(initial: .milliseconds(1), interval: .seconds(1)) }
    }

    /// Set between ``suspend()`` and ``resume()``.
    private var heldBack = false

    // MARK: - Output selection and modeset

    private struct Output { var connector: DRMConnector; var crtc: UInt32; var mode: DRMMode }

    private func chooseOutput() throws(DisplayError) -> Output? {
        let res = try card.resources()
        for id in res.connectors {
            guard let c = card.connector(id), c.status == .connected, !c.modes.isEmpty else { continue }
            if let wanted = options.connectorName, wanted != c.name { continue }
            guard let crtc = card.crtc(for: c, crtcs: res.crtcs) else { continue }
            let mode: DRMMode
            if let request = options.mode {
                let sameSize = c.modes.filter { $0.width == request.width && $0.height == request.height }
                let best = sameSize.min {
                    abs($0.refreshHz - (request.refreshHz ?? 60)) < abs($1.refreshHz - (request.refreshHz ?? 60))
                }
                guard let best, request.refreshHz.map({ abs(best.refreshHz - $0) < 1 }) ?? true else {
                    let available = c.modes.map { "\($0.width)x\($0.height)@\(ModeRequest.formatHz($0.refreshHz))" }
                    throw card.error("choose mode", nil, .unsupported,
                                     detail: "\(c.name) has no mode \(request); it has \(available.joined(separator: ", "))")
                }
                mode = best
            } else {
                mode = c.modes.first(where: \.isPreferred) ?? c.modes[0]
            }
            return Output(connector: c, crtc: crtc, mode: mode)
        }
        return nil
    }

    /// Takes over an output: remembers its CRTC's state for the restore, makes buffers of its size.
    private func adopt(_ output: Output) throws(DisplayError) {
        if saved == nil || saved?.crtcID != output.crtc { saved = card.crtcState(output.crtc) }
        connectorID = output.connector.id
        connectorName = output.connector.name
        // "Right Side Up": the panel's right edge is up, so the picture's top must point there.
        switch OutputsReport.panelOrientation(card, output.connector.id) {
        case "Right Side Up": panelQuarterTurns = 1
        case "Upside Down": panelQuarterTurns = 2
        case "Left Side Up": panelQuarterTurns = 3
        default: panelQuarterTurns = 0
        }
        crtcID = output.crtc
        mode = output.mode
        refreshHz = output.mode.refreshHz
        atomicPipe = nil
        if atomicEnabled, let index = card.crtcIndex(output.crtc) {
            atomicPipe = card.atomicPipe(connector: output.connector.id, crtc: output.crtc, crtcIndex: index)
        }
        if buffers.isEmpty || width != output.mode.width || height != output.mode.height {
            buffers = []
            width = output.mode.width
            height = output.mode.height
            try makeBuffers()
        }
    }

    /// Two buffers of the mode's size, with room for the burn-in shift around the picture when the
    /// driver takes framebuffers that start inside a buffer; without, the caller moves the pixels.
    private func makeBuffers() throws(DisplayError) {
        // bochs-drm turns a framebuffer's start into the VGA's x/y offset registers, and QEMU clamps
        // the x offset to (virtual width − width): a start inside a wider buffer lands rows away
        // (seen in the VM: the picture 6 rows low). It gets the copy.
        let startsMisplaced = ["bochs-drm"].contains(card.driverName)
        let margin = startsMisplaced ? 0 : options.shiftMargin
        if startsMisplaced && options.shiftMargin > 0 {
            log("\(card.path) (\(card.driverName)): framebuffers starting inside a buffer are shown misplaced; burn-in shift copies the picture")
        }
        if margin > 0 {
            var made: [ScanoutBuffer] = []
            var problem: String?
            for _ in 0..<2 where problem == nil {
                do { made.append(try ScanoutBuffer(card: card, width: width, height: height, margin: margin)) } catch {
                    problem = "no room for larger buffers (\(error))"
                }
            }
            if problem == nil {
                // The farthest corners: a driver that refuses framebuffers at an offset says so here.
                do {
                    _ = try made[0].framebuffer(for: ScanoutShift(dx: margin, dy: margin))
                    _ = try made[0].framebuffer(for: ScanoutShift(dx: -margin, dy: -margin))
                } catch {
                    problem = "framebuffers at an offset refused (\(error))"
                }
            }
            if problem == nil {
                buffers = made
                log("\(card.path): burn-in shift up to \(margin) px moves the scanout (framebuffer offset), copying nothing")
                return
            }
            log("\(card.path): \(problem ?? ""); burn-in shift copies the picture")
        }
        var made: [ScanoutBuffer] = []
        for _ in 0..<2 { made.append(try ScanoutBuffer(card: card, width: width, height: height)) }
        buffers = made
    }

    /// Lights the CRTC with a black buffer; every buffer then needs a full frame.
    private func modeset() throws(DisplayError) {
        guard let mode else { return }
        resetFlipState()
        buffers[0].clear()
        damage.invalidateAll()
        shownShift = .zero
        if let pipe = atomicPipe {
            do {
                try card.atomicModeset(pipe, mode: mode, framebuffer: buffers[0].framebufferID)
            } catch {
                if error == .permissionDenied || error == .notPermitted {
                    throw card.error("atomic modeset", error, detail: "\(connectorName) \(modeDescription)")
                }
                log("\(card.path): atomic modeset failed (\(error)); using the legacy API")
                atomicPipe = nil
            }
        }
        if usesDamageClips && !didModeset { log("\(card.path): flips carry FB_DAMAGE_CLIPS (the damaged rectangles)") }
        if atomicPipe == nil {
            do {
                try card.setCrtc(crtcID, framebuffer: buffers[0].framebufferID, connector: connectorID, mode: mode)
            } catch {
                throw card.error("drmModeSetCrtc", error, detail: "\(connectorName) \(modeDescription)")
            }
        }
        front = 0
        didModeset = true
        state = .running
        lastSequence = nil
        if options.forceTimerPacing {
            startTimerPacing(reason: "timer pacing requested")
        } else if !pacedByTimer, let index = card.crtcIndex(crtcID), !card.vblankCounterWorks(crtcIndex: index) {
            startTimerPacing(reason: "driver has no vblank counter")
        }
    }

    // MARK: - Shutdown

    /// Waits (at most 1 s) for a flip in flight, restores the CRTC as found, frees the buffers.
    public func shutdown() {
        guard state != .shutDown else { return }
        let deadline = MonotonicClock.now() + 1_000_000_000
        while pendingFlip != nil, MonotonicClock.now() < deadline {
            var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 100) > 0 { _ = handleDRMEvents() }
        }
        if didModeset, state == .running, let saved {
            do {
                try card.restore(saved, connector: connectorID)
            } catch {
                log("\(card.path): restoring CRTC \(saved.crtcID) failed: \(error)")
            }
        }
        state = .shutDown
        try? pacer.disarm()
        buffers = []
    }

    /// What the CRTC shows now (framebuffer id), for diagnostics: after ``shutdown()`` it is the
    /// console's framebuffer again (or 0 if the CRTC was off).
    public var crtcFramebufferID: UInt32? { card.crtcState(crtcID)?.framebufferID }
    /// The framebuffer the CRTC showed before we took it.
    public var savedFramebufferID: UInt32? { saved?.framebufferID }
}
