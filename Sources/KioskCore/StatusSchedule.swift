import StatusModel
// The status file's schedule: when `status.json` is written. A write on every change of what the
// file says, at most once per interval, and a rewrite every 60 intervals (a minute at the real
// clock) for the figures that drift while nothing else changes (memory, descriptors). Pure: the
// core looks after every event it handles and carries out the `.write` that comes back.

/// When the status file is written; see the file's header comment.
struct StatusSchedule: Equatable {
    /// What a look decided.
    enum Action: Equatable {
        /// Write this status now.
        case write(KioskStatus)
        /// Nothing to write now; look again at `until` at the latest (nil: at the next event).
        case wait(until: Double?)
    }

    /// Whether the end of the write window is a deadline. Inside the window nothing can be written,
    /// so nothing is built either (a morph flips 60 times a second); when something happened in it,
    /// the file may be behind, and its end compares once.
    enum WindowEnd: Equatable {
        case quiet
        case compares
    }

    /// The minute's rewrite, written even when nothing changed.
    enum Refresh: Equatable {
        /// Due at this time (core seconds).
        case due(Double)
        /// The next look outside the window writes. A wall-clock step wants it at once, yet leaves
        /// the minute's deadline standing (`due`) so the core wakes as it did before the step.
        case wanted(due: Double?)
    }

    enum State: Equatable {
        /// Nothing written yet: the first look writes whatever it finds.
        case unwritten
        /// Last written at `at` (core seconds), saying `said`: its `time` zeroed, since a clock
        /// that moves is no change of what the file says.
        case written(at: Double, said: KioskStatus, windowEnd: WindowEnd, refresh: Refresh)
    }

    /// The least time between two writes (core seconds; the shell scales it with the clock).
    let interval: Double
    private(set) var state = State.unwritten

    init(interval: Double) {
        // A zero or negative interval would make every frame a write.
        self.interval = max(0.001, interval)
    }

    /// The earliest time a look may find something to write, nil for none until the next event.
    var nextDeadline: Double? {
        guard case .written(let at, _, let windowEnd, let refresh) = state else { return nil }
        let windowDue: Double? = windowEnd == .compares ? at + interval : nil
        let refreshDue: Double? = switch refresh {
        case .due(let due): due
        case .wanted(let due): due
        }
        return [windowDue, refreshDue].compactMap { $0 }.min()
    }

    /// The core has handled an event at `t`. `framePending`: a frame went out and its report has not
    /// come back, so nothing is written (the file says what is on the glass, counted). `status` is
    /// called only when a write is possible, and at most once.
    mutating func look(at t: Double, framePending: Bool, status: () -> KioskStatus) -> Action {
        passTime(to: t)
        guard !framePending else { return .wait(until: nextDeadline) }
        if case .written(let at, let said, _, let refresh) = state {
            if t - at < interval {
                state = .written(at: at, said: said, windowEnd: .compares, refresh: refresh)
                return .wait(until: nextDeadline)
            }
            state = .written(at: at, said: said, windowEnd: .quiet, refresh: refresh)
        }
        let built = status()
        var key = built
        key.time = 0
        if case .written(_, let said, _, .due(let due)) = state, said == key {
            return .wait(until: due)
        }
        state = .written(at: t, said: key, windowEnd: .quiet, refresh: .due(t + 60 * interval))
        return .write(built)
    }

    /// The wall clock was set: the file's `time`, which the comparison leaves out, is now off by the
    /// step, and an unchanged file would keep it so for a minute; the next chance writes.
    mutating func clockStepped() {
        guard case .written(let at, let said, let windowEnd, .due(let due)) = state else { return }
        state = .written(at: at, said: said, windowEnd: windowEnd, refresh: .wanted(due: due))
    }

    /// Deadlines at or before `t` have come: a window's end is spent, a minute's rewrite is wanted.
    private mutating func passTime(to t: Double) {
        guard case .written(let at, let said, var windowEnd, var refresh) = state else { return }
        if windowEnd == .compares, at + interval <= t { windowEnd = .quiet }
        switch refresh {
        case .due(let due) where due <= t: refresh = .wanted(due: nil)
        case .wanted(let due?) where due <= t: refresh = .wanted(due: nil)
        default: break
        }
        state = .written(at: at, said: said, windowEnd: windowEnd, refresh: refresh)
    }
}
