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

    /// One instrument of the watchlist: its configuration, what is known of its data, and the
    /// chart made of it (nil while it waits for its first good file).
    struct Entry {
        var spec: InstrumentConfig
        var zone: ExchangeTimeZone?
        var daily: PriceSeries?
        var intraday: PriceSeries?
        var fetch: FetchStatus?
        /// The portfolio's value line (`[portfolio] show` value or percent): the last entry, its
        /// daily series computed from the holdings' and the rates' series, never read from a file.
        var isPortfolio = false
        var hasData: Bool { daily != nil || intraday != nil }
    }

    /// The portfolio screen's id: `ctl show portfolio`, the status file's instrument.
    public static let portfolioID = "portfolio"
    /// The `[fx PAIR]` daily series by pair id (USDEUR), for the portfolio's value.
    private var rates: [String: PriceSeries] = [:]
    /// The entries that have a watchlist tile: all but the portfolio (the last entry when shown).
    private var tileIndices: Range<Int> { 0..<(entries.last?.isPortfolio == true ? entries.count - 1 : entries.count) }

    // Configuration
    public private(set) var config: Config
    private var configFile = ""
    private var localZone: ExchangeTimeZone
    /// The screen's power, level and palette.
    private var power: ScreenPowerMachine
    private var cec: CECPower
    private let fonts: FontSet

    // Watchlist
    private(set) var entries: [Entry] = []
    /// True when nothing is configured: the built-in sample market is the watchlist.
    private var showingSample = false
    /// The instrument of the chart (config order): the round's.
    public var instrumentIndex: Int { round.instrument }
    /// What is on screen; nil until a display gives it a size.
    public private(set) var model: ScreenModel?
    private var configProblems: [KioskProblem] = []
    private var dataProblems: [String: String] = [:]

    // The watchlist overview (`[chart] watchlist`)
    /// A tile per instrument, kept up to date while `watchlist` is on; nil when off or without a display.
    public private(set) var watchlist: WatchlistScene?
    /// The overview is on screen instead of `model` (which stays, for the instrument it opens next).
    public var showingWatchlist: Bool { round.showsOverview }
    /// When the tiles last looked at the clock (their staleness and marks), wall seconds.
    private var tilesRefreshedAt = -Double.infinity
    /// The tape's words as last given to a frame, and whether the data under them changed since.
    private var tapeItems: [TapeItem] = []
    /// Movers first: the tiles' and the tape's orders (config indices), decided at most once a minute.
    private var tileMovers = MoverOrder()
    private var tapeMovers = MoverOrder()
    /// Position k of the overview shows entry `tileOrder[k]`.
    private var tileOrder: [Int] = []
    /// When a standing order may change (its minute is up and the moves changed): look again then.
    private var moversDue: Double?
    private var tapeRevision = 0
    private var tapeStale = true
    /// The frame time of the last words that changed a price on the tape: the shell lights that
    /// item for `TapeFlash.duration` (`TapeRenderer.setItems`), and no frame is settled meanwhile.
    private var tapePriceChangedAt: Double?
    /// When a tile's market status next changes (Unix seconds): the core wakes up for it.
    private var watchlistNextChange: Int64?

    // Display and frames
    /// The display: none, waiting for its output, presenting, away, another master's.
    private var link = DisplayLink()
    /// The frames and their flips, what they are counted by, and the burn-in shift that moves them.
    private var frames: FrameFlow
    public var displayState: DisplayState { link.displayState }
    private var displayInfo: DisplayInfo? { link.info }
    /// When a hotplug opens the display.
    private var openRetryAt: Double? { link.retryAt }
    /// What the next frame owes, and the first input it answers: the frames keep them, and these
    /// two keep their old names because the core adds to them wherever the picture changes.
    private var needs: FrameFlow.Needs {
        get { frames.needs }
        set { frames.needs = newValue }
    }
    private var pendingInputMicros: UInt64? {
        get { frames.pendingInputMicros }
        set { frames.pendingInputMicros = newValue }
    }
    public var stats: FrameStatistics { frames.stats }
    /// `stats.presentedFrames` at the last frame drawn with nothing in motion (the status file's
    /// `settled_frame`): `animating` alone is false as soon as a motion's time is up, while the frame
    /// that shows where it ended may still be waiting for a flip; equal to `frames`, it is on screen.
    public var settledFrame: Int { frames.settledFrame }

    // Screen power
    public var screenOn: Bool { power.isOn }
    /// The palette the screen shows now: the config's, or its night variant.
    private var activePalette: ChartPalette { power.palette == .night ? config.palette.night : config.palette }
    /// When the market note, the header's clock or the tiles change next: the power check wakes for
    /// them too, since it is what looks at them (`decidePower`).
    private var clockDue: Double?
    /// The power check's next wake-up: the decision's own or the clock's.
    private var powerDue: Double? { [power.decisionDue, clockDue].compactMap { $0 }.min() }
    /// When the header's clock next shows another minute.
    private var clockNextChange: Int64?

    // Control socket
    /// `ctl screen on|off|auto`.
    public var screenControl: ControlCommand.ScreenMode { power.controlMode }
    /// `ctl brightness N`: the level the screen holds while `screen_control` is on (nil: full).
    public var controlLevel: Int? { power.controlLevel }
    /// The banner `ctl message` put up, until when (core monotonic seconds).
    private var message: (text: String, until: Double)?
    /// A touchscreen is attached: the banner leaves the range selector free.
    private var touchScreen = false
    /// The banner of an alert of the instrument on screen, while it lasts (a message goes first).
    private var shownAlertBanner: String?

    // Cycling
    /// What the unattended show puts up next and when; touches and requests hold it.
    private var round: Round
    /// `ctl pause`, `ctl show` or the pause key holds the show.
    public var paused: Bool { round.isPaused }

    // Alerts (`[alert NAME]`)
    /// Each alert's state by name: the shell keeps it across restarts (`KioskSetup.alertStates`).
    public private(set) var alertStates: [String: AlertState] = [:]
    /// The next judgement of the alerts without new data (stale alerts, a banner's end).
    private var alertDue: Double?
    /// When the portfolio's value line is worked out again (a held series or a rate came).
    private var portfolioDue: Double?
    /// How often it was (the tests count them: a burst of series must make one).
    private(set) var valueLineComputations = 0
    /// What the value line was last worked out from: a new one starts at the first difference.
    private var valued: (config: PortfolioInputs, daily: [String: PriceSeries], rates: [String: PriceSeries])?
    /// The touch that woke the screen does nothing else until it lifts.
    private var ignoringWakingContact = false

    // Burn-in
    /// When the burn-in offset next moves (the frames time it).
    private var burnInDue: Double? { frames.burnInDue }

    // Health and readiness
    /// READY=1, the watchdog's deadline and the start-up time the burn-in and idle clocks count from.
    private var readiness: Readiness
    /// When `status.json` is written; nil when no status file is kept.
    private var statusSchedule: StatusSchedule?

    private var now = KioskTime(mono: 0, wall: 0)
    private var effects: [KioskEffect] = []

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
            frames.presentFailed()
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
            guard present != touchScreen else { break }
            touchScreen = present
            if message != nil || shownAlertBanner != nil {
                needs.insert(.picture)
                needs.insert(.wholeCopy)
            }
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
            tilesRefreshedAt = -.infinity
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
         message?.until, cec.nextDeadline, alertDue, portfolioDue, moversDue, power.ambientDue].compactMap { $0 }.min()
    }

    // MARK: Start and configuration

    private func start() {
        readiness.start(at: now.mono)
        emit(.openInput)
        emit(.openDisplay)
        armCycle(from: now.mono)
        decidePower()
        armBurnIn()
    }

    private func apply(_ setup: KioskSetup, initial: Bool) {
        let old = config
        config = setup.config
        configFile = setup.configFile
        localZone = setup.localZone
        configProblems = setup.problems
        round.configure(Round.Settings(config: config))
        power.configure(rule: ScreenPower(config: config, timeZone: localZone, zones: setup.zones), nightPalette: config.nightPalette)
        if cec.setting != config.cec {
            // Another adapter (or none): what is known of the TV starts again; the shell reopens.
            cec = CECPower(setting: config.cec)
            power.forgetSchedule()
        }
        frames.configure(burnIn: BurnInShift(config: config))
        var fresh: [Entry] = []
        for spec in config.instruments {
            // Keep what is known of an instrument across reloads: a reload whose path or time zone
            // is wrong must not replace real data with nothing.
            let previous = entries.first { $0.spec.id == spec.id }
            var entry = Entry(spec: spec, zone: setup.zones[spec.id] ?? previous?.zone)
            entry.fetch = previous?.fetch
            if let previous, previous.spec.adjusted == spec.adjusted {
                entry.daily = spec.dailyFile == nil ? nil : previous.daily
                entry.intraday = spec.intradayFile == nil ? nil : previous.intraday
            }
            fresh.append(entry)
        }
        if Self.showsPortfolio(config), let home = config.homeCurrency {
            // A screen of its own at the end of the round, drawn like an instrument from the value series.
            var spec = InstrumentConfig(id: Self.portfolioID)
            spec.name = config.portfolio.show == .percent ? "Portfolio" : "Portfolio · " + home
            spec.currency = home
            spec.aroundTheClock = true
            let firstHeld = config.instruments.first { !$0.holding.isEmpty }
            var entry = Entry(spec: spec, zone: firstHeld.flatMap { setup.zones[$0.id] } ?? .utc)
            entry.isPortfolio = true
            entry.daily = entries.last { $0.isPortfolio }?.daily
            fresh.append(entry)
        }
        showingSample = fresh.isEmpty
        entries = fresh
        rates = rates.filter { id, _ in config.fxPairs.contains { $0.id == id } }
        recomputePortfolio(logged: false)
        // A reload keeps what the alerts of the same name remember; a start takes the saved states.
        var states: [String: AlertState] = [:]
        for alert in config.alerts {
            if let kept = alertStates[alert.name] ?? setup.alertStates[alert.name] { states[alert.name] = kept }
        }
        alertStates = states
        alertDue = config.alerts.isEmpty ? nil : now.mono
        if !initial {
            perform(link.reconfigured(from: old, to: config))
            if old.inputEnabled != config.inputEnabled || old.seat != config.seat || old.calibration != config.calibration {
                log(.notice, "reload: [input] changed; reopening the input devices")
                emit(.openInput)
            }
        }
    }

    private func reconfigure(_ setup: KioskSetup) {
        let wasShowing = currentID
        apply(setup, initial: false)
        for p in setup.problems { log(.error, "config: \(p)") }
        // Stay on the instrument that was shown when it is still configured.
        round.reloaded(instrument: entries.firstIndex { $0.spec.id == wasShowing } ?? 0)
        rebuildModel()
        rebuildWatchlist()
        armCycle(from: now.mono)
        decidePower()
        armBurnIn()
        needs.insert(.wholeCopy)
        needs.insert(.picture)
        emit(.ready(status: nil))
    }

    private var currentID: String? {
        showingSample ? "sample" : entries.isEmpty ? nil : entries[instrumentIndex % entries.count].spec.id
    }

    // MARK: Data

    /// Whether `config` puts the portfolio on screen: holdings, `show` not off, and no instrument
    /// that already has the portfolio's id.
    static func showsPortfolio(_ config: Config) -> Bool {
        config.portfolio.show != .off && config.instruments.contains { !$0.holding.isEmpty }
            && !config.instruments.contains { $0.id == portfolioID }
    }

    /// The held instruments' daily series by id.
    private var portfolioDaily: [String: PriceSeries] {
        var daily: [String: PriceSeries] = [:]
        for entry in entries where !entry.spec.holding.isEmpty { daily[entry.spec.id] = entry.daily }
        return daily
    }

    /// The portfolio's value series again, from what is known of the holdings and the rates.
    private func recomputePortfolio(logged: Bool = true) {
        guard let p = entries.lastIndex(where: { $0.isPortfolio }) else { return }
        let daily = portfolioDaily
        var kept: (line: PriceSeries?, from: Int64)?
        if let valued, valued.config == config.portfolioInputs {
            // Only what changed since the last line (a held file's new day), unless the holdings did.
            let changed = [Portfolio.firstDifference(valued.daily, daily), Portfolio.firstDifference(valued.rates, rates)]
            guard let from = changed.compactMap({ $0 }).min() else { return }
            kept = (entries[p].daily, from)
        }
        valueLineComputations += 1
        valued = (config.portfolioInputs, daily, rates)
        let portfolio = Portfolio(config: config, daily: daily, rates: rates)
        guard let series = portfolio.valueSeries(name: Self.portfolioID, keeping: kept), series != entries[p].daily else { return }
        if logged {
            seriesArrived(id: Self.portfolioID, slot: .daily, series: series)
        } else {
            entries[p].daily = series
        }
    }

    private func seriesArrived(id: String, slot: Slot, series: PriceSeries) {
        guard let i = entries.firstIndex(where: { $0.spec.id == id }) else {
            // An [fx] pair's rates (the shell reads them as `fx-PAIR` when the portfolio shows).
            if slot == .daily, id.hasPrefix("fx-"), let pair = config.fxPairs.first(where: { "fx-" + $0.id == id }) {
                rates[pair.id] = series
                log(.info, "data: \(id): \(series.count) daily rates")
                portfolioDue = now.mono
            }
            return
        }
        let hadData = entries[i].hasData
        if slot == .daily {
            entries[i].daily = series
        } else {
            // Offset-less times are the instrument's wall clock, for the staleness check and the
            // alerts as much as for the chart (MarketData anchors them too, for one-off renders).
            entries[i].intraday = entries[i].zone.map { series.anchored(in: $0) } ?? series
        }
        log(.info, "data: \(id): \(series.count) \(slot == .daily ? "daily" : "intraday") bars")
        // Worked out once the series that came together are all in (a start reads every file in
        // one go: a hundred holdings were a hundred recomputations, READY after 74 s).
        if slot == .daily, !entries[i].spec.holding.isEmpty { portfolioDue = now.mono }
        updateTile(i)
        if config.alerts.contains(where: { $0.instrument == id }) { alertDue = now.mono }
        guard i == instrumentIndex % max(1, entries.count), let model else { return }
        if !hadData || model.placeholder != nil {
            // The placeholder turns into the chart at once; it draws itself in.
            rebuildModel()
            self.model?.show(.drawIn, at: frameTime())
        } else if drawableRanges() != shownRanges {
            // Ranges come or go (intraday bars for 1D): the selector changes, the range stays if it can.
            rebuildModel()
        } else if let market = market(of: entries[i]) {
            model.replaceMarket(market, at: frameTime())
            refreshStatusNote()
        }
        needs.insert(.picture)
    }

    private func market(of entry: Entry) -> MarketData? {
        guard let zone = entry.zone, entry.hasData else { return nil }
        let field: PriceField = entry.spec.adjusted ? .adjustedClose : .close
        var market = MarketData(daily: entry.daily, intraday: entry.intraday, timeZone: zone, priceField: field,
                                calendar: entry.spec.calendar)
        // The provider's previous close is the one before the session of its newest price.
        if let close = entry.fetch?.previousClose, let t = entry.fetch?.lastPriceTime {
            market.reportedPreviousClose = (close, zone.localDate(atUnixTime: t))
        }
        // The portfolio's day change is the holdings' day gain (each at one rate, stale ones none),
        // the figure `render --values` prints as day_gain, not the value line's step between two
        // dates valued at two days' rates.
        if entry.isPortfolio, let last = entry.daily?.last,
           let f = Portfolio(config: config, daily: portfolioDaily, rates: rates).figures(at: Int64(now.wall.clampedToInt64)) {
            market.reportedPreviousClose = ((f.value - f.dayGain).doubleValue, CivilDate(unixTime: last.time))
        }
        return market
    }

    private func instrument(of entry: Entry) -> Instrument {
        let name = entry.spec.name ?? entry.spec.id
        let market = self.market(of: entry)
            ?? MarketData(daily: nil, intraday: nil, timeZone: entry.zone ?? SampleMarket.timeZone, calendar: entry.spec.calendar)
        var instrument = Instrument(name: name, market: market, priceFormat: priceFormat(currencyCode: currencyCode(of: entry)),
                                    phrases: phrases)
        // Percent: the header says changes only, no money (the value line's scale is not labelled).
        instrument.relativeOnly = entry.isPortfolio && config.portfolio.show == .percent
        return instrument
    }

    private var phrasesCache: (locale: String, phrases: Phrases)?
    /// The screen's words in `[chart] locale`'s language, when the fonts can draw them.
    private var phrases: Phrases {
        let locale = config.locale.identifier
        if let phrasesCache, phrasesCache.locale == locale { return phrasesCache.phrases }
        let found = Phrases.drawable(locale: locale, fonts: fonts)
        phrasesCache = (locale, found)
        if found != Phrases(locale: locale) { log(.warning, "[chart] locale " + Self.missingScriptWarning(locale)) }
        return found
    }

    /// What the screen says instead of a chart, and why: `waiting for data: DAX.csv · yahoo: ^GDAXI
    /// not found` while an instrument has no good file (the fetcher's problem when it has one),
    /// `tickerboard.conf line 18: unknown time zone Europe/Frankfurt`. nil when the chart can show.
    private func placeholderText(for entry: Entry, phrases chosen: Phrases? = nil) -> String? {
        if entry.hasData && entry.zone != nil { return nil }
        let words = chosen ?? phrases
        if entry.zone == nil {
            let file = entry.spec.location(of: "time-zone", mainFile: configFile).file.split(separator: "/").last.map(String.init) ?? "config"
            let at = entry.spec.lines["time-zone"].map {
                Phrases.fill(words.configLine, ["file": file.isEmpty ? "config" : file, "n": String($0)])
            } ?? ""
            return at + Phrases.fill(words.unknownTimeZone, ["zone": entry.spec.timeZone])
        }
        var files = [entry.spec.dailyFile, entry.spec.intradayFile].compactMap { $0 }
        if entry.isPortfolio {
            // Waits for a day on which every holding has a price and a rate.
            files = config.instruments.filter { !$0.holding.isEmpty }.compactMap(\.dailyFile) + config.fxPairs.compactMap(\.dailyFile)
        }
        let names = files.map { DataSources.split(DataSources.resolve($0, in: config.dataDirectory)).name }
        guard !names.isEmpty else { return words.noDataFile }
        // The fetcher's reason stays as it wrote it: it names a provider's answer.
        return Phrases.fill(words.waitingForData, ["files": names.joined(separator: ", ")])
            + (entry.fetch?.reason.map { " · " + $0 } ?? "")
    }

    private func refreshPlaceholder() {
        guard let model, !showingSample, !entries.isEmpty else { return }
        let text = placeholderText(for: entries[instrumentIndex % entries.count])
        if model.placeholder != text {
            model.placeholder = text
            needs.insert(.picture)
        }
    }

    /// The problems of the data files, located at the config line that names each file.
    public var problems: [KioskProblem] {
        var out = configProblems
        for (path, message) in dataProblems.sorted(by: { $0.key < $1.key }) {
            out.append(Self.locate(path: path, message: message, in: config, file: configFile))
        }
        return out
    }

    /// `tickerboard.conf:12: daily: …` for a problem with a data file: the same text `check-config`
    /// prints for it.
    package static func locate(path: String, message: String, in config: Config, file: String) -> KioskProblem {
        for spec in config.instruments {
            for (key, name) in [("daily", spec.dailyFile), ("intraday", spec.intradayFile)] {
                guard let name, DataSources.resolve(name, in: config.dataDirectory) == path else { continue }
                let at = spec.location(of: key, mainFile: file)
                return KioskProblem(file: at.file.isEmpty ? path : at.file, line: at.line, key: key, message: message)
            }
        }
        // The rates the portfolio screen reads.
        for pair in config.fxPairs {
            guard let name = pair.dailyFile, DataSources.resolve(name, in: config.dataDirectory) == path else { continue }
            let at = pair.location(of: "daily", mainFile: file)
            return KioskProblem(file: at.file.isEmpty ? path : at.file, line: at.line, key: "daily", message: message)
        }
        return KioskProblem(file: path, line: 0, key: "", message: message)
    }

    /// Said by the daemon and check-config alike when the fonts cannot draw a locale's words.
    package static func missingScriptWarning(_ locale: String) -> String {
        "\(locale): no installed font has its characters (install fonts-noto-cjk or fonts-wqy-microhei); "
            + "the screen's words stay English"
    }

    /// The configured currency when the config names one, else what the fetcher reports
    /// (a London listing quoted in GBp), else USD.
    private func currencyCode(of entry: Entry) -> String {
        if entry.spec.lines["currency"] == nil, let reported = entry.fetch?.currency, Currency(code: reported) != nil {
            return reported
        }
        return entry.spec.currency
    }

    private func priceFormat(currencyCode: String) -> PriceFormat {
        config.priceFormat(currencyCode: currencyCode)
    }

    // MARK: The model

    private var quarterTurns: Int {
        config.rotation.map { $0 / 90 } ?? displayInfo?.panelQuarterTurns ?? 0
    }

    /// The range an instrument starts on: the configured start range when it is one of the ranges.
    private var firstRange: ChartRange {
        config.ranges.contains(config.startRange) ? config.startRange : config.ranges.first ?? .oneMonth
    }

    /// The configured ranges the instrument on screen can draw, in the selector and the cycle:
    /// 1D needs intraday bars (from daily bars it is two closes, a ruler line) and every range two
    /// points at least (one bar is a price, which the header shows). All of them when none can
    /// (a placeholder, the sample), so the selector never empties.
    public private(set) var shownRanges: [ChartRange] = []
    /// The range asked for that the instrument could not draw, and the one shown instead.
    private var gaveWay: (wanted: ChartRange, to: ChartRange)?

    private func drawableRanges() -> [ChartRange] {
        guard !showingSample, !entries.isEmpty, let market = market(of: entries[instrumentIndex % entries.count]) else {
            return config.ranges
        }
        return market.drawableRanges(of: config.ranges, options: config.rangeOptions)
    }

    private func rebuildModel(range: ChartRange? = nil) {
        guard let info = displayInfo else { model = nil; return }
        shownRanges = drawableRanges()
        // A range the instrument cannot draw gives way to the next one it can, in the configured
        // order, and comes back when the data does (minute bars read just after the daily ones),
        // unless something else was chosen meanwhile.
        var wanted = range ?? model?.range ?? firstRange
        if range == nil, let gave = gaveWay, model?.range == gave.to { wanted = gave.wanted }
        gaveWay = nil
        if !shownRanges.contains(wanted) {
            let after = config.ranges.drop { $0 != wanted }.first { shownRanges.contains($0) }
            let instead = after ?? shownRanges.first ?? wanted
            gaveWay = (wanted, instead)
            wanted = instead
        }
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sceneSize(sideways ? (info.height, info.width) : (info.width, info.height))
        let palette = activePalette
        tapeStale = true
        let instrument: Instrument
        var placeholder: String?
        if showingSample {
            instrument = .sample(phrases: phrases)
        } else {
            let entry = entries[instrumentIndex % entries.count]
            instrument = self.instrument(of: entry)
            placeholder = placeholderText(for: entry)
        }
        let m = ScreenModel(instrument: instrument, width: max(1, w), height: max(1, h), fonts: fonts, palette: palette,
                            range: wanted, scale: config.scale, ranges: shownRanges, stats: config.stats)
        m.hidesStats = !showingSample && entries[instrumentIndex % entries.count].isPortfolio
        m.timing = config.morph
        if m.timeAxis != config.timeAxis { m.timeAxis = config.timeAxis }
        m.rangeOptions = config.rangeOptions
        m.placeholder = placeholder
        model = m
        needs.insert(.wholeCopy)
        needs.insert(.picture)
        refreshStatusNote()
        emit(.layoutChanged(quarterTurns: quarterTurns, width: m.screen.layout.width, height: m.screen.layout.height))
    }

    /// The small print about the market and freshness (MarketNote): "Closed · opens Mon 09:30"
    /// from the exchange calendar (the provider's own word while fresh), "as of 16:00 EST" (the
    /// newest price's own time, in the exchange's zone — never today's date on yesterday's price),
    /// the provider's delay, and "stale" when the data is older than `stale-after`.
    private func refreshStatusNote() {
        refreshClock()
        guard let model, !showingSample, model.placeholder == nil else { return }
        let market = model.instrument.market
        let newest = [market.intraday, market.daily].compactMap { $0 }.max { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }
        // A wall clock more than 36 hours behind the newest price has not been set yet (a board
        // without a battery clock boots at 1970 until NTP answers): no market state, "as of" or
        // staleness from it, they would be wrong.
        if let last = newest?.last?.time, now.wall < Double(last) - 36 * 3600 {
            stale = false
            marketNote = nil
            if model.statusNote != phrases.clockNotSet {
                model.statusNote = phrases.clockNotSet
                needs.insert(.picture)
            }
            return
        }
        guard let newest, let staleness = Staleness(series: newest, now: Int64(now.wall.clampedToInt64),
                                                   staleAfterSeconds: config.staleAfterSeconds, timeZone: market.timeZone,
                                                   phrases: phrases)
        else { return }
        stale = staleness.isStale
        let fetch = entries[instrumentIndex % entries.count].fetch
        // The exchange's calendar says whether the market is open, daily file or not (files kept
        // fresh by cron or a broker export have no fetcher's status beside them). The portfolio
        // is no market: its holdings may trade on several.
        let calendar = entries[instrumentIndex % entries.count].isPortfolio ? nil : market.calendar
        let marketNote = MarketNote(calendar: calendar, zone: market.timeZone, now: Int64(now.wall.clampedToInt64),
                                    fetch: fetch, newest: newest, staleness: staleness, phrases: phrases, countdown: config.countdown)
        self.marketNote = marketNote
        // A line that changes by itself (a problem that has lasted, the open) wakes the power
        // check, which refreshes it, even when the news came between two of its wake-ups.
        if let change = marketNote.nextChange {
            let due = now.mono + max(1, Double(change) - now.wall + 1)
            if clockDue.map({ due < $0 }) ?? true { clockDue = due }
        }
        let note = marketNote.text
        // An alert's banner is the band along the foot (as `ctl message`'s), over the picture, so
        // that someone walking past notices; the market line stays true meanwhile.
        let banner = alertBanner()
        if banner != shownAlertBanner {
            shownAlertBanner = banner
            needs.insert(.picture)
            needs.insert(.wholeCopy)
        }
        if note != model.statusNote {
            model.statusNote = note
            needs.insert(.picture)
        }
    }

    /// The header's clock (`[chart] clock`), and when it next changes (the power check wakes for it).
    private func refreshClock() {
        guard let model, config.clock != .off else { clockNextChange = nil; return }
        // A board without a battery clock boots in 1970 until NTP answers: no time rather than a
        // wrong one (nor when the clock is more than 36 hours behind the newest price, as the note).
        let market = model.instrument.market
        let newest = [market.intraday?.last?.time, market.daily?.last?.time].compactMap { $0 }.max()
        let set = now.wall >= HeaderClock.earliestPlausibleTime && !(newest.map { now.wall < Double($0) - 36 * 3600 } ?? false)
        let clock = HeaderClock(mode: config.clock, now: Int64(now.wall.clampedToInt64), localZone: localZone,
                                exchangeZone: showingSample ? nil : market.timeZone, phrases: phrases, clockSet: set)
        clockNextChange = clock.nextChange
        if model.clock != clock.text {
            model.clock = clock.text
            needs.insert(.picture)
        }
        if let change = clock.nextChange {
            let due = now.mono + max(1, Double(change) - now.wall)
            if clockDue.map({ due < $0 }) ?? true { clockDue = due }
        }
    }

    // MARK: Alerts

    /// Judges every alert on what is known now; a firing is logged, jumps the cycle to its
    /// instrument once (unless someone is using the screen) and shows its banner.
    private func judgeAlerts() {
        alertDue = config.alerts.isEmpty ? nil : now.mono + 60
        let wall = now.wall.clampedToInt64
        for alert in config.alerts {
            guard let id = alert.instrument, let i = entries.firstIndex(where: { $0.spec.id == id }) else { continue }
            let entry = entries[i]
            // A wall clock not set yet (1970 on a board without a battery clock) judges nothing.
            guard let newest = [entry.daily?.last?.time, entry.intraday?.last?.time].compactMap({ $0 }).max(),
                  Double(newest) - 36 * 3600 <= now.wall else { continue }
            let observation = Alerts.observation(daily: entry.daily, intraday: entry.intraday,
                                                 field: entry.spec.adjusted ? .adjustedClose : .close,
                                                 zone: entry.zone ?? .utc, calendar: entry.spec.calendar, at: wall)
            let (state, fired) = Alerts.step(alert, observation, now: wall, state: alertStates[alert.name] ?? AlertState())
            alertStates[alert.name] = state
            guard fired, let observation else { continue }
            log(.notice, "alert \(alert.name): \(id) \(Alerts.describe(alert.condition)), at \(observation.price)")
            if round.yieldsToAlert(at: now.mono), !showingSample, i != instrumentIndex % max(1, entries.count) || showingWatchlist {
                open(instrument: i, range: model?.range ?? config.startRange)
            }
        }
        // The banner's end is a change of the picture too.
        let ends = config.alerts.compactMap { a in alertStates[a.name]?.firedAt.map { $0 + a.bannerSeconds } }
            .filter { Double($0) > now.wall }.min()
        if let end = ends { alertDue = min(alertDue ?? .infinity, now.mono + Double(end) - now.wall) }
        refreshStatusNote()
        // A tile is highlighted for its alert's banner time: on at the firing, off at the end.
        for i in tileIndices where config.alerts.contains(where: { $0.instrument == entries[i].spec.id }) { updateTile(i) }
    }

    /// The banner for the instrument on screen: its alert fired within the banner's time.
    private func alertBanner() -> String? {
        guard let id = currentID, let alert = bannerAlert(for: id) else { return nil }
        let entry = entries.first { $0.spec.id == id }
        let format = priceFormat(currencyCode: entry.map(currencyCode) ?? "USD")
        return "\u{26A0} " + alert.name + ": " + Self.bannerWords(alert.condition, phrases: phrases, format: format)
    }

    /// An alert's condition in the wall's words and number format: `unter 12.150`, `Bewegung von
    /// 2 % oder mehr` on a de-DE wall. The level keeps the decimals it was written with.
    static func bannerWords(_ condition: AlertConfig.Condition?, phrases: Phrases, format: PriceFormat) -> String {
        func number(_ v: ExactDecimal) -> String {
            let text = v.magnitude.description
            var f = format
            f.decimals = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
            f.significantDigits = nil
            return f.number(v.doubleValue)
        }
        switch condition {
        case .above(let v): return Phrases.fill(phrases.alertAbove, ["n": number(v)])
        case .below(let v): return Phrases.fill(phrases.alertBelow, ["n": number(v)])
        case .move(let p): return Phrases.fill(phrases.alertMoved, ["n": number(p) + format.percentSpacing + "%"])
        case .stale(let s): return Phrases.fill(phrases.alertNoPrice, ["t": s % 3600 == 0 ? "\(s / 3600)h" : "\(s / 60)min"])
        case nil: return ""
        }
    }

    /// The first alert of instrument `id` within its banner time (its tile is highlighted meanwhile).
    private func bannerAlert(for id: String) -> AlertConfig? {
        let mine = config.alerts.filter { $0.instrument == id }
        guard let name = Alerts.banners(mine, states: alertStates, now: now.wall.clampedToInt64).first else { return nil }
        return mine.first { $0.name == name }
    }

    /// Each configured instrument's newest data and whether it has a problem (the metrics file).
    public func instrumentHealth() -> [InstrumentHealth] {
        entries.filter { !$0.isPortfolio }.map { e in
            let newest = [e.daily?.bars.last?.time, e.intraday?.bars.last?.time].compactMap { $0 }.max()
            let problem = placeholderText(for: e) != nil || e.fetch?.lastError != nil
                || [e.spec.dailyFile, e.spec.intradayFile].compactMap { $0 }.contains { file in
                    dataProblems.keys.contains { $0.hasSuffix("/" + file) || $0 == file }
                }
            return InstrumentHealth(id: e.spec.id, lastDataTime: newest, problem: problem)
        }
    }

    /// The alerts in effect (fired, not re-armed), for the status file.
    public var activeAlerts: [String] { Alerts.active(config.alerts, states: alertStates) }

    /// The alerts in effect with what fired them and when.
    var alertFirings: [AlertFiring] {
        let active = Set(activeAlerts)
        return config.alerts.compactMap { a in
            guard active.contains(a.name), let at = alertStates[a.name]?.firedAt, let condition = a.condition else { return nil }
            let kind: String
            switch condition {
            case .above: kind = "above"
            case .below: kind = "below"
            case .move: kind = "move"
            case .stale: kind = "stale"
            }
            return AlertFiring(name: a.name, instrument: a.instrument, kind: kind, condition: Alerts.describe(condition), firedAt: at)
        }
    }

    private var stale = false
    /// The market status line last shown (its state and "as of" go to the status file).
    public private(set) var marketNote: MarketNote?
    public var isStale: Bool { stale && model?.placeholder == nil && !showingSample }

    /// `16:00 EST` on the day of `now` (exchange time), else `27 Nov 16:00 EST`, in the language
    /// of `phrases` (`27. Nov. 16:00 MEZ`).
    static func describe(_ time: Int64, in zone: ExchangeTimeZone, now: Double, phrases: Phrases = .english) -> String {
        let t = zone.localDateTime(atUnixTime: time)
        let today = zone.localDateTime(atUnixTime: now.clampedToInt64).date
        let clock = "\(t.hourMinute) " + phrases.zone(zone.abbreviation(atUnixTime: time))
        if t.date == today { return clock }
        // A date without its year reads as this year's: past half a year, say which.
        let days = (today.unixTimeAtMidnightUTC - t.date.unixTimeAtMidnightUTC) / 86_400
        return phrases.date(t.date, year: days > 180 || days < 0) + " " + clock
    }

    // MARK: Display lifecycle

    private func displayOpened(_ info: DisplayInfo) {
        perform(link.opened(info))
        frames.displayOpened()
        rebuildModel()
        rebuildWatchlist()
        if info.outputConnected {
            log(.notice, "display: \(info.width)x\(info.height)@\(format(info.refreshHz, 2)) Hz")
            if frames.burnIn.shift > 0 { log(.notice, "display: burn-in shift of \(frames.burnIn.shift) px by \(burnInMethod)") }
            if quarterTurns % 4 != 0 { log(.notice, "display: rotation \(quarterTurns % 4 * 90)° by \(rotationMethod)") }
        } else {
            log(.notice, "display: \(info.width)x\(info.height) opened, waiting for the output")
            perform(readiness.reached("waiting for an output"))
        }
        perform(power.displayOpened())
    }

    /// Why the display shows nothing of ours, for the status file (`display_detail`); nil while it does.
    private var displayDetail: String? { link.detail }

    /// Carries out what the display's lifecycle answered.
    private func perform(_ actions: [DisplayLink.Action]) {
        for action in actions {
            switch action {
            case .log(let priority, let text): log(priority, text)
            case .watchHotplug(let on): emit(.watchHotplug(on))
            case .openDisplay: emit(.openDisplay)
            case .reopenDisplay: emit(.reopenDisplay)
            case .relayout:
                rebuildModel()
                rebuildWatchlist()
            }
        }
    }

    private func flipCompleted(vblank: Double, sequence: UInt64) {
        // The tape moves every frame: a missed vblank while it crawls is a visible stutter.
        frames.flipCompleted(vblank: vblank, sequence: sequence, animating: isAnimating(at: vblank) || tapeOn)
        if !readiness.isReady {
            perform(readiness.reached(screenOn ? "showing the chart" : "screen off (power)"))
            // Idle right after the first frame: lay out every range before the first morph.
            model?.prepareAllRanges()
        }
    }

    /// The animation time of the next frame: the vblank it will be shown at.
    private func frameTime() -> Double { frames.frameTime(at: now.mono, refreshHz: displayInfo?.refreshHz) }

    /// Asks for the next frame when one is wanted and the display can take it.
    private func scheduleFrame() {
        guard displayState == .presenting, frames.state == .idle, let model else { return }
        let background = model.screen.palette.background
        let t = frameTime()
        let brightness: Double, relit: Bool, fading: Bool
        switch power.frame(at: t) {
        case .dark: return
        case .black:
            present(FramePlan(scene: .black, background: background, time: now.mono, fullCopy: true, offset: .zero,
                              quarterTurns: quarterTurns, settled: true))
            needs.insert(.wholeCopy)
            return
        case .lit(let level, let changed, let moving):
            brightness = level
            relit = changed
            fading = moving
        }
        model.advance(to: t)
        guard let frame = frames.frame(at: t, sceneMoving: isAnimating(at: t) || relit, tapeMoving: tapeOn,
                                       startedAt: readiness.startedAt, shiftLimit: displayInfo?.scanoutShiftLimit ?? 0,
                                       rotatesByScanout: rotatesByScanout) else { return }
        let scene = showingWatchlist ? watchlist.map(FrameScene.overview) ?? .chart(model) : .chart(model)
        let tape = frameTape(at: t)
        let sceneSettled = !isAnimating(at: t) && !fading
        // A price lit on the tape is a motion that ends, as a morph is (the crawl never does): a
        // preview or a script waiting for the settled picture waits for it too.
        let lit = TapeFlash.isFlashing(changedAt: tapePriceChangedAt, now: t)
        var plan = FramePlan(scene: scene, background: background, time: t, fullCopy: frame.fullCopy, offset: frame.offset,
                             quarterTurns: quarterTurns, settled: sceneSettled && !lit,
                             banner: message?.text ?? shownAlertBanner)
        plan.tape = tape
        plan.shiftByScanout = frame.shiftByScanout
        plan.redraw = frame.redraw
        plan.brightness = brightness
        plan.bannerAboveSelector = touchScreen
        // Software dimming changes every pixel; a backlight changes none of them.
        if relit && displayInfo?.backlight == nil { plan.fullCopy = true; plan.redraw = true }
        power.presented(level: brightness)
        // The overview is painted whole when it is painted (it changes only when a tile's data does).
        if showingWatchlist && plan.redraw { plan.fullCopy = true }
        // The scene beside a lit tape is still: it is not painted again for the tape's sake.
        present(plan, motion: plan.settled ? .still : sceneSettled ? .tapeLit : .moving)
    }

    /// Whether the ticker tape is on screen (it then moves every frame).
    private var tapeOn: Bool { config.tapePosition != .off && screenOn }

    /// The size the chart or the overview is laid out at: what a tape band leaves of the screen.
    private func sceneSize(_ size: (Int, Int)) -> (Int, Int) {
        let area = TapeLayout.contentArea(position: config.tapePosition, width: max(1, size.0), height: max(1, size.1))
        return (area.width, area.height)
    }

    /// The tape for the frame at `time`, its words recomputed when the data or the clock changed them.
    private func frameTape(at time: Double) -> FrameTape? {
        guard config.tapePosition != .off else { return nil }
        let palette = activePalette
        if tapeStale {
            tapeStale = false
            let items = tapeEntries().map { TapeItem(entry: $0, palette: palette, options: config.rangeOptions) }
            if items != tapeItems {
                // The shell's rule for a flash: the same item in the same place at another price.
                if zip(tapeItems, items).contains(where: { $0.name == $1.name && $0.price != $1.price }) {
                    tapePriceChangedAt = time
                }
                tapeItems = items
                tapeRevision += 1
            }
        }
        return FrameTape(position: config.tapePosition, speed: config.tapeSpeed, palette: palette, items: tapeItems,
                         revision: tapeRevision)
    }

    /// Whether the picture on screen moves at `time`: the overview never does.
    private func isAnimating(at time: Double) -> Bool {
        !showingWatchlist && model?.isAnimating(at: time) == true
    }

    private func present(_ plan: FramePlan, motion: FrameFlow.Motion? = nil) {
        frames.present(motion ?? (plan.settled ? .still : .moving), at: now.mono)
        emit(.present(plan))
    }

    // MARK: Timers

    /// `timer`: the event is the timer's own. The value line waits for it: events that come
    /// together (a start reads every data file in one go) are all handled before the timer's.
    private func fireDueTimers(timer: Bool) {
        let t = now.mono
        perform(link.timer(at: t))
        if let due = round.nextDeadline, due <= t { perform(round.timer(at: t, screen: roundScreen)) }
        if let due = powerDue, due <= t { decidePower() }
        if let due = message?.until, due <= t {
            message = nil
            needs.insert(.picture)
            needs.insert(.wholeCopy)
        }
        if let due = cec.nextDeadline, due <= t { perform(cec.timer(at: t)) }
        if timer, let due = portfolioDue, due <= t {
            portfolioDue = nil
            recomputePortfolio()
        }
        if let due = alertDue, due <= t { judgeAlerts() }
        perform(power.ambientTimer(at: t))
        if let due = moversDue, due <= t {
            moversDue = nil
            tapeStale = true
            if config.watchlistSort != .config, watchlist != nil, !showingSample,
               moversOrdered(tileIndices.map(watchlistEntry), sort: config.watchlistSort, by: &tileMovers).map(\.index) != tileOrder {
                rebuildWatchlist()
            }
        }
        frames.timer(at: t, startedAt: readiness.startedAt)
        perform(readiness.timer(at: t))
    }

    /// How long a flip may stay in flight before the loop counts as stuck.
    static let flipTimeout = FrameFlow.flipTimeout

    // MARK: Cycling

    private func armCycle(from t: Double) {
        round.arm(at: t, showing: model?.range)
    }

    /// What the round reads of the screen when its step is due.
    private var roundScreen: Round.Screen {
        let chart = model.map { model in
            Round.ChartView(range: model.range, ranges: shownRanges.isEmpty ? config.ranges : shownRanges,
                            showsBars: model.scene == .bars, scrubbing: model.scrubIndex != nil,
                            placeholder: model.placeholder != nil)
        }
        return Round.Screen(instruments: roundCount, hasOverview: watchlist != nil, chart: chart)
    }

    /// Instruments in the round: the sample market is one.
    private var roundCount: Int { showingSample ? 1 : entries.count }

    /// Carries out what the round answered: the model is the core's, the round only names what it shows.
    private func perform(_ actions: [Round.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: Round.Action) {
        switch action {
        case .select(let range):
            model?.select(range, at: frameTime())
            needs.insert(.picture)
        case .showBars:
            model?.show(.bars, at: frameTime())
            needs.insert(.picture)
        case .open(let range):
            rebuildModel(range: range)
            model?.show(.drawIn, at: frameTime())
            needs.insert(.wholeCopy)
            needs.insert(.picture)
        case .step(let range):
            rebuildModel(range: range)
            model?.show(.drawIn, at: frameTime())
            // The range it gave way to, when it cannot draw the first, is the one its round has shown.
            if let model { round.shown(model.range) }
            needs.insert(.picture)
        case .showOverview:
            if model?.scrubIndex != nil { model?.endScrub() }
            refreshTiles()
            needs.insert(.wholeCopy)
            needs.insert(.picture)
        }
    }

    // MARK: The watchlist overview

    /// The overview of every instrument when `[chart] watchlist` asks for it, at the screen's size.
    private func rebuildWatchlist() {
        guard config.watchlist != .off, let info = displayInfo else {
            if showingWatchlist {
                needs.insert(.wholeCopy)
                needs.insert(.picture)
                round.leaveOverview(at: now.mono)
            }
            watchlist = nil
            return
        }
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sceneSize(sideways ? (info.height, info.width) : (info.width, info.height))
        let ordered = showingSample ? [] : moversOrdered(tileIndices.map(watchlistEntry), sort: config.watchlistSort, by: &tileMovers)
        tileOrder = ordered.map(\.index)
        let tiles = showingSample ? [WatchlistEntry(instrument: .sample(phrases: phrases))] : ordered.map(\.entry)
        watchlist = WatchlistScene(entries: tiles, width: max(1, w), height: max(1, h), fonts: fonts,
                                   palette: activePalette, range: watchlist?.range ?? firstRange)
        watchlistNextChange = showingSample ? nil : tileIndices.compactMap { tileState($0).nextChange }.min()
        if config.watchlist == .only && !showingWatchlist { showWatchlist() }
        if showingWatchlist { needs.insert(.wholeCopy); needs.insert(.picture) }
    }

    /// What the tape says of each instrument (all of them, in the config's order; not the portfolio,
    /// which has no tile and may not show money): the watchlist
    /// tiles' instruments, staleness and market states.
    package func tapeEntries() -> [WatchlistEntry] {
        showingSample ? [WatchlistEntry(instrument: .sample(phrases: phrases))]
            : moversOrdered(tileIndices.map(watchlistEntry), sort: config.tapeSort, by: &tapeMovers).map(\.entry)
    }

    /// `entries` (config order) in the order `movers` decides for `sort` now, each with its config
    /// index; arms the look at the order again when the moves changed inside its minute.
    private func moversOrdered(_ entries: [WatchlistEntry], sort: MoveSort, by movers: inout MoverOrder)
        -> [(index: Int, entry: WatchlistEntry)] {
        let moves = sort == .config ? entries.map { _ in nil } : entries.map { TapeItem.dayMovePercent(of: $0, options: config.rangeOptions) }
        let order = movers.order(sort: sort, moves: moves, now: now.mono)
        if let due = movers.recheckDue(moves: moves) { moversDue = min(moversDue ?? due, due) }
        return order.map { (index: $0, entry: entries[$0]) }
    }

    /// What the tile of entry `i` says: the same instrument, placeholder and staleness the chart
    /// would show, and the market status the header would.
    private func watchlistEntry(_ i: Int) -> WatchlistEntry {
        let entry = entries[i]
        let state = tileState(i)
        var shown = instrument(of: entry)
        if config.portfolio.tileValues, config.portfolio.show == .value, let position = position(of: entry, shown) { shown = position }
        return WatchlistEntry(instrument: shown, isStale: state.stale, placeholder: placeholderText(for: entry),
                              market: state.market, alert: bannerAlert(for: entry.spec.id)?.name)
    }

    /// `[portfolio] tiles = value`: the instrument as its position, every price times the quantity
    /// held now (sub-unit quotes in their currency: GBp in GBP), the closes exact and rounded to the
    /// currency's minor units as the portfolio's lines are; nil when nothing is held.
    private func position(of entry: Entry, _ instrument: Instrument) -> Instrument? {
        let today = CivilDate(unixTime: now.wall.clampedToInt64)
        let quantity = entry.spec.holding.allLots.filter { $0.date.map { $0 <= today } ?? true }
            .reduce(ExactDecimal.zero) { $0 + $1.quantity }
        guard !quantity.isZero else { return nil }
        let code = currencyCode(of: entry)
        let subunit = Currency(code: code)?.isSubunit ?? false
        let money = subunit ? Config.homeCode(of: code) : code
        let minor = Currency(code: money)?.minorUnits ?? 2
        let q = subunit ? quantity.shifted(by: -2) ?? quantity : quantity
        let factor = q.doubleValue
        func value(_ price: Double) -> Double {
            guard let p = ExactDecimal(shortest: price), let v = p.multiplied(by: q) else { return price * factor }
            return v.rounded(to: minor).doubleValue
        }
        func scaled(_ series: PriceSeries?) -> PriceSeries? {
            series.map { s in
                PriceSeries(name: s.name, interval: s.interval, bars: s.bars.map { b in
                    PriceBar(time: b.time, open: b.open * factor, high: b.high * factor, low: b.low * factor,
                             close: value(b.close), adjustedClose: b.adjustedClose.map(value), volume: b.volume)
                }, priceField: s.priceField)
            }
        }
        var out = instrument
        out.market.daily = scaled(instrument.market.daily)
        out.market.intraday = scaled(instrument.market.intraday)
        if let reported = instrument.market.reportedPreviousClose {
            out.market.reportedPreviousClose = (value(reported.value), reported.session)
        }
        out.priceFormat = priceFormat(currencyCode: money)
        return out
    }

    private func tileState(_ i: Int) -> (stale: Bool, market: MarketStatus.State?, nextChange: Int64?) {
        let entry = entries[i]
        guard let zone = entry.zone else { return (false, nil, nil) }
        let wall = Int64(now.wall.clampedToInt64)
        let newest = [entry.intraday, entry.daily].compactMap { $0 }.max { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }
        let staleness = newest.flatMap {
            Staleness(series: $0, now: wall, staleAfterSeconds: config.staleAfterSeconds, timeZone: zone)
        }
        // The exchange's calendar even for daily data: the mark is about the market, not the file.
        let note = MarketNote(calendar: entry.spec.calendar, zone: zone, now: wall, fetch: entry.fetch, newest: newest,
                              staleness: staleness)
        return (staleness?.isStale ?? false, note.state.flatMap(MarketStatus.State.init(rawValue:)), note.nextChange)
    }

    /// New data, a fetch status or the clock changed what entry `i` knows: its tile follows.
    private func updateTile(_ i: Int) {
        tapeStale = true
        guard let watchlist, !showingSample, tileIndices.contains(i) else { return }
        let position = tileOrder.firstIndex(of: i) ?? i
        let entry = watchlistEntry(i)
        if watchlist.update(entry, at: position), showingWatchlist { needs.insert(.picture) }
        // Sorted by the day's move: a new price may change the order, looked at when its minute is
        // up; an instrument's first price places it at once.
        if config.watchlistSort != .config {
            if tileMovers.fallsAtOnce(index: i, move: TapeItem.dayMovePercent(of: entry, options: config.rangeOptions)) {
                moversDue = now.mono
            } else if let due = tileMovers.standsUntil {
                moversDue = min(moversDue ?? due, due)
            }
        }
    }

    /// Staleness and market marks of every tile, as of now.
    private func refreshTiles() {
        tapeStale = true
        guard watchlist != nil, !showingSample else { return }
        tilesRefreshedAt = now.wall
        for i in tileIndices { updateTile(i) }
        watchlistNextChange = tileIndices.compactMap { tileState($0).nextChange }.min()
    }

    private func showWatchlist() {
        guard watchlist != nil else { return }
        round.enterOverview(at: now.mono)
        perform(Round.Action.showOverview)
    }

    /// The chart of instrument `index` (a tapped tile, a request, an alert), drawing itself in; its
    /// round starts now.
    private func open(instrument index: Int, range: ChartRange) {
        perform(round.open(instrument: index, of: roundCount, range: range, at: now.mono))
    }

    /// Shows what `request` names and holds the cycle there; a name the config does not have, or
    /// a range the instrument cannot draw, is logged and leaves the next best on screen.
    private func show(_ request: ShowRequest) {
        round.pause()
        if request.scene == .watchlist {
            guard let watchlist else {
                log(.warning, "show: no watchlist ([chart] watchlist = off)")
                return
            }
            if let range = request.range { watchlist.select(range) }
            showWatchlist()
            return
        }
        var index = instrumentIndex
        if let id = request.instrumentID {
            guard let i = entries.firstIndex(where: { $0.spec.id == id }) else {
                log(.warning, "show: no instrument \(id) in the config")
                return
            }
            index = i
        }
        let range = request.range ?? firstRange
        open(instrument: index, range: range)
        guard let model else { return }
        if model.range != range {
            log(.warning, "show: \(currentID ?? "-") cannot draw \(range); showing \(model.range)")
        }
        switch request.scene {
        case .draw, .watchlist: break
        case .line: model.select(model.range, at: frameTime(), animated: false)
        case .bars: model.show(.bars, at: frameTime())
        }
    }

    /// Swipes and arrow keys on the overview step every tile through the configured ranges.
    private func stepWatchlist(_ delta: Int) {
        guard let watchlist else { return }
        let ranges = config.ranges
        let i = ((ranges.firstIndex(of: watchlist.range) ?? 0) + delta % ranges.count + ranges.count) % ranges.count
        watchlist.select(ranges[i])
        needs.insert(.picture)
    }

    // MARK: Control socket

    /// A request from the control socket: carried out as a touch or a key would be, answered in one
    /// line. Requests that change what is shown work with the screen off or the display gone (they
    /// show when it comes back); only `screen` lights or darkens it.
    private func control(_ command: ControlCommand, id: UInt64) {
        func reply(_ text: String? = nil) { emit(.controlReply(id: id, .ok(text))) }
        func refuse(_ text: String) { emit(.controlReply(id: id, .error(.refused(text)))) }
        let offNote = screenOn ? "" : " (the screen is off)"
        switch command {
        case .version: reply("tickerboard-control \(controlProtocolVersion)")
        case .instruments: reply(instrumentsJSON())
        case .status: emit(.controlStatus(id: id, status()))
        case .screenshot:
            guard displayState == .presenting, stats.presentedFrames > 0 else {
                return refuse("no picture: \(displayStatus)")
            }
            emit(.screenshot(id: id))
        case .reload: emit(.reloadConfig(id: id))
        case .pause, .resume:
            if command == .pause { round.pause() } else { round.resume(at: now.mono) }
            log(.notice, "control: cycling \(paused ? "paused" : "resumed")")
            reply(paused ? "paused" : "resumed")
        case .next:
            guard let model else { return refuse("nothing is shown yet: \(displayStatus)") }
            if showingSample || entries.count < 2 {
                return refuse("one instrument only")
            }
            if model.scrubIndex != nil { model.endScrub() }
            perform(round.next(at: now.mono, of: entries.count, first: firstRange))
            needs.insert(.wholeCopy)
            needs.insert(.picture)
            reply("showing \(currentID ?? "-")" + offNote)
        case .show(let instrument, let rangeName):
            guard model != nil else { return refuse("nothing is shown yet: \(displayStatus)") }
            guard showingSample ? [SampleMarket.symbol, currentID].contains(instrument) : entries.contains(where: { $0.spec.id == instrument }) else {
                let ids = showingSample ? [SampleMarket.symbol] : entries.map(\.spec.id)
                return refuse("no instrument \(instrument) in the config; there are \(ids.prefix(12).joined(separator: ", "))")
            }
            var range: ChartRange?
            if let rangeName {
                guard let r = controlRange(rangeName) else { return refuse("no range \(rangeName); the config has \(config.ranges.map(\.rawValue).joined(separator: " "))") }
                range = r
            }
            show(ShowRequest(instrumentID: showingSample ? nil : instrument, range: range))
            if let range, let shown = self.model?.range, shown != range {
                return reply("showing \(instrument) \(shown.rawValue): it cannot draw \(range.rawValue)" + offNote)
            }
            reply("showing \(instrument) \(self.model?.range.rawValue ?? "")" + offNote)
        case .range(let name):
            guard let model else { return refuse("nothing is shown yet: \(displayStatus)") }
            guard let range = controlRange(name) else {
                return refuse("no range \(name); the config has \(config.ranges.map(\.rawValue).joined(separator: " "))")
            }
            round.touched(at: now.mono)
            if showingWatchlist, let watchlist {
                watchlist.select(range)
                needs.insert(.picture)
                return reply("watchlist \(range.rawValue)" + offNote)
            }
            guard shownRanges.contains(range) else {
                return refuse("\(currentID ?? "this instrument") cannot draw \(range.rawValue) (its data has \(shownRanges.map(\.rawValue).joined(separator: " ")))")
            }
            if model.scrubIndex != nil { model.endScrub() }
            model.select(range, at: frameTime())
            round.shown(range)
            needs.insert(.picture)
            reply("\(currentID ?? "-") \(range.rawValue)" + offNote)
        case .scene(let name):
            guard model != nil else { return refuse("nothing is shown yet: \(displayStatus)") }
            let scene: ShowRequest.Scene
            switch name {
            case "chart", "line": scene = .line
            case "bars": scene = .bars
            case "draw", "draw-in": scene = .draw
            case "watchlist":
                guard watchlist != nil else { return refuse("no watchlist: [chart] watchlist = off") }
                scene = .watchlist
            default: return refuse("no scene \(name); there are chart, bars, draw, watchlist")
            }
            show(ShowRequest(instrumentID: showingSample ? nil : currentID, range: scene == .watchlist ? nil : model?.range,
                             scene: scene))
            reply("scene \(scene.rawValue), cycling held (resume to go on)" + offNote)
        case .screen(let mode):
            perform(power.screen(mode, at: now.wall))
            reply("screen \(mode.rawValue): \(screenOn ? "on" : "off")")
        case .brightness(let percent):
            perform(power.brightness(percent, at: now.wall))
            reply(percent > 0 ? "brightness \(percent) % (\(brightnessMeans)), until screen auto" : "screen off")
        case .message(let text, let seconds):
            let duration = seconds ?? ControlCommand.messageSecondsDefault
            message = (text, now.mono + duration)
            needs.insert(.picture)
            needs.insert(.wholeCopy)
            log(.notice, "control: message for \(Int(duration)) s")
            reply("message for \(Int(duration)) s" + offNote)
        case .clearMessage:
            if message != nil {
                message = nil
                needs.insert(.picture)
                needs.insert(.wholeCopy)
            }
            reply("no message")
        }
    }

    /// `ctl instruments`: each instrument's price and day change (`MarketData.dayQuote`, the same
    /// as the tape's and the header's on 1D), its market and staleness, and the configured ranges
    /// and the scenes.
    private func instrumentsJSON() -> String {
        func q(_ s: String?) -> String { s.map(FetchStatus.quoted) ?? "null" }
        // The status file's numbers (a close of 1e303 printed "inf", which no JSON reader takes).
        func n(_ v: Double?) -> String { JSONValue.number(v).compactText }
        var items: [String] = []
        let health = Dictionary(instrumentHealth().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if !showingSample {
            // The portfolio is no instrument: its value is not for the bridge's sensors.
            for i in tileIndices {
                let entry = entries[i]
                var fields = ["\"id\": \(q(entry.spec.id))", "\"name\": \(q(entry.spec.name ?? entry.spec.id))",
                              "\"currency\": \(q(entry.spec.currency))"]
                if entry.hasData, entry.zone != nil {
                    let day = instrument(of: entry).market.dayQuote(options: config.rangeOptions)
                    let state = tileState(i)
                    fields += ["\"price\": \(n(day?.price))", "\"change\": \(n(day?.change))",
                               "\"change_percent\": \(n(day?.changePercent))", "\"previous_close\": \(n(day?.previousClose))",
                               "\"session_state\": \(q(state.market?.rawValue))", "\"stale\": \(state.stale)"]
                } else {
                    fields += ["\"price\": null", "\"waiting_for\": \(q(placeholderText(for: entry, phrases: .english)))"]
                }
                // The time of its newest data and whether it has a problem, as the metrics say them.
                let health = health[entry.spec.id]
                fields += ["\"last_data_time\": \(health?.lastDataTime.map(String.init) ?? "null")", "\"problem\": \(health?.problem ?? false)"]
                items.append("{" + fields.joined(separator: ", ") + "}")
            }
        } else {
            items.append("{\"id\": \(q(SampleMarket.symbol)), \"name\": \(q(SampleMarket.name)), \"currency\": \"USD\"}")
        }
        let ranges = config.ranges.map { q($0.rawValue) }.joined(separator: ", ")
        let scenes = (["chart", "bars", "draw"] + (watchlist != nil ? ["watchlist"] : [])).map { q($0) }.joined(separator: ", ")
        return "{\"instruments\": [" + items.joined(separator: ", ") + "], \"ranges\": [\(ranges)], \"scenes\": [\(scenes)]}"
    }

    /// A range a request names, if the config has it.
    private func controlRange(_ name: String) -> ChartRange? {
        ChartRange(rawValue: name.uppercased()).flatMap { config.ranges.contains($0) ? $0 : nil }
    }

    // MARK: Input

    /// `gesture` in the scene's coordinates (a band on top moves the scene down by its height).
    private func sceneGesture(_ gesture: Gesture) -> Gesture {
        guard config.tapePosition == .top, let info = displayInfo else { return gesture }
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sideways ? (info.height, info.width) : (info.width, info.height)
        let dy = Double(TapeLayout.contentArea(position: .top, width: w, height: h).y0)
        switch gesture {
        case .scrubBegan(let x, let y): return .scrubBegan(x: x, y: y - dy)
        case .scrubMoved(let x, let y): return .scrubMoved(x: x, y: y - dy)
        case .tap(let x, let y): return .tap(x: x, y: y - dy)
        default: return gesture
        }
    }

    private func handle(_ gesture: Gesture, inputMicros: UInt64?) {
        guard let model else { return }
        round.touched(at: now.mono)
        // The touch that wakes the screen does nothing else: it wakes on the contact's first event
        // (scrubBegan), so the rest of that contact (its moves, its end, the tap or swipe it turns
        // into on release) is ignored too, until the next contact begins.
        if noteActivity() {
            ignoringWakingContact = true
            return
        }
        if ignoringWakingContact {
            guard case .scrubBegan = gesture else { return }
            ignoringWakingContact = false
        }
        let t = frameTime()
        // A band on top moves the scene down: touches come in screen coordinates.
        let gesture = sceneGesture(gesture)
        if showingWatchlist, let watchlist {
            switch gesture {
            case .tap(let x, let y):
                // The chart of the tile's instrument, on the tile's range; the show goes on after
                // the touch pause (`cycle`).
                if let k = watchlist.layout.tile(atX: x, y: y) {
                    if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                    open(instrument: k < tileOrder.count ? tileOrder[k] : k, range: watchlist.range)
                }
            case .swipe(let direction): stepWatchlist(direction == .left ? 1 : -1)
            case .scrubBegan, .scrubMoved, .scrubEnded: break
            }
            return
        }
        let plot = model.screen.layout.plot
        switch gesture {
        case .scrubBegan(let x, let y), .scrubMoved(let x, let y):
            guard y <= plot.bottom + 8 * model.screen.layout.scale || model.scrubIndex != nil else { return }
            if model.scene != .line { model.select(model.range, at: t, animated: false) }
            if model.scrub(atX: x) {
                if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                needs.insert(.picture)
            }
        case .scrubEnded:
            if model.scrubIndex != nil {
                model.endScrub()
                needs.insert(.picture)
            }
        case .tap(let x, let y):
            if let range = model.screen.layout.range(atX: x, y: y) {
                model.select(range, at: t)
                round.shown(range)
                if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                needs.insert(.picture)
            }
        case .swipe(let direction):
            step(direction == .left ? 1 : -1, at: t)
        }
    }

    private func handle(_ command: KeyCommand) {
        guard let model else { return }
        round.touched(at: now.mono)
        if noteActivity() { return }
        let t = frameTime()
        if showingWatchlist, let watchlist {
            // The keys choose the range of every tile.
            switch command {
            case .selectRange(let index):
                guard index >= 0, index < config.ranges.count else { return }
                watchlist.select(config.ranges[index])
                needs.insert(.picture)
            case .previousRange: stepWatchlist(-1)
            case .nextRange: stepWatchlist(1)
            case .togglePause: togglePause()
            }
            return
        }
        switch command {
        case .selectRange(let index):
            // The key names a configured range; one this instrument cannot draw does nothing.
            guard index >= 0, index < config.ranges.count, shownRanges.contains(config.ranges[index]) else { return }
            model.select(config.ranges[index], at: t)
            needs.insert(.picture)
        case .previousRange: step(-1, at: t)
        case .nextRange: step(1, at: t)
        case .togglePause: togglePause()
        }
    }

    private func togglePause() {
        log(.notice, "cycling \(round.togglePause() ? "paused" : "resumed") from the keyboard")
    }

    /// Swipes and arrow keys step through the ranges the selector offers.
    private func step(_ delta: Int, at time: Double) {
        guard let model else { return }
        let ranges = shownRanges.isEmpty ? config.ranges : shownRanges
        let i = ((ranges.firstIndex(of: model.range) ?? 0) + delta % ranges.count + ranges.count) % ranges.count
        model.select(ranges[i], at: time)
        needs.insert(.picture)
    }

    /// Someone is there: restart the idle countdown; returns true if this woke the screen.
    private func noteActivity() -> Bool {
        let wasOff = !screenOn
        perform(power.activity(at: now.wall))
        return wasOff && screenOn
    }

    // MARK: Screen power

    /// The power decision, and with it a look at what changes with the clock: the market note, the
    /// header's clock and the tiles, whose next changes wake it as the decision's own does.
    private func decidePower() {
        perform(power.decide(at: now, startedAt: readiness.startedAt, displayOpen: displayState != .none, means: brightnessMeans))
        refreshStatusNote()
        var sleep: Double?
        // The market status changes at the open, the lunch break and the close: wake up for it.
        if let change = marketNote?.nextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall + 1)) }
        if let change = clockNextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall)) }
        // The tiles' staleness and market marks move with the clock too; a finger's every move
        // (the idle countdown) need not recompute twelve instruments, once a minute will do.
        if watchlist != nil || tapeOn {
            if now.wall - tilesRefreshedAt >= 60 || watchlistNextChange.map({ Double($0) <= now.wall }) == true {
                refreshTiles()
            }
            if let change = watchlistNextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall + 1)) }
        }
        clockDue = sleep.map { now.mono + $0 }
    }

    /// How the level is carried out: `backlight NAME` or `software` (the log and the status file).
    public var brightnessMeans: String { displayInfo?.backlight.map { "backlight \($0)" } ?? "software" }

    /// The screen's level now in percent (0 while off).
    public var lightLevel: Int { power.percent(at: now.mono) }

    /// Carries out what the power machine answered.
    private func perform(_ actions: [ScreenPowerMachine.Action]) {
        for action in actions {
            switch action {
            case .log(let priority, let text): log(priority, text)
            case .setPowered(let on): emit(.setPowered(on))
            case .lit: frames.screenLit()
            case .darkened: perform(readiness.reached("screen off (power)"))
            case .tellTV(let on, let scheduleBegan):
                if scheduleBegan { cec.scheduledOnBegan() }
                perform(cec.screen(on: on, at: now.mono))
            case .repaint: needs.insert(.picture)
            case .paletteChanged:
                rebuildModel()
                if watchlist != nil { rebuildWatchlist() }
                needs.insert(.wholeCopy)
                needs.insert(.picture)
            case .forgetFlip: frames.flipForgotten()
            case .decide: decidePower()
            }
        }
    }

    /// Carries out what readiness answered.
    private func perform(_ action: Readiness.Action?) {
        switch action {
        case .notifyReady(let status): emit(.ready(status: status))
        case .pingWatchdog: perform(frames.watchdog(at: now.mono))
        case nil: break
        }
    }

    /// Carries out what the frames answered: WATCHDOG=1 unless a flip is stuck.
    private func perform(_ action: FrameFlow.Action?) {
        switch action {
        case .log(let priority, let text): log(priority, text)
        case .pingWatchdog: emit(.watchdogPing)
        case nil: break
        }
    }

    /// Carries out what the CEC rule answered.
    private func perform(_ outputs: [CECPower.Output]) {
        for output in outputs {
            switch output {
            case .send(let request): emit(.cec(request))
            case .log(let priority, let text): log(priority, text)
            }
        }
    }

    /// The status file's `cec` (see `CECPower.status`).
    public var cecStatus: String { cec.status }

    // MARK: Burn-in

    /// How the burn-in shift moves the picture: `fb-offset` (the display moves its scanout, no
    /// copy), `copy` (the shell moves the pixels), `off`.
    public var burnInMethod: String {
        frames.burnInMethod(shiftLimit: displayInfo?.scanoutShiftLimit ?? 0, rotatesByScanout: rotatesByScanout)
    }

    /// True when the picture needs no turn, or the display gives it (no rotated copy).
    public var rotatesByScanout: Bool {
        let turns = ((quarterTurns % 4) + 4) % 4
        return turns == 0 || displayInfo?.scanoutQuarterTurns.contains(turns) == true
    }

    /// How the picture is turned for the panel: `none`, `plane` (the display's scanout) or `copy`.
    public var rotationMethod: String {
        quarterTurns % 4 == 0 ? "none" : rotatesByScanout ? "plane" : "copy"
    }

    private func armBurnIn() { frames.armBurnIn(at: now.mono, startedAt: readiness.startedAt) }

    // MARK: Readiness, status

    public var isReady: Bool { readiness.isReady }

    /// The display state as the status file names it (screen-off states included).
    public var displayStatus: String {
        if !screenOn && displayState == .presenting {
            if screenControl == .off { return "off-control" }
            return power.reason == .idle ? "off-idle" : "off-schedule"
        }
        return displayState.rawValue
    }

    /// What the status file says, without what only the shell can measure (memory, descriptors).
    public func status() -> KioskStatus {
        var s = model.map { KioskStatus(values: $0.values()) } ?? KioskStatus()
        s.instrumentID = currentID
        if model?.instrument.relativeOnly == true {
            // `show = percent`: the status file (and the bridge reading it) carries no money either.
            s.price = nil
            s.change = nil
            s.baseline = nil
            s.lastPrice = nil
            s.previousClose = nil
            s.dayChange = nil
        }
        if model?.placeholder == nil, !showingSample {
            s.sessionState = marketNote?.state
            s.asOf = marketNote?.asOf
        }
        s.instrumentName = model?.instrument.name ?? (showingSample ? "\(SampleMarket.symbol) · \(SampleMarket.name)"
            : entries.isEmpty ? nil : entries[instrumentIndex % entries.count].spec.name ?? currentID)
        s.displayDetail = displayDetail
        s.animating = model?.isAnimating(at: now.mono) ?? false
        // The reason the screen gives: why it waits, else why the prices are not fresh. In English
        // whatever the locale: scripts and monitoring match it (the screen's own words are `note`
        // and `waiting_for`).
        if let entry = showingSample || entries.isEmpty ? nil : entries[instrumentIndex % entries.count] {
            s.problem = entry.zone == nil || !entry.hasData ? placeholderText(for: entry, phrases: .english) : marketNote?.problem
        }
        s.stale = isStale
        s.display = displayStatus
        s.frames = stats.presentedFrames
        s.settledFrame = settledFrame
        s.missedVblanks = stats.missedVblanks
        s.inputToFlipP50 = stats.inputLatencyPercentile(0.5)
        s.inputToFlipP99 = stats.inputLatencyPercentile(0.99)
        s.renderP50 = stats.renderPercentile(0.5)
        s.renderP99 = stats.renderPercentile(0.99)
        s.copyP50 = stats.copyPercentile(0.5)
        s.copyP99 = stats.copyPercentile(0.99)
        s.scanoutBytesPerFrame = stats.meanCopiedBytes
        s.scanoutCopyFraction = stats.meanCopyFraction
        s.burnInShift = burnInMethod
        s.rotation = displayInfo == nil ? nil : rotationMethod
        s.level = lightLevel
        s.lux = power.lux
        s.brightnessMeans = brightnessMeans
        s.problems = problems
        s.alerts = activeAlerts
        s.alertFirings = alertFirings
        s.time = now.wall
        s.paused = round.isPaused
        s.screenControl = screenControl.rawValue
        s.message = message?.text
        s.cec = cec.status
        if showingWatchlist, let watchlist {
            // The overview: no one instrument's numbers.
            var w = KioskStatus()
            w.scene = "watchlist"
            w.range = watchlist.range.rawValue
            w.stale = watchlist.tileContents.contains { $0.isStale }
            w.display = s.display
            w.frames = s.frames
            w.settledFrame = s.settledFrame
            w.missedVblanks = s.missedVblanks
            w.inputToFlipP50 = s.inputToFlipP50
            w.inputToFlipP99 = s.inputToFlipP99
            w.renderP50 = s.renderP50
            w.renderP99 = s.renderP99
            w.copyP50 = s.copyP50
            w.copyP99 = s.copyP99
            w.problems = s.problems
            w.time = s.time
            w.paused = s.paused
            w.screenControl = s.screenControl
            w.message = s.message
            w.cec = s.cec
            w.level = s.level
            w.lux = s.lux
            w.brightnessMeans = s.brightnessMeans
            w.alerts = s.alerts
            w.alertFirings = s.alertFirings
            return w
        }
        return s
    }

    /// Asks the status file's schedule after every event whether to write; the status is built
    /// only when it may be written.
    private func scheduleStatus() {
        // A frame being presented is counted first: the file says what is on the glass.
        let action = statusSchedule?.look(at: now.mono, framePending: frames.awaitingReport) { status() }
        if case .write(let written) = action { emit(.writeStatus(written)) }
    }

    // MARK: Effects

    private func emit(_ effect: KioskEffect) { effects.append(effect) }
    private func log(_ priority: Log.Priority, _ text: String) { effects.append(.log(priority, text)) }
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
