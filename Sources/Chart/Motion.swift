import Raster

/// A CSS / Core Animation timing curve: cubic Bézier from (0,0) to (1,1) with control points
/// (x1, y1) and (x2, y2). `value(at:)` maps elapsed time (0...1) to progress.
public struct CubicBezier: Equatable, Sendable {
    public let x1: Double, y1: Double, x2: Double, y2: Double

    /// x1 and x2 are clamped to 0...1 (as CSS requires, so x(t) is monotonic); y may overshoot.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        func clean(_ v: Double) -> Double { v.isFinite ? v : 0 }
        self.x1 = min(1, max(0, clean(x1)))
        self.y1 = clean(y1)
        self.x2 = min(1, max(0, clean(x2)))
        self.y2 = clean(y2)
    }

    public static let tickerboard = CubicBezier(0.64, 0, 0, 1)
    public static let linear = CubicBezier(0, 0, 1, 1)
    public static let ease = CubicBezier(0.25, 0.1, 0.25, 1)
    public static let easeInOut = CubicBezier(0.42, 0, 0.58, 1)

    // Polynomial coefficients of B(t) = ((a t + b) t + c) t for each axis.
    private var ax: Double { 1 + 3 * x1 - 3 * x2 }
    private var bx: Double { 3 * x2 - 6 * x1 }
    private var cx: Double { 3 * x1 }

    private func x(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    private func dx(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }
    private func y(_ t: Double) -> Double {
        let ay = 1 + 3 * y1 - 3 * y2, by = 3 * y2 - 6 * y1, cy = 3 * y1
        return ((ay * t + by) * t + cy) * t
    }

    /// Progress at elapsed fraction `time` (clamped to 0...1), accurate to about 1e-9.
    public func value(at time: Double) -> Double {
        guard time.isFinite else { return 1 }
        if time <= 0 { return 0 }
        if time >= 1 { return 1 }
        // Newton's method converges in a few steps where the slope is healthy; bisection is the
        // safety net where x'(t) vanishes (flat ends of curves like (0.64, 0, 0, 1)).
        var t = time
        for _ in 0..<8 {
            let err = x(t) - time
            if abs(err) < 1e-12 { return y(t) }
            let d = dx(t)
            if abs(d) < 1e-9 { break }
            t -= err / d
        }
        var lo = 0.0, hi = 1.0
        t = time
        for _ in 0..<64 {
            let v = x(t)
            if abs(v - time) < 1e-12 { break }
            if v < time { lo = t } else { hi = t }
            t = (lo + hi) / 2
        }
        return y(t)
    }
}

/// How long a morph takes and how it eases.
public struct MorphTiming: Equatable, Sendable {
    public var duration: Double
    public var curve: CubicBezier

    public init(duration: Double, curve: CubicBezier) {
        self.duration = duration.isFinite ? max(0, duration) : 0
        self.curve = curve
    }

    /// cubic-bezier(0.64, 0, 0, 1) over 1.2 s.
    public static let standard = MorphTiming(duration: 1.2, curve: .tickerboard)

    /// Eased progress `elapsed` seconds after the start.
    public func progress(elapsed: Double) -> Double {
        guard duration > 0 else { return 1 }
        return curve.value(at: elapsed / duration)
    }
}

/// One static view of the chart: where each point (by its time) sits on screen.
public struct ChartView: Equatable, Sendable {
    public var times: [Int64]
    public var positions: [Point]
    public var baselineY: Double
    public var color: Color
    /// Times where a subtle separator marks a new session (5D) or the end of a lunch break; drawn
    /// where that time sits on the line, so they move with it through a morph.
    public var separatorTimes: [Int64]
    /// The regular sessions ([open, close) instants); the line outside them is pre- or post-market.
    /// Empty: all of it is drawn alike.
    public var regularTimes: [Range<Int64>]

    public init(times: [Int64], positions: [Point], baselineY: Double, color: Color,
                separatorTimes: [Int64] = [], regularTimes: [Range<Int64>] = []) {
        precondition(times.count == positions.count)
        self.times = times
        self.positions = positions
        self.baselineY = baselineY
        self.color = color
        self.separatorTimes = separatorTimes
        self.regularTimes = regularTimes
    }

    /// The separators' x positions on this view.
    public var separatorXs: [Double] {
        guard times.count > 1 else { return [] }
        return separatorTimes.filter { $0 > times[0] && $0 <= times[times.count - 1] }.map { position(forTime: $0).x }
    }

    /// The x spans of the regular sessions on this view; nil when the whole line is regular.
    public var regularSpans: [ClosedRange<Double>]? {
        guard !regularTimes.isEmpty, times.count > 1 else { return nil }
        return regularTimes.compactMap { r in
            let a = position(forTime: r.lowerBound).x, b = position(forTime: r.upperBound - 1).x
            return a <= b ? a...b : nil
        }
    }

    /// Where a point with `time` would sit on this view's line: its own position if the view has it,
    /// else interpolated by time between its neighbours, pinned to the ends outside the view (so
    /// history new to a view starts at its left edge, and history leaving it ends there).
    public func position(forTime time: Int64) -> Point {
        guard let first = times.first, let last = times.last else { return Point(0, 0) }
        if time <= first { return positions[0] }
        if time >= last { return positions[positions.count - 1] }
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid } else { hi = mid }
        }
        if times[lo] == time { return positions[lo] }
        let f = Double(time - times[lo]) / Double(times[hi] - times[lo])
        let a = positions[lo], b = positions[hi]
        return Point(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
    }
}

/// The line chart's motion: a time-anchored morph between views that can be retargeted at any
/// moment. Every vertex belongs to a timestamp and moves from where it is on screen now to where
/// that time belongs in the new view; a change in mid-flight starts from the presentation state.
public struct ChartMorph: Sendable {
    /// The view being moved to (what is shown once the morph ends).
    public private(set) var target: ChartView
    private var from: ChartView?
    /// Union of the start and target times, and each one's start and end position.
    private var times: [Int64] = []
    private var starts: [Point] = []
    private var ends: [Point] = []
    private var startTime = 0.0
    private var timing = MorphTiming.standard

    public init(showing view: ChartView) {
        target = view
    }

    /// True while the morph is still moving at `time` (seconds, the caller's clock).
    public func isAnimating(at time: Double) -> Bool {
        from != nil && time < startTime + timing.duration
    }

    /// Eased progress of the current morph at `time` (1 when idle).
    public func progress(at time: Double) -> Double {
        from == nil ? 1 : timing.progress(elapsed: time - startTime)
    }

    /// What is on screen at `time`.
    public func presentation(at time: Double) -> ChartView {
        guard let from, time < startTime + timing.duration else { return target }
        let e = timing.progress(elapsed: time - startTime)
        var positions = [Point]()
        positions.reserveCapacity(times.count)
        for i in 0..<times.count {
            let a = starts[i], b = ends[i]
            positions.append(Point(a.x + (b.x - a.x) * e, a.y + (b.y - a.y) * e))
        }
        // Separators and the extended-hours shading are the target's, placed by time on the moving
        // line, so they travel with it.
        return ChartView(times: times, positions: positions,
                         baselineY: from.baselineY + (target.baselineY - from.baselineY) * e,
                         color: from.color.mixed(with: target.color, e),
                         separatorTimes: target.separatorTimes, regularTimes: target.regularTimes)
    }

    /// Starts moving to `view` at `time`, from whatever is on screen then.
    public mutating func retarget(to view: ChartView, at time: Double, timing: MorphTiming) {
        let current = presentation(at: time)
        from = current
        target = view
        startTime = time
        self.timing = timing
        // Merge the two time lists: each point starts on the current line and ends on the new one.
        times.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        var i = 0, j = 0
        let a = current.times, b = view.times
        while i < a.count || j < b.count {
            let t: Int64
            if j >= b.count || (i < a.count && a[i] < b[j]) {
                t = a[i]; i += 1
            } else if i >= a.count || b[j] < a[i] {
                t = b[j]; j += 1
            } else {
                t = a[i]; i += 1; j += 1
            }
            times.append(t)
            starts.append(current.position(forTime: t))
            ends.append(view.position(forTime: t))
        }
        if timing.duration <= 0 { from = nil }
    }

    /// Drops the finished morph's bookkeeping (call when `isAnimating` turns false).
    public mutating func settle(at time: Double) {
        if from != nil && !isAnimating(at: time) {
            from = nil
            times = []; starts = []; ends = []
        }
    }
}

/// Thins a polyline to at most about two vertices per pixel column, keeping each column's lowest and
/// highest point in their original order, so a 5Y range of minute bars draws fast and no extreme is lost.
public func decimated(_ points: [Point]) -> [Point] {
    guard points.count > 4 else { return points }
    var out = [Point]()
    out.reserveCapacity(min(points.count, 4096))
    var column = Int.min
    var lowIndex = 0, highIndex = 0
    func flush() {
        guard column != Int.min else { return }
        let a = min(lowIndex, highIndex), b = max(lowIndex, highIndex)
        if out.last != points[a] { out.append(points[a]) }
        if b != a { out.append(points[b]) }
    }
    // The range's first point stays: the line must start where the baseline does.
    out.append(points[0])
    for (i, p) in points.enumerated() {
        let c = p.x.isFinite ? Int(p.x.rounded(.down)) : column
        if c != column {
            flush()
            column = c
            lowIndex = i; highIndex = i
        } else {
            if p.y > points[lowIndex].y { lowIndex = i }
            if p.y < points[highIndex].y { highIndex = i }
        }
    }
    flush()
    if let last = points.last, out.last != last { out.append(last) }
    return out
}
