// The frames and their flips: when the display takes a frame (no flip in flight), what the next one
// owes (a changed picture, a whole copy, a burn-in step), whether one is due at all, how it is moved
// (the burn-in offset, by the display's scanout or by a copy), the time it is drawn for (the vblank
// it will be shown at), and what is counted of it (the statistics, the settled frame, input to
// flip, a flip that never completes). Pure: the core asks for a frame after every event with what
// only it knows (whether the scene moves, the tape, the display's room), builds the plan from the
// answer, and hands back the shell's reports, the flips' completions and the display's changes.

/// The frames and flips of one display; see the file's header comment.
struct FrameFlow {
    /// What the next frame must do: show a changed picture, copy all of it (after a black frame, a
    /// shift, a modeset), or move it (a burn-in step is due, whether or not anything else changed).
    struct Needs: OptionSet, Equatable {
        let rawValue: UInt8
        static let picture = Needs(rawValue: 1)
        static let wholeCopy = Needs(rawValue: 2)
        static let burnInStep = Needs(rawValue: 4)
    }

    /// Whether a frame or a flip's picture was drawn mid-motion.
    enum Motion: Equatable {
        case still
        case moving
        /// The scene at rest beside a price lit on the tape: not the settled picture (the light
        /// fades), but nothing the scene must be painted again for.
        case tapeLit
    }

    /// The page flip: none in flight, or one since `since` (core seconds), reported once when it
    /// never completes; or the display refused the last frame, and the next waits until `retryAt`
    /// or a flip's completion, whichever comes first.
    enum State: Equatable {
        case idle
        case inFlight(since: Double, stuckReported: Bool)
        /// A refusal answered at once (a flip the display still had pending: EBUSY from KMS)
        /// must not be asked again at once: the loop would present and fail for ever without
        /// reading the completion that ends it (config-extremes hung so, SIGTERM unread).
        case refused(retryAt: Double)
    }

    /// The last frame handed to the shell: whether the shell's report of it is still to come, and
    /// whether it was drawn mid-motion (then one more frame must follow, at rest).
    enum Presented: Equatable {
        /// None yet: the next frame follows no motion, and a report now counts no settled frame.
        case nothing
        case awaited(Motion)
        case reported(Motion)
    }

    /// How a frame was moved by the burn-in shift: by the display's scanout (the framebuffer keeps
    /// the picture in place whatever the offset), or copied at an offset.
    enum Shift: Equatable {
        case byScanout
        case copied(BurnInShift.Offset)
    }

    /// What the frame due now is to do; the core builds its plan from it.
    struct Frame: Equatable {
        var offset: BurnInShift.Offset
        var shiftByScanout: Bool
        var fullCopy: Bool
        var redraw: Bool
    }

    enum Action: Equatable {
        case log(Log.Priority, String)
        /// WATCHDOG=1: the loop is healthy.
        case pingWatchdog
    }

    /// How long a flip may stay in flight before the loop counts as stuck.
    static let flipTimeout = 10.0
    /// After a refused frame the next waits this long, twice as long after each refusal in a row,
    /// at most `refusedRetryLimit`: a display that refuses for good is asked twice a second, not
    /// sixty times (each refusal is a warning in the log).
    static let refusedRetry = 0.05
    static let refusedRetryLimit = 2.0

    private(set) var state = State.idle
    /// Added to by whatever changes the picture (the core, all over); only a frame takes from it.
    var needs: Needs = [.wholeCopy]
    private(set) var presented = Presented.nothing
    /// The last completed flip showed motion (or the tape): a gap in the vblank count after it is
    /// a miss, after a still one an idle pause.
    private var lastFlip = Motion.still
    private var lastVblank: Double?
    private var lastShift: Shift?
    private(set) var stats = FrameStatistics()
    /// `stats.presentedFrames` at the last frame drawn with nothing in motion (the status file's
    /// `settled_frame`): a motion's time can be up while the frame that shows where it ended still
    /// waits for a flip; equal to `presentedFrames`, it is on screen.
    private(set) var settledFrame = 0
    /// The time (µs, the input's clock) of the first input the next frame answers; the core sets
    /// it when an input changes the picture.
    var pendingInputMicros: UInt64?
    /// The same, of the frame in flight: its flip's vblank closes the measurement.
    private var inFlightInputMicros: UInt64?
    private(set) var burnIn: BurnInShift
    /// Frames refused in a row (0 once one is taken).
    private var refusals = 0
    /// When the burn-in offset next moves (core seconds), nil when shifting is off.
    private(set) var burnInDue: Double?

    init(burnIn: BurnInShift) {
        self.burnIn = burnIn
    }

    /// A report is still to come: the status file waits for it, to say what is on the glass.
    var awaitingReport: Bool { if case .awaited = presented { true } else { false } }

    // MARK: Frames

    /// The animation time of the next frame at `now`: the vblank it will be shown at, one period
    /// after the last; `now` itself before the first flip or when the loop has fallen behind.
    func frameTime(at now: Double, refreshHz: Double?) -> Double {
        let period = 1 / max(1, refreshHz ?? 60)
        guard let last = lastVblank else { return now }
        let at = last + period
        return now > at + period ? now : at
    }

    /// Whether a lit frame is due at `t`, and what it does; nil for none. The caller has checked
    /// that no flip is in flight. `sceneMoving`: the scene is in motion at `t` or the level changed;
    /// `tapeMoving`: a tape crawls, so every frame moves; `startedAt`: the daemon's start, which the
    /// burn-in orbit counts from; `shiftLimit`: how far the display moves its scanout itself;
    /// `rotatesByScanout`: the picture needs no turn the shell would copy.
    mutating func frame(at t: Double, sceneMoving: Bool, tapeMoving: Bool, startedAt: Double?, shiftLimit: Int,
                        rotatesByScanout: Bool) -> Frame? {
        // One more frame when the one on screen was drawn mid-motion: the settled picture must be
        // shown even when the motion ended between two (slow) frames.
        // The tape moves every frame; the scene beside it only when it changes (a still chart
        // under a crawling tape is not painted again: its labels were a third of a tape frame).
        let sceneChanging = needs.contains(.picture) || sceneMoving || presented.motion == .moving
        guard sceneChanging || tapeMoving || needs.contains(.burnInStep) else { return nil }
        needs.remove(.picture)
        needs.remove(.burnInStep)
        let offset = burnIn.offset(at: t - (startedAt ?? t))
        // A turn copied by the shell would put a scanout offset in the wrong axes; a turn by the
        // display keeps the framebuffer in the picture's axes.
        let byScanout = rotatesByScanout && abs(offset.dx) <= shiftLimit && abs(offset.dy) <= shiftLimit && shiftLimit > 0
        // A copied shift keeps its place between frames; only a new offset (or a switch of path)
        // moves every pixel.
        let shift = byScanout ? Shift.byScanout : .copied(offset)
        let full = needs.contains(.wholeCopy) || lastShift != shift
        needs.remove(.wholeCopy)
        lastShift = shift
        inFlightInputMicros = pendingInputMicros
        pendingInputMicros = nil
        return Frame(offset: offset, shiftByScanout: byScanout, fullCopy: full,
                     redraw: sceneChanging || full || (!byScanout && !tapeMoving))
    }

    /// A frame went out at `t` (lit or black): its flip is in flight, its report to come.
    mutating func present(_ motion: Motion, at t: Double) {
        presented = .awaited(motion)
        state = .inFlight(since: t, stuckReported: false)
    }

    /// The shell presented a frame: it is counted, and when it was drawn at rest it is the settled frame.
    mutating func reported(_ report: FrameReport) {
        refusals = 0
        stats.recordFrame(renderNanos: report.renderNanos, copyNanos: report.copyNanos, copiedBytes: report.copiedBytes,
                          frameBytes: report.frameBytes)
        switch presented {
        case .nothing: break
        case .awaited(let motion), .reported(let motion):
            if motion == .still { settledFrame = stats.presentedFrames }
            presented = .reported(motion)
        }
    }

    /// The shell could not present at `t`: no flip of ours is in flight, no report comes, and the
    /// next frame waits (see `State.refused`). What the refused frame owed is owed again, whole
    /// (what the display shows now is not known), and the input it answered waits for the next.
    mutating func presentFailed(at t: Double) {
        needs.insert([.picture, .wholeCopy])
        if pendingInputMicros == nil { pendingInputMicros = inFlightInputMicros }
        inFlightInputMicros = nil
        refusals += 1
        let wait = min(Self.refusedRetryLimit, Self.refusedRetry * Double(1 << min(refusals - 1, 16)))
        state = .refused(retryAt: t + wait)
        if case .awaited(let motion) = presented { presented = .reported(motion) }
    }

    /// When a refused frame is asked for again.
    var retryAt: Double? {
        if case .refused(let at) = state { return at }
        return nil
    }

    /// The presented frame is on screen since `vblank` (core seconds), the display's `sequence`-th;
    /// `animating`: the picture moves at `vblank` (a missed vblank then is a visible stutter).
    mutating func flipCompleted(vblank: Double, sequence: UInt64, animating: Bool) {
        state = .idle
        lastVblank = vblank
        // After an idle pause (the previous flip ended the motion) the sequence gap is no miss.
        if lastFlip == .still { stats.resetSequence() }
        stats.recordFlip(sequence: sequence, animating: animating)
        lastFlip = animating ? .moving : .still
        if let t = inFlightInputMicros {
            let vblankMicros = UInt64(max(0, vblank) * 1e6)
            stats.recordInputLatency(nanos: (vblankMicros &- t) &* 1000)
            inFlightInputMicros = nil
        }
    }

    /// A watchdog interval is up at `t`: WATCHDOG=1 whenever the loop is not stuck on a flip that
    /// never completes; a stuck one is said once, and no ping goes out so systemd restarts the
    /// daemon. Idle states (no output, screen off, VT away, another master) have no flip in flight:
    /// the loop waits on purpose, and a restart would change nothing.
    mutating func watchdog(at t: Double) -> Action? {
        guard case .inFlight(let since, let reported) = state, t - since > Self.flipTimeout else { return .pingWatchdog }
        guard !reported else { return nil }
        state = .inFlight(since: since, stuckReported: true)
        return .log(.error, "display: a flip has been pending for \(Int(t - since)) s; "
            + "stopping the watchdog so systemd restarts the daemon")
    }

    // MARK: The display and the screen

    /// A display was opened: nothing of it is in flight, and its vblanks are not the last one's.
    mutating func displayOpened() {
        state = .idle
        lastVblank = nil
    }

    /// The open display changed. A flip in flight never completes; where flips stop for a while
    /// the vblank count starts again (the gap is no miss), and a display that is ours again is
    /// copied whole.
    mutating func displayChanged(_ change: DisplayChange) {
        state = .idle
        switch change {
        case .connectorLost, .masterLost:
            stats.resetSequence()
        case .connectorReturned, .masterRegained:
            lastVblank = nil
            stats.resetSequence()
            needs.insert([.wholeCopy, .picture])
        case .masterFree:
            break
        }
    }

    /// Our VT was switched away: the display is released with whatever was in flight.
    mutating func vtReleased() {
        state = .idle
        stats.resetSequence()
    }

    /// The display powered down with a flip in flight: its completion never comes.
    mutating func flipForgotten() { state = .idle }

    /// The screen came on: every pixel is drawn again, and the flip sequence starts afresh.
    mutating func screenLit() {
        stats.resetSequence()
        needs.insert([.wholeCopy, .picture])
    }

    // MARK: Burn-in

    /// How the burn-in shift moves the picture on a display that moves its scanout up to
    /// `shiftLimit` pixels: `fb-offset` (no copy), `copy` (the shell moves the pixels), `off`.
    func burnInMethod(shiftLimit: Int, rotatesByScanout: Bool) -> String {
        guard burnIn.shift > 0 else { return "off" }
        return shiftLimit >= burnIn.shift && rotatesByScanout ? "fb-offset" : "copy"
    }

    /// A new configuration's shift (the next `armBurnIn` times its steps).
    mutating func configure(burnIn: BurnInShift) { self.burnIn = burnIn }

    /// Times the next burn-in step after `t`, on the orbit that starts at `startedAt` (at `t` before start).
    mutating func armBurnIn(at t: Double, startedAt: Double?) {
        let start = startedAt ?? t
        burnInDue = burnIn.nextChange(after: t - start).map { start + $0 }
    }

    /// The clock reached `t`: a burn-in step due moves the next frame, whatever else it shows.
    mutating func timer(at t: Double, startedAt: Double?) {
        if let at = retryAt, at <= t { state = .idle }
        guard let due = burnInDue, due <= t else { return }
        needs.insert(.burnInStep)
        armBurnIn(at: t, startedAt: startedAt)
    }
}

extension FrameFlow.Presented {
    /// Whether the last frame was drawn mid-motion; none yet counts as still.
    var motion: FrameFlow.Motion {
        switch self {
        case .nothing: .still
        case .awaited(let motion), .reported(let motion): motion
        }
    }
}
