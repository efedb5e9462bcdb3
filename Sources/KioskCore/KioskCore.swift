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
// what it holds. The decisions live in small value-type machines of one `State` enum each
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
    /// The `[fx PAIR]` daily series by pair id (USDEUR), for the portfolio's value.
    var rates: [String: PriceSeries] = [:]

    // Configuration
    public internal(set) var config: Config
    var configFile = ""
    var localZone: ExchangeTimeZone
    /// The screen's power, level and palette.
    var power: ScreenPowerMachine
    var cec: CECPower
    let fonts: FontSet

    // Watchlist
    var entries: [Entry] = []
    /// What is on screen; nil until a display gives it a size.
    public internal(set) var model: ScreenModel?
    var configProblems: [KioskProblem] = []
    var dataProblems: [String: String] = [:]

    // The watchlist overview (`[chart] watchlist`)
    /// A tile per instrument, kept up to date while `watchlist` is on; nil when off or without a display.
    public internal(set) var watchlist: WatchlistScene?
    /// The tiles' and the tape's order, the tape's words and when the tiles look at the clock.
    var board = TileBoard()

    // Display and frames
    /// The display: none, waiting for its output, presenting, away, another master's.
    var link = DisplayLink()
    /// The frames and their flips, what they are counted by, and the burn-in shift that moves them.
    var frames: FrameFlow
    /// What the next frame owes, and the first input it answers: the frames keep them, and these
    /// two keep their old names because the core adds to them wherever the picture changes.
    var needs: FrameFlow.Needs {
        get { frames.needs }
        set { frames.needs = newValue }
    }
    var pendingInputMicros: UInt64? {
        get { frames.pendingInputMicros }
        set { frames.pendingInputMicros = newValue }
    }

    // Screen power
    /// The header's market note and staleness, and when the power check looks at them, the
    /// header's clock and the tiles again (`decidePower`).
    var header = HeaderNote()

    // Control socket
    /// The band along the foot: `ctl message`, else an alert's banner.
    var banner = Banner()

    // Cycling
    /// What the unattended show puts up next and when; touches and requests hold it.
    var round: Round

    // Alerts (`[alert NAME]`)
    /// Each alert's state by name: the shell keeps it across restarts (`KioskSetup.alertStates`).
    public internal(set) var alertStates: [String: AlertState] = [:]
    /// The next judgement of the alerts without new data (stale alerts, a banner's end).
    var alertDue: Double?
    /// When the portfolio's value line is worked out again (a held series or a rate came), and from when.
    var valueLine = ValueLineSchedule()
    /// The touch that woke the screen does nothing else until it lifts.
    var wakingTouch = WakingTouch()


    // Health and readiness
    /// READY=1, the watchdog's deadline and the start-up time the burn-in and idle clocks count from.
    var readiness: Readiness
    /// When `status.json` is written; nil when no status file is kept.
    var statusSchedule: StatusSchedule?

    // Said on screen and in the status file
    var phrasesCache: (locale: String, phrases: Phrases)?
    /// The range shown when the one asked for cannot be drawn, and the ranges that can.
    var rangeChoice = RangeChoice()

    var now = KioskTime(mono: 0, wall: 0)
    var effects: [KioskEffect] = []

    /// - Parameters:
    ///   - watchdogInterval: how often to send WATCHDOG=1 (half of WatchdogSec), nil for none.
    ///   - writesStatus: whether a status file is kept (asks for `.writeStatus` effects).
    public init(setup: KioskSetup, fonts: FontSet, watchdogInterval: Double? = nil, writesStatus: Bool = false,
                statusInterval: Double = 1) {
        config = setup.config
        configFile = setup.configFile
        localZone = setup.localZone
        power = ScreenPowerMachine(rule: ScreenPower(config: setup.config, timeZone: setup.localZone, zones: setup.zones),
                                   nightPalette: setup.config.nightPalette)
        cec = CECPower(setting: setup.config.cec)
        frames = FrameFlow(burnIn: BurnInShift(config: setup.config))
        self.fonts = fonts
        readiness = Readiness(watchdogInterval: watchdogInterval)
        round = Round(settings: Round.Settings(config: setup.config))
        statusSchedule = writesStatus ? StatusSchedule(interval: statusInterval) : nil
        apply(setup, initial: true)
    }

    // MARK: The one entry point

    /// Feeds one event at `time`; returns what to do, in order.
    public func handle(_ event: KioskEvent, at time: KioskTime) -> [KioskEffect] {
        now = time
        effects = []
        switch event {
        case .start: start()
        case .timer: break
        case .displayOpened(let info): displayOpened(info)
        case .displayUnavailable(let message):
            perform(link.unavailable(message: message))
            perform(readiness.reached("no display; waiting for one"))
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
        case .cec(let news): perform(cec.news(news, at: now.mono))
        case .series(let id, let slot, let series): seriesArrived(id: id, slot: slot, series: series)
        case .fetchStatus(let id, let status):
            if let i = entries.firstIndex(where: { $0.spec.id == id }), entries[i].fetch != status {
                let before = currencyCode(of: entries[i])
                let closeChanged = entries[i].fetch?.previousClose != status?.previousClose
                    || entries[i].fetch?.lastPriceTime != status?.lastPriceTime
                entries[i].fetch = status
                updateTile(i)
                if i == instrumentIndex % max(1, entries.count) {
                    // A currency learned from the fetcher changes how every price reads.
                    if currencyCode(of: entries[i]) != before { rebuildModel() } else {
                        // 1D's baseline may be the provider's previous close.
                        if closeChanged, let model, model.placeholder == nil, let market = market(of: entries[i]) {
                            model.replaceMarket(market, at: frameTime())
                        }
                        refreshStatusNote()
                    }
                    refreshPlaceholder()   // the fetcher's problem is the placeholder's reason
                }
            }
        case .dataProblems(let problems):
            if problems != dataProblems {
                dataProblems = problems
                refreshPlaceholder()
            }
        case .reloadRequested: emit(.reloading)
        case .configure(let setup): reconfigure(setup)
        case .reloadRejected(let summary, let problems):
            for p in problems { log(.error, "config: \(p)") }
            log(.warning, summary)
            configProblems = problems
            emit(.ready(status: nil))
        case .statisticsRequested(let extra):
            log(.notice, "stats: " + stats.summary + extra)
        case .show(let request): show(request)
        case .clockStepped:
            log(.notice, "clock: the wall clock was set; screen hours, staleness and market notes follow it now")
            board.clockStepped()
            decidePower()
            statusSchedule?.clockStepped()
        case .terminate:
            emit(.stopping(statistics: stats.summary))
            emit(.exit(0))
        case .control(let id, let command): control(command, id: id)
        }
        if case .timer = event { fireDueTimers(timer: true) } else { fireDueTimers(timer: false) }
        scheduleFrame()
        scheduleStatus()
        return effects
    }

    /// The earliest time (core monotonic seconds) the core wants `.timer`, or nil to sleep until
    /// something happens.
    public var nextDeadline: Double? {
        [round.nextDeadline, powerDue, burnInDue, readiness.nextDeadline, statusSchedule?.nextDeadline, openRetryAt,
         banner.deadline, cec.nextDeadline, alertDue, valueLine.deadline, board.moversDue, power.ambientDue, frames.retryAt].compactMap { $0 }.min()
    }

    // MARK: Effects

    /// The picture changes where no damage says: painted and copied whole.
    func repaintWhole() { needs.formUnion([.picture, .wholeCopy]) }

    func emit(_ effect: KioskEffect) { effects.append(effect) }
    func log(_ priority: Log.Priority, _ text: String) { effects.append(.log(priority, text)) }
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
