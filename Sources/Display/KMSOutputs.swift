import CDRM
import DisplayModel
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

// The output side of a KMS display: which connector, CRTC and mode it drives, the buffers made for
// them, the modeset, and hotplug (uevents saying a connector came or went).

extension KMSDisplay {
    // MARK: - Hotplug

    func handleUEvents() -> [DisplayEvent] {
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
            try? surveyTimer.arm(initial: Self.surveyInterval, interval: Self.surveyInterval)
            return [.connectorLost]
        case .noOutput:
            return tryOutputAgain()
        case .shutDown:
            return []
        }
    }

    /// A connected output, if there is one now: taken, lit, and said (`.connectorReturned`).
    func tryOutputAgain() -> [DisplayEvent] {
        guard let output = try? chooseOutput() else { return [] }
        try? surveyTimer.disarm()
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
    }

    // MARK: - Survey

    /// Every connector of the card in its order, with its state and modes.
    public func surveyConnectors() -> [ConnectorSurvey] { Self.survey(card) }

    /// The other KMS cards (each its own DRM master: a DSI panel's card beside an HDMI card) and
    /// their connectors, in card order; cards without KMS resources (render-only) are left out.
    public static func surveyOtherCards(than path: String) -> [(path: String, connectors: [ConnectorSurvey])] {
        DRMCardFinder.cardPaths().filter { $0 != path }.compactMap { other in
            guard let card = try? DRMCard(path: other), (try? card.resources()) != nil else { return nil }
            return (other, survey(card))
        }
    }

    static func survey(_ card: DRMCard) -> [ConnectorSurvey] {
        guard let res = try? card.resources() else { return [] }
        return res.connectors.compactMap { id in
            guard let c = card.connector(id) else { return nil }
            let sorted = c.modes.filter(\.isPreferred) + c.modes.filter { !$0.isPreferred }
            let turns: Int
            switch OutputsReport.panelOrientation(card, id) {
            case "Right Side Up": turns = 1
            case "Upside Down": turns = 2
            case "Left Side Up": turns = 3
            default: turns = 0
            }
            return ConnectorSurvey(name: c.name, connected: c.status == .connected,
                                   modes: sorted.map { ModeRequest(width: $0.width, height: $0.height, refreshHz: $0.refreshHz) },
                                   panelQuarterTurns: turns)
        }
    }

    public var connectorReport: ConnectorReport? {
        ConnectorReport(devicePath: devicePath, connector: connectorName.isEmpty ? nil : connectorName, mode: modeDescription,
                        state: outputState, flips: flipsCompleted, missedVblanks: missedVblanks, crtcFramebufferID: crtcFramebufferID)
    }

    public func card(for request: CardRequest) -> (any DisplayCard)? { KMSCard(first: self, request: request) }

    /// `running`, or `waiting: ` and why, for the status file's outputs.
    public var outputState: String {
        switch state {
        case .running: return "running"
        case .noOutput: return connectorName.isEmpty ? "waiting: no free connected connector" : "waiting: \(connectorName) is not connected"
        case .noMaster: return "waiting: another process is DRM master"
        case .shutDown: return "waiting: shut down"
        }
    }

    // MARK: - Output selection and modeset

    struct Output { var connector: DRMConnector; var crtc: UInt32; var mode: DRMMode }

    func chooseOutput() throws(DisplayError) -> Output? {
        let res = try card.resources()
        for id in res.connectors {
            guard let c = card.connector(id), c.status == .connected, !c.modes.isEmpty else { continue }
            if let wanted = options.connectorName, wanted != c.name { continue }
            // Another output on this descriptor drives it.
            if c.id != connectorID && card.claimedConnectors.contains(c.id) { continue }
            guard let crtc = card.crtc(for: c, crtcs: res.crtcs, own: crtcID) else { continue }
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
                mode = c.modes[ModePolicy.autoMode(Self.offered(c.modes), maxSize: options.maxSize) ?? 0]
                if let preferred = c.modes.first(where: \.isPreferred), preferred.width * preferred.height > mode.width * mode.height {
                    log("\(card.path): \(c.name) prefers \(preferred.width)x\(preferred.height)@\(ModeRequest.formatHz(preferred.refreshHz)); "
                        + "driving \(mode.width)x\(mode.height)@\(ModeRequest.formatHz(mode.refreshHz)), the best mode up to "
                        + "[display] max-size = \(options.maxSize.map { "\($0.width)x\($0.height)" } ?? "none") (mode = preferred for the larger one)")
                }
            }
            return Output(connector: c, crtc: crtc, mode: mode)
        }
        return nil
    }

    static func offered(_ modes: [DRMMode]) -> [OfferedMode] {
        modes.map { OfferedMode(width: $0.width, height: $0.height, refreshHz: $0.refreshHz, isPreferred: $0.isPreferred) }
    }

    /// Takes over an output: remembers its CRTC's state for the restore, makes buffers of its size.
    func adopt(_ output: Output) throws(DisplayError) {
        if saved == nil || saved?.crtcID != output.crtc { saved = card.crtcState(output.crtc) }
        releaseClaims()
        card.claimedCRTCs.insert(output.crtc)
        card.claimedConnectors.insert(output.connector.id)
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
        let rate = ModePolicy.pacingRate(timingsHz: output.mode.refreshHz)
        refreshHz = rate.hz
        pacer.setRefresh(hz: refreshHz)
        if !rate.known {
            log("\(card.path) (\(card.driverName)): \(output.connector.name)'s mode has no real timings (\(ModeRequest.formatHz(output.mode.refreshHz)) Hz: "
                + "an SPI panel's); frames are paced by the commit's completion, at 60 Hz at most (the status file's flips say the rate reached)")
        }
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
            do { try makeBuffers() } catch {
                // Not even one buffer of this mode: the next smaller one (`mode = auto` only; a
                // configured mode is what was asked for, and its failure is said as it is).
                let modes = output.connector.modes
                var fallback = BufferFallback(modes: Self.offered(modes), start: modes.firstIndex(of: output.mode) ?? 0)
                guard options.mode == nil, case .make(let next, _) = fallback.made(0) else { throw error }
                let smaller = modes[next]
                log("\(card.path): no \(output.mode.width)x\(output.mode.height) buffer can be made (\(error)); "
                    + "trying \(smaller.width)x\(smaller.height)@\(ModeRequest.formatHz(smaller.refreshHz))")
                try adopt(Output(connector: output.connector, crtc: output.crtc, mode: smaller))
            }
        }
    }

    /// Two buffers of the picture's size (the mode's, transposed when the plane turns it by a
    /// quarter), with room for the burn-in shift around the picture when the driver takes
    /// framebuffers that start inside a buffer; without, the caller moves the pixels.
    func makeBuffers(quiet: Bool = false) throws(DisplayError) {
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
        for n in 0..<2 {
            do { made.append(try ScanoutBuffer(card: card, width: width, height: height)) } catch {
                // The second buffer does not fit (a CMA pool the console already half fills): draw
                // into the one on screen (it may tear) rather than show nothing.
                guard n == 1 else { throw error }
                log("\(card.path): a second \(width)x\(height) buffer cannot be made (\(error)); drawing into the one on screen, "
                    + "which may tear (a smaller [display] mode or max-size gives two)")
            }
        }
        buffers = made
    }

    /// A modeset while an output sharing the card has a flip in flight may be refused with EBUSY
    /// (the commit would touch its CRTC's state too on some drivers): let the flips land, reading
    /// them for their outputs, and try again, for at most half a second.
    func modesetAroundSiblings(_ committer: KMSCommitter) throws(Errno) {
        let deadline = MonotonicClock.now() + 500_000_000
        while true {
            do {
                try committer.modeset(framebuffer: buffers[0].framebufferID, layout: layout)
                return
            } catch {
                guard error == .resourceBusy, MonotonicClock.now() < deadline else { throw error }
                var p = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 20) > 0 { queuedEvents.append(contentsOf: handleDRMEvents()) }
            }
        }
    }

    /// Lets outputs sharing the card take this output's connector and CRTC.
    func releaseClaims() {
        card.claimedCRTCs.remove(crtcID)
        card.claimedConnectors.remove(connectorID)
    }

    /// Lights the CRTC with a black buffer; every buffer then needs a full frame.
    func modeset() throws(DisplayError) {
        guard mode != nil, var committer else { return }
        resetFlipState()
        buffers[0].clear()
        damage.invalidateAll()
        shownShift = .zero
        front = 0
        do {
            try modesetAroundSiblings(committer)
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
}

/// A KMS card's outputs: its connectors, opened on the first output's descriptor (one master for
/// all of them), then those of the other KMS cards, each opened on a descriptor and master of its
/// own (a DSI panel's card beside the HDMI card). A connector whose name the first card has
/// already is called cardN-NAME.
final class KMSCard: DisplayCard {
    private let first: KMSDisplay
    private let request: CardRequest
    /// The other cards' connectors by their survey names: their card and their own name there.
    private var elsewhere: [String: (path: String, name: String)] = [:]

    init(first: KMSDisplay, request: CardRequest) {
        self.first = first
        self.request = request
    }

    func survey() -> [ConnectorSurvey] {
        var survey = first.surveyConnectors()
        elsewhere = [:]
        guard request.otherCards else { return survey }
        for (path, connectors) in KMSDisplay.surveyOtherCards(than: first.devicePath) {
            let cardName = String(path.split(separator: "/").last ?? "")
            for c in connectors {
                let taken = survey.contains { $0.name.lowercased() == c.name.lowercased() }
                var named = c
                named.name = taken ? "\(cardName)-\(c.name)" : c.name
                elsewhere[named.name] = (path, c.name)
                survey.append(named)
            }
        }
        return survey
    }

    func open(connector: String?, log: @escaping (String) -> Void) throws(DisplayError) -> any Display {
        if let other = connector.flatMap({ elsewhere[$0] }) {
            return try KMSDisplay(options: .init(devicePath: other.path, connectorName: other.name, waitForOutput: true,
                                                 shiftMargin: request.shiftMargin, maxSize: request.maxSize), log: log)
        }
        return try KMSDisplay(options: .init(devicePath: first.devicePath, connectorName: connector, waitForOutput: true,
                                             shiftMargin: request.shiftMargin, maxSize: request.maxSize),
                              sharing: first, log: log)
    }

    func surveyName(of display: any Display) -> String? {
        guard let report = display.connectorReport, let own = report.connector else { return nil }
        return elsewhere.first { $0.value.path == report.devicePath && $0.value.name == own }?.key ?? own
    }
}
