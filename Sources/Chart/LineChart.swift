// Chart: the product's picture and motion, pure and deterministic: ranges of a price series, scales,
// the time-anchored morph, timing curves, snapping, and the scenes (line chart, bar chart, draw-in)
// painted onto a Raster canvas. No file descriptors, no clocks of its own: time is an argument.
import Feed
import Raster

/// One data point: a time (Unix seconds, UTC) and a price.
public struct ChartPoint: Equatable, Sendable {
    public var time: Int64
    public var value: Double

    public init(time: Int64, value: Double) {
        self.time = time
        self.value = value
    }
}

/// A rectangle in pixels with fractional edges.
public struct PlotRect: Equatable, Sendable {
    public var left: Double, top: Double, right: Double, bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left; self.top = top; self.right = right; self.bottom = bottom
    }

    public var width: Double { right - left }
    public var height: Double { bottom - top }
}

/// Colours of the line chart. `up` is used when the last value is at or above the baseline.
public struct ChartPalette: Equatable, Sendable {
    public var background: Color
    public var up: Color
    public var down: Color
    public var baseline: Color
    public var indicator: Color
    public var text: Color
    public var secondaryText: Color

    /// Dark background, green and red as trading apps use them.
    public static let standard = ChartPalette(
        background: Color(rgb: 0x0D1117), up: Color(rgb: 0x00C805), down: Color(rgb: 0xFF5000),
        baseline: Color(rgb: 0x8B949E), indicator: Color(rgb: 0xC9D1D9), text: Color(rgb: 0xE6EDF3),
        secondaryText: Color(rgb: 0x8B949E))

    /// Blue and orange: told apart with any of the common colour-vision deficiencies.
    public static let colorBlindSafe = ChartPalette(
        background: Color(rgb: 0x0D1117), up: Color(rgb: 0x3D9BF0), down: Color(rgb: 0xF5A623),
        baseline: Color(rgb: 0x8B949E), indicator: Color(rgb: 0xC9D1D9), text: Color(rgb: 0xE6EDF3),
        secondaryText: Color(rgb: 0x8B949E))
}

/// Everything the line chart draws in one frame, already in screen coordinates.
/// Scenes are values: the morph interpolates between two of them.
public struct LineChartFrame: Equatable, Sendable {
    /// The price line's vertices, left to right.
    public var vertices: [Point]
    /// The dashed baseline's y (the range's first value).
    public var baselineY: Double
    /// The line's colour (between `up` and `down` while a morph changes the trend).
    public var lineColor: Color
    /// The scrub indicator: its x and the snapped vertex it points at.
    public var indicator: Point?
    /// Subtle vertical lines: session boundaries (5D), the end of a lunch break (1D).
    public var separators: [Double]
    /// The x spans drawn in the line's full colour; outside them (pre- and post-market) the line
    /// is paler. nil: all of it in full colour.
    public var regularSpans: [ClosedRange<Double>]?
    /// The line and its area stop at this x (the draw-in's tip); the baseline and the separators
    /// span the plot all the same, so a drawn-in chart ends looking exactly like the line scene.
    public var lineEndX: Double?

    public init(vertices: [Point], baselineY: Double, lineColor: Color, indicator: Point? = nil,
                separators: [Double] = [], regularSpans: [ClosedRange<Double>]? = nil, lineEndX: Double? = nil) {
        self.lineEndX = lineEndX
        self.vertices = vertices
        self.baselineY = baselineY
        self.lineColor = lineColor
        self.indicator = indicator
        self.separators = separators
        self.regularSpans = regularSpans
    }
}

/// Sizes of the line chart's strokes, scaled with the display (1080p is scale 1).
public struct LineChartMetrics: Equatable, Sendable {
    public var lineWidth: Double
    public var baselineWidth: Double
    public var dash: [Double]
    public var indicatorWidth: Double
    public var dotRadius: Double

    public init(scale s: Double) {
        lineWidth = 3 * s
        baselineWidth = max(1, (1 * s).rounded())
        dash = [2 * s, 3 * s]
        indicatorWidth = max(1, (1 * s).rounded())
        dotRadius = 6 * s
    }
}

/// Paints a `LineChartFrame`.
public struct LineChartPainter: Equatable {
    public var palette: ChartPalette
    public var metrics: LineChartMetrics
    public var plot: PlotRect

    public init(palette: ChartPalette, metrics: LineChartMetrics, plot: PlotRect) {
        self.palette = palette
        self.metrics = metrics
        self.plot = plot
    }

    /// The frame's paths, built once for every rectangle a partial redraw paints.
    public struct Paths {
        let area: Path?
        let line: Path
    }

    public func paths(of frame: LineChartFrame) -> Paths { paths(of: frame.vertices) }

    func paths(of v: [Point]) -> Paths {
        var area: Path?
        if v.count >= 2 {
            var p = Path(reservingCapacity: v.count + 3)
            p.addPolyline(v)
            p.line(to: Point(v[v.count - 1].x, plot.bottom))
            p.line(to: Point(v[0].x, plot.bottom))
            p.close()
            area = p
        }
        return Paths(area: area, line: Path.polyline(v))
    }

    /// The paths of the part of the line that can reach the columns `x0..<x1`, when that is less
    /// than all of it (a strip of a partial redraw): from the last vertex whose ink cannot reach
    /// them on the left to the first on the right, the area closed down to the plot's foot out of
    /// sight. Inside those columns they paint what the whole paths paint (the vertices are in x
    /// order, which every morph keeps), without walking a thousand edges left of the strip.
    func paths(of v: [Point], columns x0: Int, _ x1: Int) -> Paths? {
        guard v.count >= 4 else { return nil }
        let reach = metrics.lineWidth / 2 + 2
        let left = Double(x0) - reach, right = Double(x1) + reach
        // The first vertex at or right of `left`, and the first beyond `right` (binary searches).
        func firstIndex(from start: Int, where beyond: (Point) -> Bool) -> Int {
            var lo = start, hi = v.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if beyond(v[mid]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
        let a = max(0, firstIndex(from: 0) { $0.x >= left } - 1)
        let b = min(v.count - 1, firstIndex(from: a) { $0.x > right })
        guard b - a + 1 < v.count, b > a else { return nil }
        return paths(of: Array(v[a...b]))
    }

    /// Draws the chart area (background included) inside the canvas's current clip.
    public func draw(_ frame: LineChartFrame, on canvas: Canvas) {
        draw(frame, paths: paths(of: frame), on: canvas)
    }

    public func draw(_ frame: LineChartFrame, paths whole: Paths, on canvas: Canvas) {
        canvas.clear(palette.background)
        let v = frame.vertices
        guard !v.isEmpty else { return }
        // A strip narrower than half the plot draws the part of the line that reaches it.
        let strip = canvas.clip
        let paths = Double(strip.width) < plot.width / 2 ? self.paths(of: v, columns: strip.x0, strip.x1) ?? whole : whole

        // Everything of the line (area, stroke) stays left of `lineEndX`, the rest of the frame not.
        let full = canvas.clip
        let lineClip = frame.lineEndX.map {
            full.intersection(IntRect(x0: full.x0, y0: full.y0, x1: max(full.x0, Int($0.rounded(.up))), y1: full.y1))
        } ?? full

        // The area under the line fades out towards the bottom, in the line's colour.
        canvas.clip = lineClip
        if let area = paths.area {
            let top = frame.lineColor.withOpacity(0.22), bottom = frame.lineColor.withOpacity(0)
            let gradient = LinearGradient(start: Point(0, plot.top), end: Point(0, plot.bottom),
                                          stops: [(0, top), (1, bottom)])
            canvas.fill(area, paint: .linearGradient(gradient))
        }

        canvas.clip = full
        // Whole-pixel hairlines stay crisp: snap them to pixel centres.
        let baseY = snapToPixelCenter(frame.baselineY, width: metrics.baselineWidth)
        // A narrow strip strokes the dashes near it: from a whole number of dash periods after the
        // plot's left edge (the pattern's phase kept), not the ~360 dashes of a 1080p baseline.
        var from = plot.left, to = plot.right
        let period = metrics.dash.reduce(0, +)
        if Double(strip.width) < plot.width / 2, period > 0, period.isFinite {
            let reach = metrics.baselineWidth + 2
            let periods = ((Double(strip.x0) - reach - plot.left) / period).rounded(.down)
            if periods > 0 { from = plot.left + periods * period }
            to = max(from, min(plot.right, Double(strip.x1) + reach))
        }
        var baseline = Path()
        baseline.move(to: Point(from, baseY))
        baseline.line(to: Point(to, baseY))
        canvas.stroke(baseline, style: StrokeStyle(width: metrics.baselineWidth, dashes: metrics.dash),
                      paint: .solid(palette.baseline))

        // Session boundaries: dotted, fainter than the baseline, so they order the picture
        // without competing with the line.
        for sx in frame.separators where sx > plot.left + 1 && sx < plot.right - 1 {
            let x = snapToPixelCenter(sx, width: metrics.baselineWidth)
            var line = Path()
            line.move(to: Point(x, plot.top))
            line.line(to: Point(x, plot.bottom))
            canvas.stroke(line, style: StrokeStyle(width: metrics.baselineWidth, dashes: [metrics.dash[0], metrics.dash[1] * 2]),
                          paint: .solid(palette.baseline.withOpacity(0.45)))
        }

        if let indicator = frame.indicator {
            let x = snapToPixelCenter(indicator.x, width: metrics.indicatorWidth)
            var line = Path()
            line.move(to: Point(x, plot.top))
            line.line(to: Point(x, plot.bottom))
            canvas.stroke(line, style: StrokeStyle(width: metrics.indicatorWidth), paint: .solid(palette.indicator))
        }

        let lineStyle = StrokeStyle(width: metrics.lineWidth, cap: .round, join: .round)
        canvas.clip = lineClip
        if let spans = frame.regularSpans {
            // Pre- and post-market: the whole line pale, then the regular sessions over it in full
            // colour, each clipped to its columns.
            canvas.stroke(paths.line, style: lineStyle, paint: .solid(frame.lineColor.mixed(with: palette.background, 0.6)))
            let outer = canvas.clip
            for span in spans {
                let columns = IntRect(x0: Int(span.lowerBound.rounded(.down)), y0: outer.y0,
                                      x1: Int(span.upperBound.rounded(.up)) + 1, y1: outer.y1)
                canvas.clip = outer.intersection(columns)
                if !canvas.clip.isEmpty { canvas.stroke(paths.line, style: lineStyle, paint: .solid(frame.lineColor)) }
            }
            canvas.clip = outer
        } else {
            canvas.stroke(paths.line, style: lineStyle, paint: .solid(frame.lineColor))
        }
        canvas.clip = full

        if let indicator = frame.indicator {
            var dot = Path()
            dot.addCircle(center: indicator, radius: metrics.dotRadius)
            canvas.fill(dot, paint: .solid(frame.lineColor))
        }
    }
}

/// The centre of the pixel row or column a hairline of `width` whole pixels should sit on.
func snapToPixelCenter(_ c: Double, width: Double) -> Double {
    let w = (width + 0.5).rounded(.down)
    return c.rounded(.down) + (w.truncatingRemainder(dividingBy: 2) == 1 ? 0.5 : 0)
}

/// How time maps to x.
public enum TimeAxis: String, Sendable, CaseIterable {
    /// x proportional to clock time: nights, weekends and holidays show as straight stretches.
    case calendar
    /// Every bar gets the same width: nights, weekends and holidays collapse, so 5D has no gaps.
    case trading
}

/// Maps points to the plot: x by time, y by value fitted between min and max with padding so
/// extremes never touch the edge.
public struct LineChartScale: Equatable, Sendable {
    public var plot: PlotRect
    public var timeRange: ClosedRange<Int64>
    public var valueRange: ClosedRange<Double>

    /// Fits `points` into `plot`; `padding` is the share of the value span added above and below.
    public init(fitting points: [ChartPoint], in plot: PlotRect, padding: Double = 0.08) {
        self.plot = plot
        var lo = Double.infinity, hi = -Double.infinity
        for p in points where p.value.isFinite {
            lo = min(lo, p.value)
            hi = max(hi, p.value)
        }
        if lo > hi { lo = 0; hi = 1 }
        if lo == hi {
            // A flat series sits in the middle.
            let d = max(abs(lo) * 0.01, 0.01)
            lo -= d; hi += d
        }
        // Halves keep absurd prices (±1e308) from overflowing the span; halving is exact.
        let pad = (hi / 2 - lo / 2) * (2 * padding)
        valueRange = (lo - pad)...(hi + pad)
        let t0 = points.first?.time ?? 0, t1 = points.last?.time ?? 1
        timeRange = t0...max(t0 + 1, t1)
    }

    public func x(_ time: Int64) -> Double {
        let span = Double(timeRange.upperBound - timeRange.lowerBound)
        return plot.left + plot.width * (Double(time - timeRange.lowerBound) / span)
    }

    public func y(_ value: Double) -> Double {
        let halfSpan = valueRange.upperBound / 2 - valueRange.lowerBound / 2
        return plot.bottom - plot.height * ((value / 2 - valueRange.lowerBound / 2) / halfSpan)
    }

    public func point(_ p: ChartPoint) -> Point { Point(x(p.time), y(p.value)) }
}

/// 1D's x axis: the regular session from open to close across the plot (so a session in progress
/// ends where "now" is), pre-market bars before the open and post-market bars after the close in
/// clock time, and the lunch break collapsed on the trading axis (shown as clock time on the
/// calendar axis).
public struct SessionTimeAxis: Equatable, Sendable {
    public var open: Int64
    public var close: Int64
    public var lunch: Range<Int64>?
    public var collapsesLunch: Bool
    /// The span in axis seconds (0 = the open) the plot's width covers.
    public private(set) var span: ClosedRange<Double> = 0...1

    public init(session: TradingSession, collapsesLunch: Bool, first: Int64, last: Int64) {
        open = session.open
        close = max(session.close, session.open + 1)
        lunch = session.lunch
        self.collapsesLunch = collapsesLunch
        let lo = min(0, seconds(first)), hi = max(seconds(close), seconds(last))
        span = lo...max(lo + 1, hi)
    }

    /// Seconds of axis from the open to `time`.
    public func seconds(_ time: Int64) -> Double {
        if time < open { return Double(time - open) }
        var s = Double(min(time, close) - open)
        if collapsesLunch, let lunch, time > lunch.lowerBound {
            s -= Double(min(time, lunch.upperBound) - lunch.lowerBound)
        }
        if time > close { s += Double(time - close) }
        return s
    }

    public func x(_ time: Int64, in plot: PlotRect) -> Double {
        plot.left + plot.width * (seconds(time) - span.lowerBound) / (span.upperBound - span.lowerBound)
    }
}

extension LineChartScale {
    /// Screen positions of `points` on `axis`.
    public func positions(of points: [ChartPoint], axis: TimeAxis) -> [Point] {
        switch axis {
        case .calendar:
            return points.map(point)
        case .trading:
            let n = points.count
            guard n > 1 else { return points.map { Point(plot.left, y($0.value)) } }
            return points.enumerated().map { i, p in
                Point(plot.left + plot.width * (Double(i) / Double(n - 1)), y(p.value))
            }
        }
    }
}

extension LineChartFrame {
    /// The static frame of `points` (time-ordered) in `scale`, coloured by trend against the first value.
    public init(points: [ChartPoint], scale: LineChartScale, palette: ChartPalette) {
        let first = points.first?.value ?? 0, last = points.last?.value ?? 0
        self.init(vertices: points.map(scale.point), baselineY: scale.y(first),
                  lineColor: last >= first ? palette.up : palette.down)
    }
}

extension ChartPalette {
    /// The palette for a dimmed screen at night (`[power] night-palette`): a black background,
    /// text and lines of lower contrast, and up and down colours muted towards grey and the
    /// background, so no bright green or red fill lights the room.
    public var night: ChartPalette {
        let black = Color(rgb: 0x000000), grey = Color(rgb: 0x6E7681)
        func muted(_ c: Color) -> Color { c.mixed(with: grey, 0.35).mixed(with: black, 0.35) }
        return ChartPalette(background: black, up: muted(up), down: muted(down),
                            baseline: Color(rgb: 0x3A4048), indicator: Color(rgb: 0x6E7681),
                            text: Color(rgb: 0x9AA3AD), secondaryText: Color(rgb: 0x59616B))
    }
}
