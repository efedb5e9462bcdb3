/// A vector path: subpaths of lines and quadratic/cubic Béziers, open or closed.
public struct Path: Sendable {
    public enum Element: Sendable, Equatable {
        case move(Point)
        case line(Point)
        case quad(Point, Point)
        case cubic(Point, Point, Point)
        case close
    }

    /// What each element is, and its points in order (control points first, as in `Element`): a
    /// 5,000-point chart line is 80 kB of points this way, against 280 kB as enum elements, which
    /// glibc served from fresh mmaps every frame (about 100 page faults a frame at n = 5,000).
    @usableFromInline enum Verb: UInt8, Sendable { case move, line, quad, cubic, close }
    @usableFromInline var verbs: [Verb] = []
    @usableFromInline var points: [Point] = []

    public var elements: [Element] {
        var out: [Element] = []
        out.reserveCapacity(verbs.count)
        var i = 0
        for v in verbs {
            switch v {
            case .move: out.append(.move(points[i])); i += 1
            case .line: out.append(.line(points[i])); i += 1
            case .quad: out.append(.quad(points[i], points[i + 1])); i += 2
            case .cubic: out.append(.cubic(points[i], points[i + 1], points[i + 2])); i += 3
            case .close: out.append(.close)
            }
        }
        return out
    }

    public init() {}

    /// An empty path with room for `elements` elements: a chart's polyline of n points is built
    /// every frame, and growing it step by step cost more than stroking it in a scrub.
    public init(reservingCapacity elements: Int) {
        verbs.reserveCapacity(max(0, elements))
        points.reserveCapacity(max(0, elements))
    }

    public var isEmpty: Bool { verbs.isEmpty }

    public mutating func move(to p: Point) { verbs.append(.move); points.append(p) }
    public mutating func line(to p: Point) { verbs.append(.line); points.append(p) }
    public mutating func quad(to p: Point, control c: Point) { verbs.append(.quad); points.append(c); points.append(p) }
    public mutating func cubic(to p: Point, control1 c1: Point, control2 c2: Point) {
        verbs.append(.cubic); points.append(c1); points.append(c2); points.append(p)
    }
    public mutating func close() { verbs.append(.close) }

    public mutating func move(to x: Double, _ y: Double) { move(to: Point(x, y)) }
    public mutating func line(to x: Double, _ y: Double) { line(to: Point(x, y)) }

    /// An axis-aligned rectangle as a closed subpath.
    public mutating func addRect(x: Double, y: Double, width: Double, height: Double) {
        move(to: Point(x, y)); line(to: Point(x + width, y))
        line(to: Point(x + width, y + height)); line(to: Point(x, y + height)); close()
    }

    /// A circle made of four cubic arcs (the usual 0.5523 handle length; error below 0.03 % of r).
    public mutating func addCircle(center: Point, radius r: Double) {
        let k = 0.552_284_749_831 * r
        let cx = center.x, cy = center.y
        move(to: Point(cx + r, cy))
        cubic(to: Point(cx, cy + r), control1: Point(cx + r, cy + k), control2: Point(cx + k, cy + r))
        cubic(to: Point(cx - r, cy), control1: Point(cx - k, cy + r), control2: Point(cx - r, cy + k))
        cubic(to: Point(cx, cy - r), control1: Point(cx - r, cy - k), control2: Point(cx - k, cy - r))
        cubic(to: Point(cx + r, cy), control1: Point(cx + k, cy - r), control2: Point(cx + r, cy - k))
        close()
    }

    /// An open polyline through `points`.
    public static func polyline(_ points: [Point]) -> Path {
        var p = Path()
        p.addPolyline(points)
        return p
    }

    /// Starts a subpath at the first point and draws lines through the rest, appended in bulk (a
    /// chart's line of thousands of points is built every frame; one append per point checked the
    /// arrays' capacity each time).
    /// (Inlinable: a generic call across modules ran unspecialized, through metadata lookups.)
    @inlinable
    public mutating func addPolyline<C: Collection>(_ polyline: C) where C.Element == Point {
        guard !polyline.isEmpty else { return }
        verbs.append(.move)
        verbs.append(contentsOf: repeatElement(.line, count: polyline.count - 1))
        points.append(contentsOf: polyline)
    }
}

/// A flattened subpath: straight segments between `points`, in device pixels.
struct Polyline {
    var points: [Point]
    var isClosed: Bool
}

/// Hard cap on segments per curve: a curve with absurd control points (1e30) must not hang us.
let maximumCurveSegments = 1024

extension Path {
    /// Flattens curves into line segments no farther than `tolerance` pixels from the true curve,
    /// after applying `transform`. Non-finite points end the current subpath; `sawNonFinite` says so.
    func flattened(transform: Transform, tolerance: Double = 0.2) -> (polylines: [Polyline], sawNonFinite: Bool) {
        // One subpath of finite lines, untransformed (a chart's line, its area): the points are
        // the polyline, shared rather than copied (a partial redraw strokes it once a rectangle).
        if transform.isIdentity, let first = verbs.first, first == .move, verbs.count >= 2 {
            let closed = verbs[verbs.count - 1] == .close
            let lines = verbs.count - (closed ? 2 : 1)
            if points.count == lines + 1, verbs.dropFirst().prefix(lines).allSatisfy({ $0 == .line }),
               points.allSatisfy({ $0.isFinite }) {
                return ([Polyline(points: points, isClosed: closed)], false)
            }
        }
        var result: [Polyline] = []
        var current: [Point] = []
        var sawNonFinite = false
        var start = Point(0, 0)
        var last = Point(0, 0)
        var hasCurrentPoint = false
        let identity = transform.isIdentity

        // True while `current` holds only the start point a close left behind (no segment drawn yet).
        var implicitStart = false
        func finish(closed: Bool) {
            if implicitStart { current = []; implicitStart = false }
            if !current.isEmpty { result.append(Polyline(points: current, isClosed: closed)) }
            current = []
        }
        func map(_ p: Point) -> Point { identity ? p : transform.apply(p) }
        func segmentCount(_ deviation: Double) -> Int {
            // A parabola-like curve whose control polygon deviates by `deviation` stays within
            // `tolerance` of n chords when n >= sqrt(deviation / (4 * tolerance)) per half-step.
            guard deviation.isFinite else { return maximumCurveSegments }
            let n = (deviation / tolerance).squareRoot() * 0.5
            return max(1, min(maximumCurveSegments, Int(n.rounded(.up))))
        }

        var next = 0  // index of the element's first point
        var k = 0
        while k < verbs.count {
            let verb = verbs[k]
            defer { k += 1 }
            switch verb {
            case .move:
                let p = points[next]; next += 1
                finish(closed: false)
                let q = map(p)
                guard q.isFinite else { sawNonFinite = true; hasCurrentPoint = false; continue }
                start = q; last = q; hasCurrentPoint = true
                // One allocation for the subpath when it is all lines (a chart's line), not a
                // growth by doubling with a copy each time.
                var end = k + 1
                while end < verbs.count && verbs[end] == .line { end += 1 }
                current = []
                current.reserveCapacity(end - k + 1)
                current.append(q)
            case .line:
                if identity && hasCurrentPoint && !implicitStart {
                    // A run of lines without a transform (a chart's line): its finite points as
                    // they are, in one copy; a non-finite one takes the way below.
                    var end = k
                    while end < verbs.count && verbs[end] == .line && points[next + end - k].isFinite { end += 1 }
                    if end > k {
                        current.append(contentsOf: points[next..<(next + end - k)])
                        last = points[next + end - k - 1]
                        next += end - k
                        k = end - 1
                        continue
                    }
                }
                let p = points[next]; next += 1
                let q = map(p)
                guard q.isFinite else { sawNonFinite = true; finish(closed: false); hasCurrentPoint = false; continue }
                if !hasCurrentPoint { start = q; current = [q]; hasCurrentPoint = true; last = q; continue }
                current.append(q); last = q
            case .quad:
                let c1 = map(points[next]), q = map(points[next + 1]); next += 2
                guard c1.isFinite, q.isFinite else {
                    sawNonFinite = true; finish(closed: false); hasCurrentPoint = false; continue
                }
                if !hasCurrentPoint { start = q; current = [q]; hasCurrentPoint = true; last = q; continue }
                let p0 = last
                let dev = Point(p0.x - 2 * c1.x + q.x, p0.y - 2 * c1.y + q.y)
                let n = segmentCount((dev.x * dev.x + dev.y * dev.y).squareRoot())
                for i in 1...n {
                    let t = Double(i) / Double(n), mt = 1 - t
                    current.append(Point(mt * mt * p0.x + 2 * mt * t * c1.x + t * t * q.x,
                                         mt * mt * p0.y + 2 * mt * t * c1.y + t * t * q.y))
                }
                last = q
            case .cubic:
                let c1 = map(points[next]), c2 = map(points[next + 1]), q = map(points[next + 2]); next += 3
                guard c1.isFinite, c2.isFinite, q.isFinite else {
                    sawNonFinite = true; finish(closed: false); hasCurrentPoint = false; continue
                }
                if !hasCurrentPoint { start = q; current = [q]; hasCurrentPoint = true; last = q; continue }
                let p0 = last
                let d1 = Point(p0.x - 2 * c1.x + c2.x, p0.y - 2 * c1.y + c2.y)
                let d2 = Point(c1.x - 2 * c2.x + q.x, c1.y - 2 * c2.y + q.y)
                let dev = 0.75 * max((d1.x * d1.x + d1.y * d1.y).squareRoot(), (d2.x * d2.x + d2.y * d2.y).squareRoot())
                let n = segmentCount(dev * 2)
                for i in 1...n {
                    let t = Double(i) / Double(n), mt = 1 - t
                    let w0 = mt * mt * mt, w1 = 3 * mt * mt * t, w2 = 3 * mt * t * t, w3 = t * t * t
                    current.append(Point(w0 * p0.x + w1 * c1.x + w2 * c2.x + w3 * q.x,
                                         w0 * p0.y + w1 * c1.y + w2 * c2.y + w3 * q.y))
                }
                last = q
            case .close:
                if hasCurrentPoint {
                    finish(closed: true)
                    // The pen returns to the subpath's start; a following segment starts a new subpath there.
                    current = [start]; last = start
                    implicitStart = true
                }
            }
            if verb != .close { implicitStart = false }
        }
        finish(closed: false)
        return (result, sawNonFinite)
    }
}
