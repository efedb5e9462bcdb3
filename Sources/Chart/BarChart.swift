import Raster
import Text

/// One bar: a label under it and a signed value (a percentage change, a volume).
public struct Bar: Equatable, Sendable {
    public var label: String
    public var value: Double

    public init(label: String, value: Double) {
        self.label = label
        self.value = value
    }
}

/// "Nice" axis steps: 1, 2 or 5 times a power of ten, about `count` of them across the span.
public func niceTicks(lo: Double, hi: Double, count: Int = 5) -> [Double] {
    guard lo.isFinite, hi.isFinite, hi > lo, count > 0 else { return [0] }
    let raw = (hi - lo) / Double(count)
    var magnitude = 1.0
    while magnitude * 10 <= raw { magnitude *= 10 }
    while magnitude > raw { magnitude /= 10 }
    let step = [1.0, 2.0, 5.0, 10.0].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
    var ticks: [Double] = []
    var v = (lo / step).rounded(.up) * step
    while v <= hi + step * 1e-9 && ticks.count < 100 {
        ticks.append(abs(v) < step * 1e-9 ? 0 : v)
        v += step
    }
    return ticks
}

/// The bar chart scene: value lines with nice labels, x labels, bars with a vertical gradient,
/// each growing from the zero line on the shared timing engine, 0.1 s after its left neighbour.
public struct BarChartScene {
    public var bars: [Bar]
    public var plot: PlotRect
    public var palette: ChartPalette
    public var timing: MorphTiming
    public var stagger: Double
    public var valueSuffix: String

    public init(bars: [Bar], plot: PlotRect, palette: ChartPalette, timing: MorphTiming = MorphTiming(duration: 0.8, curve: .tickerboard),
                stagger: Double = 0.1, valueSuffix: String = "%") {
        self.bars = bars.map { Bar(label: $0.label, value: $0.value.isFinite ? $0.value : 0) }
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

    /// The value range shown: always includes zero, padded so bars never touch the edges.
    public var valueRange: (lo: Double, hi: Double) {
        var lo = min(0, bars.map(\.value).min() ?? 0), hi = max(0, bars.map(\.value).max() ?? 0)
        if hi - lo < 1e-9 { hi = lo + 1 }
        let pad = (hi - lo) * 0.1
        lo = lo < 0 ? lo - pad : lo
        hi = hi > 0 ? hi + pad : hi
        return (lo, hi)
    }

    func y(_ v: Double) -> Double {
        let r = valueRange
        return plot.bottom - (v - r.lo) / (r.hi - r.lo) * plot.height
    }

    /// The bar's rectangle at full height: x0, x1, and the y of its top (or bottom when negative).
    public func barRect(_ index: Int) -> (x0: Double, x1: Double, zeroY: Double, endY: Double) {
        // The right end is kept free for the value labels.
        let slot = plot.width * 0.93 / Double(max(1, bars.count))
        let x0 = plot.left + slot * Double(index) + slot * 0.18
        return (x0, x0 + slot * 0.64, y(0), y(bars[index].value))
    }

    public func draw(on canvas: Canvas, at time: Double, text: TextRenderer?, font: Font?) {
        canvas.clear(palette.background)
        let r = valueRange
        let ticks = niceTicks(lo: r.lo, hi: r.hi, count: 4)
        let hair = max(1, (plot.height / 800).rounded())
        for t in ticks {
            let y = (self.y(t)).rounded(.down) + 0.5
            var line = Path()
            line.move(to: Point(plot.left, y)); line.line(to: Point(plot.right, y))
            canvas.stroke(line, style: StrokeStyle(width: hair, dashes: t == 0 ? [] : [2 * hair, 4 * hair]),
                          paint: .solid(t == 0 ? palette.baseline : palette.baseline.withOpacity(0.45)))
            if let text, let font {
                let label = formatTick(t)
                text.draw(label, font: font, color: palette.secondaryText, x: plot.right, y: y - 6 * hair,
                          alignment: .baselineRight, into: &canvas.buffer, clip: canvas.clip)
            }
        }
        for (i, bar) in bars.enumerated() {
            let rect = barRect(i)
            let g = growth(ofBar: i, at: time)
            let end = rect.zeroY + (rect.endY - rect.zeroY) * g
            let color = bar.value >= 0 ? palette.up : palette.down
            let top = min(rect.zeroY, end), bottom = max(rect.zeroY, end)
            if bottom - top > 0.01 {
                // Brightest at the bar's end, fading towards the zero line.
                let gradient = LinearGradient(start: Point(0, end), end: Point(0, rect.zeroY),
                                              stops: [(0, color), (1, color.withOpacity(0.35))])
                canvas.fillRect(x: rect.x0, y: top, width: rect.x1 - rect.x0, height: bottom - top,
                                paint: .linearGradient(gradient))
            }
            if let text, let font {
                text.draw(bar.label, font: font, color: palette.secondaryText, x: (rect.x0 + rect.x1) / 2,
                          y: plot.bottom + font.pixelSize * 1.4, alignment: .baselineCenter,
                          into: &canvas.buffer, clip: canvas.clip)
            }
        }
    }

    func formatTick(_ v: Double) -> String {
        let rounded = (v * 100).rounded() / 100
        var s = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
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

    /// Draws the chart `frame` trimmed at the tip (a clip, so the cost does not grow with the
    /// trimmed length), then the dot on the tip.
    public func draw(_ frame: LineChartFrame, painter: LineChartPainter, on canvas: Canvas, at time: Double) {
        let saved = canvas.clip
        canvas.clear(painter.palette.background)
        if let tip = tip(at: time) {
            let visible = IntRect(x0: saved.x0, y0: saved.y0, x1: min(saved.x1, Int(tip.x.rounded(.up))), y1: saved.y1)
            canvas.clip = visible.intersection(saved)
            var trimmed = frame
            trimmed.indicator = nil
            painter.draw(trimmed, on: canvas)
            canvas.clip = saved
            var dot = Path()
            dot.addCircle(center: tip, radius: painter.metrics.dotRadius)
            canvas.fill(dot, paint: .solid(frame.lineColor))
        }
        canvas.clip = saved
    }
}

extension String {
    func replacingMinus() -> String { String(map { $0 == "-" ? "\u{2212}" : $0 }) }
}
