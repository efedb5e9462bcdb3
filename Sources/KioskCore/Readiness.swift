// Readiness and the watchdog, systemd's `Type=notify` as the core speaks it: READY=1 once, when the
// daemon first shows something or deliberately waits (no display, no output, screen off), and a
// watchdog interval that runs from start-up. Pure: whether the loop is healthy enough to ping is
// the frames' judgement (a flip stuck in flight), so the core makes it when told the time has come.

/// The daemon's readiness and watchdog deadline; see the file's header comment.
struct Readiness: Equatable {
    enum Action: Equatable {
        /// READY=1 with this STATUS= line.
        case notifyReady(status: String)
        /// A watchdog interval is up: WATCHDOG=1, unless the loop is stuck.
        case pingWatchdog
    }

    enum State: Equatable {
        /// Before `start`: nothing armed, nothing announced.
        case unstarted
        /// Started at `since` (core seconds), READY=1 not sent yet.
        case starting(since: Double, watchdogDue: Double?)
        /// READY=1 sent. `since` is nil while `start` has not come: a shell may report a display
        /// (and so readiness) before it, and the burn-in clock still starts at `start`.
        case ready(since: Double?, watchdogDue: Double?)
    }

    /// How often WATCHDOG=1 goes out (half of systemd's WatchdogSec), nil for no watchdog.
    let watchdogInterval: Double?
    private(set) var state = State.unstarted

    init(watchdogInterval: Double?) {
        // Zero, negative or infinite would ping on every event or never: no watchdog at all.
        self.watchdogInterval = watchdogInterval.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// READY=1 has gone out.
    var isReady: Bool { if case .ready = state { true } else { false } }

    /// When `start` came (core seconds): the burn-in shift and the idle timeout count from it.
    var startedAt: Double? {
        switch state {
        case .unstarted: nil
        case .starting(let since, _): since
        case .ready(let since, _): since
        }
    }

    /// The next watchdog ping, nil without a watchdog (or before start).
    var nextDeadline: Double? {
        switch state {
        case .unstarted: nil
        case .starting(_, let due), .ready(_, let due): due
        }
    }

    /// The daemon starts at `t`: the watchdog's first interval runs from here. A second start
    /// starts the clocks again and keeps what was announced.
    mutating func start(at t: Double) {
        let due = watchdogInterval.map { t + $0 }
        switch state {
        case .unstarted, .starting: state = .starting(since: t, watchdogDue: due)
        case .ready: state = .ready(since: t, watchdogDue: due)
        }
    }

    /// The daemon reached a state READY=1 announces, described by `status`: systemd hears of the
    /// first only, since the unit is started once.
    mutating func reached(_ status: String) -> Action? {
        switch state {
        case .ready: return nil
        case .unstarted: state = .ready(since: nil, watchdogDue: nil)
        case .starting(let since, let due): state = .ready(since: since, watchdogDue: due)
        }
        return .notifyReady(status: status)
    }

    /// Time has come to `t`. The next interval runs from `t`, not from the missed deadline: a loop
    /// that was late pings once, not once for each interval it slept through.
    mutating func timer(at t: Double) -> Action? {
        guard let interval = watchdogInterval, let due = nextDeadline, due <= t else { return nil }
        switch state {
        case .unstarted: return nil
        case .starting(let since, _): state = .starting(since: since, watchdogDue: t + interval)
        case .ready(let since, _): state = .ready(since: since, watchdogDue: t + interval)
        }
        return .pingWatchdog
    }
}
