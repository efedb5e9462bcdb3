/// What the daemon does with input: scrub the chart, tap a label, swipe to step the range.
public enum Gesture: Equatable, Sendable {
    /// The first finger (or the left mouse button) went down here: show the indicator now.
    case scrubBegan(x: Double, y: Double)
    /// It moved (at most once per hardware frame).
    case scrubMoved(x: Double, y: Double)
    /// It lifted, was cancelled, or its device went away: hide the indicator.
    case scrubEnded
    /// Short and still: comes right after `.scrubEnded`, at the down position.
    case tap(x: Double, y: Double)
    /// Fast, long and mostly horizontal: comes right after `.scrubEnded`.
    case swipe(SwipeDirection)
}

/// Which way the finger travelled.
public enum SwipeDirection: Equatable, Sendable {
    case left, right
}

/// Turns `InputEvent`s into `Gesture`s. Pure (no libinput, no clock: times come from the events),
/// so it is tested with synthetic events.
///
/// Only one contact counts: the first finger down (or the left mouse button) until it lifts; extra
/// fingers are ignored. Moves are coalesced to one `.scrubMoved` per touch frame. Bad input is
/// survived: positions are clamped to the picture, non-finite positions dropped, ups without downs
/// ignored, and with a zero-size picture every event is ignored (logged once). The work per event
/// is constant and the state is a fixed-size value: a flood of events cannot grow memory.
public struct GestureRecognizer {
    /// Thresholds; sizes in logical pixels, times in microseconds.
    public struct Configuration: Equatable, Sendable {
        public var width: Double
        public var height: Double
        /// A tap moves less than this from where it went down ...
        public var tapMaxTravel: Double = 10
        /// ... and lifts within this time.
        public var tapMaxDuration: UInt64 = 300_000
        /// A swipe travels at least this fraction of the width horizontally ...
        public var swipeMinWidthFraction: Double = 0.15
        /// ... with at most this much vertical travel per unit of horizontal travel ...
        public var swipeMaxSlope: Double = 0.5
        /// ... within this time.
        public var swipeMaxDuration: UInt64 = 500_000

        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    /// Counts of input the recognizer threw away (for statistics and tests).
    public struct Counters: Equatable, Sendable {
        public var nonFinite = 0
        public var clamped = 0
        public var extraFingers = 0
        public var unmatched = 0
        public var ignoredNoSize = 0
    }

    /// The tracked contact: plain values only, so the recognizer never allocates.
    struct State: Equatable {
        static let noContact = Int.min
        static let pointerSlot = -1
        /// Seat slot of the tracked finger, `pointerSlot` for the mouse, `noContact` when idle.
        var slot = noContact
        var downX = 0.0, downY = 0.0, downTime: UInt64 = 0
        var x = 0.0, y = 0.0
        var maxTravelSquared = 0.0
        var movePending = false
        var pointerX = 0.0, pointerY = 0.0
        var warnedNoSize = false
        var counters = Counters()
    }

    public var configuration: Configuration
    var state = State()
    private let log: ((String) -> Void)?

    /// A recognizer for a `width` x `height` logical picture. `log` gets the one-time warnings.
    public init(width: Double, height: Double, log: ((String) -> Void)? = nil) {
        self.init(configuration: Configuration(width: width, height: height), log: log)
    }

    public init(configuration: Configuration, log: ((String) -> Void)? = nil) {
        self.configuration = configuration
        self.log = log
        state.pointerX = max(0, configuration.width / 2)
        state.pointerY = max(0, configuration.height / 2)
    }

    /// Whether a finger (or the mouse button) is down and scrubbing.
    public var isScrubbing: Bool { state.slot != State.noContact }

    /// What was thrown away so far.
    public var counters: Counters { state.counters }

    /// A new picture size (mode change, rotation): an active scrub continues, clamped to it.
    public mutating func resize(width: Double, height: Double) {
        configuration.width = width
        configuration.height = height
        // What was recorded in the old size is clamped to the new one, so a tap at the down position
        // after a shrink still lands inside the picture.
        guard width.isFinite, height.isFinite, width >= 1, height >= 1 else { return }
        func fit(_ v: inout Double, _ side: Double) { v = min(max(v, 0), side - 1) }
        fit(&state.downX, width); fit(&state.x, width); fit(&state.pointerX, width)
        fit(&state.downY, height); fit(&state.y, height); fit(&state.pointerY, height)
    }

    /// Feeds one event; `emit` is called with 0, 1 or 2 gestures, synchronously.
    public mutating func process(_ event: InputEvent, emit: (Gesture) -> Void) {
        let w = configuration.width, h = configuration.height
        guard w.isFinite, h.isFinite, w >= 1, h >= 1 else {
            state.counters.ignoredNoSize += 1
            if !state.warnedNoSize {
                state.warnedNoSize = true
                log?("input: the picture has no size (\(w)x\(h)); touch and pointer input is ignored")
            }
            return
        }
        switch event {
        case .touchDown(let slot, let x, let y, let time):
            if state.slot != State.noContact {
                if state.slot == slot { move(x, y) } else { state.counters.extraFingers += 1 }
                return
            }
            guard let p = clamped(x, y) else { return }
            begin(slot: slot, p.x, p.y, time: time, emit: emit)
        case .touchMotion(let slot, let x, let y, _):
            guard slot == state.slot else {
                if state.slot == State.noContact { state.counters.unmatched += 1 } else { state.counters.extraFingers += 1 }
                return
            }
            move(x, y)
        case .touchFrame:
            flush(emit)
        case .touchUp(let slot, let time):
            guard slot == state.slot else {
                if state.slot == State.noContact { state.counters.unmatched += 1 } else { state.counters.extraFingers += 1 }
                return
            }
            end(time: time, classify: true, emit: emit)
        case .touchCancel(let slot, let time):
            guard isScrubbing, slot == state.slot || slot < 0, state.slot != State.pointerSlot else {
                state.counters.unmatched += 1
                return
            }
            end(time: time, classify: false, emit: emit)
        case .pointerMotion(let x, let y, _):
            guard let p = clamped(x, y) else { return }
            state.pointerX = p.x; state.pointerY = p.y
            if state.slot == State.pointerSlot {
                move(p.x, p.y)
                flush(emit)
            }
        case .pointerButton(let button, let pressed, let x, let y, let time):
            guard button == leftMouseButton else { return }
            if let p = clamped(x, y) { state.pointerX = p.x; state.pointerY = p.y }
            if pressed {
                guard state.slot == State.noContact else { state.counters.extraFingers += 1; return }
                begin(slot: State.pointerSlot, state.pointerX, state.pointerY, time: time, emit: emit)
            } else if state.slot == State.pointerSlot {
                end(time: time, classify: true, emit: emit)
            } else {
                state.counters.unmatched += 1
            }
        case .deviceRemoved(let device):
            // A contact whose device is gone never lifts: end it (no tap, no swipe).
            let isPointer = state.slot == State.pointerSlot
            if isScrubbing, device.capabilities.contains(isPointer ? .pointer : .touch) {
                end(time: state.downTime, classify: false, emit: emit)
            }
        case .key, .deviceAdded:
            break
        }
    }

    /// Feeds events and collects the gestures (convenient in tests; the daemon uses `process(_:emit:)`).
    public mutating func process(_ events: [InputEvent]) -> [Gesture] {
        var gestures: [Gesture] = []
        for event in events { process(event) { gestures.append($0) } }
        return gestures
    }

    // MARK: - Steps

    private mutating func begin(slot: Int, _ x: Double, _ y: Double, time: UInt64, emit: (Gesture) -> Void) {
        state.slot = slot
        state.downX = x; state.downY = y; state.downTime = time
        state.x = x; state.y = y
        state.maxTravelSquared = 0
        state.movePending = false
        emit(.scrubBegan(x: x, y: y))
    }

    private mutating func move(_ x: Double, _ y: Double) {
        guard let p = clamped(x, y) else { return }
        guard p.x != state.x || p.y != state.y else { return }
        state.x = p.x; state.y = p.y
        let dx = p.x - state.downX, dy = p.y - state.downY
        state.maxTravelSquared = max(state.maxTravelSquared, dx * dx + dy * dy)
        state.movePending = true
    }

    private mutating func flush(_ emit: (Gesture) -> Void) {
        guard state.movePending else { return }
        state.movePending = false
        emit(.scrubMoved(x: state.x, y: state.y))
    }

    private mutating func end(time: UInt64, classify: Bool, emit: (Gesture) -> Void) {
        flush(emit)
        emit(.scrubEnded)
        defer { state.slot = State.noContact; state.movePending = false }
        guard classify else { return }
        let c = configuration
        // A clock that went backwards counts as no time at all.
        let duration = time >= state.downTime ? time - state.downTime : 0
        let dx = state.x - state.downX, dy = state.y - state.downY
        if state.maxTravelSquared < c.tapMaxTravel * c.tapMaxTravel, duration <= c.tapMaxDuration {
            emit(.tap(x: state.downX, y: state.downY))
        } else if abs(dx) >= c.swipeMinWidthFraction * c.width, abs(dy) <= c.swipeMaxSlope * abs(dx),
                  duration <= c.swipeMaxDuration {
            emit(.swipe(dx < 0 ? .left : .right))
        }
    }

    /// The position clamped to the picture; nil (and counted) when not finite.
    private mutating func clamped(_ x: Double, _ y: Double) -> (x: Double, y: Double)? {
        guard x.isFinite, y.isFinite else {
            state.counters.nonFinite += 1
            return nil
        }
        let cx = min(max(x, 0), configuration.width - 1), cy = min(max(y, 0), configuration.height - 1)
        if cx != x || cy != y { state.counters.clamped += 1 }
        return (cx, cy)
    }
}
