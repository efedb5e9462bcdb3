// tickerboard-fetch runs a command when an alert fires (issue 36): the fetcher is the side with
// the network, so a notification can leave from here while the display daemon runs no programs.
// It judges the alerts with the daemon's machine (Feed's Alerts) on the files it has just written,
// and each minute for stale alerts. A command starts without a shell (posix_spawn, argv as
// configured, the alert's fields in the environment), is reaped later and killed after a timeout,
// so a fetch never waits for it; runs are spaced per alert and capped overall.

import Feed
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// `[fetch] alert-command`, `alert-command-timeout`, `-interval`, `-rate`.
public struct AlertCommandPolicy: Sendable, Equatable {
    /// The command of every alert without its own `command =`.
    public var command: [String]?
    /// A command still running after this long is killed (its process group).
    public var timeout: Int64 = 30
    /// At most one run per alert in this many seconds.
    public var interval: Int64 = 900
    /// At most this many runs of all alerts together.
    public var rate = [RateLimit(count: 10, seconds: 3600)]

    public init() {}

    /// The argv an alert runs, or nil for none.
    public func command(of alert: AlertConfig) -> [String]? {
        let argv = alert.command ?? command
        return argv.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// The rate limit of alert commands, pure: time comes in as a value.
public struct AlertCommandLimiter: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        case run
        /// This alert ran less than `interval` ago; it may run again from `until`.
        case tooSoon(until: Int64)
        /// The overall cap is reached until `until`.
        case overCap(until: Int64)
    }

    public var interval: Int64
    public private(set) var lastRun: [String: Int64] = [:]
    public private(set) var budget: RequestBudget

    public init(policy: AlertCommandPolicy) {
        interval = policy.interval
        budget = RequestBudget(limits: policy.rate)
    }

    /// Whether `name` may run at `now`; a `.run` is recorded (it counts against both limits).
    public mutating func admit(_ name: String, at now: Int64) -> Decision {
        if let last = lastRun[name], now - last < interval, now >= last { return .tooSoon(until: last + interval) }
        let next = budget.nextAvailable(at: now)
        if next > now { return .overCap(until: next) }
        lastRun[name] = now
        budget.record(at: now)
        return .run
    }
}

/// One firing, what the command is told.
public struct AlertFiring: Sendable, Equatable {
    public var alert: AlertConfig
    public var observation: AlertObservation
    public var time: Int64

    public init(alert: AlertConfig, observation: AlertObservation, time: Int64) {
        self.alert = alert
        self.observation = observation
        self.time = time
    }

    /// `2026-12-04T15:30:00Z`.
    static func iso(_ t: Int64) -> String {
        let date = CivilDate(unixTime: t)
        let s = Int(t - date.unixTimeAtMidnightUTC)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(date)T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
    }

    /// The log line and `TICKERBOARD_ALERT_MESSAGE`: `aapl-300: AAPL above 300, at 301.2`.
    public var message: String {
        "\(alert.name): \(alert.instrument ?? "") \(Alerts.describe(alert.condition)), at \(observation.price)"
    }

    /// The command's whole environment: a fixed PATH and the alert's fields, nothing of the
    /// fetcher's own (it may name the directory of the providers' keys).
    public var environment: [String: String] {
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        let (condition, level): (String, String)
        switch alert.condition {
        case .above(let v): (condition, level) = ("above", v.description)
        case .below(let v): (condition, level) = ("below", v.description)
        case .move(let p): (condition, level) = ("move", p.description)
        case .stale(let s): (condition, level) = ("stale", String(s))
        case nil: (condition, level) = ("", "")
        }
        let o = observation
        env["TICKERBOARD_ALERT_NAME"] = alert.name
        env["TICKERBOARD_ALERT_INSTRUMENT"] = alert.instrument ?? ""
        env["TICKERBOARD_ALERT_CONDITION"] = condition
        env["TICKERBOARD_ALERT_LEVEL"] = level
        env["TICKERBOARD_ALERT_PRICE"] = o.price.description
        env["TICKERBOARD_ALERT_PREVIOUS_CLOSE"] = o.previousClose?.description ?? ""
        var change = ""
        if let prev = o.previousClose, !prev.isZero,
           let p = (o.price - prev).multiplied(by: ExactDecimal(100)).flatMap({ $0.divided(by: prev) }) {
            change = p.rounded(to: 2).formatted(decimals: 2)
        }
        env["TICKERBOARD_ALERT_CHANGE_PERCENT"] = change
        env["TICKERBOARD_ALERT_PRICE_TIME"] = Self.iso(o.priceTime)
        env["TICKERBOARD_ALERT_TIME"] = Self.iso(time)
        env["TICKERBOARD_ALERT_MESSAGE"] = message
        return env
    }
}

/// Starting, collecting and killing a command: the system's, or a test's stand-in.
public protocol AlertLauncher {
    func spawn(_ argv: [String], environment: [String: String]) -> Result<Int32, Errno>
    /// The ending of a child that ended (reaped), nil while it runs.
    func reap(_ pid: Int32) -> ChildProcess.Ending?
    func kill(_ pid: Int32)
    /// This process's children (a command that daemonized is one, the fetcher being their reaper).
    func children() -> [Int32]
}

extension AlertLauncher {
    public func children() -> [Int32] { [] }
}

public struct SystemAlertLauncher: AlertLauncher {
    public init() {}
    public func spawn(_ argv: [String], environment: [String: String]) -> Result<Int32, Errno> {
        Result { () throws(Errno) in try ChildProcess.spawn(argv, environment: environment) }
    }
    public func reap(_ pid: Int32) -> ChildProcess.Ending? {
        do throws(Errno) { return try ChildProcess.reap(pid) } catch { return .exited(-1) }  // ECHILD: gone
    }
    public func kill(_ pid: Int32) { ChildProcess.killGroup(pid) }
    public func children() -> [Int32] { ChildProcess.isSubreaper ? ChildProcess.children() : [] }
}

/// Where an alert's instrument's data is: the files the fetcher writes (or another writer does).
public struct AlertSource: Sendable, Equatable {
    public var dailyPath: String?
    public var intradayPath: String?
    public var zone: String
    public var adjusted: Bool
    /// `exchange =` (else the zone's exchange): the previous close's closing auction.
    public var exchange: String?
}

/// The alerts with a command, judged on the data files; their states survive restarts in a file.
public final class AlertHooks {
    public struct Child: Sendable, Equatable {
        public var pid: Int32
        public var alert: String
        public var deadline: Int64
        public var killed = false
    }

    public private(set) var alerts: [AlertConfig]
    public let policy: AlertCommandPolicy
    let sources: [String: AlertSource]
    public private(set) var states: [String: AlertState] = [:]
    public private(set) var limiter: AlertCommandLimiter
    public private(set) var running: [Child] = []
    let launcher: any AlertLauncher
    let log: FetchLog
    let statePath: String?
    var lastTick: Int64?
    /// The stale alerts need a look without new data.
    public static let tick: Int64 = 60
    /// Commands running at once; a firing beyond them waits in `queued`.
    public static let maximumRunning = 4
    /// Firings waiting for a place or for the rate (`alert-command-rate`), oldest first. Their
    /// alerts are already disarmed, so a firing dropped here would never run (issue 54: seven
    /// alerts crossing in one market-wide move ran four commands). Bounded: beyond it the oldest
    /// goes, said in the log.
    public private(set) var queued: [AlertFiring] = []
    public static let maximumQueued = 64
    /// When a firing held by the rate may run (nil: none is held by it).
    var queueHeldUntil: Int64?

    /// nil when no alert has a command.
    public init?(config: FetchConfig, launcher: any AlertLauncher = SystemAlertLauncher(), log: FetchLog = .standardError,
                 statePath: String?) {
        let alerts = config.alerts.filter { $0.instrument != nil && $0.condition != nil && config.alertPolicy.command(of: $0) != nil }
        guard !alerts.isEmpty else { return nil }
        self.alerts = alerts
        policy = config.alertPolicy
        limiter = AlertCommandLimiter(policy: config.alertPolicy)
        self.launcher = launcher
        self.log = log
        self.statePath = statePath
        var sources: [String: AlertSource] = [:]
        for inst in config.alertInstruments {
            sources[inst.id] = AlertSource(dailyPath: inst.dailyFile.map(config.path(of:)), intradayPath: inst.intradayFile.map(config.path(of:)),
                                           zone: inst.timeZone, adjusted: inst.adjusted, exchange: inst.exchange)
        }
        self.sources = sources
        if let statePath, let bytes = try? FeedFileReader.read(path: statePath, limit: 1 << 20) {
            states = AlertState.decode(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The observation of `instrument` at `now` from its files.
    func observation(_ instrument: String, at now: Int64) -> AlertObservation? {
        guard let source = sources[instrument] else { return nil }
        func load(_ path: String?) -> PriceSeries? {
            guard let path else { return nil }
            do throws(FeedError) { return try YahooCSV.load(path: path).0 } catch { return nil }
        }
        let zone = (try? ExchangeTimeZone(identifier: source.zone)) ?? .utc
        let calendar = source.exchange.flatMap(ExchangeCalendar.named) ?? ExchangeCalendar.forTimeZone(source.zone)
        // Offset-less times are the instrument's wall clock here as on the wall.
        return Alerts.observation(daily: load(source.dailyPath), intraday: load(source.intradayPath)?.anchored(in: zone),
                                  field: source.adjusted ? .adjustedClose : .close, zone: zone, calendar: calendar, at: now)
    }

    /// Judges the alerts of `instrument` (nil: all) at `now` with `observe`, and starts the commands
    /// of those that fire. Returns the firings.
    @discardableResult
    public func judge(instrument: String?, now: Int64,
                      observe: ((String, Int64) -> AlertObservation?)? = nil) -> [AlertFiring] {
        var firings: [AlertFiring] = []
        var cache: [String: AlertObservation?] = [:]
        for alert in alerts where instrument == nil || alert.instrument == instrument {
            let id = alert.instrument!
            if cache[id] == nil { cache[id] = .some(observe?(id, now) ?? observation(id, at: now)) }
            let o = cache[id]!
            let before = states[alert.name] ?? AlertState()
            let (state, fired) = Alerts.step(alert, o, now: now, state: before)
            if state != before { states[alert.name] = state; save() }
            if fired, let o {
                let firing = AlertFiring(alert: alert, observation: o, time: now)
                firings.append(firing)
                run(firing, now: now)
            }
        }
        return firings
    }

    func run(_ firing: AlertFiring, now: Int64) {
        guard let argv = policy.command(of: firing.alert) else { return }
        if !queued.isEmpty || running.count >= Self.maximumRunning {
            enqueue(firing, why: running.count >= Self.maximumRunning ? "\(running.count) alert commands still run" : "earlier firings wait")
            return
        }
        start(firing, argv: argv, now: now)
    }

    /// Starts `firing` now if the limits let it: false when the rate holds it (it stays queued).
    @discardableResult
    func start(_ firing: AlertFiring, argv: [String], now: Int64, queued wasQueued: Bool = false) -> Bool {
        let name = firing.alert.name
        switch limiter.admit(name, at: now) {
        case .tooSoon(let until):
            // The same alert ran moments ago: spacing it is the setting's point.
            log.write(.notice, "alert \(firing.message): not running \(argv[0]) again before \(AlertFiring.iso(until)) (alert-command-interval)")
            return true
        case .overCap(let until):
            if !wasQueued {
                log.write(.warning, "alert \(firing.message): \(argv[0]) waits until \(AlertFiring.iso(until)) (alert-command-rate)")
                enqueue(firing, why: nil)
            }
            queueHeldUntil = until
            return false
        case .run: break
        }
        switch launcher.spawn(argv, environment: firing.environment) {
        case .success(let pid):
            log.write(.notice, "alert \(firing.message): running \(argv[0]) (pid \(pid))"
                      + (wasQueued ? " after waiting \(now - firing.time) s" : ""))
            running.append(Child(pid: pid, alert: name, deadline: now + policy.timeout))
        case .failure(let error):
            log.write(.error, "alert \(firing.message): cannot run \(argv[0]): \(error)")
        }
        return true
    }

    private func enqueue(_ firing: AlertFiring, why: String?) {
        if queued.count >= Self.maximumQueued {
            let dropped = queued.removeFirst()
            log.write(.error, "alert \(dropped.message): dropped: \(Self.maximumQueued) alert commands wait already")
            rearm([dropped])
        }
        queued.append(firing)
        if let why { log.write(.notice, "alert \(firing.message): its command waits (\(why))") }
    }

    /// Runs what waits, oldest first, while places and the rate allow.
    func runQueued(now: Int64) {
        if let held = queueHeldUntil, now < held { return }
        queueHeldUntil = nil
        while !queued.isEmpty, running.count < Self.maximumRunning {
            let firing = queued[0]
            guard let argv = policy.command(of: firing.alert) else { queued.removeFirst(); continue }
            guard start(firing, argv: argv, now: now, queued: true) else { return }
            queued.removeFirst()
        }
    }

    /// Collects ended commands, kills overdue ones, and once a minute judges every alert.
    public func poll(now: Int64, observe: ((String, Int64) -> AlertObservation?)? = nil) {
        var still: [Child] = []
        for var child in running {
            if let ending = launcher.reap(child.pid) {
                if child.killed || ending != .exited(0) {
                    log.write(child.killed ? .warning : .notice, "alert \(child.alert): the command (pid \(child.pid)) "
                              + (child.killed ? "ran past alert-command-timeout (\(policy.timeout) s) and was killed" : "ended with \(ending)"))
                }
                continue
            }
            if now >= child.deadline && !child.killed {
                launcher.kill(child.pid)
                child.killed = true
            }
            still.append(child)
        }
        // A command that daemonized (forked, left its session, and its parent ended) is this
        // process's child now, the fetcher being its reaper: it gets a command's time, then the
        // same kill (issue 54: it outlived the fetcher, outside the unit).
        let known = Set(still.map(\.pid))
        for pid in launcher.children() where !known.contains(pid) {
            still.append(Child(pid: pid, alert: "(left by a command)", deadline: now + Int64(policy.timeout)))
        }
        running = still
        runQueued(now: now)
        if lastTick.map({ now - $0 >= Self.tick || now < $0 }) ?? true {
            lastTick = now
            judge(instrument: nil, now: now, observe: observe)
        }
    }

    /// When `poll` has work next: a running command's deadline (a killed one is looked at each
    /// second until it is gone), else the next minute's look.
    public func nextWake(now: Int64) -> Int64 {
        var next = (lastTick ?? now) + Self.tick
        for child in running { next = min(next, child.killed ? now + 1 : child.deadline) }
        // A firing held by the rate runs when the rate allows (one held for a place runs when a
        // command ends: its deadline is above, and the fetcher polls on SIGCHLD as well).
        if !queued.isEmpty, let held = queueHeldUntil { next = min(next, held) }
        return max(next, now)
    }

    /// At the fetcher's end: every command and whatever they left behind are killed and collected
    /// (outside the unit nothing else would end them).
    public func killAll() {
        let all = Set(running.map(\.pid)).union(launcher.children())
        for pid in all { launcher.kill(pid) }
        for pid in all { _ = launcher.reap(pid) }
        running = []
        rearm(queued)
        queued = []
    }

    /// Firings whose commands never ran (still waiting at the end, or dropped from a full queue):
    /// their alerts are armed again and saved so, and a start that finds the condition still true
    /// fires them then (issue 54 item 15: they were lost while their alerts stayed disarmed).
    func rearm(_ firings: [AlertFiring]) {
        guard !firings.isEmpty else { return }
        for firing in firings { states[firing.alert.name, default: AlertState()].armed = true }
        save()
        log.write(.warning, "\(firings.count) alert firing\(firings.count == 1 ? "" : "s") not carried out ("
                  + firings.map(\.alert.name).joined(separator: ", ") + "): armed again, to fire at the next look if still true")
    }

    /// Takes over the children of the hooks before a reload, so they are still collected.
    public func adopt(_ other: AlertHooks) {
        running += other.running
        lastTick = other.lastTick
        // What waited still runs (if its alert still has a command after the reload).
        queued += other.queued
        queueHeldUntil = other.queueHeldUntil
    }

    /// True when the hooks judge nothing and wait for no command: a reload left them only to
    /// collect their children, and they have.
    public var isSpent: Bool { alerts.isEmpty && running.isEmpty && queued.isEmpty }

    /// The hooks after a reload: the new configuration's, holding the old one's running commands;
    /// or, when no alert has a command any more, the old ones judging nothing, until their commands
    /// have ended and been collected (else a command running at the reload stays a zombie).
    public static func afterReload(old: AlertHooks?, new: AlertHooks?) -> AlertHooks? {
        guard let old else { return new }
        if let new {
            new.adopt(old)
            return new
        }
        guard !old.running.isEmpty else { return nil }
        old.alerts = []
        return old
    }

    func save() {
        guard let statePath else { return }
        do throws(Errno) {
            try DataFile.replaceAtomically(path: statePath, bytes: Array(AlertState.encode(states).utf8), permissions: 0o600)
        } catch {
            log.write(.warning, "\(statePath): cannot save the alerts' states: \(error)")
        }
    }
}
