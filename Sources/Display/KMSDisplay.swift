import CDRM
import DisplayModel
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

/// A KMS/DRM display: one connector, one CRTC, two XRGB8888 dumb buffers. How frames reach the
/// CRTC is a `KMSCommitter` (atomic commits, legacy SetCrtc + PageFlip, or SetCrtc + DIRTYFB),
/// chosen once when the output is adopted from what the device offers; when they are on screen is
/// a `FramePacer` (the vblank events, or a timerfd at the mode's rate on drivers without one).
/// Where the primary plane has a `rotation` property, the picture can be turned by the plane
/// instead of by a rotated copy (``rotateScanout(quarterTurns:)``).
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
    /// How frames reach the CRTC (atomic until an output is adopted on a device that takes it).
    public var commitPath: KMSCommitPath { committer?.path ?? initialPath.path }
    /// True when the driver has no usable vblank counter and flips are paced by a timer.
    public var pacedByTimer: Bool { pacer.source == .timer }
    /// `vblank` or `timer`, for display-check, the log and the status file.
    public var pacingMethod: String { pacedByTimer ? "timer" : "vblank" }
    public var presentMethod: String { commitPath.rawValue }
    /// Only a KMS output competes with the console and other sessions for the screen.
    public var needsVirtualTerminal: Bool { true }
    /// True when flips carry FB_DAMAGE_CLIPS (atomic, and the plane has the property).
    public var usesDamageClips: Bool { commitPath == .atomic && (committer?.sendsDamage ?? false) }
    /// Room around the picture in the buffers: a burn-in shift up to this far copies nothing.
    public var scanoutShiftLimit: Int { buffers.first?.margin ?? 0 }
    public var shiftMethod: String { scanoutShiftLimit > 0 ? "fb-offset" : "copy" }
    /// Clockwise quarter turns the primary plane can apply (0 always).
    public var scanoutQuarterTurns: Set<Int> { committer?.scanoutQuarterTurns ?? [0] }
    /// The plane's turn in use: frames are presented at the mode's size turned back by it.
    public private(set) var scanoutRotation = 0
    /// Informational messages (pacing choice, master changes); the daemon routes them to its log.
    public var log: (String) -> Void = { _ in }

    public var flipsCompleted: Int { pacer.completed }
    /// vblanks (or pacing periods) skipped between consecutive flips.
    public var missedVblanks: Int { pacer.missedVblanks }

    private let card: DRMCard
    private let options: Options
    private let epoll: Epoll
    private let pacingTimer: PacingTimer
    private var pacer: FramePacer
    private let masterRetry: TimerFD
    private let uevents: UEventMonitor?
    private let sink = FlipSink()
    private var eventContext = drmEventContext()
    private var state: State
    private var capabilities: KMSDeviceCapabilities
    private var committer: KMSCommitter?
    private var initialPath: (path: KMSCommitPath, reason: String)
    private var announcedPath: KMSCommitPath?
    private var layout: PlaneLayout {
        PlaneLayout(modeWidth: width, modeHeight: height, quarterTurns: scanoutRotation)
    }
    private var buffers: [ScanoutBuffer] = [] {
        didSet {
            damage = ScanoutDamage(bufferCount: buffers.count,
                                   bounds: IntRect(x0: 0, y0: 0, x1: layout.sourceWidth, y1: layout.sourceHeight))
        }
    }
    /// What each buffer lacks of the newest frame.
    private var damage = ScanoutDamage(bufferCount: 1, bounds: IntRect(x0: 0, y0: 0, x1: 0, y1: 0))
    /// The shift of the framebuffer on screen (or flipping to it).
    private var shownShift = ScanoutShift.zero
    private var front = 0
    /// The buffer a flip in flight shows when its event comes.
    private var pendingFlip: Int?
    private var connectorID: UInt32 = 0
    private var crtcID: UInt32 = 0
    private var mode: DRMMode?
    private var saved: DRMCrtcState?
    private var didModeset = false
    private var queuedEvents: [DisplayEvent] = []

    /// Opens the card and lights the output with a black frame.
    public init(options: Options = Options(), log: @escaping (String) -> Void = { _ in }) throws(DisplayError) {
        self.options = options
        self.log = log
        let card: DRMCard
        if let path = options.devicePath {
            card = try DRMCard(path: path)
        } else {
            // The card with a connected output, never a render-only one (CardChoice.swift).
            let choice = DRMCardFinder.choose(connector: options.connectorName)
            guard case .use(let path, _) = choice else {
                throw DisplayError(.noDisplay, device: "/dev/dri", operation: "find a card with a connected output", detail: choice.reason)
            }
            card = try DRMCard(path: path)
        }
        self.card = card
        guard card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0 else {
            throw card.error("DRM_CAP_DUMB_BUFFER", nil, .unsupported, detail: "driver \(card.driverName) has no dumb buffers")
        }
        do {
            epoll = try Epoll()
            pacingTimer = try PacingTimer()
            masterRetry = try TimerFD()
            try epoll.add(card.fd, events: .readable, token: Token.drm.rawValue)
            try epoll.add(pacingTimer.descriptor, events: .readable, token: Token.pacer.rawValue)
            try epoll.add(masterRetry.descriptor.rawValue, events: .readable, token: Token.masterRetry.rawValue)
        } catch {
            throw card.error("epoll/timerfd setup", error)
        }
        // Hotplug is optional: sandboxes may forbid netlink sockets.
        uevents = try? UEventMonitor(subsystems: ["drm"])
        if let uevents { try? epoll.add(uevents.descriptor.rawValue, events: .readable, token: Token.uevent.rawValue) }
        // Atomic implies universal planes: from here on the plane list includes the primary planes.
        let atomicCap = !options.legacyOnly && card.enableClientCapability(DRM_CLIENT_CAP_ATOMIC)
        capabilities = KMSDeviceCapabilities(atomicClientCap: atomicCap, atomicPipe: false, legacyRequested: options.legacyOnly)
        initialPath = KMSCommitChoice.initial(capabilities)
        eventContext.version = 2  // enough for page_flip_handler (atomic flip events use it too)
        eventContext.page_flip_handler = pageFlipHandler
        width = options.mode?.width ?? 1024
        height = options.mode?.height ?? 768
        refreshHz = options.mode?.refreshHz ?? 60
        pacer = FramePacer(refreshHz: refreshHz)
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

    public var canPresent: Bool { state == .running && pendingFlip == nil && pacer.canPresent }

    // MARK: - Presenting

    public func present(_ frame: PixelBuffer, damage frameDamage: [IntRect], shift requested: ScanoutShift) throws(DisplayError) -> Int {
        let layout = self.layout
        guard frame.width == layout.sourceWidth, frame.height == layout.sourceHeight else {
            throw card.error("present", nil, .invalidRequest,
                             detail: "frame is \(frame.width)x\(frame.height), the scanout takes \(layout.sourceWidth)x\(layout.sourceHeight)")
        }
        let limit = scanoutShiftLimit
        guard abs(requested.dx) <= limit, abs(requested.dy) <= limit else {
            throw card.error("present", nil, .invalidRequest, detail: "shift \(requested.dx),\(requested.dy) beyond the margin \(limit)")
        }
        guard state == .running, let committer else {
            // Nothing on screen to update; the buffers remember what they lack.
            damage.note(frameDamage)
            return 0
        }
        guard canPresent else {
            throw card.error("present", nil, .invalidRequest, detail: "a flip is still pending; wait for canPresent")
        }
        let shift = limit > 0 ? requested : .zero
        let bounds = IntRect(x0: 0, y0: 0, x1: layout.sourceWidth, y1: layout.sourceHeight)
        let changed = DamageRegion(frameDamage, bounds: bounds)
        let singleBuffered = committer.path == .dirtyFramebuffer
        // Nothing new to draw (a burn-in step of a still picture): show the front buffer again,
        // moved; copying into the back buffer what it lacks would be work for nothing.
        let back = singleBuffered || (changed.isEmpty && damage.missing(in: front).isEmpty) ? front : 1 - front
        let region = damage.write(changed.rects, into: back)
        var bytes = buffers[back].update(from: frame, region: region)
        if limit > 0 { bytes += buffers[back].fillMargins(shift.fill) }
        let framebuffer: UInt32
        do { framebuffer = try buffers[back].framebuffer(for: shift) } catch {
            throw card.error("drmModeAddFB2 (shifted)", error, detail: "shift \(shift.dx),\(shift.dy)")
        }
        // On screen only this frame's damage differs from the last one, unless the picture moved
        // (single-buffered: what was just copied, backlog included).
        let clips = shift.sameOffset(as: shownShift)
            ? Self.translate(singleBuffered ? region : changed, by: shift, within: bounds) : nil
        do {
            try show(framebuffer, damage: clips, from: back, shift: shift)
        } catch {
            if error == .permissionDenied || error == .notPermitted {
                loseMaster()
                return bytes
            }
            guard let next = KMSCommitChoice.fallback(from: committer.path, flip: true, error: error) else {
                throw card.error(committer.path == .atomic ? "atomic flip" : committer.path == .legacy ? "drmModePageFlip"
                                 : "drmModeSetCrtc/DirtyFB", error)
            }
            log("\(card.path): \(next.reason); commit path \(committer.path.rawValue) -> \(next.path.rawValue)")
            if next.path == .dirtyFramebuffer {
                bytes += try becomeSingleBuffered(frame, shift: shift)
            } else {
                switchCommitter(to: next.path)
                do { try show(framebuffer, damage: clips, from: back, shift: shift) } catch {
                    if error == .permissionDenied || error == .notPermitted { loseMaster(); return bytes }
                    guard KMSCommitChoice.fallback(from: next.path, flip: true, error: error)?.path == .dirtyFramebuffer else {
                        throw card.error("drmModePageFlip", error)
                    }
                    log("\(card.path): page flip failed too (\(error)); commit path \(next.path.rawValue) -> dirtyfb")
                    bytes += try becomeSingleBuffered(frame, shift: shift)
                }
            }
        }
        return bytes
    }

    /// Hands `framebuffer` (buffer `index`) to the committer and tells the pacer.
    private func show(_ framebuffer: UInt32, damage: DamageRegion?, from index: Int, shift: ScanoutShift) throws(Errno) {
        guard let committer else { return }
        let userData = Unmanaged.passUnretained(sink).toOpaque()
        let event = try committer.show(framebuffer: framebuffer, damage: damage, userData: userData)
        if event { pendingFlip = index } else { front = index }
        shownShift = shift
        pacingTimer.apply(pacer.presented(at: MonotonicClock.now(), flipEvent: event), to: &pacer)
    }

    /// No page flips on this device (or no room for a second buffer): keep the buffer on screen,
    /// draw the whole frame into it, and tell the driver what changed from now on, timer-paced.
    private func becomeSingleBuffered(_ frame: PixelBuffer, shift: ScanoutShift) throws(DisplayError) -> Int {
        let keep = buffers[front]
        buffers = [keep]
        front = 0
        switchCommitter(to: .dirtyFramebuffer)
        startTimerPacing(reason: "single-buffered (modeset + DIRTYFB)")
        let region = damage.write([], into: 0)
        var bytes = keep.update(from: frame, region: region)
        if keep.margin > 0 { bytes += keep.fillMargins(shift.fill) }
        let fb = (try? keep.framebuffer(for: shift)) ?? keep.framebufferID
        do { try show(fb, damage: nil, from: 0, shift: shift) } catch {
            if error == .permissionDenied || error == .notPermitted { loseMaster(); return bytes }
            throw card.error("drmModeSetCrtc", error)
        }
        return bytes
    }

    /// Damage of the picture as the framebuffer showing it moved by `shift` sees it.
    static func translate(_ region: DamageRegion, by shift: ScanoutShift, within bounds: IntRect) -> DamageRegion {
        DamageRegion(region.rects.map { IntRect(x0: $0.x0 + shift.dx, y0: $0.y0 + shift.dy, x1: $0.x1 + shift.dx, y1: $0.y1 + shift.dy) },
                     bounds: bounds)
    }

    // MARK: - Commit paths

    /// The committer for `path` on the adopted output (nil before one).
    private func makeCommitter(_ path: KMSCommitPath) -> KMSCommitter? {
        guard let mode else { return nil }
        switch path {
        case .atomic:
            guard let index = card.crtcIndex(crtcID),
                  let pipe = card.atomicPipe(connector: connectorID, crtc: crtcID, crtcIndex: index) else { return nil }
            return AtomicCommitter(card: card, pipe: pipe, mode: mode)
        case .legacy:
            return LegacyCommitter(card: card, crtc: crtcID, connector: connectorID, mode: mode)
        case .dirtyFramebuffer:
            return DirtyFramebufferCommitter(card: card, crtc: crtcID, connector: connectorID, mode: mode)
        }
    }

    private func switchCommitter(to path: KMSCommitPath) {
        committer = makeCommitter(path) ?? LegacyCommitter(card: card, crtc: crtcID, connector: connectorID, mode: mode!)
        announcedPath = committer?.path
    }

    // MARK: - Rotation by the plane

    /// Turns the picture by the primary plane's `rotation` (clockwise quarter turns) from now on:
    /// frames are then presented unturned, at the mode's size with width and height swapped for
    /// odd turns, and burn-in offsets stay in the picture's axes. The driver is asked first (a
    /// test-only commit); false when the plane cannot (then nothing changes and the caller turns
    /// the pixels). The next present copies a whole frame.
    public func rotateScanout(quarterTurns: Int) -> Bool {
        let turns = ((quarterTurns % 4) + 4) % 4
        if turns == scanoutRotation { return true }
        guard state == .running, let committer, committer.scanoutQuarterTurns.contains(turns), let mode else { return false }
        let wanted = PlaneLayout(modeWidth: mode.width, modeHeight: mode.height, quarterTurns: turns)
        let old = buffers, oldTurns = scanoutRotation
        waitForFlip(timeoutNanos: 500_000_000)
        scanoutRotation = turns
        buffers = []
        do { try makeBuffers(quiet: true) } catch {
            log("\(card.path): no buffers for the turned picture (\(error)); rotation by copy")
            scanoutRotation = oldTurns
            buffers = old
            return false
        }
        guard committer.test(framebuffer: buffers[0].framebufferID, layout: wanted) else {
            log("\(card.path): the plane refuses rotation \(turns * 90)° (test commit); rotation by copy")
            scanoutRotation = oldTurns
            buffers = old
            damage.invalidateAll()
            return false
        }
        do { try modeset() } catch {
            log("\(card.path): modeset with the plane turned \(turns * 90)° failed (\(error)); rotation by copy")
            scanoutRotation = oldTurns
            buffers = old
            try? modeset()
            return false
        }
        log("\(card.path): rotation \(turns * 90)° by the plane (rotation property)")
        return true
    }

    // MARK: - Events

    public func handleReadable() -> [DisplayEvent] {
        var out = queuedEvents
        queuedEvents.removeAll()
        guard state != .shutDown, let ready = try? epoll.wait(timeout: .zero) else { return out }
        for event in ready {
            switch Token(rawValue: event.token) {
            case .drm: out += handleDRMEvents()
            case .pacer:
                if let done = pacingTimer.expired(&pacer) { out.append(.flipCompleted(vblankNanos: done.vblankNanos, sequence: done.sequence)) }
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
            let wasTimer = pacedByTimer
            let (done, command) = pacer.flipEvent(sequence: UInt64(completion.sequence), nanos: completion.nanos,
                                                  now: MonotonicClock.now())
            pacingTimer.apply(command, to: &pacer)
            if !wasTimer && pacedByTimer { announceTimerPacing() }
            if let done { out.append(.flipCompleted(vblankNanos: done.vblankNanos, sequence: done.sequence)) }
        }
        sink.completions.removeAll()
        return out
    }

    /// Polls the DRM fd (at most `timeoutNanos`) until the flip in flight has landed.
    private func waitForFlip(timeoutNanos: UInt64) {
        let deadline = MonotonicClock.now() + timeoutNanos
        while pendingFlip != nil, MonotonicClock.now() < deadline {
            var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 50) > 0 { queuedEvents.append(contentsOf: handleDRMEvents()) }
        }
    }

    // MARK: - Pacing

    private func startTimerPacing(reason: String) {
        guard pacer.useTimer(reason: reason) else { return }
        announceTimerPacing()
    }

    private func announceTimerPacing() {
        log("\(card.path) (\(card.driverName)): \(pacer.timerReason ?? "timer pacing"); pacing flips with a timer at \(ModeRequest.formatHz(refreshHz)) Hz")
    }

    private func resetFlipState() {
        pendingFlip = nil
        sink.completions.removeAll()
        pacingTimer.apply(pacer.reset(), to: &pacer)
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
        waitForFlip(timeoutNanos: 500_000_000)
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
        pacer.setRefresh(hz: refreshHz)
        // The commit path, chosen once for the device from what it offers (a path that a failure
        // at run time proved wrong stays dropped for later outputs of the same device).
        let hasPipe = card.crtcIndex(output.crtc).flatMap {
            capabilities.atomicClientCap ? card.atomicPipe(connector: output.connector.id, crtc: output.crtc, crtcIndex: $0) : nil
        } != nil
        capabilities.atomicPipe = hasPipe
        let choice = announcedPath.map { (path: $0, reason: "as before") } ?? KMSCommitChoice.initial(capabilities)
        initialPath = choice
        committer = makeCommitter(choice.path) ?? LegacyCommitter(card: card, crtc: crtcID, connector: connectorID, mode: output.mode)
        if announcedPath == nil, let committer {
            log("\(card.path) (\(card.driverName)): commit path \(committer.path.rawValue) (\(choice.reason))"
                + (committer.scanoutQuarterTurns.count > 1
                   ? "; the plane can turn the picture \(committer.scanoutQuarterTurns.sorted().map { String($0 * 90) }.joined(separator: "/"))°"
                   : "; the plane cannot turn the picture"))
            announcedPath = committer.path
        }
        // A new output starts unturned; the caller asks for the plane's turn again.
        if !committer!.scanoutQuarterTurns.contains(scanoutRotation) { scanoutRotation = 0; buffers = [] }
        if buffers.isEmpty || width != output.mode.width || height != output.mode.height {
            buffers = []
            width = output.mode.width
            height = output.mode.height
            try makeBuffers()
        }
    }

    /// Two buffers of the picture's size (the mode's, transposed when the plane turns it by a
    /// quarter), with room for the burn-in shift around the picture when the driver takes
    /// framebuffers that start inside a buffer; without, the caller moves the pixels.
    private func makeBuffers(quiet: Bool = false) throws(DisplayError) {
        let width = layout.sourceWidth, height = layout.sourceHeight
        // bochs-drm turns a framebuffer's start into the VGA's x/y offset registers, and QEMU clamps
        // the x offset to (virtual width − width): a start inside a wider buffer lands rows away
        // (seen in the VM: the picture 6 rows low). virtio_gpu hands the host whole buffers and never
        // passes the framebuffer's offset: the picture shows from the buffer's corner, the margin
        // on screen and the far edges cut off (seen on the arm64 guest: 2 px right and down). Both
        // get the copy.
        let startsMisplaced = ["bochs-drm", "virtio_gpu"].contains(card.driverName)
        let margin = startsMisplaced ? 0 : options.shiftMargin
        if startsMisplaced && options.shiftMargin > 0 && !quiet {
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
                if !quiet { log("\(card.path): burn-in shift up to \(margin) px moves the scanout (framebuffer offset), copying nothing") }
                return
            }
            if !quiet { log("\(card.path): \(problem ?? ""); burn-in shift copies the picture") }
        }
        var made: [ScanoutBuffer] = []
        for _ in 0..<2 { made.append(try ScanoutBuffer(card: card, width: width, height: height)) }
        buffers = made
    }

    /// Lights the CRTC with a black buffer; every buffer then needs a full frame.
    private func modeset() throws(DisplayError) {
        guard mode != nil, var committer else { return }
        resetFlipState()
        buffers[0].clear()
        damage.invalidateAll()
        shownShift = .zero
        front = 0
        do {
            try committer.modeset(framebuffer: buffers[0].framebufferID, layout: layout)
        } catch {
            guard let next = KMSCommitChoice.fallback(from: committer.path, flip: false, error: error) else {
                throw card.error(committer.path == .atomic ? "atomic modeset" : "drmModeSetCrtc", error,
                                 detail: "\(connectorName) \(modeDescription)")
            }
            log("\(card.path): \(next.reason); commit path \(committer.path.rawValue) -> \(next.path.rawValue)")
            switchCommitter(to: next.path)
            committer = self.committer!
            if scanoutRotation != 0 {
                // Only atomic commits turn the plane: back to the caller's rotated copy.
                scanoutRotation = 0
                buffers = []
                try makeBuffers(quiet: true)
                buffers[0].clear()
            }
            do { try committer.modeset(framebuffer: buffers[0].framebufferID, layout: layout) } catch {
                throw card.error("drmModeSetCrtc", error, detail: "\(connectorName) \(modeDescription)")
            }
        }
        if usesDamageClips && !didModeset { log("\(card.path): flips carry FB_DAMAGE_CLIPS (the damaged rectangles)") }
        didModeset = true
        state = .running
        if committer.path == .dirtyFramebuffer {
            startTimerPacing(reason: "no page flips (modeset + DIRTYFB)")
            return
        }
        let vblank = card.crtcIndex(crtcID).map { card.vblankCounterWorks(crtcIndex: $0) } ?? false
        if let reason = FramePacer.timerReason(forced: options.forceTimerPacing, vblankCounterWorks: vblank) {
            startTimerPacing(reason: reason)
        }
    }

    // MARK: - Shutdown

    /// Waits (at most 1 s) for a flip in flight, restores the CRTC as found, frees the buffers.
    public func shutdown() {
        guard state != .shutDown else { return }
        waitForFlip(timeoutNanos: 1_000_000_000)
        if didModeset, state == .running, let saved {
            // The console's restore is a legacy SetCrtc, which leaves the plane's turn as it is.
            if scanoutRotation != 0, let committer, let mode,
               let plain = try? ScanoutBuffer(card: card, width: mode.width, height: mode.height) {
                plain.clear()
                try? committer.modeset(framebuffer: plain.framebufferID,
                                       layout: PlaneLayout(modeWidth: mode.width, modeHeight: mode.height))
            }
            do {
                try card.restore(saved, connector: connectorID)
            } catch {
                log("\(card.path): restoring CRTC \(saved.crtcID) failed: \(error)")
            }
        }
        state = .shutDown
        pacingTimer.disarm()
        buffers = []
    }

    /// What the CRTC shows now (framebuffer id), for diagnostics: after ``shutdown()`` it is the
    /// console's framebuffer again (or 0 if the CRTC was off).
    public var crtcFramebufferID: UInt32? { card.crtcState(crtcID)?.framebufferID }
    /// The framebuffer the CRTC showed before we took it.
    public var savedFramebufferID: UInt32? { saved?.framebufferID }
}
