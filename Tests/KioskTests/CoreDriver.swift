import Chart
@testable import Commands
import DisplayModel
import Feed
import Input
import InputModel
@testable import Kiosk
@testable import KioskCore
import StatusModel
import Text

/// Drives a `KioskCore` the way the daemon's shell does, with a manual clock and a fake display
/// (the role swift-nio's `EmbeddedEventLoop` plays for its channels): it is a `KioskShell` fed by
/// the same `KioskRunner` as the daemon, so effects reach it through the daemon's own switch and
/// events queue in the daemon's order. Flips complete one refresh period after each present unless
/// `flipsComplete` is false, a display opens when asked if `displayPresent` is true, and every
/// effect is recorded with its time.
final class CoreDriver: KioskShell {
    private(set) var runner: KioskRunner!
    var core: KioskCore { runner.core }
    private(set) var time: KioskTime
    var display: DisplayInfo
    /// A display can be opened (else `.openDisplay` is answered with `.displayUnavailable`).
    var displayPresent = true
    var flipsComplete = true
    var hasDPMS = true
    private var pendingFlip: (due: Double, sequence: UInt64)?
    private var sequence: UInt64 = 0

    struct Timed<T> { var time: KioskTime; var value: T }
    private(set) var presents: [Timed<FramePlan>] = []
    private(set) var notifications: [Timed<String>] = []
    private(set) var logs: [Timed<String>] = []
    private(set) var powered: [Timed<Bool>] = []
    /// What the TV was told over HDMI-CEC.
    private(set) var cecRequests: [Timed<CECRequest>] = []
    var effects: [Timed<KioskEffect>] { runner.effects.map { Timed(time: $0.time, value: $0.effect) } }
    /// What the status file said at each write.
    private(set) var statuses: [Timed<KioskStatus>] = []
    /// What was on screen after each cycle step: (instrument, range, scene).
    private(set) var shown: [Timed<String>] = []

    /// A font set per use: a FontSet (its faces and glyph caches) must not be shared between
    /// threads, and Swift Testing runs tests in parallel.
    static var fonts: FontSet { try! FontSet.load() }
    static let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin", posixRule: "CET-1CEST,M3.5.0,M10.5.0/3")

    init(config: Config, zones: [String: ExchangeTimeZone]? = nil, localZone: ExchangeTimeZone = .utc,
         start: KioskTime = KioskTime(mono: 1000, wall: 1_796_000_000), display: DisplayInfo = DisplayInfo(width: 480, height: 270, refreshHz: 10),
         watchdogInterval: Double? = 15, writesStatus: Bool = false, configFile: String = "t.conf",
         alertStates: [String: AlertState] = [:]) {
        time = start
        self.display = display
        var z: [String: ExchangeTimeZone] = [:]
        for inst in config.instruments { z[inst.id] = zones?[inst.id] ?? SampleMarket.timeZone }
        var setup = KioskSetup(config: config, zones: zones ?? z, localZone: localZone, configFile: configFile)
        setup.alertStates = alertStates
        let core = KioskCore(setup: setup, fonts: Self.fonts, watchdogInterval: watchdogInterval, writesStatus: writesStatus)
        runner = KioskRunner(core: core, now: { [unowned self] in time })
        runner.recordsEffects = true
        runner.shell = self
    }

    func send(_ event: KioskEvent) { runner.send(event) }

    // MARK: KioskShell

    func present(_ plan: FramePlan) {
        presents.append(Timed(time: time, value: plan))
        sequence += 1
        pendingFlip = (time.mono + 1 / display.refreshHz, sequence)
        send(.framePresented(FrameReport()))  // as the shell does after presenting
    }

    func setPowered(_ on: Bool) {
        powered.append(Timed(time: time, value: on))
        // As KMS does: a flip in flight lands while the output powers down, and is not reported.
        if !on && hasDPMS { pendingFlip = nil }
        if !on { send(.screenOffApplied(dpms: hasDPMS)) }
    }

    func ready(status: String?) { notify(.ready(status: status)) }
    func watchdogPing() { notify(.watchdogPing) }
    func reloading() { notify(.reloading) }
    func stopping(statistics: String) { notify(.stopping(statistics: statistics)) }
    private func notify(_ effect: KioskEffect) {
        if let text = effect.systemdMessage { notifications.append(Timed(time: time, value: text)) }
    }

    func log(_ priority: Log.Priority, _ text: String) { logs.append(Timed(time: time, value: text)) }

    func openDisplay() {
        if displayPresent { send(.displayOpened(display)) } else { send(.displayUnavailable(message: nil)) }
    }

    func reopenDisplay() { openDisplay() }
    func releaseDisplay() { pendingFlip = nil }
    func writeStatus(_ status: KioskStatus) { statuses.append(Timed(time: time, value: status)) }
    func watchHotplug(_ on: Bool) {}
    func openInput() {}
    func acquireDisplay() {}
    func layoutChanged(quarterTurns: Int, width: Int, height: Int) {}
    func exit(status: Int32) {}
    func cec(_ request: CECRequest) { cecRequests.append(Timed(time: time, value: request)) }

    /// Runs the clock forward to `mono`, delivering every flip completion and timer on the way.
    func run(until mono: Double, onStep: (() -> Void)? = nil) {
        while true {
            let flip = flipsComplete ? pendingFlip?.due : nil
            let next = [flip, core.nextDeadline].compactMap { $0 }.min()
            guard let next, next <= mono else { break }
            time = time.advanced(by: max(0, next - time.mono))
            if let f = flip, f <= next, let p = pendingFlip {
                pendingFlip = nil
                send(.flipCompleted(vblank: time.mono, sequence: p.sequence))
            } else {
                send(.timer)
                onStep?()
            }
        }
        time = time.advanced(by: max(0, mono - time.mono))
        send(.timer)
    }

    func run(for seconds: Double, onStep: (() -> Void)? = nil) { run(until: time.mono + seconds, onStep: onStep) }

    /// Sets the wall clock by `seconds` without time passing (an NTP step, `date -s`).
    func stepWallClock(by seconds: Double) { time.wall += seconds }

    var watchdogPings: [Timed<String>] { notifications.filter { $0.value == "WATCHDOG=1" } }

    /// Records what is on screen after each timer, when it changed.
    func recordShown() {
        guard let m = core.model else { return }
        let key = core.showingWatchlist ? "watchlist"
            : "\(core.status().instrumentID ?? "-") \(m.scene == .line ? m.range.rawValue : m.scene.rawValue)"
        if shown.last?.value != key { shown.append(Timed(time: time, value: key)) }
    }
}

extension Config {
    /// A watchlist of `ids`, each with a daily and an intraday file named after it.
    static func watchlist(_ ids: [String], _ tweak: (inout Config) -> Void = { _ in }) -> Config {
        var c = Config()
        c.dataDirectory = "/data"
        c.burnInShift = 0
        var line = 10
        for id in ids {
            var inst = InstrumentConfig(id: id)
            inst.dailyFile = "\(id).csv"
            inst.intradayFile = "\(id)-1m.csv"
            inst.lines = ["daily": line, "intraday": line + 1, "time-zone": line + 2]
            line += 10
            c.instruments.append(inst)
        }
        tweak(&c)
        return c
    }
}

extension KioskEffect {
    var isStatusWrite: Bool { if case .writeStatus = self { true } else { false } }
}
