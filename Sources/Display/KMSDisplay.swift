import CDRM
import DisplayModel
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

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
        /// `WxH` or `WxH@Hz`; nil = `auto` (`ModePolicy.autoMode` within `maxSize`).
        public var mode: ModeRequest?
        /// The largest mode `auto` drives (nil: the connector's preferred mode, however large).
        public var maxSize: ModeRequest? = ModePolicy.defaultMaxSize
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
                    shiftMargin: Int = 0, maxSize: ModeRequest? = ModePolicy.defaultMaxSize) {
            self.shiftMargin = max(0, min(64, shiftMargin))
            self.maxSize = maxSize
            self.devicePath = devicePath
            self.connectorName = connectorName
            self.mode = mode
            self.waitForOutput = waitForOutput
            self.forceTimerPacing = forceTimerPacing
            self.legacyOnly = legacyOnly
        }
    }

    enum State { case running, noOutput, noMaster, shutDown }
    enum Token: UInt64 { case drm = 1, pacer, masterRetry, uevent, survey }

    public var devicePath: String { card.path }
    public var driverName: String { card.driverName }
    public internal(set) var width: Int
    public internal(set) var height: Int
    public internal(set) var refreshHz: Double
    /// The connector in use, e.g. `Virtual-1` (empty while none is connected).
    public internal(set) var connectorName = ""
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
    public internal(set) var scanoutRotation = 0
    /// The panel's own turn, from the connector's "panel orientation" (built-in panels).
    public internal(set) var panelQuarterTurns = 0
    /// Set between ``suspend()`` and ``resume()``.
    var heldBack = false
    /// Informational messages (pacing choice, master changes); the daemon routes them to its log.
    public var log: (String) -> Void = { _ in }

    public var flipsCompleted: Int { pacer.completed }
    /// vblanks (or pacing periods) skipped between consecutive flips.
    public var missedVblanks: Int { pacer.missedVblanks }

    let card: DRMCard
    let options: Options
    let epoll: Epoll
    let pacingTimer: PacingTimer
    var pacer: FramePacer
    let masterRetry: TimerFD
    /// While no output is connected: look at the connectors again every `surveyInterval`, as well
    /// as on uevents (some boards never deliver the hot-plug interrupt).
    let surveyTimer: TimerFD
    static let surveyInterval: Duration = .seconds(15)
    let uevents: UEventMonitor?
    let flips = DRMFlipEvents()
    var state: State
    var capabilities: KMSDeviceCapabilities
    var committer: KMSCommitter?
    var initialPath: (path: KMSCommitPath, reason: String)
    var announcedPath: KMSCommitPath?
    var layout: PlaneLayout {
        PlaneLayout(modeWidth: width, modeHeight: height, quarterTurns: scanoutRotation)
    }
    var buffers: [ScanoutBuffer] = [] {
        didSet {
            damage = ScanoutDamage(bufferCount: buffers.count,
                                   bounds: IntRect(x0: 0, y0: 0, x1: layout.sourceWidth, y1: layout.sourceHeight))
        }
    }
    /// How frames are placed in the buffers by copy (a turn the plane cannot do, a burn-in step
    /// the scanout cannot make).
    var placement = CopyPlacement.identity
    /// What each buffer lacks of the newest frame (frame coordinates).
    var damage = ScanoutDamage(bufferCount: 1, bounds: IntRect(x0: 0, y0: 0, x1: 0, y1: 0))
    /// The shift of the framebuffer on screen (or flipping to it).
    var shownShift = ScanoutShift.zero
    var front = 0
    /// The buffer a flip in flight shows when its event comes.
    var pendingFlip: Int?
    var connectorID: UInt32 = 0
    var crtcID: UInt32 = 0
    var mode: DRMMode?
    var saved: DRMCrtcState?
    var didModeset = false
    var queuedEvents: [DisplayEvent] = []

    /// Opens the card and lights the output with a black frame. With `sharing`, the output is
    /// another connector and CRTC of that display's card, on its descriptor: one DRM master drives
    /// both screens (a second process could not), each with its own buffers, flips and pacing.
    public init(options: Options = Options(), sharing sibling: KMSDisplay? = nil,
                log: @escaping (String) -> Void = { _ in }) throws(DisplayError) {
        self.options = options
        self.log = log
        let card: DRMCard
        if let sibling {
            card = sibling.card
        } else if let path = options.devicePath {
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
            surveyTimer = try TimerFD()
            try epoll.add(surveyTimer.descriptor.rawValue, events: .readable, token: Token.survey.rawValue)
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
        width = options.mode?.width ?? 1024
        height = options.mode?.height ?? 768
        refreshHz = options.mode?.refreshHz ?? 60
        pacer = FramePacer(refreshHz: refreshHz)
        state = .noOutput

        guard let output = try chooseOutput() else {
            if options.waitForOutput {
                try? surveyTimer.arm(initial: Self.surveyInterval, interval: Self.surveyInterval)
                return
            }
            throw card.error("find a connected connector", nil, .noDisplay)
        }
        try adopt(output)
        if card.becomeMaster() {
            try modeset()
        } else {
            state = .noMaster
            log("\(card.path): another process is DRM master; waiting for it to let go")
            // The core hears it at once (a desktop's compositor holds the screen for good).
            queuedEvents.append(.masterLost)
            try? masterRetry.arm(initial: .milliseconds(1), interval: .seconds(1))
        }
    }

    deinit { shutdown() }

    public var pollDescriptor: CInt? { epoll.descriptor.rawValue }

    public var canPresent: Bool { state == .running && pendingFlip == nil && pacer.canPresent }

    // MARK: - Presenting

    public func present(_ frame: Picture, damage frameDamage: [IntRect], shift requested: ScanoutShift,
                        placement: CopyPlacement) throws(DisplayError) -> Int {
        let layout = self.layout
        let size = placement.placedSize(width: frame.width, height: frame.height)
        guard size.width == layout.sourceWidth, size.height == layout.sourceHeight else {
            throw card.error("present", nil, .invalidRequest,
                             detail: "frame is \(frame.width)x\(frame.height) placed \(size.width)x\(size.height), the scanout takes \(layout.sourceWidth)x\(layout.sourceHeight)")
        }
        // The buffers' backlog is kept in the frame's coordinates: a new placement (or a frame
        // turned the other way) leaves every buffer lacking all of it.
        if placement != self.placement || damage.bounds != frame.bounds {
            self.placement = placement
            damage = ScanoutDamage(bufferCount: buffers.count, bounds: frame.bounds)
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
        let changed = DamageRegion(frameDamage, bounds: frame.bounds)
        let singleBuffered = committer.path == .dirtyFramebuffer
        // Nothing new to draw (a burn-in step of a still picture): show the front buffer again,
        // moved; copying into the back buffer what it lacks would be work for nothing.
        let back = singleBuffered || (changed.isEmpty && damage.missing(in: front).isEmpty) ? front : 1 - front
        let region = damage.write(changed.rects, into: back)
        var bytes = buffers[back].update(from: frame, region: region, placement: placement)
        if limit > 0 { bytes += buffers[back].fillMargins(shift.fill) }
        let framebuffer: UInt32
        do { framebuffer = try buffers[back].framebuffer(for: shift) } catch {
            throw card.error("drmModeAddFB2 (shifted)", error, detail: "shift \(shift.dx),\(shift.dy)")
        }
        // On screen only this frame's damage differs from the last one, unless the picture moved
        // (single-buffered: what was just copied, backlog included).
        let clips = shift.sameOffset(as: shownShift)
            ? Self.translate(placed(singleBuffered ? region : changed, frame: frame), by: shift, within: bounds) : nil
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
                bytes += try becomeSingleBuffered(frame, shift: shift, placement: placement)
            } else {
                switchCommitter(to: next.path)
                do { try show(framebuffer, damage: clips, from: back, shift: shift) } catch {
                    if error == .permissionDenied || error == .notPermitted { loseMaster(); return bytes }
                    guard KMSCommitChoice.fallback(from: next.path, flip: true, error: error)?.path == .dirtyFramebuffer else {
                        throw card.error("drmModePageFlip", error)
                    }
                    log("\(card.path): page flip failed too (\(error)); commit path \(next.path.rawValue) -> dirtyfb")
                    bytes += try becomeSingleBuffered(frame, shift: shift, placement: placement)
                }
            }
        }
        return bytes
    }

    /// Hands `framebuffer` (buffer `index`) to the committer and tells the pacer.
    func show(_ framebuffer: UInt32, damage: DamageRegion?, from index: Int, shift: ScanoutShift) throws(Errno) {
        guard let committer else { return }
        let event = try committer.show(framebuffer: framebuffer, damage: damage, userData: flips.userData)
        if event { pendingFlip = index } else { front = index }
        shownShift = shift
        pacingTimer.apply(pacer.presented(at: MonotonicClock.now(), flipEvent: event), to: &pacer)
    }

    /// No page flips on this device (or no room for a second buffer): keep the buffer on screen,
    /// draw the whole frame into it, and tell the driver what changed from now on, timer-paced.
    func becomeSingleBuffered(_ frame: Picture, shift: ScanoutShift, placement: CopyPlacement) throws(DisplayError) -> Int {
        let keep = buffers[front]
        buffers = [keep]
        front = 0
        switchCommitter(to: .dirtyFramebuffer)
        startTimerPacing(reason: "single-buffered (modeset + DIRTYFB)")
        let region = damage.write([], into: 0)
        var bytes = keep.update(from: frame, region: region, placement: placement)
        if keep.margin > 0 { bytes += keep.fillMargins(shift.fill) }
        let fb = (try? keep.framebuffer(for: shift)) ?? keep.framebufferID
        do { try show(fb, damage: nil, from: 0, shift: shift) } catch {
            if error == .permissionDenied || error == .notPermitted { loseMaster(); return bytes }
            throw card.error("drmModeSetCrtc", error)
        }
        return bytes
    }

    /// Damage of the frame where its placement puts it in the buffer.
    func placed(_ region: DamageRegion, frame: Picture) -> DamageRegion {
        guard !placement.isIdentity else { return region }
        return DamageRegion(region.rects.map { placement.placed($0, width: frame.width, height: frame.height) },
                            bounds: IntRect(x0: 0, y0: 0, x1: layout.sourceWidth, y1: layout.sourceHeight))
    }

    /// Damage of the picture as the framebuffer showing it moved by `shift` sees it.
    static func translate(_ region: DamageRegion, by shift: ScanoutShift, within bounds: IntRect) -> DamageRegion {
        DamageRegion(region.rects.map { IntRect(x0: $0.x0 + shift.dx, y0: $0.y0 + shift.dy, x1: $0.x1 + shift.dx, y1: $0.y1 + shift.dy) },
                     bounds: bounds)
    }

    // MARK: - Commit paths

    /// The committer for `path` on the adopted output (nil before one).
    func makeCommitter(_ path: KMSCommitPath) -> KMSCommitter? {
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

    func switchCommitter(to path: KMSCommitPath) {
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
            case .survey:
                _ = try? surveyTimer.readExpirations()
                if state == .noOutput { out += tryOutputAgain() } else { try? surveyTimer.disarm() }
            case nil: break
            }
        }
        out += takeRoutedFlips()
        out += queuedEvents
        queuedEvents.removeAll()
        return out
    }

    func handleDRMEvents() -> [DisplayEvent] {
        var out: [DisplayEvent] = []
        for completion in flips.read(from: card) {
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
        return out
    }

    /// True when a read of the shared descriptor by another output (or by this one's wait) left
    /// a completion of this output's flip that ``handleReadable()`` has not reported yet.
    public var hasRoutedFlips: Bool { !flips.pending.isEmpty }

    /// Completions a sibling output's read of the shared descriptor routed here (nothing to read).
    func takeRoutedFlips() -> [DisplayEvent] {
        flips.pending.isEmpty ? [] : handleDRMEvents()
    }

    /// Polls the DRM fd (at most `timeoutNanos`) until the flip in flight has landed.
    func waitForFlip(timeoutNanos: UInt64) {
        let deadline = MonotonicClock.now() + timeoutNanos
        while pendingFlip != nil, MonotonicClock.now() < deadline {
            var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 50) > 0 { queuedEvents.append(contentsOf: handleDRMEvents()) }
        }
    }

    // MARK: - Pacing

    func startTimerPacing(reason: String) {
        guard pacer.useTimer(reason: reason) else { return }
        announceTimerPacing()
    }

    func announceTimerPacing() {
        log("\(card.path) (\(card.driverName)): \(pacer.timerReason ?? "timer pacing"); pacing flips with a timer at \(ModeRequest.formatHz(refreshHz)) Hz")
    }

    func resetFlipState() {
        pendingFlip = nil
        flips.discard()
        pacingTimer.apply(pacer.reset(), to: &pacer)
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
        releaseClaims()
    }

    /// What the CRTC shows now (framebuffer id), for diagnostics: after ``shutdown()`` it is the
    /// console's framebuffer again (or 0 if the CRTC was off).
    public var crtcFramebufferID: UInt32? { card.crtcState(crtcID)?.framebufferID }
    /// The framebuffer the CRTC showed before we took it.
    public var savedFramebufferID: UInt32? { saved?.framebufferID }
}
