import Chart
import Raster
import Text

/// The picture of one instrument on one screen: which range is selected, the morph between ranges,
/// the scrub indicator, and the canvas it is all painted on. Time is always passed in (seconds on
/// the caller's clock), so the same model renders live frames, previews and tests.
public final class ScreenModel {
    public let instrument: Instrument
    public let screen: TickerScreen
    public let canvas: Canvas
    public private(set) var range: ChartRange
    public var timing = MorphTiming.standard
    private var morph: ChartMorph
    private var selections: [ChartRange: RangeSelection] = [:]
    /// The scrubbed point (index into the selected range's points), if a finger is down.
    public private(set) var scrubIndex: Int?

    public init(instrument: Instrument, width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                range: ChartRange = .oneMonth) {
        self.instrument = instrument
        screen = TickerScreen(width: width, height: height, fonts: fonts, palette: palette)
        canvas = Canvas(width: width, height: height)
        self.range = range
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

    /// The points of `range` (computed once per range).
    public func selection(for range: ChartRange) -> RangeSelection {
        if let s = selections[range] { return s }
        let s = instrument.market.points(for: range)
        selections[range] = s
        return s
    }

    func view(for selection: RangeSelection) -> ChartView {
        let plot = screen.layout.plot
        let scale = LineChartScale(fitting: selection.points, in: plot)
        let palette = screen.palette
        let first = selection.points.first?.value ?? 0, last = selection.points.last?.value ?? 0
        return ChartView(times: selection.points.map(\.time), positions: selection.points.map(scale.point),
                         baselineY: scale.y(first), color: last >= first ? palette.up : palette.down)
    }

    /// Selects `range` at `time`; the line morphs there from what is on screen.
    public func select(_ newRange: ChartRange, at time: Double, animated: Bool = true) {
        range = newRange
        scrubIndex = nil
        let target = view(for: selection(for: newRange))
        morph.retarget(to: target, at: time, timing: animated ? timing : MorphTiming(duration: 0, curve: .linear))
    }

    /// True while frames still change without input.
    public func isAnimating(at time: Double) -> Bool { morph.isAnimating(at: time) }

    /// Paints the frame for `time` and returns the canvas.
    @discardableResult
    public func render(at time: Double) -> Canvas {
        morph.settle(at: time)
        let view = morph.presentation(at: time)
        let selection = selection(for: range)
        var indicator: Point?
        var focus: ChartPoint?
        if let i = scrubIndex, i < selection.points.count, !morph.isAnimating(at: time) {
            indicator = view.positions[i]
            focus = selection.points[i]
        }
        let frame = LineChartFrame(vertices: decimated(view.positions), baselineY: view.baselineY,
                                   lineColor: view.color, indicator: indicator)
        var labels = instrument.labels(for: selection, palette: screen.palette, focus: focus)
        if morph.isAnimating(at: time) { labels.changeColor = view.color }
        canvas.clip = canvas.buffer.bounds
        screen.draw(chart: frame, labels: labels, on: canvas)
        return canvas
    }
}
