import Feed
import Raster
import Text

/// Where everything sits on a screen of a given size. Sizes scale with the display: 1080p is
/// scale 1, 4K doubles every length; text never gets smaller than its minimum.
public struct TickerScreenLayout: Equatable, Sendable {
    /// The least pixel sizes of the screen's words. DejaVu Sans' capitals are 0.73 em tall, so the
    /// price's 22 px is a 16 px cap height and the other text's 13 px a 9.5 px one. On a 3.5"
    /// 480x320 panel (about 165 ppi) that is 2.5 mm and 1.5 mm: the price still reads from a couple
    /// of metres and the rest at arm's length; smaller, antialiased digits blur (3, 8 and 9 run into
    /// one another), which is what `scale = auto` gave 480x320 before (7 px text). From 960x540 up
    /// the sizes follow the scale and never reach these, so larger screens look as they did.
    public static let minimumPriceSize = 22.0
    public static let minimumTextSize = 13.0
    /// The bar chart's value and month labels: chart furniture read up close, as small as the
    /// watchlist's smallest text.
    public static let minimumChartLabelSize = 12.0

    public let width: Int
    public let height: Int
    public let scale: Double
    public let margin: Double
    public let plot: PlotRect
    public let nameBaseline: Double
    public let priceBaseline: Double
    public let changeBaseline: Double
    /// The stats line under the change (`[chart] stats`), when the wall shows one.
    public let statsBaseline: Double?
    public let statsSize: Double
    public let selectorBaseline: Double
    /// Pixel sizes of the instrument's name, the price, the change (and the note beside it) and
    /// the range labels: the scale's, or the minimum.
    public let nameSize: Double
    public let priceSize: Double
    public let changeSize: Double
    public let selectorSize: Double
    /// The range buttons, left to right (the configured ranges).
    public let ranges: [ChartRange]
    /// Centre x of each range label, in `ranges` order.
    public let selectorCenters: [Double]
    public let selectorHalfWidth: Double
    /// The pill behind the chosen range: its size, and its centre's height above the label's baseline.
    public let pillWidth: Double
    public let pillHeight: Double
    public let pillRaise: Double
    /// The bar chart's value and month labels' pixel size.
    public let barLabelSize: Double
    /// The bar chart's plot: the line's, with room below for the month labels and their MTD line.
    public let barPlot: PlotRect

    /// Pixel sizes of name, price, change, range labels and bar labels at scale `s`.
    static func textSizes(_ s: Double) -> (name: Double, price: Double, change: Double, selector: Double, bars: Double) {
        (max(minimumTextSize, 28 * s), max(minimumPriceSize, 76 * s), max(minimumTextSize, 30 * s),
         max(minimumTextSize, 28 * s), max(minimumChartLabelSize, 24 * s))
    }

    /// The height the header (above the plot) and the selector (below it) take at scale `s`. Every
    /// gap is a length of the scale, every line as tall as its text: at 1080p 260 + 130 units, as
    /// the screen was drawn before the minimum sizes.
    static func chromeHeight(_ s: Double, stats: Bool = false) -> (header: Double, selector: Double) {
        let z = textSizes(s)
        // The plot leaves room above it for the bar chart's top value label (52 units at 1080p).
        let header = 50 * s + z.name + 6 * s + z.price + 18 * s + z.change + 52 * z.bars / 24
            + (stats ? statsGap * s + statsTextSize(s) : 0)
        return (header, 24 * s + 106 * z.selector / 28)
    }

    /// The stats line: smaller than the change above it, 14 units below it.
    static let statsGap = 14.0
    static func statsTextSize(_ s: Double) -> Double { max(minimumTextSize, 24 * s) }

    /// `scale` overrides the factor from the screen size (a large-text mode: text, lines and touch
    /// targets grow together); it is capped so the header fits the width and the plot keeps at least
    /// a fifth of the height.
    public init(width: Int, height: Int, scale requested: Double? = nil, ranges: [ChartRange] = ChartRange.standard,
                stats: Bool = false) {
        self.width = width
        self.height = height
        let w = Double(width), h = Double(height)
        // From the long and the short side, not from width and height: a portrait 1080x1920 is a
        // 1080p screen turned and gets 1080p's header (by width and height it was sized like a
        // 1080-wide strip of a landscape screen, at 0.56: a small header over a tall, empty plot).
        let auto = max(0.25, min(max(w, h) / 1920, min(w, h) / 1080))
        // The selector's six pills and an eight-em price with the margins need 800 units of width.
        var s = max(0.25, min(requested.flatMap { $0.isFinite ? $0 : nil } ?? auto, w / 800))
        if Self.chromeHeight(s, stats: stats).header + Self.chromeHeight(s, stats: stats).selector > h * 0.8 {
            // The largest scale whose header and selector leave the plot a fifth of the height (the
            // minimum sizes make the height a broken line in the scale: halve the interval).
            var lo = 0.25, hi = s
            for _ in 0..<40 {
                let mid = (lo + hi) / 2
                let c = Self.chromeHeight(mid, stats: stats)
                if c.header + c.selector > h * 0.8 { hi = mid } else { lo = mid }
            }
            s = lo
        }
        scale = s
        let z = Self.textSizes(s)
        nameSize = z.name
        priceSize = z.price
        changeSize = z.change
        selectorSize = z.selector
        barLabelSize = z.bars
        self.ranges = ranges.isEmpty ? ChartRange.standard : ranges
        margin = 80 * s
        nameBaseline = 50 * s + z.name
        priceBaseline = nameBaseline + 6 * s + z.price
        changeBaseline = priceBaseline + 18 * s + z.change
        statsSize = Self.statsTextSize(s)
        statsBaseline = stats ? changeBaseline + Self.statsGap * s + statsSize : nil
        let plotTop = (statsBaseline ?? changeBaseline) + 52 * z.bars / 24
        plot = PlotRect(left: margin, top: plotTop, right: w - margin,
                        bottom: max(plotTop + 10, h - Self.chromeHeight(s).selector))
        selectorBaseline = h - 24 * s - z.selector
        // Slots keep the width of six, centred, so fewer buttons do not become wide bars (and
        // narrow to fit seven or eight).
        let slot = (w - 2 * margin) / Double(max(ChartRange.standard.count, self.ranges.count))
        let left = w / 2 - slot * Double(self.ranges.count) / 2
        selectorCenters = (0..<self.ranges.count).map { left + slot * (Double($0) + 0.5) }
        selectorHalfWidth = slot / 2
        // The pill grows with its label, but never into the next one's slot.
        pillWidth = min(96 * z.selector / 28, slot * 0.9)
        pillHeight = 46 * z.selector / 28
        pillRaise = 10 * z.selector / 28
        var bars = plot
        bars.bottom -= 56 * z.bars / 24
        barPlot = bars
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
    /// A scrubbed point's time said shorter and shorter (`note` first): where the whole does not
    /// fit, the longest that does is shown, and at the least the shortest; never nothing, since a
    /// finger on a touch panel must see which point it holds. Empty for any other note.
    public var noteForms: [String] = []
    /// The stats line (`[chart] stats`), empty for none.
    public var stats = ""
    /// The time of day at the name line's right end (`[chart] clock`), empty for none.
    public var clock = ""

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
    private let statsFont: Font

    public init(width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                renderer: TextRenderer = TextRenderer(), scale: Double? = nil, ranges: [ChartRange] = ChartRange.standard,
                stats: Bool = false) {
        layout = TickerScreenLayout(width: width, height: height, scale: scale, ranges: ranges, stats: stats)
        self.palette = palette
        self.renderer = renderer
        let L = layout
        nameFont = Font(face: fonts.regular, clampingPixelSize: L.nameSize)
        // Tabular digits: the price must not jitter sideways while a finger scrubs.
        priceFont = Font(face: fonts.bold, clampingPixelSize: L.priceSize, tabularDigits: true)
        changeFont = Font(face: fonts.regular, clampingPixelSize: L.changeSize, tabularDigits: true)
        selectorFont = Font(face: fonts.regular, clampingPixelSize: L.selectorSize)
        selectedFont = Font(face: fonts.bold, clampingPixelSize: L.selectorSize)
        // Tabular digits: a new low or high must not shift the line's other words.
        statsFont = Font(face: fonts.regular, clampingPixelSize: L.statsSize, tabularDigits: true)
    }

    /// The width between the margins, where the header's lines must fit.
    private var lineWidth: Double { Double(layout.width) - 2 * layout.margin }

    /// `font`, smaller when `text` would run past the right margin, never below `least` pixels: a
    /// long price or change on a narrow panel shrinks before anything is cut.
    private func fitting(_ font: Font, _ text: String, least: Double) -> Font {
        let measured = font.measure(text).width
        guard measured > lineWidth, measured > 0 else { return font }
        return font.withPixelSize(max(min(least, font.pixelSize), font.pixelSize * lineWidth / measured))
    }

    /// The instrument's name as drawn: cut with an ellipsis where it would pass the right margin,
    /// or come within a letter of the clock.
    func shownName(_ labels: TickerLabels) -> String {
        let clock = shownClock(labels)
        let room = clock.isEmpty ? lineWidth : lineWidth - nameFont.measure(clock).width - nameFont.pixelSize
        return labels.instrument.truncated(toWidth: room, font: nameFont)
    }

    /// The clock as drawn: left out where it would leave the name less than half the line.
    func shownClock(_ labels: TickerLabels) -> String {
        guard !labels.clock.isEmpty, nameFont.measure(labels.clock).width + nameFont.pixelSize <= lineWidth / 2 else { return "" }
        return labels.clock
    }

    /// The stats line as drawn: the parts that fit, from the left (the day's range first).
    func shownStats(_ labels: TickerLabels) -> String {
        guard layout.statsBaseline != nil, !labels.stats.isEmpty else { return "" }
        var parts = labels.stats.splitting(separator: " · ")
        while !parts.isEmpty {
            let text = parts.joined(separator: " · ")
            if statsFont.measure(text).width <= lineWidth { return text }
            parts.removeLast()
        }
        return ""
    }

    func priceFont(for price: String) -> Font { fitting(priceFont, price, least: TickerScreenLayout.minimumPriceSize) }

    func changeFont(for change: String) -> Font { fitting(changeFont, change, least: TickerScreenLayout.minimumTextSize) }

    /// The change as drawn: whole unless even the smallest size cannot hold it (the bar chart's
    /// caption on a 240-wide portrait panel), then cut with an ellipsis.
    func shownChange(_ labels: TickerLabels) -> String {
        labels.change.truncated(toWidth: lineWidth, font: changeFont(for: labels.change))
    }

    private func drawHeader(_ labels: TickerLabels, opacity: Double, canvas: Canvas) {
        let L = layout, clip = canvas.clip
        renderer.draw(labels.price, font: priceFont(for: labels.price), color: palette.text.withOpacity(opacity), x: L.margin,
                      y: L.priceBaseline, into: &canvas.buffer, clip: clip)
        renderer.draw(shownChange(labels), font: changeFont(for: labels.change), color: labels.changeColor.withOpacity(opacity),
                      x: L.margin, y: L.changeBaseline, into: &canvas.buffer, clip: clip)
        let note = fittedNote(labels)
        if !note.isEmpty {
            renderer.draw(note, font: changeFont, color: palette.secondaryText.withOpacity(opacity),
                          x: Double(L.width) - L.margin, y: L.changeBaseline, alignment: .baselineRight,
                          into: &canvas.buffer, clip: clip)
        }
    }

    /// The note as it fits right of the change on its line, a letter's width apart: on a narrow
    /// screen (an 800x480 panel at scale 2, 480x320) the parts that matter least go first — when
    /// the market opens next or the countdown, the provider's delay, the "as of" time, then the
    /// rest from the left — so the market's state ("Geschlossen") stays longest but for the stale
    /// mark (a stale number must never look fresh); what cannot fit at all is
    /// left out, never drawn over the change or past the edge. A scrubbed point's time is never
    /// left out: it is said shorter (`noteForms`).
    public func fittedNote(_ labels: TickerLabels) -> String {
        guard !labels.note.isEmpty else { return "" }
        let L = layout
        let room = Double(L.width) - 2 * L.margin - changeFont(for: labels.change).measure(shownChange(labels)).width
            - (labels.change.isEmpty ? 0 : changeFont.pixelSize)
        func fits(_ text: String) -> Bool { changeFont.measure(text).width <= room }
        if fits(labels.note) { return labels.note }
        if !labels.noteForms.isEmpty { return labels.noteForms.first(where: fits) ?? labels.noteForms.last! }
        var parts = labels.note.splitting(separator: " · ")
        let p = phrases
        let states = [p.open, p.closed, p.preMarket, p.afterHours, p.lunchBreak]
        let order: [(String) -> Bool] = [
            { part in [p.opens, p.reopens, p.opensIn, p.reopensIn, p.closesIn].contains { Phrases.matches(part, template: $0) } },
            { $0 == p.delayed || Phrases.matches($0, template: p.delayedMinutes) },
            { Phrases.matches($0, template: p.asOf) },
        ]
        for matches in order {
            parts.removeAll(where: matches)
            let text = parts.joined(separator: " · ")
            if fits(text) { return text }
        }
        // Then from the left, the state last but for the stale mark and a fetch problem.
        func rank(_ part: String) -> Int { part == p.stale ? 2 : states.contains(part) ? 1 : 0 }
        while let i = parts.indices.min(by: { (rank(parts[$0]), $0) < (rank(parts[$1]), $1) }) {
            parts.remove(at: i)
            let text = parts.joined(separator: " · ")
            if fits(text) { return text }
        }
        return ""
    }

    /// The pieces of the screen that follow the labels, each redrawn on its own when it changes.
    public enum LabelPart: CaseIterable, Sendable {
        case name, price, change, note, selection, stats, clock
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
            let name = shownName(labels)
            return LabelLook(text: name, color: palette.secondaryText,
                             bounds: renderer.inkBounds(of: name, font: nameFont, x: L.margin, y: L.nameBaseline))
        case .price:
            return LabelLook(text: labels.price, color: palette.text.withOpacity(opacity),
                             bounds: renderer.inkBounds(of: labels.price, font: priceFont(for: labels.price), x: L.margin,
                                                        y: L.priceBaseline))
        case .change:
            let change = shownChange(labels)
            return LabelLook(text: change, color: labels.changeColor.withOpacity(opacity),
                             bounds: renderer.inkBounds(of: change, font: changeFont(for: labels.change), x: L.margin,
                                                        y: L.changeBaseline))
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
        case .stats:
            let stats = shownStats(labels)
            return LabelLook(text: stats, color: palette.secondaryText,
                             bounds: stats.isEmpty ? IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
                                : renderer.inkBounds(of: stats, font: statsFont, x: L.margin, y: L.statsBaseline ?? 0))
        case .clock:
            let clock = shownClock(labels)
            return LabelLook(text: clock, color: palette.secondaryText,
                             bounds: clock.isEmpty ? IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
                                : renderer.inkBounds(of: clock, font: nameFont, x: Double(L.width) - L.margin, y: L.nameBaseline,
                                                     alignment: .baselineRight))
        }
    }

    /// One piece of text on the screen where it is drawn, for the layout tests: `bounds` are its
    /// ink (the selected range's include its pill), `capHeight` the height of a capital H in its font.
    public struct TextBox: Equatable, Sendable {
        public var role: String
        public var text: String
        public var bounds: IntRect
        public var capHeight: Int
    }

    /// Every piece of text `draw` paints for `labels` (an empty note is left out), measured with the
    /// fonts it is drawn in.
    public func textBoxes(for labels: TickerLabels) -> [TextBox] {
        func cap(_ font: Font) -> Int { renderer.inkBounds(of: "H", font: font, x: 0, y: 1000).height }
        var boxes = [
            TextBox(role: "name", text: shownName(labels), bounds: look(of: .name, in: labels).bounds, capHeight: cap(nameFont)),
            TextBox(role: "price", text: labels.price, bounds: look(of: .price, in: labels).bounds,
                    capHeight: cap(priceFont(for: labels.price))),
            TextBox(role: "change", text: shownChange(labels), bounds: look(of: .change, in: labels).bounds,
                    capHeight: cap(changeFont(for: labels.change))),
        ]
        let note = look(of: .note, in: labels)
        if !note.text.isEmpty { boxes.append(TextBox(role: "note", text: note.text, bounds: note.bounds, capHeight: cap(changeFont))) }
        let stats = look(of: .stats, in: labels), clock = look(of: .clock, in: labels)
        if !stats.text.isEmpty { boxes.append(TextBox(role: "stats", text: stats.text, bounds: stats.bounds, capHeight: cap(statsFont))) }
        if !clock.text.isEmpty { boxes.append(TextBox(role: "clock", text: clock.text, bounds: clock.bounds, capHeight: cap(nameFont))) }
        let L = layout
        for (i, range) in L.ranges.enumerated() {
            if range == labels.selectedRange {
                boxes.append(TextBox(role: "selected range", text: range.rawValue, bounds: look(of: .selection, in: labels).bounds,
                                     capHeight: cap(selectedFont)))
            } else {
                boxes.append(TextBox(role: "range", text: range.rawValue,
                                     bounds: renderer.inkBounds(of: range.rawValue, font: selectorFont, x: L.selectorCenters[i],
                                                                y: L.selectorBaseline, alignment: .baselineCenter),
                                     capHeight: cap(selectorFont)))
            }
        }
        return boxes.filter { !$0.text.isEmpty }
    }

    /// Left, top, width and height of the pill behind the range label centred at `x`.
    private func pillFrame(at x: Double) -> (Double, Double, Double, Double) {
        let h = layout.pillHeight, w = layout.pillWidth
        return (x - w / 2, layout.selectorBaseline - layout.pillRaise - h / 2, w, h)
    }

    public var painter: LineChartPainter {
        LineChartPainter(palette: palette, metrics: LineChartMetrics(scale: layout.scale), plot: layout.plot)
    }

    /// Draws everything inside the canvas's clip. While `fade` < 1 the header cross-fades from
    /// `previous` to `labels` (a scrubbed price changing, the label returning to the latest price).
    public func draw(chart: LineChartFrame, labels: TickerLabels, fadingFrom previous: TickerLabels? = nil,
                     fade: Double = 1, on canvas: Canvas) {
        draw(chart: chart, labels: labels, fadingFrom: previous, fade: fade, on: canvas, regions: [canvas.clip])
    }

    /// Paints each of `regions` whole, one after the other (they may overlap: each is cleared and
    /// painted from the bottom up), the chart's paths built once for all of them.
    /// `inks`, when given, holds each label part's ink on this frame (its looks' bounds, every
    /// fade layer's): a rectangle a part's ink does not reach is painted without laying that part
    /// out again (a morph's strips of the plot meet no words).
    public func draw(chart: LineChartFrame, labels: TickerLabels, fadingFrom previous: TickerLabels? = nil,
                     fade: Double = 1, on canvas: Canvas, regions: [IntRect], inks: [LabelPart: IntRect]? = nil) {
        let painter = painter, paths = painter.paths(of: chart)
        for region in regions {
            canvas.clip = region
            draw(chart: chart, paths: paths, painter: painter, labels: labels, fadingFrom: previous, fade: fade, on: canvas,
                 inks: inks)
        }
    }

    /// Where the range selector's words can put ink (each word in both its fonts): fixed for the
    /// screen's layout and fonts.
    private lazy var selectorInk: IntRect = {
        let L = layout
        var ink = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
        for (i, range) in L.ranges.enumerated() {
            for font in [selectorFont, selectedFont] {
                let b = renderer.inkBounds(of: range.rawValue, font: font, x: L.selectorCenters[i], y: L.selectorBaseline,
                                           alignment: .baselineCenter)
                ink = ink.isEmpty ? b : b.isEmpty ? ink : ink.union(b)
            }
        }
        return ink
    }()

    private func draw(chart: LineChartFrame, paths: LineChartPainter.Paths, painter: LineChartPainter, labels: TickerLabels,
                      fadingFrom previous: TickerLabels?, fade: Double, on canvas: Canvas, inks: [LabelPart: IntRect]?) {
        let clip = canvas.clip
        painter.draw(chart, paths: paths, on: canvas)  // clears the clip to the background first
        func reaches(_ part: LabelPart) -> Bool {
            guard let ink = inks?[part] else { return true }
            return !ink.intersection(clip).isEmpty
        }
        let L = layout
        if reaches(.name) {
            renderer.draw(shownName(labels), font: nameFont, color: palette.secondaryText, x: L.margin, y: L.nameBaseline,
                          into: &canvas.buffer, clip: clip)
        }
        let clock = reaches(.clock) ? shownClock(labels) : "", stats = reaches(.stats) ? shownStats(labels) : ""
        if !clock.isEmpty {
            renderer.draw(clock, font: nameFont, color: palette.secondaryText, x: Double(L.width) - L.margin, y: L.nameBaseline,
                          alignment: .baselineRight, into: &canvas.buffer, clip: clip)
        }
        if !stats.isEmpty, let y = L.statsBaseline {
            renderer.draw(stats, font: statsFont, color: palette.secondaryText, x: L.margin, y: y, into: &canvas.buffer, clip: clip)
        }
        if reaches(.price) || reaches(.change) || reaches(.note) {
            let f = min(1, max(0, fade.isFinite ? fade : 1))
            if let previous, f < 1 {
                drawHeader(previous, opacity: 1 - f, canvas: canvas)
                drawHeader(labels, opacity: f, canvas: canvas)
            } else {
                drawHeader(labels, opacity: 1, canvas: canvas)
            }
        }
        guard inks == nil || reaches(.selection) || !selectorInk.intersection(clip).isEmpty else { return }
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

extension String {
    /// The string cut with an ellipsis to fit `width` in `font` (whole when it fits).
    func truncated(toWidth width: Double, font: Font) -> String {
        guard font.measure(self).width > width else { return self }
        var scalars = Array(unicodeScalars)
        while !scalars.isEmpty {
            scalars.removeLast()
            var s = String(String.UnicodeScalarView(scalars))
            while s.hasSuffix(" ") { s.removeLast() }
            if font.measure(s + "…").width <= width { return s + "…" }
        }
        return ""
    }
}
