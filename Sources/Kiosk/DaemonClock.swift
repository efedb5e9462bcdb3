import KioskCore
import LinuxIO

// The daemon's small values: its clock (real or scaled for tests) and the keep-alive while data
// files load.

/// What systemd hears while the data files are read in one go (start-up, a reload), when the loop
/// handles nothing else: a hundred files at the row limit take a minute, past the unit's start
/// timeout and its 30 s watchdog. Every `every` seconds of it: the watchdog's ping, the progress
/// as the status and, before READY, more time to start.
struct LoadKeepAlive {
    private var lastSent: Double
    let ready: Bool
    static let every = 5.0

    init(startedAt: Double, ready: Bool) {
        lastSent = startedAt
        self.ready = ready
    }

    /// The sd_notify text to send after file `done` of `total` at `t` (seconds), if any.
    mutating func progress(at t: Double, done: Int, of total: Int) -> String? {
        guard t - lastSent >= Self.every else { return nil }
        lastSent = t
        var lines = ["WATCHDOG=1", "STATUS=reading data files (\(done) of \(total))"]
        // Each extension is counted from now: 30 s more than the next report needs.
        if !ready { lines.append("EXTEND_TIMEOUT_USEC=30000000") }
        return lines.joined(separator: "\n")
    }
}

/// The daemon's clock: real time, or (headless, `--time-scale N`) time running N times faster from
/// the moment the daemon started, so a test can watch a day of cycling in minutes. Monotonic
/// seconds for animations and timers, wall seconds for the schedule.
struct ScaledClock {
    let scale: Double
    private let startNanos = MonotonicClock.now()
    private let startWall = WallClock.now()

    init(scale: Double) { self.scale = scale > 0 && scale.isFinite ? scale : 1 }

    func coreSeconds(monotonicNanos nanos: UInt64) -> Double {
        // At real speed core time *is* monotonic time, so libinput's and the vblank's stamps agree.
        if scale == 1 { return Double(nanos) / 1e9 }
        let elapsed = Double(Int64(bitPattern: nanos &- startNanos)) / 1e9
        return Double(startNanos) / 1e9 + elapsed * scale
    }

    func now() -> KioskTime {
        let mono = MonotonicClock.now()
        if scale == 1 { return KioskTime(mono: Double(mono) / 1e9, wall: WallClock.now()) }
        let elapsed = Double(mono &- startNanos) / 1e9 * scale
        return KioskTime(mono: Double(startNanos) / 1e9 + elapsed, wall: startWall + elapsed)
    }

    /// Real seconds from now until the core time `deadline`.
    func realSeconds(until deadline: Double) -> Double {
        (deadline - now().mono) / scale
    }
}
