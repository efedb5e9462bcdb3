// One output's part of the core: what it shows and its round, its frames and flips and the
// burn-in shift that moves them, its display's lifecycle, its power and light. The process's part
// (the data and rates, the portfolio, the alerts, readiness and the watchdog, the status file,
// the TV's CEC link) is the router's, once per daemon.

import Chart
import Feed
import StatusModel

extension KioskCore {
    /// An output's machines. A record, not a machine: each field is one (a `State` enum each) or
    /// a scene the core advances; the router runs them for the output an event is for
    /// (`KioskEvent.reachesEveryOutput` fans it out to all).
    struct Screen {
        /// The configuration as this output sees it (`Config.forOutput`: its scene, turn and scale).
        var config: Config
        /// The screen's power, level and palette.
        var power: ScreenPowerMachine
        /// The frames and their flips, what they are counted by, and the burn-in shift that moves them.
        var frames: FrameFlow
        /// The display: none, waiting for its output, presenting, away, another master's.
        var link = DisplayLink()
        /// What is on screen; nil until a display gives it a size.
        var model: ScreenModel?
        /// A tile per instrument, kept up to date while `watchlist` is on; nil when off or without a display.
        var watchlist: WatchlistScene?
        /// The tiles' and the tape's order, the tape's words and when the tiles look at the clock.
        var board = TileBoard()
        /// The header's market note and staleness, and when the power check looks at them again.
        var header = HeaderNote()
        /// The band along the foot: `ctl message`, else an alert's banner.
        var banner = Banner()
        /// What the unattended show puts up next and when; touches and requests hold it.
        var round: Round
        /// The touch that woke the screen does nothing else until it lifts.
        var wakingTouch = WakingTouch()
        /// The range shown when the one asked for cannot be drawn, and the ranges that can.
        var rangeChoice = RangeChoice()

        init(setup: KioskSetup, output: Int) {
            config = setup.config.forOutput(output)
            power = ScreenPowerMachine(rule: ScreenPower(config: config, timeZone: setup.localZone, zones: setup.zones),
                                       nightPalette: config.nightPalette)
            frames = FrameFlow(burnIn: BurnInShift(config: config))
            round = Round(settings: Round.Settings(config: config))
        }
    }
}

extension KioskCore {
    // MARK: The output's machines, as the output in scope has them

    public internal(set) var config: Config {
        _read { yield screens[current].config }
        set { screens[current].config = newValue }
    }
    var power: ScreenPowerMachine {
        _read { yield screens[current].power }
        _modify { yield &screens[current].power }
    }
    var frames: FrameFlow {
        _read { yield screens[current].frames }
        _modify { yield &screens[current].frames }
    }
    var link: DisplayLink {
        _read { yield screens[current].link }
        _modify { yield &screens[current].link }
    }
    /// What is on screen; nil until a display gives it a size.
    public internal(set) var model: ScreenModel? {
        get { screens[current].model }
        set { screens[current].model = newValue }
    }
    /// A tile per instrument, kept up to date while `watchlist` is on; nil when off or without a display.
    public internal(set) var watchlist: WatchlistScene? {
        get { screens[current].watchlist }
        set { screens[current].watchlist = newValue }
    }
    var board: TileBoard {
        _read { yield screens[current].board }
        _modify { yield &screens[current].board }
    }
    var header: HeaderNote {
        _read { yield screens[current].header }
        _modify { yield &screens[current].header }
    }
    var banner: Banner {
        _read { yield screens[current].banner }
        _modify { yield &screens[current].banner }
    }
    var round: Round {
        _read { yield screens[current].round }
        _modify { yield &screens[current].round }
    }
    var wakingTouch: WakingTouch {
        _read { yield screens[current].wakingTouch }
        _modify { yield &screens[current].wakingTouch }
    }
    var rangeChoice: RangeChoice {
        _read { yield screens[current].rangeChoice }
        _modify { yield &screens[current].rangeChoice }
    }
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

    /// The core as output `i` has it (tests, and the shell's status line per output).
    public func output(_ i: Int) -> OutputView { OutputView(core: self, index: i) }
}

/// An effect and the output it is for (nil: the process's: systemd, the control socket, the TV,
/// the status file, the VT, a log line of no one output).
public struct RoutedEffect: Equatable {
    public var output: Int?
    public var effect: KioskEffect
    public init(output: Int?, effect: KioskEffect) {
        self.output = output
        self.effect = effect
    }
}

/// What one output shows and how it runs, read (tests; the status file's `outputs`).
public struct OutputView {
    let core: KioskCore
    public let index: Int
    func read<T>(_ body: () -> T) -> T {
        var value: T?
        core.on(index) { value = body() }
        return value!
    }
    public var model: ScreenModel? { read { core.model } }
    public var watchlist: WatchlistScene? { read { core.watchlist } }
    public var showingWatchlist: Bool { read { core.showingWatchlist } }
    public var displayStatus: String { read { core.displayStatus } }
    public var stats: FrameStatistics { read { core.stats } }
    public var config: Config { read { core.config } }
    public var instrumentIndex: Int { read { core.instrumentIndex } }
    public var screenOn: Bool { read { core.screenOn } }
    public func status() -> KioskStatus { read { core.status() } }
}
