// The round: what the unattended show puts on screen next, and when. Each instrument's chart steps
// through its ranges and the bar chart of monthly change; once that is done and the instrument has
// been up for `instrument-interval` the next one draws itself in, and with `[chart] watchlist =
// cycle` the overview comes after the last. A touch holds the show for the touch pause, `ctl pause`
// and `ctl show` hold it until `resume`, and with `watchlist = only` the chart a tap opened gives way
// to the overview again once nobody touches it. Pure: the core hands it the time and a glance at
// what is on screen (`Screen`), and carries out the actions on its `ScreenModel`, which stays its own.

import Chart

/// The unattended show's place and timing; see the file's header comment.
struct Round {
    /// What the round is configured by: replaced on every configuration.
    struct Settings: Equatable {
        /// `cycle-interval`: a step of the show every so many seconds; 0 for none.
        var cycleSeconds: Double
        /// `instrument-interval`: the least time an instrument (or the overview) stays; 0: the
        /// show stays on the first instrument.
        var instrumentSeconds: Double
        /// How long a touch holds the show.
        var touchPauseSeconds: Double
        var overview: WatchlistMode
        /// The configured ranges: the first is where each instrument the show moves to starts.
        var ranges: [ChartRange]

        init(cycleSeconds: Double, instrumentSeconds: Double, touchPauseSeconds: Double, overview: WatchlistMode,
             ranges: [ChartRange]) {
            self.cycleSeconds = cycleSeconds
            self.instrumentSeconds = instrumentSeconds
            self.touchPauseSeconds = touchPauseSeconds
            self.overview = overview
            self.ranges = ranges
        }

        init(config: Config) {
            self.init(cycleSeconds: config.cycleSeconds, instrumentSeconds: config.instrumentCycleSeconds,
                      touchPauseSeconds: config.touchPauseSeconds, overview: config.watchlist, ranges: config.ranges)
        }
    }

    /// One stop of an instrument's round: a range's line, or the bar chart.
    enum Stop: Hashable {
        case range(ChartRange)
        case bars
    }

    /// How far an instrument's round has come: on screen since `since` (core seconds), having
    /// shown `shown`. The instrument may move on once every range it can draw and the bars are in.
    struct Progress: Equatable {
        var since: Double
        var shown: Set<Stop>
    }

    /// What fills the screen.
    enum Scene: Equatable {
        /// An instrument's chart; `overviewDue`: with `watchlist = only`, when the chart a tap
        /// opened gives way to the overview again.
        case chart(Progress, overviewDue: Double?)
        /// The overview of every instrument, since `since`.
        case overview(since: Double)
    }

    /// Held or not, the scene is the same: `resume` goes on from where the show stands.
    enum State: Equatable {
        case cycling(Scene)
        /// `ctl pause`, `ctl show`/`scene` or the pause key: no step until `resume` (or the key).
        case paused(Scene)
    }

    /// The chart on screen, as far as the next step depends on it.
    struct ChartView: Equatable {
        var range: ChartRange
        /// The ranges the selector offers (the configured ones when it offers none).
        var ranges: [ChartRange]
        var showsBars: Bool
        var scrubbing: Bool
        /// A placeholder instead of a chart: its ranges would all look the same.
        var placeholder: Bool
    }

    /// A glance at the screen when a step is due.
    struct Screen: Equatable {
        /// Instruments in the round; the built-in sample counts as one.
        var instruments: Int
        /// An overview can be shown (`[chart] watchlist` on, and a display to lay it out on).
        var hasOverview: Bool
        /// nil before a display gives the chart a size: nothing to step.
        var chart: ChartView?
    }

    enum Action: Equatable {
        /// Morph the chart to this range.
        case select(ChartRange)
        /// Show the bar chart of monthly change.
        case showBars
        /// The instrument now current (`instrument`) draws itself in on this range; its round
        /// counts the range as shown, whatever the chart gives way to.
        case open(ChartRange)
        /// The next instrument (now current) draws itself in from this range, or from the one it
        /// gives way to: the core says which with `shown`, and that one counts.
        case step(ChartRange)
        /// Put the overview on screen (the round is there already).
        case showOverview
    }

    private(set) var settings: Settings
    private(set) var state = State.cycling(.chart(Progress(since: 0, shown: []), overviewDue: nil))
    /// The instrument of the chart (config order); the overview keeps the one it came from.
    private(set) var instrument = 0
    /// The next step of the show (core seconds), nil with no `cycle-interval`. It stays armed while
    /// paused: a held show looks and finds nothing to do, as a touched one does.
    private(set) var cycleDue: Double?
    /// The last touch, key or `ctl range` (core seconds); nil before the first.
    private(set) var lastTouch: Double?

    init(settings: Settings) {
        self.settings = settings
    }

    var scene: Scene {
        switch state {
        case .cycling(let scene), .paused(let scene): scene
        }
    }

    var isPaused: Bool { if case .paused = state { true } else { false } }

    var showsOverview: Bool { if case .overview = scene { true } else { false } }

    /// With `watchlist = only`: when the chart a tap opened gives way to the overview.
    var overviewDue: Double? { if case .chart(_, let due) = scene { due } else { nil } }

    /// The earliest time the round wants `timer`.
    var nextDeadline: Double? { [cycleDue, overviewDue].compactMap { $0 }.min() }

    /// Whether a firing alert may take the screen to its instrument at `t`: not while the show is
    /// held or someone is using the screen.
    func yieldsToAlert(at t: Double) -> Bool {
        !isPaused && !(lastTouch.map { $0 + settings.touchPauseSeconds > t } ?? false)
    }

    /// A new configuration: where the show stands stays.
    mutating func configure(_ settings: Settings) { self.settings = settings }

    /// The show starts (or starts again, after a reload) at `t` on the chart showing `range` (nil:
    /// no chart yet): the chart's round and the step interval run from here.
    mutating func arm(at t: Double, showing range: ChartRange?) {
        cycleDue = settings.cycleSeconds > 0 ? t + settings.cycleSeconds : nil
        // The overview's own time runs on: it is the show's, not the chart's.
        guard case .chart(_, let due) = scene else { return }
        enter(.chart(Progress(since: t, shown: range.map { [.range($0)] } ?? []), overviewDue: due))
    }

    /// A reload keeps the instrument that was shown: it is at `index` of the new configuration.
    mutating func reloaded(instrument index: Int) { instrument = index }

    /// Time has come to `t`: the show's step, then the overview's return, when due.
    mutating func timer(at t: Double, screen: Screen) -> [Action] {
        var actions: [Action] = []
        if let due = cycleDue, due <= t { actions += step(at: t, screen: screen) }
        if let due = overviewDue, due <= t, case .chart(let progress, _) = scene {
            // Back to the overview once nobody has touched the screen for the touch pause.
            if let lastTouch, lastTouch + settings.touchPauseSeconds > t + 1e-9 {
                enter(.chart(progress, overviewDue: lastTouch + settings.touchPauseSeconds))
            } else if settings.overview == .only && screen.hasOverview {
                enter(.overview(since: t))
                actions.append(.showOverview)
            } else {
                enter(.chart(progress, overviewDue: nil))
            }
        }
        return actions
    }

    /// One step of the show. A round on one instrument shows each range it can draw in turn, then
    /// the bar chart (with two ranges or more); the next instrument comes once the round is complete
    /// *and* the instrument has been up for `instrument-interval`.
    private mutating func step(at t: Double, screen: Screen) -> [Action] {
        cycleDue = settings.cycleSeconds > 0 ? t + settings.cycleSeconds : nil
        guard let chart = screen.chart, case .cycling(let scene) = state else { return [] }
        if let lastTouch, t - lastTouch < settings.touchPauseSeconds {
            cycleDue = lastTouch + settings.touchPauseSeconds
            return []
        }
        let count = max(1, screen.instruments)
        switch scene {
        case .overview(let since):
            // The overview stays for `instrument-interval`, then the round starts again at the first.
            guard settings.overview == .cycle, settings.instrumentSeconds > 0,
                  t - since >= settings.instrumentSeconds - 1e-9 else { return [] }
            return [open(instrument: 0, of: count, range: settings.ranges[0], at: t)]
        case .chart(var progress, let overviewDue):
            // With `only` the chart a tap opened stays until `overviewDue`.
            if settings.overview == .only, screen.hasOverview { return [] }
            // A finger on the chart holds it; nothing to cycle on a placeholder (the ranges of no data
            // all look the same) unless there is another instrument to move to.
            if chart.scrubbing || (chart.placeholder && count < 2) { return [] }
            let ranges = chart.ranges
            let roundDone = ranges.allSatisfy { progress.shown.contains(.range($0)) }
                && (progress.shown.contains(.bars) || ranges.count < 2)
            // Once per round through the instruments, after the last: the overview.
            let overviewNext = settings.overview == .cycle && screen.hasOverview && instrument % count == count - 1
            if roundDone && (count > 1 || overviewNext) && settings.instrumentSeconds > 0
                && t - progress.since >= settings.instrumentSeconds - 1e-9 {
                if overviewNext {
                    enter(.overview(since: t))
                    return [.showOverview]
                }
                instrument = (instrument + 1) % count
                enter(.chart(Progress(since: t, shown: []), overviewDue: overviewDue))
                return [.step(settings.ranges[0])]
            }
            let action: Action
            if chart.showsBars || ranges.count < 2 {
                // From the bars (or the one range) back to the first range: a new round once done.
                if roundDone { progress.shown = [] }
                progress.shown.insert(.range(ranges[0]))
                action = .select(ranges[0])
            } else {
                let position = ranges.firstIndex(of: chart.range) ?? -1
                if position == ranges.count - 1 && !chart.placeholder {
                    progress.shown.insert(.bars)
                    action = .showBars
                } else {
                    let next = ranges[(position + 1) % ranges.count]
                    progress.shown.insert(.range(next))
                    action = .select(next)
                }
            }
            enter(.chart(progress, overviewDue: overviewDue))
            return [action]
        }
    }

    /// A touch, a key or `ctl range` at `t`: the show holds for the touch pause from here.
    mutating func touched(at t: Double) { lastTouch = t }

    /// The chart went to `range` by a tap or a request: it counts as shown in the round.
    mutating func shown(_ range: ChartRange) {
        guard case .chart(var progress, let due) = scene else { return }
        progress.shown.insert(.range(range))
        enter(.chart(progress, overviewDue: due))
    }

    /// `ctl pause`, and `ctl show`/`scene`, which hold the show on what they put up.
    mutating func pause() { state = .paused(scene) }

    /// `ctl resume` at `t`: with no step armed (no `cycle-interval`) one step comes at once.
    mutating func resume(at t: Double) {
        state = .cycling(scene)
        cycleDue = cycleDue ?? t
    }

    /// The pause key: holds or releases the show, arming nothing; returns whether it is now held.
    mutating func togglePause() -> Bool {
        state = isPaused ? .cycling(scene) : .paused(scene)
        return isPaused
    }

    /// Instrument `index` of `count` opens (a tapped tile, a request, an alert) at `t` on `range`;
    /// its round starts now. Returns what the core draws.
    mutating func open(instrument index: Int, of count: Int, range: ChartRange, at t: Double) -> Action {
        // With `only` the overview comes back a touch pause after the last touch (or now).
        let due = settings.overview == .only ? (lastTouch ?? t) + settings.touchPauseSeconds : nil
        instrument = index % max(1, count)
        enter(.chart(Progress(since: t, shown: [.range(range)]), overviewDue: due))
        return .open(range)
    }

    /// `ctl next` at `t`: from the overview the first instrument on `first`, else the next one; the
    /// step interval starts again.
    mutating func next(at t: Double, of count: Int, first: ChartRange) -> Action {
        if settings.cycleSeconds > 0 { cycleDue = t + settings.cycleSeconds }
        if showsOverview { return open(instrument: 0, of: count, range: first, at: t) }
        instrument = (instrument + 1) % max(1, count)
        enter(.chart(Progress(since: t, shown: []), overviewDue: nil))
        return .step(settings.ranges[0])
    }

    /// The overview is put up at `t` (a request, `watchlist = only`).
    mutating func enterOverview(at t: Double) { enter(.overview(since: t)) }

    /// The overview is gone (`watchlist` turned off): the chart it leaves starts a round at `t`,
    /// which a reload arms again at once.
    mutating func leaveOverview(at t: Double) {
        guard showsOverview else { return }
        enter(.chart(Progress(since: t, shown: []), overviewDue: nil))
    }

    /// `scene` on screen, held or not as before.
    private mutating func enter(_ scene: Scene) {
        state = isPaused ? .paused(scene) : .cycling(scene)
    }
}
