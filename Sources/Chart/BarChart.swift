import Feed
import Raster
import Text

/// One bar: a label under it and a signed value (a percentage change, a volume).
public struct Bar: Equatable, Sendable {
    public var label: String
    public var value: Double
    /// A period still in progress (the current month, month to date): drawn apart from the
    /// finished ones, so nobody reads half a month as a whole one.
    public var isPartial: Bool

    public init(label: String, value: Double, isPartial: Bool = false) {
        self.label = label
        self.value = value
        self.isPartial = isPartial
    }
}

/// The value lines of a chart that must show zero: a 1, 2 or 5 × 10^n step, the fewest lines
/// (at most `maxLines`) that cover the values, the outermost lines being the plot's edges.
public struct NiceScale: Equatable, Sendable {
    public let step: Double
    /// The lines, lowest first; always includes 0.
    public let lines: [Double]
    public var lo: Double { lines.first ?? 0 }
    public var hi: Double { lines.last ?? 1 }

    public init(covering low: Double, _ high: Double, maxLines: Int = 6) {
        // Bounded, so the headroom and the step search below stay finite.
        var lo = min(0, max(-1e300, low.isFinite ? low : 0)), hi = max(0, min(1e300, high.isFinite ? high : 0))
        if hi - lo < 1e-9 { hi = lo + 1 }
        // Headroom, so the tallest bar does not end exactly on the top line.
        lo *= 1.04; hi *= 1.04
        // Values on both sides of zero need two gaps at least (a line below, 0, a line above); with
        // one the step search below never ends and the step overflows to infinity (found by fuzz-format).
        let gaps = Double(max(3, maxLines) - 1)
        // Powers of ten by multiplication, not log10/pow: the same bits on every machine.
        var magnitude = 1.0
        let raw = (hi - lo) / gaps
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        var step = magnitude
        search: while true {
            for m in [1.0, 2.0, 5.0] {
                step = m * magnitude
                if (hi / step).rounded(.up) - (lo / step).rounded(.down) <= gaps { break search }
            }
            magnitude *= 10
        }
        if !step.isFinite || step <= 0 { step = max(hi, -lo) }
        self.step = step
        let first = Int((lo / step).rounded(.down)), last = Int((hi / step).rounded(.up))
        lines = (first...last).map { Double($0) * step }
    }
}

/// "Nice" axis steps: 1, 2 or 5 times a power of ten, about `count` of them across the span.
public func niceTicks(lo: Double, hi: Double, count: Int = 5) -> [Double] {
    guard lo.isFinite, hi.isFinite, hi > lo, count > 0 else { return [0] }
    let raw = (hi - lo) / Double(count)
    // A span wider than the largest Double (lo = -1e308, hi = 1e308) or too narrow for any step to
    // move a value (subnormals) has no nice ticks: the magnitude search below would never end.
    guard raw.isFinite, raw >= Double.leastNormalMagnitude * 16 else { return [0] }
    var magnitude = 1.0
    while magnitude * 10 <= raw { magnitude *= 10 }
    while magnitude > raw { magnitude /= 10 }
    let step = [1.0, 2.0, 5.0, 10.0].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
    var ticks: [Double] = []
    var v = (lo / step).rounded(.up) * step
    // Near the largest Double the tolerance itself overflows to infinity (found by fuzz-format).
    let end = (hi + step * 1e-9).isFinite ? hi + step * 1e-9 : hi
    while v <= end && v.isFinite && ticks.count < 100 {
        ticks.append(abs(v) < step * 1e-9 ? 0 : v)
        v += step
    }
    return ticks
}

/// The bar chart scene: value lines at nice steps with their labels, x labels under the lowest
/// line, a month in progress marked as month to date, bars with a vertical gradient,
/// each growing from the zero line on the shared timing engine, 0.1 s after its left neighbour.
public struct BarChartScene {
    public var bars: [Bar]
    public var plot: PlotRect
    public var palette: ChartPalette
    public var timing: MorphTiming
    public var stagger: Double
    public var valueSuffix: String
    /// The decimal mark of the value lines' labels (the locale's: `+2,5 %` in de-DE).
    public var decimalSeparator = "."
    /// The labels' pixel size; when set, value lines stay one and a half labels apart (fewer lines
    /// on a short plot), so their labels never run into each other.
    public var labelSize = 0.0

    /// Values beyond this are drawn at it: one absurd month (a bad tick, a reverse split the data
    /// did not adjust) must not flatten the other eleven or overflow the labels.
    public static let valueLimit = 1000.0

    public init(bars: [Bar], plot: PlotRect, palette: ChartPalette, timing: MorphTiming = MorphTiming(duration: 0.8, curve: .tickerboard),
                stagger: Double = 0.1, valueSuffix: String = "%") {
        // NaN has no bar (its label stays, so the months keep their places).
        self.bars = bars.map {
            Bar(label: $0.label, value: $0.value.isNaN ? 0 : min(Self.valueLimit, max(-Self.valueLimit, $0.value)),
                isPartial: $0.isPartial)
        }
        self.plot = plot
        self.palette = palette
        self.timing = timing
        self.stagger = stagger
        self.valueSuffix = valueSuffix
    }

    /// When the last bar has finished growing.
    public var totalDuration: Double { timing.duration + stagger * Double(max(0, bars.count - 1)) }

    /// How far bar `index` has grown at `time` (0...1 on the timing curve, may overshoot with it).
    public func growth(ofBar index: Int, at time: Double) -> Double {
        timing.progress(elapsed: time - stagger * Double(index))
    }

    /// The value lines; the lowest and highest are the plot's bottom and top.
    public var scale: NiceScale {
        let fitting = labelSize > 0 ? Int(plot.height / (labelSize * 1.5)) + 1 : 6
        return NiceScale(covering: bars.map(\.value).min() ?? 0, bars.map(\.value).max() ?? 0, maxLines: min(6, fitting))
    }

    /// The value range shown: from the lowest value line to the highest, so it always includes zero.
    public var valueRange: (lo: Double, hi: Double) {
        let s = scale
        return (s.lo, s.hi)
    }

    func y(_ v: Double) -> Double {
        let r = valueRange
        return plot.bottom - (v - r.lo) / (r.hi - r.lo) * plot.height
    }

    /// The width each bar has, gap included. The right end is kept free for the value labels: 7 %
    /// of the plot, or on a narrow plot what "+10 %" takes at the labels' size.
    var barSlot: Double {
        (plot.width - max(plot.width * 0.07, labelSize * 3.6)) / Double(max(1, bars.count))
    }

    /// The bar's rectangle at full height: x0, x1, and the y of its top (or bottom when negative).
    public func barRect(_ index: Int) -> (x0: Double, x1: Double, zeroY: Double, endY: Double) {
        let slot = barSlot
        let x0 = plot.left + slot * Double(index) + slot * 0.18
        return (x0, x0 + slot * 0.64, y(0), y(bars[index].value))
    }

    public func draw(on canvas: Canvas, at time: Double, text: TextRenderer?, font: Font?) {
        canvas.clear(palette.background)
        let hair = max(1, (plot.height / 800).rounded())
        for t in scale.lines {
            let y = (self.y(t)).rounded(.down) + 0.5
            var line = Path()
            line.move(to: Point(plot.left, y)); line.line(to: Point(plot.right, y))
            canvas.stroke(line, style: StrokeStyle(width: hair, dashes: t == 0 ? [] : [2 * hair, 4 * hair]),
                          paint: .solid(t == 0 ? palette.baseline : palette.baseline.withOpacity(0.45)))
        }
        if let text, let font {
            for label in labelPlacements(font: font) where label.isValueLabel {
                text.draw(label.text, font: font, color: palette.secondaryText, x: label.x, y: label.y,
                          alignment: label.alignment, into: &canvas.buffer, clip: canvas.clip)
            }
        }
        for (i, bar) in bars.enumerated() {
            let rect = barRect(i)
            let g = growth(ofBar: i, at: time)
            let end = rect.zeroY + (rect.endY - rect.zeroY) * g
            let color = bar.value >= 0 ? palette.up : palette.down
            let top = min(rect.zeroY, end), bottom = max(rect.zeroY, end)
            if bottom - top > 0.01 {
                // Brightest at the bar's end, fading towards the zero line; a month in progress
                // is paler and outlined with a dash, unfinished.
                let strength = bar.isPartial ? 0.45 : 1.0
                let gradient = LinearGradient(start: Point(0, end), end: Point(0, rect.zeroY),
                                              stops: [(0, color.withOpacity(strength)), (1, color.withOpacity(0.35 * strength))])
                canvas.fillRect(x: rect.x0, y: top, width: rect.x1 - rect.x0, height: bottom - top,
                                paint: .linearGradient(gradient))
                if bar.isPartial {
                    var outline = Path()
                    let inset = hair / 2
                    outline.move(to: Point(rect.x0 + inset, rect.zeroY))
                    outline.line(to: Point(rect.x0 + inset, end))
                    outline.line(to: Point(rect.x1 - inset, end))
                    outline.line(to: Point(rect.x1 - inset, rect.zeroY))
                    canvas.stroke(outline, style: StrokeStyle(width: hair, dashes: [3 * hair, 3 * hair]), paint: .solid(color))
                }
            }
        }
        if let text, let font {
            for label in labelPlacements(font: font) where !label.isValueLabel {
                text.draw(label.text, font: font, color: palette.secondaryText, x: label.x, y: label.y,
                          alignment: label.alignment, into: &canvas.buffer, clip: canvas.clip)
            }
        }
    }

    /// One label of the chart and where it is drawn.
    public struct LabelPlacement: Equatable, Sendable {
        public var text: String
        public var x: Double
        public var y: Double
        public var alignment: TextAlignment
        /// A value line's label (drawn under the bars); else a month or its MTD mark (over them).
        public var isValueLabel: Bool
    }

    /// Every label `draw` paints in `font`: the value lines' right-aligned above their line, each
    /// month centred under its bar and "MTD" under a month in progress. The layout tests measure these.
    public func labelPlacements(font: Font) -> [LabelPlacement] {
        let hair = max(1, (plot.height / 800).rounded())
        var out: [LabelPlacement] = []
        for t in scale.lines {
            let y = (self.y(t)).rounded(.down) + 0.5
            // A tall plot's thicker hairline must not lift the label into the header above the plot.
            out.append(LabelPlacement(text: formatTick(t), x: plot.right, y: y - min(6 * hair, font.pixelSize / 2),
                                      alignment: .baselineRight, isValueLabel: true))
        }
        // A month's initial when its three letters are wider than its bar's slot (a narrow panel).
        let initials = bars.contains { font.measure($0.label).width > barSlot * 0.9 }
        for (i, bar) in bars.enumerated() {
            let rect = barRect(i)
            let x = (rect.x0 + rect.x1) / 2
            let baseline = plot.bottom + font.pixelSize * 1.4
            let label = initials ? String(bar.label.prefix(1)) : bar.label
            out.append(LabelPlacement(text: label, x: x, y: baseline, alignment: .baselineCenter, isValueLabel: false))
            if bar.isPartial {
                out.append(LabelPlacement(text: partialMark, x: x, y: baseline + font.pixelSize * 1.2,
                                          alignment: .baselineCenter, isValueLabel: false))
            }
        }
        return out
    }

    /// The second label line under a period still in progress.
    public var partialMark = Phrases.english.monthToDate

    func formatTick(_ v: Double) -> String {
        guard v.isFinite, abs(v) < 1e15 else { return "" }
        let rounded = (v * 100).rounded() / 100
        var s = rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
        if decimalSeparator != "." { s = String(s.flatMap { $0 == "." ? Array(decimalSeparator) : [$0] }) }
        if rounded > 0 { s = "+" + s }
        // A real minus sign lines up with the plus sign's width in the font.
        return s.replacingMinus() + valueSuffix
    }
}

/// The draw-in scene: the line draws itself left to right with progress uniform in time (x), not
/// arc length, and a dot rides the tip.
public struct DrawInScene {
    public var vertices: [Point]
    public var timing: MorphTiming

    public init(vertices: [Point], timing: MorphTiming = MorphTiming(duration: 2, curve: .easeInOut)) {
        self.vertices = vertices
        self.timing = timing
    }

    /// The x the line has reached at `time`.
    public func tipX(at time: Double) -> Double {
        guard let first = vertices.first, let last = vertices.last else { return 0 }
        return first.x + (last.x - first.x) * timing.progress(elapsed: time)
    }

    /// The tip: the line's point at `tipX` (binary search over the ascending xs).
    public func tip(at time: Double) -> Point? {
        guard !vertices.isEmpty else { return nil }
        let x = tipX(at: time)
        var lo = 0, hi = vertices.count - 1
        if x <= vertices[lo].x { return vertices[lo] }
        if x >= vertices[hi].x { return vertices[hi] }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if vertices[mid].x <= x { lo = mid } else { hi = mid }
        }
        let a = vertices[lo], b = vertices[hi]
        let f = b.x > a.x ? (x - a.x) / (b.x - a.x) : 0
        return Point(x, a.y + (b.y - a.y) * f)
    }

    /// Draws the chart `frame` with its line trimmed at the tip (a clip, so the cost does not grow
    /// with the trimmed length), the baseline whole, and a dot on the tip. The dot fades over the
    /// last fifth of the drawing: the finished frame is the line scene's, so the scene can hand
    /// over to it without a visible change.
    public func draw(_ frame: LineChartFrame, painter: LineChartPainter, on canvas: Canvas, at time: Double) {
        var trimmed = frame
        trimmed.indicator = nil
        guard let tip = tip(at: time) else {
            painter.draw(trimmed, on: canvas)
            return
        }
        trimmed.lineEndX = tip.x
        painter.draw(trimmed, on: canvas)
        let progress = timing.progress(elapsed: time)
        let opacity = min(1, max(0, (1 - progress) / 0.2))
        guard opacity > 0 else { return }
        var dot = Path()
        dot.addCircle(center: tip, radius: painter.metrics.dotRadius)
        canvas.fill(dot, paint: .solid(frame.lineColor.withOpacity(opacity)))
    }
}

extension String {
    func replacingMinus() -> String { String(map { $0 == "-" ? "\u{2212}" : $0 }) }
}
