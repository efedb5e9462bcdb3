import Chart
import Control
import DisplayModel
import Feed
import InputModel
import KioskCore
import StatusModel
import Text

// The core's test driver, a target of its own that depends on the core and its models alone (no
// shell, no display, no file): the core's tests (Tests/KioskCoreTests) build and run without the
// daemon, and the shell's tests use the same driver.

/// Drives a `KioskCore` the way the daemon's shell does, with a manual clock and a fake display
/// (the role swift-nio's `EmbeddedEventLoop` plays for its channels): it is a `KioskShell` fed by
/// the same `KioskRunner` as the daemon, so effects reach it through the daemon's own switch and
/// events queue in the daemon's order. Flips complete one refresh period after each present unless
/// `flipsComplete` is false, a display opens when asked if `displayPresent` is true, and every
/// effect is recorded with its time.
package final class CoreDriver: KioskShell {
    package private(set) var runner: KioskRunner!
    package var core: KioskCore { runner.core }
    package private(set) var time: KioskTime
    package var display: DisplayInfo
    /// A display can be opened (else `.openDisplay` is answered with `.displayUnavailable`).
    package var displayPresent = true
    package var flipsComplete = true
    /// With several outputs: only these outputs' flips complete (nil: every output's).
    package var flipsCompleteOn: Set<Int>?
    package var hasDPMS = true
    /// As KMS (EBUSY) and the headless display do: a present while a flip is pending is refused.
    package var refusesWhileFlipPending = false
    /// Presents refused so (a core that asked again at once would loop: after 100 in a row the
    /// driver stops answering, and the test sees the count).
    package private(set) var refusals: [Timed<String>] = []
    /// Each output's flip in flight.
    private var pendingFlips: [Int: (due: Double, sequence: UInt64)] = [:]
    private var sequence: UInt64 = 0

    /// `output`: the output an effect was for (0 with one output; 0 too for the process's).
    package struct Timed<T> { package var time: KioskTime; package var value: T; package var output = 0 }
    package private(set) var presents: [Timed<FramePlan>] = []
    package private(set) var notifications: [Timed<String>] = []
    package private(set) var logs: [Timed<String>] = []
    package private(set) var powered: [Timed<Bool>] = []
    /// What the TV was told over HDMI-CEC.
    package private(set) var cecRequests: [Timed<CECRequest>] = []
    package var effects: [Timed<KioskEffect>] { runner.effects.map { Timed(time: $0.time, value: $0.effect, output: $0.output ?? 0) } }
    /// What the status file said at each write.
    package private(set) var statuses: [Timed<KioskStatus>] = []
    /// What was on screen after each cycle step: (instrument, range, scene).
    package private(set) var shown: [Timed<String>] = []

    /// A font set per use: a FontSet (its faces and glyph caches) must not be shared between
    /// threads, and Swift Testing runs tests in parallel.
    package static var fonts: FontSet { try! FontSet.load() }
    package static let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin", posixRule: "CET-1CEST,M3.5.0,M10.5.0/3")

    package init(config: Config, zones: [String: ExchangeTimeZone]? = nil, localZone: ExchangeTimeZone = .utc,
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

    package func send(_ event: KioskEvent, output: Int = 0) { runner.send(event, output: output) }

    // MARK: KioskShell

    package func present(_ plan: FramePlan, output: Int) {
        if refusesWhileFlipPending, pendingFlips[output] != nil {
            refusals.append(Timed(time: time, value: "a flip is pending", output: output))
            if refusals.suffix(100).count == 100, refusals.suffix(100).allSatisfy({ $0.time.mono == time.mono }) { return }
            send(.presentFailed("a flip is pending"), output: output)
            return
        }
        presents.append(Timed(time: time, value: plan, output: output))
        sequence += 1
        pendingFlips[output] = (time.mono + 1 / display.refreshHz, sequence)
        send(.framePresented(FrameReport()), output: output)  // as the shell does after presenting
    }

    package func setPowered(_ on: Bool, output: Int) {
        powered.append(Timed(time: time, value: on, output: output))
        // As KMS does: a flip in flight lands while the output powers down, and is not reported.
        if !on && hasDPMS { pendingFlips[output] = nil }
        if !on { send(.screenOffApplied(dpms: hasDPMS), output: output) }
    }

    package func ready(status: String?) { notify(.ready(status: status)) }
    package func watchdogPing() { notify(.watchdogPing) }
    package func reloading() { notify(.reloading) }
    package func stopping(statistics: String) { notify(.stopping(statistics: statistics)) }
    private func notify(_ effect: KioskEffect) {
        if let text = effect.systemdMessage { notifications.append(Timed(time: time, value: text)) }
    }

    package func log(_ priority: Log.Priority, _ text: String, output: Int?) {
        logs.append(Timed(time: time, value: text, output: output ?? 0))
    }

    package func openDisplay(output: Int) {
        if displayPresent { send(.displayOpened(display), output: output) } else { send(.displayUnavailable(message: nil), output: output) }
    }

    package func reopenDisplay(output: Int) { openDisplay(output: output) }
    package func releaseDisplay(output: Int?) { if let output { pendingFlips[output] = nil } }
    package func writeStatus(_ write: StatusWrite) { statuses.append(Timed(time: time, value: write.status)) }
    package func watchHotplug(_ on: Bool, output: Int) {}
    package func openInput() {}
    package func acquireDisplay(output: Int?) {}
    package func layoutChanged(output: Int, quarterTurns: Int, width: Int, height: Int) {}
    package func exit(status: Int32) {}
    package func cec(_ request: CECRequest) { cecRequests.append(Timed(time: time, value: request)) }

    /// Runs the clock forward to `mono`, delivering every flip completion and timer on the way.
    package func run(until mono: Double, onStep: (() -> Void)? = nil) {
        while true {
            // The earliest flip of any output (the lowest output first at a tie).
            let flip = flipsComplete ? pendingFlips.filter { flipsCompleteOn?.contains($0.key) ?? true }
                .min { ($0.value.due, $0.key) < ($1.value.due, $1.key) } : nil
            let next = [flip?.value.due, core.nextDeadline].compactMap { $0 }.min()
            guard let next, next <= mono else { break }
            time = time.advanced(by: max(0, next - time.mono))
            if let flip, flip.value.due <= next {
                pendingFlips[flip.key] = nil
                send(.flipCompleted(vblank: time.mono, sequence: flip.value.sequence), output: flip.key)
            } else {
                send(.timer)
                onStep?()
            }
        }
        time = time.advanced(by: max(0, mono - time.mono))
        send(.timer)
    }

    package func run(for seconds: Double, onStep: (() -> Void)? = nil) { run(until: time.mono + seconds, onStep: onStep) }

    /// Sets the wall clock by `seconds` without time passing (an NTP step, `date -s`).
    package func stepWallClock(by seconds: Double) { time.wall += seconds }

    package var watchdogPings: [Timed<String>] { notifications.filter { $0.value == "WATCHDOG=1" } }

    /// Records what is on screen after each timer, when it changed.
    package func recordShown() {
        guard let m = core.model else { return }
        let key = core.showingWatchlist ? SceneKind.watchlist.name
            : "\(core.status().instrumentID ?? "-") \(m.scene == .line ? m.range.rawValue : SceneKind(m.scene).name)"
        if shown.last?.value != key { shown.append(Timed(time: time, value: key)) }
    }
}

extension Config {
    /// A watchlist of `ids`, each with a daily and an intraday file named after it.
    package static func watchlist(_ ids: [String], _ tweak: (inout Config) -> Void = { _ in }) -> Config {
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
    package var isStatusWrite: Bool { if case .writeStatus = self { true } else { false } }
}

extension CoreDriver {
    /// Sends `command` and returns every answer it got, with the id each carried (a status or
    /// screenshot request is answered by the shell: its effect stands for the answer).
    package func answers(to command: ControlCommand, id: UInt64 = 7) -> [(id: UInt64, reply: ControlReply)] {
        let before = effects.count
        send(.control(id: id, command))
        return effects[before...].compactMap { effect -> (id: UInt64, reply: ControlReply)? in
            switch effect.value {
            case .controlReply(let i, let reply): return (i, reply)
            case .controlStatus(let i, let status): return (i, .ok(status.compactJSON))
            case .screenshot(let i), .reloadConfig(let i): return (i, .ok("(shell)"))
            default: return nil
            }
        }
    }
}

/// Data the core's tests and the shell's share.
package enum CoreFixtures {
    /// The sample market's bars, made once.
    package static let daily = SampleMarket.daily()
    package static let intraday = SampleMarket.intraday()

    /// A driver for `config`, started, each instrument handed the sample market's bars.
    package static func started(_ config: Config, withData: Bool = true, _ tweak: (CoreDriver) -> Void = { _ in }) -> CoreDriver {
        let d = CoreDriver(config: config)
        tweak(d)
        d.send(.start)
        if withData {
            for inst in config.instruments {
                d.send(.series(instrumentID: inst.id, slot: .daily, series: daily))
                d.send(.series(instrumentID: inst.id, slot: .intraday, series: intraday))
            }
        }
        return d
    }

    /// Daily bars for the three days before `wall`, the last closing at `last`.
    package static func threeDays(_ id: String, last: Double, wall: Double = 1_796_000_000) -> PriceSeries {
        let today = CivilDate(unixTime: Int64(wall)).unixTimeAtMidnightUTC
        let closes = [100.0, 101.0, last]
        let bars = closes.enumerated().map { i, c in
            PriceBar(time: today - Int64(closes.count - 1 - i) * 86_400, open: c, high: c, low: c, close: c)
        }
        return PriceSeries(name: id, interval: .daily, bars: bars)
    }
}
