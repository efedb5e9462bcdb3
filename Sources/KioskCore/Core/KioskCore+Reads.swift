// KioskCore: what the shell, the status file and the tests read of the core's machines, by the
// names they had before the machines were split out; and the watchlist's entries.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import StatusModel

extension KioskCore {
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

    /// The instrument of the chart (config order): the round's.
    public var instrumentIndex: Int { round.instrument }

    /// The overview is on screen instead of `model` (which stays, for the instrument it opens next).
    public var showingWatchlist: Bool { round.showsOverview }

    public var displayState: DisplayState { link.displayState }
    var displayInfo: DisplayInfo? { link.info }
    /// When a hotplug opens the display.
    var openRetryAt: Double? { link.retryAt }

    public var stats: FrameStatistics { frames.stats }
    /// `stats.presentedFrames` at the last frame drawn with nothing in motion (the status file's
    /// `settled_frame`): `animating` alone is false as soon as a motion's time is up, while the frame
    /// that shows where it ended may still be waiting for a flip; equal to `frames`, it is on screen.
    public var settledFrame: Int { frames.settledFrame }

    public var screenOn: Bool { power.isOn }
    /// The palette the screen shows now: the config's, or its night variant.
    var activePalette: ChartPalette { power.palette == .night ? config.palette.night : config.palette }

    /// `ctl screen on|off|auto`.
    public var screenControl: ControlCommand.ScreenMode { power.controlMode }
    /// `ctl brightness N`: the level the screen holds while `screen_control` is on (nil: full).
    public var controlLevel: Int? { power.controlLevel }

    /// `ctl pause`, `ctl show` or the pause key holds the show.
    public var paused: Bool { round.isPaused }

    /// When the burn-in offset next moves (the frames time it).
    var burnInDue: Double? { frames.burnInDue }

    /// The configured ranges the instrument on screen can draw, in the selector and the cycle:
    /// 1D needs intraday bars (from daily bars it is two closes, a ruler line) and every range two
    /// points at least (one bar is a price, which the header shows). All of them when none can
    /// (a placeholder, the sample), so the selector never empties.
    public var shownRanges: [ChartRange] { rangeChoice.shown }
    /// The power check's next wake-up: the decision's own or the header's.
    var powerDue: Double? { [power.decisionDue, header.due].compactMap { $0 }.min() }
    /// True when nothing is configured: the built-in sample market is the watchlist.
    var showingSample: Bool { entries.isEmpty }
    /// The market status line last shown (its state and "as of" go to the status file).
    public var marketNote: MarketNote? { header.marketNote }
    public var isStale: Bool { header.isStale && model?.placeholder == nil && !showingSample }

    /// The entries that have a watchlist tile: all but the portfolio (the last entry when shown).
    var tileIndices: Range<Int> { 0..<(entries.last?.isPortfolio == true ? entries.count - 1 : entries.count) }
}
