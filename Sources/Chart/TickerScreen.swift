import Raster
import Text

/// Where everything sits on a screen of a given size. Sizes scale with the display: 1080p is
/// scale 1, 4K doubles every length.
public struct TickerScreenLayout: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public let scale: Double
    public let margin: Double
    public let plot: PlotRect
    public let nameBaseline: Double
    public let priceBaseline: Double
    public let changeBaseline: Double
    public let selectorBaseline: Double
    /// The range buttons, left to right (the configured ranges).
    public let ranges: [ChartRange]
    /// Centre x of each range label, in `ranges` order.
    public let selectorCenters: [Double]
    public let selectorHalfWidth: Double

    /// `scale` overrides the factor from the screen size (a large-text mode: text, lines and touch
    /// targets grow together); it is capped so the plot keeps at least a fifth of the height.
    public init(width: Int, height: Int, scale requested: Double? = nil, ranges: [ChartRange] = ChartRange.allCases) {
        self.width = width
        self.height = height
        let auto = max(0.25, min(Double(width) / 1920, Double(height) / 1080))
        // Header (260) and selector (130) take 390 units of height; the plot needs the rest.
        let fitting = max(0.25, Double(height) * 0.8 / 390)
        let s = requested.map { max(0.25, min($0.isFinite ? $0 : auto, fitting)) } ?? auto
        scale = s
        self.ranges = ranges.isEmpty ? ChartRange.allCases : ranges
        margin = 80 * s
        nameBaseline = 78 * s
        priceBaseline = 160 * s
        changeBaseline = 208 * s
        let plotTop = 260 * s
        let selectorHeight = 110 * s
        plot = PlotRect(left: margin, top: plotTop, right: Double(width) - margin,
                        bottom: max(plotTop + 10, Double(height) - selectorHeight - 20 * s))
        selectorBaseline = Double(height) - 52 * s
        // Slots keep the width of six, centred, so fewer buttons do not become wide bars.
        let slot = (Double(width) - 2 * margin) / Double(ChartRange.allCases.count)
        let left = Double(width) / 2 - slot * Double(self.ranges.count) / 2
        selectorCenters = (0..<self.ranges.count).map { left + slot * (Double($0) + 0.5) }
        selectorHalfWidth = slot / 2
    }

    /// The range label under a touch at `x`, `y`, if any: the whole slot counts, so a finger
    /// need not hit the letters.
    public func range(atX x: Double, y: Double) -> ChartRange? {
        guard y >= plot.bottom, y <= Double(height) else { return nil }
        for (i, c) in selectorCenters.enumerated() where abs(x - c) <= selectorHalfWidth {
            return ranges[i]
        }
        return nil
    }
}

/// The words and numbers on screen besides the chart.
public struct TickerLabels: Equatable, Sendable {
    public var instrument: String
    public var price: String
    public var change: String
    /// Small print: the date of a scrubbed point, or why a range looks as it does.
    public var note: String
    public var selectedRange: ChartRange
    /// Colour of the change text: the trend colour.
    public var changeColor: Color

    public init(instrument: String, price: String, change: String, note: String, selectedRange: ChartRange,
                changeColor: Color) {
        self.instrument = instrument
        self.price = price
        self.change = change
        self.note = note
        self.selectedRange = selectedRange
        self.changeColor = changeColor
    }
}

/// Paints the whole screen: header (instrument, price, change), the line chart, the range selector.
public final class TickerScreen {
    public let layout: TickerScreenLayout
    public var palette: ChartPalette
    private let renderer: TextRenderer
    private let nameFont: Font
    private let priceFont: Font
    private let changeFont: Font
    private let selectorFont: Font
    private let selectedFont: Font

    public init(width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                renderer: TextRenderer = TextRenderer(), scale: Double? = nil, ranges: [ChartRange] = ChartRange.allCases) {
        layout = TickerScreenLayout(width: width, height: height, scale: scale, ranges: ranges)
        self.palette = palette
        self.renderer = renderer
        let s = layout.scale
        nameFont = Font(face: fonts.regular, clampingPixelSize: 28 * s)
        // Tabular digits: the price must not jitter sideways while a finger scrubs.
        priceFont = Font(face: fonts.bold, clampingPixelSize: 76 * s, tabularDigits: true)
        changeFont = Font(face: fonts.regular, clampingPixelSize: 30 * s, tabularDigits: true)
        selectorFont = Font(face: fonts.regular, clampingPixelSize: 28 * s)
        selectedFont = Font(face: fonts.bold, clampingPixelSize: 28 * s)
    }

    private func drawHeader(_ labels: TickerLabels, opacity: Double, canvas: Canvas) {
        let L = layout, clip = canvas.clip
        renderer.draw(labels.price, font: priceFont, color: palette.text.withOpacity(opacity), x: L.margin,
                      y: L.priceBaseline, into: &canvas.buffer, clip: clip)
        renderer.draw(labels.change, font: changeFont, color: labels.changeColor.withOpacity(opacity), x: L.margin,
                      y: L.changeBaseline, into: &canvas.buffer, clip: clip)
        if !labels.note.isEmpty {
            renderer.draw(labels.note, font: changeFont, color: palette.secondaryText.withOpacity(opacity),
                          x: Double(L.width) - L.margin, y: L.changeBaseline, alignment: .baselineRight,
                          into: &canvas.buffer, clip: clip)
        }
    }

    public var painter: LineChartPainter {
        LineChartPainter(palette: palette, metrics: LineChartMetrics(scale: layout.scale), plot: layout.plot)
    }

    /// Draws everything inside the canvas's clip. While `fade` < 1 the header cross-fades from
    /// `previous` to `labels` (a scrubbed price changing, the label returning to the latest price).
    public func draw(chart: LineChartFrame, labels: TickerLabels, fadingFrom previous: TickerLabels? = nil,
                     fade: Double = 1, on canvas: Canvas) {
        let clip = canvas.clip
        painter.draw(chart, on: canvas)  // clears the clip to the background first
        let L = layout
        renderer.draw(labels.instrument, font: nameFont, color: palette.secondaryText, x: L.margin, y: L.nameBaseline,
                      into: &canvas.buffer, clip: clip)
        let f = min(1, max(0, fade.isFinite ? fade : 1))
        if let previous, f < 1 {
            drawHeader(previous, opacity: 1 - f, canvas: canvas)
            drawHeader(labels, opacity: f, canvas: canvas)
        } else {
            drawHeader(labels, opacity: 1, canvas: canvas)
        }
        for (i, range) in L.ranges.enumerated() {
            let selected = range == labels.selectedRange
            let x = L.selectorCenters[i]
            if selected {
                // A pill behind the chosen range, in a muted version of the trend colour.
                let h = 46 * L.scale, w = 96 * L.scale
                var pill = Path()
                let r = h / 2, left = x - w / 2, top = L.selectorBaseline - 10 * L.scale - h / 2
                pill.move(to: Point(left + r, top))
                pill.line(to: Point(left + w - r, top))
                pill.cubic(to: Point(left + w - r, top + h), control1: Point(left + w - r + r * 1.33, top),
                           control2: Point(left + w - r + r * 1.33, top + h))
                pill.line(to: Point(left + r, top + h))
                pill.cubic(to: Point(left + r, top), control1: Point(left + r - r * 1.33, top + h),
                           control2: Point(left + r - r * 1.33, top))
                pill.close()
                canvas.fill(pill, paint: .solid(labels.changeColor.withOpacity(0.18)))
            }
            renderer.draw(range.rawValue, font: selected ? selectedFont : selectorFont,
                          color: selected ? labels.changeColor : palette.secondaryText, x: x, y: L.selectorBaseline,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: clip)
        }
    }
}
