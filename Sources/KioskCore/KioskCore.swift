// KioskCore: every decision the daemon makes, as a state machine over (time, event) -> effects,
// with the config it decides by and the pure rules it uses (burn-in, screen power, data files).
//
// The core never reads a clock, opens a file or calls the kernel; the target declares no I/O
// module (SwiftPM would still let a file import a built one: SourceRulesTests is what fails when
// one does). The shell (`Daemon`) owns the
// descriptors: it turns what the kernel says (a flip completed, a uevent, a file changed, a
// signal, a finger moved) into `KioskEvent`s stamped with the time, hands them to `handle`, and
// carries out the `KioskEffect`s that come back (present a frame, switch DPMS, notify systemd,
// log). It sleeps until `nextDeadline`. A test does the same with a manual clock and a fake
// display, and watches a day of unattended running in milliseconds — the split swift-nio makes
// between `SelectableEventLoop` and `EmbeddedEventLoop`.
//
// This file is the router: the one entry point, the deadline (the earliest of its machines'), and
// what it holds: the process's part once (data, alerts, readiness, status, CEC) and a `Screen` per
// output (`Screen.swift`); an event runs for the output it comes from, or for each
// (`reachesEveryOutput`), and every effect names its output (`RoutedEffect`). The decisions live in small value-type machines of one `State` enum each
// (ScreenPowerMachine, FrameFlow, Round, DisplayLink, TileBoard, Banner, HeaderNote, WakingTouch,
// ValueLineSchedule, Readiness, StatusSchedule), driven alone by their tests; what ties them to
// the data and the scene is in `Core/`, an extension per concern.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

/// The daemon's decisions. See the file's header comment.
public final class KioskCore {
    /// Where the screen is, as the status file names it.
    public enum DisplayState: String, Sendable {
        case none = "no-display"
        case waitingForOutput = "waiting-for-output"
        case presenting
        case away = "vt-away"
        case otherMaster = "other-master"
    }

    /// The portfolio screen's id: `ctl show portfolio`, the status file's instrument.
    public static let portfolioID = "portfolio"

    // The process's part: once per daemon, whatever the outputs.

    /// The configuration as given (each output's is `Config.forOutput` of it).
    var setup: KioskSetup
    var configFile: String { setup.configFile }
    var localZone: ExchangeTimeZone { setup.localZone }
    let fonts: FontSet
    /// The instruments and what is known of their data.
    var entries: [Entry] = []
    /// The `[fx PAIR]` daily series by pair id (USDEUR), for the portfolio's value.
    var rates: [String: PriceSeries] = [:]
    var configProblems: [KioskProblem] = []
    var dataProblems: [String: String] = [:]
    /// Each alert's state by name: the shell keeps it across restarts (`KioskSetup.alertStates`).
    public internal(set) var alertStates: [String: AlertState] = [:]
    /// The next judgement of the alerts without new data (stale alerts, a banner's end).
    var alertDue: Double?
    /// When the portfolio's value line is worked out again (a held series or a rate came), and from when.
    var valueLine = ValueLineSchedule()
    /// READY=1, the watchdog's deadline and the start-up time the burn-in and idle clocks count from.
    var readiness: Readiness
    /// When `status.json` is written; nil when no status file is kept.
    var statusSchedule: StatusSchedule?
    /// The TV over HDMI-CEC: one per daemon; the first output's power tells it.
    var cec: CECPower
    var phrasesCache: (locale: String, phrases: Phrases)?

    // The outputs' part: one `Screen` per output (`Config.effectiveOutputs`).

    var screens: [Screen]
    /// The output whose machines the screen accessors below reach: set while the router runs an
    /// event for one output (`on`), nil while it runs the process's part (which reads the first).
    var scope: Int?
    var current: Int { scope ?? 0 }

    var now = KioskTime(mono: 0, wall: 0)
    var effects: [RoutedEffect] = []

    /// - Parameters:
    ///   - watchdogInterval: how often to send WATCHDOG=1 (half of WatchdogSec), nil for none.
    ///   - writesStatus: whether a status file is kept (asks for `.writeStatus` effects).
    public init(setup: KioskSetup, fonts: FontSet, watchdogInterval: Double? = nil, writesStatus: Bool = false,
                statusInterval: Double = 1) {
        self.setup = setup
        self.fonts = fonts
        cec = CECPower(setting: setup.config.cec)
        readiness = Readiness(watchdogInterval: watchdogInterval)
        statusSchedule = writesStatus ? StatusSchedule(interval: statusInterval) : nil
        screens = setup.config.effectiveOutputs.indices.map { Screen(setup: setup, output: $0) }
        apply(setup, initial: true)
    }

    /// How many outputs the core drives (`[output]` sections, else one).
    public var outputCount: Int { screens.count }

    // MARK: The one entry point

    /// Feeds one event at `time`; returns what to do, in order. `output` is the output a screen's
    /// own event comes from (its display, its touchscreen); an event every output hears
    /// (`reachesEveryOutput`) and the process's own ignore it.
    public func handle(_ event: KioskEvent, at time: KioskTime, output: Int = 0) -> [RoutedEffect] {
        now = time
        effects = []
        scope = nil
        handleForProcess(event)
        if event.reachesEveryOutput {
            // The VT goes when every output has let go of it, and comes back before they take it again.
            if case .vtAcquire = event { emit(.acquireDisplay) }
            for i in screens.indices { on(i) { handleForScreen(event) } }
            if case .vtRelease = event { emit(.releaseDisplay) }
        } else if screens.indices.contains(output) {
            on(output) { handleForScreen(event) }
        }
        fireDueTimers(timer: { if case .timer = event { true } else { false } }())
        for i in screens.indices { on(i) { scheduleFrame() } }
        scheduleStatus()
        return effects
    }

    /// Runs `body` with the screen accessors on output `i`.
    func on(_ i: Int, _ body: () -> Void) {
        let saved = scope
        scope = i
        defer { scope = saved }
        body()
    }

    /// Runs `body` once for every output.
    func onEachScreen(_ body: () -> Void) {
        for i in screens.indices { on(i, body) }
    }

    /// What the process does with an event, once, before any output does.
    func handleForProcess(_ event: KioskEvent) {
        switch event {
        case .start:
            readiness.start(at: now.mono)
            emit(.openInput)
        case .cec(let news): perform(cec.news(news, at: now.mono))
        case .reloadRequested: emit(.reloading)
        case .configure(let setup):
            for p in setup.problems { log(.error, "config: \(p)") }
            apply(setup, initial: false)   // every output's part too
            emit(.ready(status: nil))
        case .reloadRejected(let summary, let problems):
            for p in problems { log(.error, "config: \(p)") }
            log(.warning, summary)
            configProblems = problems
            emit(.ready(status: nil))
        case .clockStepped:
            log(.notice, "clock: the wall clock was set; screen hours, staleness and market notes follow it now")
            statusSchedule?.clockStepped()
        case .terminate:
            emit(.stopping(statistics: screens.indices.map { i in
                (screens.count > 1 ? "[output \(setup.config.effectiveOutputs[i].name)] " : "") + screens[i].frames.stats.summary
            }.joined(separator: "; ")))
            emit(.exit(0))
        case .control(let id, let command) where !event.reachesEveryOutput:
            // The control socket drives the first output's chart (`[output]`: its first section).
            on(0) { control(command, id: id) }
        case .control(let id, let command): controlEveryOutput(command, id: id)
        case .series(let id, let slot, let series): seriesArrived(id: id, slot: slot, series: series)
        case .fetchStatus(let id, let status): fetchStatusArrived(id: id, status)
        case .dataProblems(let problems):
            if problems != dataProblems { dataProblems = problems }
        case .displayOpened, .displayUnavailable, .hotplug, .kmsOutputAppeared, .display, .flipCompleted, .framePresented,
             .presentFailed, .screenOffApplied, .vtRelease, .vtAcquire, .gesture, .key, .presence, .touchScreen,
             .ambientLight, .statisticsRequested, .show, .timer:
            break
        }
    }

    /// What one output does with an event (every output's, in turn, when it reaches them all).
    func handleForScreen(_ event: KioskEvent) {
        switch event {
        case .start:
            emit(.openDisplay)
            armCycle(from: now.mono)
            decidePower()
            armBurnIn()
        case .timer, .cec, .reloadRequested, .reloadRejected, .terminate, .control, .series, .fetchStatus, .configure:
            break   // the process's (`handleForProcess`), which reaches the outputs it changes
        case .displayOpened(let info): displayOpened(info)
        case .displayUnavailable(let message):
            perform(link.unavailable(message: message))
            // Ready with nothing to show only when no output has a display either.
            if screens.allSatisfy({ $0.link.displayState == .none }) { perform(readiness.reached("no display; waiting for one")) }
        case .hotplug: link.hotplug(at: now.mono)
        case .kmsOutputAppeared(let reason): perform(link.kmsOutputAppeared(reason))
        case .display(let change, let info):
            frames.displayChanged(change)
            perform(link.changed(change, info))
        case .flipCompleted(let vblank, let sequence): flipCompleted(vblank: vblank, sequence: sequence)
        case .framePresented(let report): frames.reported(report)
        case .presentFailed(let message):
            frames.presentFailed(at: now.mono)
            log(.warning, "display: \(message)")
        case .screenOffApplied(let dpms): perform(power.offApplied(dpms: dpms))
        case .vtRelease:
            emit(.releaseDisplay)
            frames.vtReleased()
            link.vtReleased()
            log(.notice, "vt: switched away; the display is released")
        case .vtAcquire:
            emit(.acquireDisplay)
            log(.notice, "vt: back; taking the display again")
            // The display reports `.masterRegained` when it has the screen again.
        case .gesture(let gesture, let micros): handle(gesture, inputMicros: micros)
        case .key(let command): handle(command)
        case .presence:
            if noteActivity() { log(.notice, "power: screen on: a presence key") }
        case .touchScreen(let present):
            if banner.touchScreen(present) { repaintWhole() }
        case .ambientLight(let lux): perform(power.ambientReading(lux, at: now.mono))
        case .dataProblems: refreshPlaceholder()
        case .statisticsRequested(let extra):
            log(.notice, "stats: " + stats.summary + extra)
        case .show(let request): show(request)
        case .clockStepped:
            board.clockStepped()
            decidePower()
        }
    }

    /// The earliest time (core monotonic seconds) the core wants `.timer`, or nil to sleep until
    /// something happens.
    public var nextDeadline: Double? {
        var due = [readiness.nextDeadline, statusSchedule?.nextDeadline, cec.nextDeadline, alertDue, valueLine.deadline]
        for i in screens.indices { on(i) { due += [round.nextDeadline, powerDue, burnInDue, openRetryAt, banner.deadline,
                                                     board.moversDue, power.ambientDue, frames.retryAt] } }
        return due.compactMap { $0 }.min()
    }

    // MARK: Effects

    /// The picture changes where no damage says: painted and copied whole.
    func repaintWhole() { needs.formUnion([.picture, .wholeCopy]) }

    /// An effect of the output in scope (or of the process, outside one).
    func emit(_ effect: KioskEffect) { effects.append(RoutedEffect(output: scope, effect: effect)) }
    func log(_ priority: Log.Priority, _ text: String) { emit(.log(priority, text)) }
}

extension Double {
    /// For clocks and timestamps: saturates instead of trapping on absurd values.
    var clampedToInt64: Int64 {
        guard isFinite else { return self > 0 ? .max : .min }
        if self >= 9.2e18 { return .max }
        if self <= -9.2e18 { return .min }
        return Int64(self)
    }
}
