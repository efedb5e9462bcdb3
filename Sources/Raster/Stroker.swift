/// How open ends of a stroke are finished.
public enum LineCap: Sendable { case butt, round, square }

/// How a stroke turns a corner.
public enum LineJoin: Sendable { case miter, round, bevel }

/// Stroke geometry in user units (the canvas transform scales it).
public struct StrokeStyle: Sendable, Equatable {
    public var width: Double
    public var cap: LineCap
    public var join: LineJoin
    /// Miters longer than `miterLimit` x width become bevels (SVG semantics).
    public var miterLimit: Double
    /// Alternating on/off lengths; empty draws a solid line. An odd count repeats (SVG semantics).
    public var dashes: [Double]
    public var dashOffset: Double

    public init(width: Double, cap: LineCap = .butt, join: LineJoin = .miter, miterLimit: Double = 4,
                dashes: [Double] = [], dashOffset: Double = 0) {
        self.width = width; self.cap = cap; self.join = join; self.miterLimit = miterLimit
        self.dashes = dashes; self.dashOffset = dashOffset
    }
}

/// The stroker's growing arrays, kept by the canvas from stroke to stroke: a 5,000-point line's
/// outline is about a megabyte, and growing it afresh each frame faulted in new pages every frame
/// (measured at 4K: ~400 page faults a frame, most of the serial part of a two-thread frame).
struct StrokerBuffers {
    var edges: [Point] = []
    var polygon = PointList()
    var backSide = PointList()
    var points: [Point] = []
    var directions: [Point] = []
}

/// Turns flattened polylines into closed polygons whose union is the stroke. Every polygon is
/// emitted with the same orientation, so a non-zero fill paints overlaps (joins over segments, a
/// line crossing itself) exactly once.
struct Stroker {
    let halfWidth: Double
    let cap: LineCap
    let join: LineJoin
    let miterLimit: Double
    /// Largest angle (radians) one arc step may turn while staying within `tolerance` of the true
    /// circle.
    let arcStepAngle: Double
    /// Its cosine: an arc whose ends are closer than this in angle is one chord.
    let arcStepCosine: Double
    private(set) var polygon: PointList
    /// A long outline's side walked backwards, built beside `polygon` (see `outlineBySides`).
    private let backSide: PointList
    /// Runs tasks 0..<count and returns when all are done: at once on the canvas's threads when
    /// it has several, one after another when nil.
    var runTasks: ((Int, (Int) -> Void) -> Void)?
    /// The bounding box of every point written to `edges` by this stroker (NaNs left out, as
    /// `min`/`max` leave them): what the rasterizer's grid needs, gathered where the points are
    /// already in registers instead of in a second pass over twice as many edge ends.
    var bounds = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
    /// Output: pairs of points, one pair per directed edge.
    var edges: [Point]
    private var points: [Point]
    private var directions: [Point]
    /// When set, open polylines are stroked only where they come this close (device pixels, already
    /// widened by the stroke's reach): what a clipped redraw needs.
    var visible: (x0: Double, y0: Double, x1: Double, y1: Double)?

    init(halfWidth: Double, cap: LineCap, join: LineJoin, miterLimit: Double, tolerance: Double = 0.1,
         buffers: StrokerBuffers = StrokerBuffers()) {
        self.halfWidth = halfWidth
        self.cap = cap
        self.join = join
        self.miterLimit = miterLimit.isFinite ? max(1, miterLimit) : 4
        // A chord of angle a deviates r(1 - cos(a/2)) from the arc.
        let c = 1 - min(1, tolerance / max(halfWidth, 1e-9))
        self.arcStepAngle = 2 * ArcMath.angle(cosine: c, sine: max(0, 1 - c * c).squareRoot())
        self.arcStepCosine = 2 * c * c - 1  // cos(a) from cos(a/2)
        self.edges = buffers.edges
        self.polygon = buffers.polygon
        self.backSide = buffers.backSide
        self.points = buffers.points
        self.directions = buffers.directions
    }

    /// Hands the stroker's arrays back (emptied, capacity kept) for the next stroke; `edges` is
    /// read before this.
    mutating func takeBuffers() -> StrokerBuffers {
        var b = StrokerBuffers(edges: edges, polygon: polygon, backSide: backSide, points: points, directions: directions)
        edges = []; points = []; directions = []
        b.edges.removeAll(keepingCapacity: true)
        b.polygon.removeAll()
        b.backSide.removeAll()
        b.points.removeAll(keepingCapacity: true)
        b.directions.removeAll(keepingCapacity: true)
        return b
    }

    mutating func stroke(_ line: Polyline) { stroke(line.points[...], isClosed: line.isClosed) }

    mutating func stroke(_ linePoints: ArraySlice<Point>, isClosed: Bool) {
        if linePoints.count == 2 && cap != .round {
            let a = linePoints[linePoints.startIndex], b = linePoints[linePoints.startIndex + 1]
            if a.distance(to: b) > 1e-9 {
                // One segment with flat ends (a dash, a hairline): the rectangle `outline` builds,
                // without its arrays (352 dashes a frame).
                if let v = visible, !segment(a, b, reaches: v) { return }
                let d = direction(a, b)
                let first = cap == .square ? a - d * halfWidth : a, last = cap == .square ? b + d * halfWidth : b
                let n = leftNormal(d)
                emitPolygon(first + n, last + n, last - n, first - n)
                return
            }
        }
        // Drop repeated points: a zero-length segment has no direction.
        points.removeAll(keepingCapacity: true)
        for p in linePoints where points.last.map({ $0.distance(to: p) > 1e-9 }) ?? true { points.append(p) }
        var pts = points
        points = []
        defer { pts.removeAll(keepingCapacity: true); points = pts }
        var closed = isClosed
        if closed, pts.count > 2, pts[0].distance(to: pts[pts.count - 1]) <= 1e-9 { pts.removeLast() }
        if pts.count < 3 { closed = false }
        if pts.count == 1 {
            dot(pts[0])
            return
        }
        if !closed {
            let m = pts.count - 1
            directions.removeAll(keepingCapacity: true)
            for i in 0..<m { directions.append(direction(pts[i], pts[i + 1])) }
            guard let visible else {
                outline(pts, 0, m)
                return
            }
            // Only the runs of segments that reach the visible rectangle: each run is outlined on
            // its own with butt ends where it was cut, plus the join at each cut. As a sum of
            // edges that is the whole outline less closed pieces that lie wholly outside, which
            // add nothing inside.
            func reaches(_ i: Int) -> Bool { segment(pts[i], pts[i + 1], reaches: visible) }
            var i = 0
            while i < m {
                while i < m && !reaches(i) { i += 1 }
                if i == m { break }
                let s0 = i
                while i < m && reaches(i) { i += 1 }
                outline(pts, s0, i)
                if s0 > 0 { joinAt(pts[s0], incoming: directions[s0 - 1], outgoing: directions[s0]) }
                if i < m { joinAt(pts[i], incoming: directions[i - 1], outgoing: directions[i]) }
            }
            return
        }
        let segmentCount = pts.count
        for i in 0..<segmentCount {
            let a = pts[i], b = pts[(i + 1) % pts.count]
            let n = normal(a, b) * halfWidth
            emitQuad(a + n, b + n, b - n, a - n)
        }
        for i in 0..<pts.count {
            let prev = pts[(i - 1 + pts.count) % pts.count], v = pts[i], next = pts[(i + 1) % pts.count]
            joinAt(v, incoming: direction(prev, v), outgoing: direction(v, next))
        }
    }

    /// An open polyline as one closed outline: along one side, around the end cap, back along the
    /// other side and around the start cap. At each corner the outer side follows the join and the
    /// inner side passes through the vertex itself. As a sum of edges this is exactly the segment
    /// quads plus the join and cap pieces, less the edges they share (which cancel), so it covers
    /// the same area with about half the edges.
    private mutating func outline(_ pts: [Point], _ s0: Int, _ s1: Int) {
        // Caps at the polyline's own ends; butt ends where a run was cut.
        let startCap = s0 == 0 ? cap : .butt, endCap = s1 == pts.count - 1 ? cap : .butt
        // Square caps lengthen the first and the last segment.
        var first = pts[s0], last = pts[s1]
        if startCap == .square { first = first - directions[s0] * halfWidth }
        if endCap == .square { last = last + directions[s1 - 1] * halfWidth }
        if s1 - s0 >= outlineBySidesFrom {
            outlineBySides(pts, s0, s1, first: first, last: last, startCap: startCap, endCap: endCap)
            return
        }
        polygon.removeAll()
        forwardSide(pts, s0, s1, first: first, last: last, endCap: endCap)
        backwardSide(pts, s0, s1, first: first, startCap: startCap)
        emitCurrentPolygon()
    }

    /// Outlines at least this long are built as their two sides at once (each side depends only on
    /// the points and directions), on two threads where the canvas has them. The outline's points
    /// and edges are those of one polygon, in the same order; only its orientation's sum is added
    /// up per side, so the split is made by length alone, never by thread count: the same
    /// pixels on any number of threads. (4K, two threads, 5,000 points: the line's stroke was
    /// half of the frame's serial part.)
    static let outlineBySidesSegments = 1024
    /// `outlineBySidesSegments`, but for the tests' one-polygon reference.
    var outlineBySidesFrom = Stroker.outlineBySidesSegments

    /// `outline` of a long run: the forward side (with the end cap) into `polygon`, the backward
    /// side (with the start cap) into `backSide`, each measured (orientation sum and bounds) and
    /// then written as edges on its own task.
    private mutating func outlineBySides(_ pts: [Point], _ s0: Int, _ s1: Int, first: Point, last: Point,
                                         startCap: LineCap, endCap: LineCap) {
        // The sides' strokers share the points and directions but not the edges, which grow below
        // (a copy holding them would make that append copy a megabyte).
        var kept: [Point] = []
        swap(&kept, &edges)
        var forward = self, backward = self
        swap(&kept, &edges)
        backward.polygon = backSide
        polygon.removeAll()
        backSide.removeAll()
        var measures = (PolygonMeasure(), PolygonMeasure())
        let run = runTasks ?? { count, body in for t in 0..<count { body(t) } }
        run(2) { side in
            if side == 0 {
                forward.forwardSide(pts, s0, s1, first: first, last: last, endCap: endCap)
                measures.0 = PolygonMeasure(forward.polygon.base, forward.polygon.count)
            } else {
                backward.backwardSide(pts, s0, s1, first: first, startCap: startCap)
                measures.1 = PolygonMeasure(backward.polygon.base, backward.polygon.count)
            }
        }
        let a = polygon, b = backSide
        let n = a.count + b.count
        guard a.count > 0, b.count > 0, n >= 3 else { return }
        let aFirst = a.base[0], aLast = a.base[a.count - 1], bFirst = b.base[0], bLast = b.base[b.count - 1]
        // The whole polygon's doubled area: each side's sum, then the two edges between the sides.
        let area = (measures.0.area + measures.1.area) + (aLast.x * bFirst.y - bFirst.x * aLast.y)
            + (bLast.x * aFirst.y - aFirst.x * bLast.y)
        include(measures.0)
        include(measures.1)
        let start = edges.count
        edges.append(contentsOf: repeatElement(Point(0, 0), count: 2 * n))
        edges.withUnsafeMutableBufferPointer { all in
            let out = all.baseAddress! + start
            let reversed = area < 0
            run(2) { side in
                if side == 0 {
                    Stroker.writeEdges(a.base, a.count, then: bFirst, to: out, reversed: reversed)
                } else {
                    Stroker.writeEdges(b.base, b.count, then: aFirst, to: out + 2 * a.count, reversed: reversed)
                }
            }
        }
    }

    /// The left side (offset +n) walked forwards, then the end cap.
    private mutating func forwardSide(_ pts: [Point], _ s0: Int, _ s1: Int, first: Point, last: Point, endCap: LineCap) {
        polygon.append(first + leftNormal(directions[s0]))
        for i in s0..<s1 {
            polygon.append((i == s1 - 1 ? last : pts[i + 1]) + leftNormal(directions[i]))
            if i < s1 - 1 {
                corner(pts[i + 1], directions[i], directions[i + 1], side: 1,
                       room: min(pts[i].distance(to: pts[i + 1]), pts[i + 1].distance(to: pts[i + 2])) * 0.5)
            }
        }
        // End cap.
        let nEnd = leftNormal(directions[s1 - 1])
        if endCap == .round {
            let tip = directions[s1 - 1] * halfWidth
            appendArcAfterStart(center: pts[s1], from: nEnd, to: tip)
            appendArcAfterStart(center: pts[s1], from: tip, to: Point(-nEnd.x, -nEnd.y))
        } else {
            polygon.append(last - nEnd)
        }
    }

    /// The right side (offset -n) walked backwards, then the start cap up to (not including) the
    /// forward side's first point.
    private mutating func backwardSide(_ pts: [Point], _ s0: Int, _ s1: Int, first: Point, startCap: LineCap) {
        for i in stride(from: s1 - 1, through: s0, by: -1) {
            polygon.append((i == s0 ? first : pts[i]) - leftNormal(directions[i]))
            if i > s0 {
                corner(pts[i], directions[i - 1], directions[i], side: -1,
                       room: min(pts[i - 1].distance(to: pts[i]), pts[i].distance(to: pts[i + 1])) * 0.5)
            }
        }
        // Start cap, back to the first point (the closing edge).
        if startCap == .round {
            let nStart = leftNormal(directions[s0])
            let back = Point(-directions[s0].x, -directions[s0].y) * halfWidth
            appendArcAfterStart(center: pts[s0], from: Point(-nStart.x, -nStart.y), to: back)
            appendArcAfterStart(center: pts[s0], from: back, to: nStart)
            polygon.removeLast()
        }
    }

    private func leftNormal(_ d: Point) -> Point { Point(-d.y, d.x) * halfWidth }

    /// The corner at `v` from direction `d1` to `d2` on one side (+1: the +n side walked forwards,
    /// -1: the -n side walked backwards), from the offset point of the segment walked so far (the
    /// last point) to that of the next one: the join where this side is the outside of the turn.
    /// On the inside, the two offset lines meet at one point; when that point lies within `room`
    /// of the vertex along both segments (half of the shorter one, so neighbouring corners cannot
    /// cross), the side turns there, one point for three. Otherwise it goes through the vertex
    /// itself, which covers the same area (the overlap of the two segments twice) wherever the
    /// offset lines meet. (At 1080p, n = 260, that was a quarter of the line's edges.)
    private mutating func corner(_ v: Point, _ d1: Point, _ d2: Point, side: Double, room: Double) {
        let cross = d1.x * d2.y - d1.y * d2.x
        let dot = d1.x * d2.x + d1.y * d2.y
        let straight = abs(cross) < 1e-12 && dot > 0
        // As joinAt: the outside is opposite to the side the path turns towards.
        let outside: Double = cross > 0 ? -1 : 1
        if straight || outside != side {
            // The offset lines meet halfWidth * tan(turn / 2) from the vertex's offset points.
            if dot > -0.9 && halfWidth * halfWidth * (1 - dot) <= room * room * (1 + dot) {
                if !straight {
                    let o1 = leftNormal(d1) * side, o2 = leftNormal(d2) * side
                    polygon[polygon.count - 1] = v + (o1 + o2) * (1 / (1 + dot))
                }
                return
            }
            polygon.append(v)
            polygon.append(side > 0 ? v + leftNormal(d2) : v - leftNormal(d1))
            return
        }
        // (outside is ±1: the same bits as turning the normal by outside * halfWidth)
        let o1 = leftNormal(d1) * outside, o2 = leftNormal(d2) * outside
        // The join's outer points from v + o1 to v + o2 (v + o1 itself left out) ...
        let start = polygon.count
        switch join {
        case .bevel:
            break
        case .miter:
            let cosTheta = (o1.x * o2.x + o1.y * o2.y) / (halfWidth * halfWidth)
            let cosHalf = ((1 + cosTheta) / 2).squareRoot()
            if cosHalf > 1e-9 && 1 / cosHalf <= miterLimit {
                polygon.append(v + (o1 + o2) * (1 / (1 + cosTheta)))
            }
        case .round:
            appendArc(center: v, from: o1, to: o2, withEnds: false)
        }
        // ... then to the next segment's offset point; walking backwards, the same points reversed.
        if side > 0 {
            polygon.append(v + o2)
        } else {
            polygon.reverse(from: start)
            polygon.append(v + o1)
        }
    }

    /// Appends the arc's points after its first one (which the outline already holds).
    private mutating func appendArcAfterStart(center: Point, from a: Point, to b: Point) {
        appendArc(center: center, from: a, to: b, withStart: false)
    }

    /// A single point: round caps make a disc, square caps a square, butt caps nothing (as SVG).
    private mutating func dot(_ p: Point) {
        switch cap {
        case .butt: return
        case .square:
            let h = halfWidth
            emitQuad(Point(p.x - h, p.y - h), Point(p.x + h, p.y - h), Point(p.x + h, p.y + h), Point(p.x - h, p.y + h))
        case .round:
            roundCap(p, outward: Point(1, 0))
            roundCap(p, outward: Point(-1, 0))
        }
    }

    private func direction(_ a: Point, _ b: Point) -> Point {
        let d = b - a
        let len = (d.x * d.x + d.y * d.y).squareRoot()
        return len > 0 ? d * (1 / len) : Point(1, 0)
    }

    private func normal(_ a: Point, _ b: Point) -> Point {
        let d = direction(a, b)
        return Point(-d.y, d.x)
    }

    private mutating func joinAt(_ v: Point, incoming d1: Point, outgoing d2: Point) {
        let cross = d1.x * d2.y - d1.y * d2.x
        let dot = d1.x * d2.x + d1.y * d2.y
        if abs(cross) < 1e-12 && dot > 0 { return }  // straight on: the segments already meet
        // The outside of the turn is opposite to the side the path turns towards.
        let s: Double = cross > 0 ? -1 : 1
        let o1 = leftNormal(d1) * s, o2 = leftNormal(d2) * s
        switch join {
        case .bevel:
            emitTriangle(v, v + o1, v + o2)
        case .miter:
            let cosTheta = (o1.x * o2.x + o1.y * o2.y) / (halfWidth * halfWidth)
            let cosHalf = ((1 + cosTheta) / 2).squareRoot()
            if cosHalf > 1e-9 && 1 / cosHalf <= miterLimit {
                let tip = v + (o1 + o2) * (1 / (1 + cosTheta))
                emitQuad(v, v + o1, tip, v + o2)
            } else {
                emitTriangle(v, v + o1, v + o2)
            }
        case .round:
            polygon.removeAll()
            polygon.append(v)
            appendArc(center: v, from: o1, to: o2)
            emitCurrentPolygon()
        }
    }

    /// Half a disc beyond an end point, facing `outward`.
    private mutating func roundCap(_ p: Point, outward d: Point) {
        let n = Point(-d.y, d.x) * halfWidth, tip = d * halfWidth
        polygon.removeAll()
        polygon.append(p + n)
        appendArc(center: p, from: n, to: tip)
        appendArc(center: p, from: tip, to: Point(-n.x, -n.y))
        emitCurrentPolygon()
    }

    /// Appends points on the circle around `center` from offset `a` to offset `b` (the short way,
    /// less than half a turn), in the fewest equal steps that stay within tolerance. (Steps that
    /// halved the angle until it was small enough took up to twice as many: eight for a 120° join
    /// of a 6 px line, where five do. Round joins are most of a dense line's edges.)
    /// `withStart`/`withEnds` false leave out the first point / both end points, where the outline
    /// already holds them or is about to add them (cheaper than removing them afterwards).
    private mutating func appendArc(center: Point, from a: Point, to b: Point,
                                    withStart: Bool = true, withEnds: Bool = true) {
        let r2 = a.x * a.x + a.y * a.y
        guard r2 > 0 else { return }
        let cross = a.x * b.y - a.y * b.x, dot = a.x * b.x + a.y * b.y
        if dot >= arcStepCosine * r2 {
            // One step (most joins of a dense line turn only a little): the chord alone.
            if withStart && withEnds { polygon.append(center + a) }
            if withEnds { polygon.append(center + b) }
            return
        }
        let theta = ArcMath.angle(cosine: dot, sine: abs(cross))
        let q = theta / arcStepAngle
        // q is NaN only for a non-finite offset, which then draws its end points alone.
        let steps = q < 256 ? max(1, ceilOfNonNegative(q)) : (q >= 256 ? 256 : 1)
        let (cosStep, sinMagnitude) = ArcMath.cosineAndSine(theta / Double(steps))
        let sinStep = cross >= 0 ? sinMagnitude : -sinMagnitude
        var o = a
        if withStart && withEnds { polygon.append(center + a) }
        if steps > 1 {
            for _ in 1..<steps {
                o = Point(o.x * cosStep - o.y * sinStep, o.x * sinStep + o.y * cosStep)
                polygon.append(center + o)
            }
        }
        if withEnds { polygon.append(center + b) }
    }

    @inline(__always)
    private mutating func include(_ p: Point) {
        bounds.minX = min(bounds.minX, p.x); bounds.maxX = max(bounds.maxX, p.x)
        bounds.minY = min(bounds.minY, p.y); bounds.maxY = max(bounds.maxY, p.y)
    }

    private mutating func emitTriangle(_ a: Point, _ b: Point, _ c: Point) {
        include(a); include(b); include(c)
        let area = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)
        if area >= 0 {
            edges.append(a); edges.append(b); edges.append(b); edges.append(c); edges.append(c); edges.append(a)
        } else {
            edges.append(b); edges.append(a); edges.append(c); edges.append(b); edges.append(a); edges.append(c)
        }
    }

    /// A convex quadrilateral (segment bodies, miters), emitted in positive orientation.
    private mutating func emitQuad(_ a: Point, _ b: Point, _ c: Point, _ d: Point) {
        include(a); include(b); include(c); include(d)
        let area = (c.x - a.x) * (d.y - b.y) - (d.x - b.x) * (c.y - a.y)
        if area >= 0 {
            edges.append(a); edges.append(b); edges.append(b); edges.append(c)
            edges.append(c); edges.append(d); edges.append(d); edges.append(a)
        } else {
            edges.append(b); edges.append(a); edges.append(c); edges.append(b)
            edges.append(d); edges.append(c); edges.append(a); edges.append(d)
        }
    }

    /// `emitCurrentPolygon` for the four-point polygon p0 p1 p2 p3: the same sum, the same edges.
    private mutating func emitPolygon(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        include(p0); include(p1); include(p2); include(p3)
        var area = 0.0
        area += p0.x * p1.y - p1.x * p0.y
        area += p1.x * p2.y - p2.x * p1.y
        area += p2.x * p3.y - p3.x * p2.y
        area += p3.x * p0.y - p0.x * p3.y
        if area >= 0 {
            edges.append(contentsOf: [p0, p1, p1, p2, p2, p3, p3, p0])
        } else {
            edges.append(contentsOf: [p1, p0, p2, p1, p3, p2, p0, p3])
        }
    }

    /// Emits the polygon's edges in positive orientation.
    private mutating func emitCurrentPolygon() {
        let n = polygon.count
        guard n >= 3 else { return }
        let poly = polygon.base
        let measure = PolygonMeasure(poly, n)
        let p = poly[n - 1], q = poly[0]
        let area = measure.area + (p.x * q.y - q.x * p.y)
        include(measure)
        // The edges are written in place after one resize: an append per point checked the
        // array's uniqueness and capacity each time (a tenth of a 5,000-point stroke).
        let start = edges.count
        edges.append(contentsOf: repeatElement(Point(0, 0), count: 2 * n))
        edges.withUnsafeMutableBufferPointer { all in
            Stroker.writeEdges(poly, n, then: q, to: all.baseAddress! + start, reversed: area < 0)
        }
    }

    /// Widens `bounds` to a measured run of points.
    private mutating func include(_ m: PolygonMeasure) {
        bounds = (min(bounds.minX, m.bounds.minX), min(bounds.minY, m.bounds.minY),
                  max(bounds.maxX, m.bounds.maxX), max(bounds.maxY, m.bounds.maxY))
    }

    /// The edges from each of `count` points to the next, the last one's to `next`; each edge
    /// turned around when `reversed`. A loop per orientation, without a select per point.
    private static func writeEdges(_ poly: UnsafeMutablePointer<Point>, _ count: Int, then next: Point,
                                   to out: UnsafeMutablePointer<Point>, reversed: Bool) {
        let n = count
        if !reversed {
            for i in 0..<(n - 1) {
                out[2 &* i] = poly[i]
                out[2 &* i &+ 1] = poly[i &+ 1]
            }
            out[2 &* (n - 1)] = poly[n - 1]
            out[2 &* (n - 1) &+ 1] = next
        } else {
            for i in 0..<(n - 1) {
                out[2 &* i] = poly[i &+ 1]
                out[2 &* i &+ 1] = poly[i]
            }
            out[2 &* (n - 1)] = next
            out[2 &* (n - 1) &+ 1] = poly[n - 1]
        }
    }
}

/// A run of polygon points' share of the polygon's doubled signed area (the edges between
/// consecutive points, in order) and their bounding box (NaNs left out, as `min`/`max` leave them).
struct PolygonMeasure {
    var area = 0.0
    var bounds = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)

    init() {}

    init(_ poly: UnsafeMutablePointer<Point>, _ n: Int) {
        guard n > 0 else { return }
        var b = bounds, area = 0.0
        for i in 0..<(n - 1) {
            let p = poly[i], q = poly[i &+ 1]
            area += p.x * q.y - q.x * p.y
            b.minX = min(b.minX, p.x); b.maxX = max(b.maxX, p.x)
            b.minY = min(b.minY, p.y); b.maxY = max(b.maxY, p.y)
        }
        let p = poly[n - 1]
        b.minX = min(b.minX, p.x); b.maxX = max(b.maxX, p.x)
        b.minY = min(b.minY, p.y); b.maxY = max(b.maxY, p.y)
        self.area = area
        bounds = b
    }
}
/// The stroker's working outline: points in raw storage that grows and is kept from stroke to
/// stroke. An array in the stroker checked its uniqueness and capacity on every append (a dense
/// line appends tens of thousands of points a frame); this checks the capacity only.
final class PointList {
    private(set) var base: UnsafeMutablePointer<Point>
    private(set) var count = 0
    private var capacity: Int

    /// Empty, without storage until the first append (a canvas makes one per stroke call to swap
    /// its kept list out).
    init() {
        capacity = 0
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<Point>.alignment)!
    }

    deinit { if capacity > 0 { base.deallocate() } }

    @inline(__always)
    func append(_ p: Point) {
        if count == capacity { grow() }
        base[count] = p
        count &+= 1
    }

    @inline(never)
    private func grow() {
        let larger = max(64, capacity * 2)
        let bigger = UnsafeMutablePointer<Point>.allocate(capacity: larger)
        bigger.moveInitialize(from: base, count: count)
        if capacity > 0 { base.deallocate() }
        base = bigger
        capacity = larger
    }

    subscript(i: Int) -> Point {
        get {
            precondition(i >= 0 && i < count)
            return base[i]
        }
        set {
            precondition(i >= 0 && i < count)
            base[i] = newValue
        }
    }

    func removeAll() { count = 0 }

    func removeLast() {
        precondition(count > 0)
        count -= 1
    }

    /// Reverses the points from `start` to the end in place.
    func reverse(from start: Int) {
        precondition(start >= 0)
        var i = start, j = count - 1
        while i < j {
            let t = base[i]
            base[i] = base[j]
            base[j] = t
            i += 1; j -= 1
        }
    }
}

/// Whether the segment's bounding box meets `v`: what a clipped stroke keeps.
@inline(__always)
func segment(_ a: Point, _ b: Point, reaches v: (x0: Double, y0: Double, x1: Double, y1: Double)) -> Bool {
    min(a.x, b.x) <= v.x1 && max(a.x, b.x) >= v.x0 && min(a.y, b.y) <= v.y1 && max(a.y, b.y) >= v.y0
}

/// Dashes as one flat list of points: dash k is `points[starts[k] ..< starts[k + 1]]`. The canvas
/// keeps one, so a baseline of 352 dashes allocates nothing per dash (two arrays a dash did).
struct Dashes {
    var points: [Point] = []
    var starts: [Int] = [0]
    var count: Int { starts.count - 1 }
    subscript(k: Int) -> ArraySlice<Point> { points[starts[k]..<starts[k + 1]] }
    mutating func removeAll() {
        points.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        starts.append(0)
    }
}

/// Splits polylines into dashes, written into `out` (emptied first). False when the pattern cannot
/// be drawn (negative, non-finite, all zero, or so fine that the dash count would explode). With
/// `visible`, a dash none of whose segments reaches that rectangle is left out: exactly the dashes
/// a stroker with the same `visible` emits nothing for (a dash of no length still becomes a dot
/// there, so it stays).
func dashed(_ lines: [Polyline], pattern rawPattern: [Double], offset: Double,
            visible: (x0: Double, y0: Double, x1: Double, y1: Double)?, into out: inout Dashes) -> Bool {
    out.removeAll()
    guard !rawPattern.isEmpty, rawPattern.allSatisfy({ $0.isFinite && $0 >= 0 }), offset.isFinite else { return false }
    let pattern = rawPattern.count % 2 == 1 ? rawPattern + rawPattern : rawPattern
    let period = pattern.reduce(0, +)
    guard period > 0 else { return false }
    var total = 0.0
    for line in lines {
        let pts = line.isClosed ? line.points + [line.points[0]] : line.points
        for i in 1..<max(1, pts.count) { total += pts[i - 1].distance(to: pts[i]) }
    }
    guard total.isFinite, total / period * Double(pattern.count) < 2_000_000 else { return false }

    // The dash being built is out.points[dashStart...]. Whether one of its segments reaches
    // `visible`, and whether all its points lie on its first (a dash of no length stays: the
    // stroker makes a dot of it), are kept as its points come, so a finished dash is kept (its end
    // joins `starts`) or dropped (its points cut off) without a second look at them: a scrub drops
    // all but a few of a baseline's 352 dashes.
    var dashStart = 0
    var reaches = false, onFirst = true
    var first = Point(0, 0), previous = Point(0, 0)
    func begin(_ p: Point) {
        dashStart = out.points.count
        out.points.append(p)
        first = p; previous = p
        reaches = false; onFirst = true
    }
    func extend(_ p: Point) {
        out.points.append(p)
        if let v = visible, !reaches {
            reaches = segment(previous, p, reaches: v)
            if onFirst { onFirst = p.distance(to: first) <= 1e-9 }
        }
        previous = p
    }
    func finishDash() {
        if visible == nil || reaches || onFirst {
            out.starts.append(out.points.count)
        } else {
            out.points.removeLast(out.points.count - dashStart)
        }
        dashStart = out.points.count
    }
    for line in lines {
        let pts = line.isClosed && !line.points.isEmpty ? line.points + [line.points[0]] : line.points
        guard pts.count >= 2 else { continue }
        // Position within the pattern; offsets in either direction wrap.
        var phase = offset.truncatingRemainder(dividingBy: period)
        if phase < 0 { phase += period }
        var index = 0
        while phase >= pattern[index] { phase -= pattern[index]; index = (index + 1) % pattern.count }
        var remaining = pattern[index] - phase
        var on = index % 2 == 0
        dashStart = out.points.count
        if on { begin(pts[0]) }
        for i in 1..<pts.count {
            var a = pts[i - 1]
            let b = pts[i]
            var segment = a.distance(to: b)
            while segment > remaining {
                let t = remaining / segment
                let cut = Point(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
                if on {
                    extend(cut)
                    finishDash()
                } else {
                    begin(cut)  // a dash starts here
                }
                on.toggle()
                segment -= remaining
                a = cut
                index = (index + 1) % pattern.count
                remaining = pattern[index]
            }
            remaining -= segment
            if on { extend(b) }
        }
        if on && out.points.count - dashStart >= 2 {
            finishDash()
        } else {
            out.points.removeSubrange(dashStart...)
        }
    }
    return true
}

/// The little trigonometry arcs need, as plain polynomials: the same bits on every machine and
/// every libm (Raster's pixels do not depend on the C library), and no call.
enum ArcMath {
    /// The angle in [0, π] of the vector (cosine, sine) with sine >= 0 (any length; 0 for a zero
    /// or non-finite vector).
    static func angle(cosine x: Double, sine y: Double) -> Double {
        guard x.isFinite, y.isFinite, y >= 0, x != 0 || y != 0 else { return 0 }
        let ax = abs(x)
        // The angle to the nearer axis, from atan of a ratio in [0, 1].
        let first = ax >= y ? atanUnit(y / ax) : Double.pi / 2 - atanUnit(ax / y)
        return x >= 0 ? first : Double.pi - first
    }

    /// atan(t) for t in [0, 1]: reduced to |u| <= tan(π/8) by atan(t) = π/4 + atan((t - 1)/(t + 1)),
    /// then its odd series to u^23 (error below 1e-10), in Horner form.
    private static func atanUnit(_ t: Double) -> Double {
        let reduce = t > 0.41421356237309503
        let u = reduce ? (t - 1) / (t + 1) : t
        let u2 = u * u
        var s = 1.0 / 23
        s = 1.0 / 21 - u2 * s
        s = 1.0 / 19 - u2 * s
        s = 1.0 / 17 - u2 * s
        s = 1.0 / 15 - u2 * s
        s = 1.0 / 13 - u2 * s
        s = 1.0 / 11 - u2 * s
        s = 1.0 / 9 - u2 * s
        s = 1.0 / 7 - u2 * s
        s = 1.0 / 5 - u2 * s
        s = 1.0 / 3 - u2 * s
        s = 1 - u2 * s
        let r = u * s
        return reduce ? Double.pi / 4 + r : r
    }

    /// cos φ and sin φ for φ in [0, π], from the series of the half angle (to φ^18 / 2^18 / 18!:
    /// error below 1e-13) doubled.
    static func cosineAndSine(_ phi: Double) -> (Double, Double) {
        let h = min(max(phi, 0), Double.pi) * 0.5
        let h2 = h * h
        // sin h / h = 1 - h²/(2·3) (1 - h²/(4·5) (1 - ...)), cos h = 1 - h²/(1·2) (1 - h²/(3·4) (...)).
        var sinH = 1 - h2 * (1.0 / 272)
        sinH = 1 - h2 * (1.0 / 210) * sinH
        sinH = 1 - h2 * (1.0 / 156) * sinH
        sinH = 1 - h2 * (1.0 / 110) * sinH
        sinH = 1 - h2 * (1.0 / 72) * sinH
        sinH = 1 - h2 * (1.0 / 42) * sinH
        sinH = 1 - h2 * (1.0 / 20) * sinH
        sinH = 1 - h2 * (1.0 / 6) * sinH
        var cosH = 1 - h2 * (1.0 / 306)
        cosH = 1 - h2 * (1.0 / 240) * cosH
        cosH = 1 - h2 * (1.0 / 182) * cosH
        cosH = 1 - h2 * (1.0 / 132) * cosH
        cosH = 1 - h2 * (1.0 / 90) * cosH
        cosH = 1 - h2 * (1.0 / 56) * cosH
        cosH = 1 - h2 * (1.0 / 30) * cosH
        cosH = 1 - h2 * (1.0 / 12) * cosH
        cosH = 1 - h2 * (1.0 / 2) * cosH
        sinH *= h
        return (1 - 2 * sinH * sinH, 2 * sinH * cosH)
    }
}
