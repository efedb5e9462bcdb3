// Frame pacing for every backend that shows frames on real hardware (KMS, fbdev): when a presented
// frame counts as "on screen" — at the driver's vblank event, or at a tick of a timer running at
// the mode's rate for drivers without vblank — and how many vblanks went by unused. The decisions
// are a value type that takes time as an argument and answers with what to do to the timer, so
// they are tested with a manual clock; `PacingTimer` is the thin shell that owns the timerfd.

/// Counts vblanks skipped between consecutive completed flips from their sequence numbers.
public struct VblankSequenceTracker: Sendable, Equatable {
    /// Vblanks skipped so far.
    public private(set) var missed = 0
    public private(set) var last: UInt64?

    public init() {}

    /// A flip completed at vblank `sequence`; returns the vblanks skipped since the previous one.
    /// With `counting` false (the picture was idle before this flip) a gap is a pause, not a miss.
    @discardableResult
    public mutating func record(_ sequence: UInt64, counting: Bool = true) -> Int {
        defer { last = sequence }
        guard counting, let last, sequence > last + 1 else { return 0 }
        let skipped = Int(sequence - last - 1)
        missed += skipped
        return skipped
    }

    /// Forgets the last sequence (a modeset, a pause): the next gap is not a miss.
    public mutating func reset() { last = nil }
}

/// When presented frames are on screen. A frame handed to the hardware completes at its flip
/// event (vblank pacing), or — timer pacing — at the first timer tick after it was handed over,
/// and, if the driver also sends a flip event, not before that event. Ticks fall at
/// `anchor + k·period`; the timer runs while frames follow each other and stops after a whole
/// period with nothing to show, so an idle screen costs no wakeups.
public struct FramePacer: Sendable, Equatable {
    public enum Source: Equatable, Sendable {
        /// The driver's flip events, stamped and numbered by its vblank counter.
        case vblank
        /// A timer at the mode's rate (no vblank counter, or none that advances).
        case timer
    }

    /// What the caller must do to its timer after a call.
    public enum TimerCommand: Equatable, Sendable {
        case none
        /// First expiry at `firstNanos` (monotonic), then every `periodNanos`.
        case arm(firstNanos: UInt64, periodNanos: UInt64)
        case disarm
    }

    /// A presented frame is on screen since `vblankNanos`; `sequence` counts vblanks or ticks.
    public struct Completion: Equatable, Sendable {
        public var vblankNanos: UInt64
        public var sequence: UInt64
    }

    public private(set) var periodNanos: UInt64
    public private(set) var source: Source
    /// Why the timer paces (nil while the vblank does), for the log.
    public private(set) var timerReason: String?
    public private(set) var completed = 0
    public private(set) var vblanks = VblankSequenceTracker()

    /// A flip event is still to come for the frame presented last.
    private var flipPending = false
    /// The frame presented last waits for a tick after this tick count.
    private var awaitingTickAfter: UInt64?
    private var armed = false
    private var anchor: UInt64 = 0
    private var ticksSinceAnchor: UInt64 = 0
    private var tickSequence: UInt64 = 0
    private var lastTickNanos: UInt64 = 0

    public init(refreshHz: Double, source: Source = .vblank, timerReason: String? = nil) {
        periodNanos = UInt64(1e9 / max(1, refreshHz.isFinite ? refreshHz : 60))
        self.source = source
        self.timerReason = source == .timer ? timerReason ?? "timer pacing" : nil
    }

    /// Why a device starts on the timer (nil: its vblank events pace it).
    public static func timerReason(forced: Bool, vblankCounterWorks: Bool) -> String? {
        if forced { return "timer pacing requested" }
        return vblankCounterWorks ? nil : "driver has no vblank counter"
    }

    /// A new mode: ticks from the next arming on fall at its rate.
    public mutating func setRefresh(hz: Double) {
        periodNanos = UInt64(1e9 / max(1, hz.isFinite ? hz : 60))
    }

    /// Nothing presented is waiting to complete: the next frame may go.
    public var canPresent: Bool { !flipPending && awaitingTickAfter == nil }
    public var missedVblanks: Int { vblanks.missed }

    /// Paces with the timer from now on; false when it already did (log only the first reason).
    @discardableResult
    public mutating func useTimer(reason: String) -> Bool {
        guard source != .timer else { return false }
        source = .timer
        timerReason = reason
        return true
    }

    /// A frame was handed to the hardware at `now`; `flipEvent` says whether the driver will
    /// report it with an event (a page flip) or shows it at once (DIRTYFB, a pan, a copy).
    public mutating func presented(at now: UInt64, flipEvent: Bool) -> TimerCommand {
        flipPending = flipEvent
        guard source == .timer || !flipEvent else { return .none }
        return waitForTick(now: now)
    }

    /// The driver's flip event for the frame in flight. An event whose sequence does not advance
    /// (bochs, virtio-gpu: always 0) means there is no vblank to pace by: the timer takes over.
    public mutating func flipEvent(sequence: UInt64, nanos: UInt64, now: UInt64) -> (Completion?, TimerCommand) {
        guard flipPending else { return (nil, .none) }
        flipPending = false
        if source == .vblank, sequence == 0 || sequence == vblanks.last {
            useTimer(reason: "flip events carry no vblank sequence")
            let command = waitForTick(now: now)
            return (nil, command)
        }
        if source == .timer { return (completeIfTicked(flipNanos: nanos), .none) }
        return (complete(sequence: sequence, nanos: nanos), .none)
    }

    /// The timer expired `expirations` times (what the timerfd read said).
    public mutating func timerExpired(_ expirations: UInt64) -> (Completion?, TimerCommand) {
        guard expirations > 0, armed else { return (nil, .none) }
        ticksSinceAnchor += expirations
        tickSequence += expirations
        lastTickNanos = anchor + (ticksSinceAnchor - 1) * periodNanos
        let done = completeIfTicked(flipNanos: nil)
        if done == nil && awaitingTickAfter == nil && !flipPending {
            // A whole period with nothing to show. (After a completion it stays armed: the next
            // frame usually follows at once, and re-anchoring then would stretch every period by
            // the render time.)
            armed = false
            return (nil, .disarm)
        }
        return (done, .none)
    }

    /// The timer could not be armed: nothing waits for a tick (the caller reports the failure).
    public mutating func timerFailed() {
        armed = false
        awaitingTickAfter = nil
    }

    /// Forget what is in flight (output lost, master lost, screen off, modeset).
    public mutating func reset() -> TimerCommand {
        flipPending = false
        awaitingTickAfter = nil
        vblanks.reset()
        guard armed else { return .none }
        armed = false
        return .disarm
    }

    private mutating func waitForTick(now: UInt64) -> TimerCommand {
        awaitingTickAfter = tickSequence
        guard !armed else { return .none }
        armed = true
        anchor = now + periodNanos
        ticksSinceAnchor = 0
        return .arm(firstNanos: anchor, periodNanos: periodNanos)
    }

    private mutating func completeIfTicked(flipNanos: UInt64?) -> Completion? {
        guard let after = awaitingTickAfter, !flipPending, tickSequence > after else { return nil }
        awaitingTickAfter = nil
        return complete(sequence: tickSequence, nanos: max(lastTickNanos, flipNanos ?? 0))
    }

    private mutating func complete(sequence: UInt64, nanos: UInt64) -> Completion {
        vblanks.record(sequence)
        completed += 1
        return Completion(vblankNanos: nanos, sequence: sequence)
    }
}

/// Whether measured waits for a vertical blank look like a display's refresh: the median period
/// within 30 % of 1/refreshHz. A driver that returns at once or at odd times fails; one wait
/// stretched by a descheduled process does not.
public enum VSyncProbe {
    public static func periodsMatch(_ periods: [Double], refreshHz: Double) -> Bool {
        guard !periods.isEmpty, refreshHz > 0, refreshHz.isFinite else { return false }
        let median = periods.sorted()[periods.count / 2]
        return abs(median * refreshHz - 1) < 0.3
    }
}
