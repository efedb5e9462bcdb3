import Feed
import Raster
import Text

/// The state of one instrument's screen: which range is selected, the morph between ranges, the
/// scrub indicator, the scene and the header's words. It holds no pixels: a `SceneRenderer` (one
/// per display, owned by whoever owns the display) paints it. Time is always passed in (seconds on
/// the caller's clock), so the same state makes live frames, previews and tests.
public final class ScreenModel {
    public private(set) var instrument: Instrument
    /// Small print shown when no finger is down, e.g. `delayed · updated 27 Nov 2026`.
    public var statusNote: String? {
        didSet { if statusNote != oldValue { revision += 1 } }
    }
    public let screen: TickerScreen
    /// The time of day at the name line's right (`[chart] clock`); set by the core once a minute.
    /// Not a revision: only the clock's own pixels are drawn again.
    public var clock: String?
    /// What the stats line says (`[chart] stats`); the line's room is the layout's.
    public let statsMode: StatsMode
    private var cachedStats: (MarketStats?, String)?
    /// No stats for this instrument (a portfolio: its value has no day's range or volume to
    /// state); the line's room stays, so cycling does not move the chart.
    public var hidesStats = false {
        didSet { cachedStats = nil }
    }
    public private(set) var range: ChartRange
    public var timing = MorphTiming.standard
    /// Trading time by default: a 5D chart of minute bars must not be mostly overnight gaps.
    public var timeAxis = TimeAxis.trading {
        didSet {
            views = [:]
            morph = ChartMorph(showing: targetView(for: range))
        }
    }
    /// 1D's baseline and how pre- and post-market bars show (`[chart] baseline-1d`, `extended-hours`).
    public var rangeOptions = RangeOptions() {
        didSet {
            guard rangeOptions != oldValue else { return }
            selections = [:]
            cachedStats = nil
            views = [:]
            morph = ChartMorph(showing: targetView(for: range))
        }
    }
    private var morph: ChartMorph
    private var selections: [ChartRange: RangeSelection] = [:]
    private var views: [ChartRange: ChartView] = [:]
    /// The scrubbed point (index into the selected range's points), if a finger is down.
    public var scrubIndex: Int? { scrubbing ? snapper.selected : nil }
    private var scrubbing = false
    private var snapper = ScrubSnapper(xs: [])

    /// What the screen shows besides the plain line chart, and since when.
    /// How the chart is drawn; what the modes are called outside (the status file, `ctl`) is
    /// `SceneKind`'s, mapped in the core.
    public enum Scene: Sendable, CaseIterable {
        case line
        case bars
        case drawIn
    }
    public private(set) var scene: Scene = .line
    private(set) var sceneStart = 0.0
    /// Header texts cross-fade over this long when they change.
    public var labelFade = 0.2
    private var shownLabels: TickerLabels?
    /// The header as the model last moved on (`advance(to:)`): the words the next frame fades from.
    public var labelsOnScreen: TickerLabels? { shownLabels }
    private var fadeFrom: TickerLabels?
    private var fadeStart = -Double.infinity
    /// Counts changes to what the header says beside the line (new data, a new placeholder or
    /// status note): the words are made again. (What the renderer repaints it judges from the
    /// pixels' inputs themselves: the chart frame, the labels' looks, the placeholder.)
    public private(set) var revision = 0
    let barFont: Font

    /// Shown instead of the chart while the instrument has no usable data yet, e.g.
    /// `waiting for data: AAPL.csv` (never the sample market in its place).
    public var placeholder: String? {
        didSet { if placeholder != oldValue { revision += 1; cachedStats = nil } }
    }

    /// - Parameters:
    ///   - scale: overrides the size factor from the screen size (large text); nil = from the size.
    ///   - ranges: the range buttons offered (the configured ranges).
    public init(instrument: Instrument, width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                range: ChartRange = .oneMonth, scale: Double? = nil, ranges: [ChartRange] = ChartRange.standard,
                stats: StatsMode = .off) {
        self.instrument = instrument
        statsMode = stats
        screen = TickerScreen(width: width, height: height, fonts: fonts, palette: palette, scale: scale, ranges: ranges,
                              stats: stats != .off)
        screen.phrases = instrument.phrases
        self.range = range
        barFont = Font(face: fonts.regular, clampingPixelSize: screen.layout.barLabelSize)
        morph = ChartMorph(showing: ChartView(times: [], positions: [], baselineY: 0, color: palette.up))
        morph = ChartMorph(showing: view(for: selection(for: range)))
    }

    public static func palette(named name: String) -> ChartPalette? {
        switch name.lowercased() {
        case "standard", "default": return .standard
        case "color-blind", "colour-blind", "colorblind": return .colorBlindSafe
        default: return nil
        }
    }

    /// Computes every range's points and layout now, so the first morph to a range does not pay for
    /// it inside a frame (a frame over budget is a missed vblank). Call when idle.
    public func prepareAllRanges() {
        for r in screen.layout.ranges { _ = targetView(for: r) }
    }

    /// The settled view of `range` (computed once per range and data).
    func targetView(for range: ChartRange) -> ChartView {
        if let v = views[range] { return v }
        let v = view(for: selection(for: range))
        views[range] = v
        return v
    }

    /// The points of `range` (computed once per range).
    public func selection(for range: ChartRange) -> RangeSelection {
        if let s = selections[range] { return s }
        let s = instrument.market.points(for: range, options: rangeOptions)
        selections[range] = s
        return s
    }

    func view(for selection: RangeSelection) -> ChartView {
        let plot = screen.layout.plot
        let points = selection.points
        let first = selection.baselineValue ?? 0, last = points.last?.value ?? 0
        // The baseline is fitted too: a previous close outside the day's prices stays on screen.
        // Dimmed pre- and post-market bars widen the scale by half the regular session's span at
        // most (one thin pre-market print at half the price made the session a flat line); beyond
        // that they are drawn clamped at the plot's edge.
        let dimmed = rangeOptions.extendedHours == .dim ? points.filter { selection.isExtendedHours($0.time) }.count : 0
        var fitted = points
        if dimmed > 0 && dimmed < points.count {
            var regular = points.filter { !selection.isExtendedHours($0.time) }.map(\.value)
            if let base = selection.baseline { regular.append(base) }
            let lo = regular.min() ?? 0, hi = regular.max() ?? 0, reach = (hi - lo) / 2
            fitted = points.map { p in
                selection.isExtendedHours(p.time) ? ChartPoint(time: p.time, value: min(max(p.value, lo - reach), hi + reach)) : p
            }
        }
        if let base = selection.baseline, let p = points.first { fitted.append(ChartPoint(time: p.time, value: base)) }
        let scale = LineChartScale(fitting: fitted.sorted { $0.time < $1.time }, in: plot)
        let palette = screen.palette
        var positions: [Point]
        var separators = selection.sessionStarts
        if selection.range == .oneDay, let session = selection.session, let p0 = points.first, let p1 = points.last {
            // The whole regular session spans the width: a session in progress ends where "now" is.
            let axis = SessionTimeAxis(session: session, collapsesLunch: timeAxis == .trading, first: p0.time, last: p1.time)
            positions = points.map { Point(axis.x($0.time, in: plot), scale.y($0.value)) }
            if let lunch = session.lunch, p1.time >= lunch.upperBound { separators.append(lunch.upperBound) }
        } else {
            positions = scale.positions(of: points, axis: timeAxis)
        }
        if dimmed > 0 && dimmed < points.count {
            for i in points.indices where selection.isExtendedHours(points[i].time) {
                positions[i].y = min(max(positions[i].y, plot.top), plot.bottom)
            }
        }
        var regular: [Range<Int64>] = []
        if rangeOptions.extendedHours == .dim, points.contains(where: { selection.isExtendedHours($0.time) }) {
            regular = selection.regularSessions.map { $0.open..<$0.close }
        }
        return ChartView(times: points.map(\.time), positions: positions, baselineY: scale.y(first),
                         color: last >= first ? palette.up : palette.down, separatorTimes: separators, regularTimes: regular)
    }

    /// Selects `range` at `time`; the line morphs there from what is on screen.
    public func select(_ newRange: ChartRange, at time: Double, animated: Bool = true) {
        range = newRange
        endScrub()
        if scene != .line { scene = .line }
        let target = targetView(for: newRange)
        morph.retarget(to: target, at: time, timing: animated ? timing : MorphTiming(duration: 0, curve: .linear))
    }

    /// New data for the instrument (a file was appended to or replaced): the line morphs to it, so a
    /// new last point slides in on the right instead of the picture jumping.
    public func replaceMarket(_ market: MarketData, at time: Double) {
        instrument.market = market
        revision += 1
        selections = [:]
        cachedStats = nil
        views = [:]
        cachedBarScene = nil
        morph.retarget(to: targetView(for: range), at: time, timing: timing)
        if scene == .line { endScrub() }
    }

    /// Switches to `scene`, its animation starting at `time`.
    public func show(_ scene: Scene, at time: Double) {
        self.scene = scene
        sceneStart = time
        endScrub()
    }

    /// A finger at screen x: the indicator snaps to the nearest point of the range (with hysteresis).
    /// Returns true when the snapped point changed, so the caller knows a frame is needed.
    @discardableResult
    public func scrub(atX x: Double) -> Bool {
        guard scene == .line, placeholder == nil else { return false }
        if !scrubbing {
            scrubbing = true
            snapper = ScrubSnapper(xs: morph.target.positions.map(\.x), hysteresis: 3 * screen.layout.scale)
        }
        let before = snapper.selected
        return snapper.update(x: x) != before || before == nil
    }

    /// The finger lifted: the label returns to the latest price.
    public func endScrub() {
        scrubbing = false
        snapper.reset()
    }

    /// The line's vertices on screen at `time` (for tests of the motion itself).
    public func presentationForTesting(at time: Double) -> ChartView { morph.presentation(at: time) }

    /// Moves the scene's state to `time`: a drawn-in line becomes the line scene (the same
    /// picture, see DrawInScene), which follows live data, scrubs and morphs like any line chart.
    /// The core calls it before deciding about a frame; `render` calls it too.
    public func advance(to time: Double) {
        if scene == .drawIn, time >= sceneStart + drawInTiming.duration { scene = .line }
        guard scene == .line else { return }
        // The header's words are decided here, where the core moves the model on, not where a frame
        // is painted: the core's `isAnimating` reads the cross-fade, and the core under the tests'
        // driver never paints. They are worked out again only when something they come from changed.
        let key = WordsKey(revision: revision, range: range, scrubIndex: scrubIndex, options: rangeOptions, axis: timeAxis)
        if key != wordsKey {
            wordsKey = key
            let words = currentLabels()
            // Compare the words only: colours change on every frame of a morph.
            if let shown = shownLabels, shown.price != words.price || shown.change != words.change || shown.note != words.note {
                fadeFrom = shown
                fadeStart = time
            }
            shownLabels = words
        }
        if fadeFrom != nil, time >= fadeStart + labelFade { fadeFrom = nil }
    }

    /// What the header's words come from, besides the time.
    private struct WordsKey: Equatable {
        var revision: Int, range: ChartRange, scrubIndex: Int?, options: RangeOptions, axis: TimeAxis
    }
    private var wordsKey: WordsKey?

    /// True while frames still change without input.
    public func isAnimating(at time: Double) -> Bool {
        if fadeFrom != nil && time < fadeStart + labelFade { return true }
        switch scene {
        case .line: return morph.isAnimating(at: time)
        case .bars: return time < sceneStart + barScene().totalDuration
        // New data while the line draws itself in morphs the line being drawn.
        case .drawIn: return time < sceneStart + drawInTiming.duration || morph.isAnimating(at: time)
        }
    }

    public var drawInTiming = MorphTiming(duration: 2, curve: .easeInOut)

    private var cachedBarScene: BarChartScene?

    /// Monthly change of the last twelve months, the bar chart's subject (computed once per data).
    public func barScene() -> BarChartScene {
        if let cachedBarScene { return cachedBarScene }
        let scene = makeBarScene()
        cachedBarScene = scene
        return scene
    }

    private func makeBarScene() -> BarChartScene {
        var bars: [Bar] = []
        if let daily = instrument.market.daily, daily.bars.count > 1 {
            let field = instrument.market.priceField
            // Month-end closes, newest last.
            var monthEnds: [(month: Int, value: Double)] = []
            var lastKey = -1
            for bar in daily.bars {
                let d = CivilDate(unixTime: bar.time)
                let key = d.year * 12 + d.month
                if key != lastKey { monthEnds.append((d.month, bar.price(field))); lastKey = key } else {
                    monthEnds[monthEnds.count - 1].value = bar.price(field)
                }
            }
            let names = instrument.phrases.months
            let tail = Array(monthEnds.suffix(13))
            let partial = daily.last.map { Self.isMonthInProgress(CivilDate(unixTime: $0.time)) } ?? false
            for i in 1..<max(1, tail.count) {
                let before = tail[i - 1].value, now = tail[i].value
                // abs: a negative price (it happens to futures) must not flip the change's sign.
                bars.append(Bar(label: names[tail[i].month - 1], value: before != 0 ? (now - before) / abs(before) * 100 : 0,
                                isPartial: partial && i == tail.count - 1))
            }
        }
        var scene = Self.barScene(bars, layout: screen.layout, palette: screen.palette, format: instrument.priceFormat,
                                  curve: timing.curve)
        scene.partialMark = instrument.phrases.monthToDate
        return scene
    }

    /// The bar chart of `bars` as this screen lays it out (the layout tests build it the same way).
    public static func barScene(_ bars: [Bar], layout: TickerScreenLayout, palette: ChartPalette, format: PriceFormat,
                                curve: CubicBezier = .tickerboard) -> BarChartScene {
        // Room under the bars for their month labels, above the range selector.
        // Percent as the locale writes it (`+20 %` in de-DE, CLDR's spacing), as the header's change.
        var scene = BarChartScene(bars: bars, plot: layout.barPlot, palette: palette,
                                  timing: MorphTiming(duration: 0.8, curve: curve),
                                  valueSuffix: format.percentSpacing + "%")
        scene.decimalSeparator = format.decimalSeparator
        scene.labelSize = layout.barLabelSize
        return scene
    }

    /// True when weekdays of `date`'s month are still to come after it: the data ends mid-month,
    /// so its last bar is month to date. Weekdays rather than an exchange calendar: a holiday on
    /// a month's last weekday then shows a finished month as MTD until the next month's first
    /// bar, which is the harmless side to err on.
    public static func isMonthInProgress(_ date: CivilDate) -> Bool {
        var day = date.day + 1
        while let next = CivilDate(year: date.year, month: date.month, day: day) {
            if !next.weekday.isWeekend { return true }
            day += 1
        }
        return false
    }

    /// The header's words for the selected range (the scrubbed point's when a finger is down).
    ///
    /// The change text and its colour always come from the same numbers: during a morph the line
    /// cross-fades its colour, but the header switches text and colour together (through the
    /// label fade), so it never shows one range's change in another range's trend colour.
    private func labels(focus: ChartPoint?, selection: RangeSelection) -> TickerLabels {
        if let placeholder {
            return TickerLabels(instrument: instrument.name, price: PriceFormat.placeholder, change: "",
                                note: "", selectedRange: range, changeColor: screen.palette.secondaryText)
        }
        var labels = instrument.labels(for: selection, palette: screen.palette, focus: focus)
        // The pill keeps the range's colour, the line's, while the header follows the finger.
        if focus != nil { labels.selectionColor = instrument.labels(for: selection, palette: screen.palette, focus: nil).changeColor }
        if focus == nil, let statusNote { labels.note = labels.note.isEmpty ? statusNote : labels.note + " · " + statusNote }
        labels.clock = clock ?? ""
        labels.stats = stats().text
        return labels
    }

    /// The stats line's figures and words, computed once per data (a portfolio's value, shown in
    /// percent or not, has no range or volume to state).
    public func stats() -> (figures: MarketStats?, text: String) {
        if let cachedStats { return cachedStats }
        var result: (MarketStats?, String) = (nil, "")
        if statsMode != .off, !hidesStats, placeholder == nil, !instrument.relativeOnly,
           let figures = instrument.market.stats(options: rangeOptions) {
            result = (figures, figures.text(mode: statsMode, format: instrument.priceFormat, phrases: instrument.phrases))
        }
        cachedStats = result
        return result
    }

    /// The header as the next frame shows it (tests, `render --values`).
    public func currentLabels() -> TickerLabels {
        let selection = selection(for: range)
        var focus: ChartPoint?
        if let i = scrubIndex, i < selection.points.count { focus = selection.points[i] }
        return labels(focus: focus, selection: selection)
    }

    /// What the picture says in numbers, for the status file and `render --values`: the same
    /// values the header shows, unformatted.
    public func values() -> ScreenValues {
        let selection = selection(for: range)
        let summary = placeholder == nil ? RangeSummary(selection: selection) : nil
        var focus: ChartPoint?
        if let i = scrubIndex, i < selection.points.count { focus = selection.points[i] }
        let shown = focus?.value ?? summary?.last
        let words = currentLabels()
        return ScreenValues(instrument: instrument.name, range: range, scene: scene,
                            price: shown, baseline: summary?.first, baselineKind: selection.baselineKind.rawValue,
                            lastDataTime: placeholder == nil ? selection.points.last?.time : nil,
                            scrubbedTime: focus?.time, waitingFor: placeholder,
                            note: words.note, priceText: words.price, changeText: words.change,
                            intradayTimesZone: instrument.market.intraday?.assumedZone,
                            day: placeholder == nil ? instrument.market.dayQuote(options: rangeOptions) : nil,
                            stats: stats().figures, statsText: words.stats, clock: words.clock)
    }

    /// What the frame for `time` shows, with the scene moved to `time` (a finished draw-in becomes
    /// the line scene, a finished morph settles) and the header's cross-fade begun when its words
    /// changed. `SceneRenderer` calls it once per frame it paints.
    func frame(at time: Double) -> SceneFrame {
        advance(to: time)
        morph.settle(at: time)
        let view = morph.presentation(at: time)
        let selection = selection(for: range)
        var indicator: Point?
        var focus: ChartPoint?
        if let i = scrubIndex, i < selection.points.count, i < morph.target.positions.count {
            indicator = morph.isAnimating(at: time) ? view.position(forTime: selection.points[i].time) : morph.target.positions[i]
            focus = selection.points[i]
        }
        let chart = placeholder != nil
            ? LineChartFrame(vertices: [], baselineY: -100, lineColor: view.color)
            : LineChartFrame(vertices: decimated(view.positions), baselineY: view.baselineY,
                             lineColor: view.color, indicator: indicator, separators: view.separatorXs,
                             regularSpans: view.regularSpans)
        var frame = SceneFrame(scene: scene, sceneTime: time - sceneStart, range: range, chart: chart,
                               labels: labels(focus: focus, selection: selection), fadingFrom: nil, fade: 1,
                               moving: morph.isAnimating(at: time), revision: revision)
        guard scene == .line else { return frame }
        frame.fade = labelFade > 0 ? min(1, (time - fadeStart) / labelFade) : 1
        frame.fadingFrom = frame.fade < 1 ? fadeFrom : nil
        return frame
    }
}

/// One frame of a `ScreenModel`, as its renderer paints it.
struct SceneFrame {
    var scene: ScreenModel.Scene
    /// Seconds since the scene began (the bars' and the draw-in's clock).
    var sceneTime: Double
    var range: ChartRange
    var chart: LineChartFrame
    var labels: TickerLabels
    /// The header's words fading out while `labels` fade in (`fade` from 0 to 1).
    var fadingFrom: TickerLabels?
    var fade: Double
    /// The line is morphing: the whole plot changes.
    var moving: Bool
    var revision: Int
}

/// The numbers behind one frame: what a person reads off the screen, for scripts and monitoring.
public struct ScreenValues: Equatable, Sendable {
    public var instrument: String
    public var range: ChartRange
    public var scene: ScreenModel.Scene
    /// The price shown (the scrubbed point's while a finger is down); nil without data.
    public var price: Double?
    /// The dashed baseline the change is measured against: the range's first value, or for 1D the
    /// previous session's close.
    public var baseline: Double?
    /// `previous-close` or `first`.
    public var baselineKind: String = DayBaseline.first.rawValue
    /// Unix time of the newest point of the range.
    public var lastDataTime: Int64?
    public var scrubbedTime: Int64?
    /// The placeholder text while the instrument waits for its data.
    public var waitingFor: String?
    public var note: String
    /// The header's price and change exactly as drawn (`23.874,12 €`, `+1,23 (+0,45 %)`).
    public var priceText = ""
    public var changeText = ""
    /// The zone the intraday file's offset-less times were read in (nil: they had offsets).
    public var intradayTimesZone: String?
    /// The instrument's price and day change, whatever range is shown (`MarketData.dayQuote`).
    public var day: DayQuote?
    /// The stats line's figures and words, and the clock, as drawn (`[chart] stats`, `clock`).
    public var stats: MarketStats?
    public var statsText = ""
    public var clock = ""

    public var change: Double? {
        guard let price, let baseline else { return nil }
        return price - baseline
    }
    public var changePercent: Double? {
        guard let change, let baseline, baseline != 0 else { return nil }
        return change / abs(baseline) * 100
    }
    public var isUp: Bool? { change.map { $0 >= 0 } }
}
