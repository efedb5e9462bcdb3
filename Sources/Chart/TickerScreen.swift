import Feed
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
    /// Colour of the change text: the trend colour (a scrubbed point's, while a finger is down).
    public var changeColor: Color
    /// Colour of the chosen range's pill and word: the range's trend, as the line's, even while a
    /// scrubbed point's change has the other sign; nil: `changeColor`.
    public var selectionColor: Color?

    public init(instrument: String, price: String, change: String, note: String, selectedRange: ChartRange,
                changeColor: Color, selectionColor: Color? = nil) {
        self.instrument = instrument
        self.price = price
        self.change = change
        self.note = note
        self.selectedRange = selectedRange
        self.changeColor = changeColor
        self.selectionColor = selectionColor
    }
}

/// Paints the whole screen: header (instrument, price, change), the line chart, the range selector.
public final class TickerScreen {
    public let layout: TickerScreenLayout
    public var palette: ChartPalette
    /// The language of the note, so its parts can be told apart when some must go.
    public var phrases = Phrases.english
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
        let note = fittedNote(labels)
        if !note.isEmpty {
            renderer.draw(note, font: changeFont, color: palette.secondaryText.withOpacity(opacity),
                          x: Double(L.width) - L.margin, y: L.changeBaseline, alignment: .baselineRight,
                          into: &canvas.buffer, clip: clip)
        }
    }

    /// The note as it fits right of the change on its line, a letter's width apart: on a narrow
    /// screen (an 800x480 panel at scale 2, 480x320) the parts that matter least go first — when
    /// the market opens next, the provider's delay, the market's state, the "as of" time — so the
    /// stale mark and a fetch problem stay longest; what cannot fit at all is left out, never drawn
    /// over the change or past the edge.
    public func fittedNote(_ labels: TickerLabels) -> String {
        guard !labels.note.isEmpty else { return "" }
        let L = layout
        let room = Double(L.width) - 2 * L.margin - changeFont.measure(labels.change).width
            - (labels.change.isEmpty ? 0 : changeFont.pixelSize)
        func fits(_ text: String) -> Bool { changeFont.measure(text).width <= room }
        if fits(labels.note) { return labels.note }
        var parts = labels.note.splitting(separator: " · ")
        let p = phrases
        let states = [p.open, p.closed, p.preMarket, p.afterHours, p.lunchBreak]
        let order: [(String) -> Bool] = [
            { Phrases.matches($0, template: p.opens) || Phrases.matches($0, template: p.reopens) },
            { $0 == p.delayed || Phrases.matches($0, template: p.delayedMinutes) },
            { states.contains($0) }, { Phrases.matches($0, template: p.asOf) },
        ]
        for matches in order {
            parts.removeAll(where: matches)
            let text = parts.joined(separator: " · ")
            if fits(text) { return text }
        }
        while !parts.isEmpty {
            parts.removeFirst()
            let text = parts.joined(separator: " · ")
            if fits(text) { return text }
        }
        return ""
    }

    /// The pieces of the screen that follow the labels, each redrawn on its own when it changes.
    public enum LabelPart: CaseIterable, Sendable {
        case name, price, change, note, selection
    }

    /// How one part of the labels is painted: equal looks paint equal pixels, and `bounds` holds
    /// every pixel the part touches (a partial redraw covers the old and the new bounds).
    public struct LabelLook: Equatable, Sendable {
        public var text: String
        public var color: Color
        public var bounds: IntRect
    }

    /// The look of `part` of `labels` drawn at `opacity` (the header's cross-fade; the name and
    /// the selector are always drawn from the current labels at full opacity).
    public func look(of part: LabelPart, in labels: TickerLabels, opacity: Double = 1) -> LabelLook {
        let L = layout
        switch part {
        case .name:
            return LabelLook(text: labels.instrument, color: palette.secondaryText,
                             bounds: renderer.inkBounds(of: labels.instrument, font: nameFont, x: L.margin, y: L.nameBaseline))
        case .price:
            return LabelLook(text: labels.price, color: palette.text.withOpacity(opacity),
                             bounds: renderer.inkBounds(of: labels.price, font: priceFont, x: L.margin, y: L.priceBaseline))
        case .change:
            return LabelLook(text: labels.change, color: labels.changeColor.withOpacity(opacity),
                             bounds: renderer.inkBounds(of: labels.change, font: changeFont, x: L.margin, y: L.changeBaseline))
        case .note:
            let note = fittedNote(labels)
            let bounds = note.isEmpty ? IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
                : renderer.inkBounds(of: note, font: changeFont, x: Double(L.width) - L.margin, y: L.changeBaseline,
                                     alignment: .baselineRight)
            return LabelLook(text: note, color: palette.secondaryText.withOpacity(opacity), bounds: bounds)
        case .selection:
            // The pill of the chosen range (antialiased: a pixel more on every side) and its word.
            let color = labels.selectionColor ?? labels.changeColor
            guard let i = L.ranges.firstIndex(of: labels.selectedRange) else {
                return LabelLook(text: "", color: color, bounds: IntRect(x0: 0, y0: 0, x1: 0, y1: 0))
            }
            let (left, top, w, h) = pillFrame(at: L.selectorCenters[i])
            let pill = IntRect(x0: Int(left.rounded(.down)) - 1, y0: Int(top.rounded(.down)) - 1,
                               x1: Int((left + w).rounded(.up)) + 1, y1: Int((top + h).rounded(.up)) + 1)
            let word = renderer.inkBounds(of: labels.selectedRange.rawValue, font: selectedFont, x: L.selectorCenters[i],
                                          y: L.selectorBaseline, alignment: .baselineCenter)
            return LabelLook(text: labels.selectedRange.rawValue, color: color, bounds: pill.union(word))
        }
    }

    /// Left, top, width and height of the pill behind the range label centred at `x`.
    private func pillFrame(at x: Double) -> (Double, Double, Double, Double) {
        let h = 46 * layout.scale, w = 96 * layout.scale
        return (x - w / 2, layout.selectorBaseline - 10 * layout.scale - h / 2, w, h)
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
                let (left, top, w, h) = pillFrame(at: x)
                var pill = Path()
                let r = h / 2
                pill.move(to: Point(left + r, top))
                pill.line(to: Point(left + w - r, top))
                pill.cubic(to: Point(left + w - r, top + h), control1: Point(left + w - r + r * 1.33, top),
                           control2: Point(left + w - r + r * 1.33, top + h))
                pill.line(to: Point(left + r, top + h))
                pill.cubic(to: Point(left + r, top), control1: Point(left + r - r * 1.33, top + h),
                           control2: Point(left + r - r * 1.33, top))
                pill.close()
                canvas.fill(pill, paint: .solid((labels.selectionColor ?? labels.changeColor).withOpacity(0.18)))
            }
            renderer.draw(range.rawValue, font: selected ? selectedFont : selectorFont,
                          color: selected ? labels.selectionColor ?? labels.changeColor : palette.secondaryText, x: x, y: L.selectorBaseline,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: clip)
        }
    }
}

extension String {
    /// The pieces between occurrences of `separator` (no Foundation here).
    func splitting(separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
