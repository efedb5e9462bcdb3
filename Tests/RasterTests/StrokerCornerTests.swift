// The inside of a stroke's corners: the outline turns where the two offset lines meet instead of
// looping through the vertex, so the overlap of the two segments is not counted twice (with area
// coverage, a pixel partly in a doubly wound overlap came out fuller than the stroke covers it).
@testable import Raster
import Testing

@Suite("Stroke corners")
struct StrokerCornerTests {
    /// An L with a right angle, width 2: the inner corner is one outline point, the offset lines'
    /// meeting point, and the vertex itself is not on the outline.
    @Test("inner corner is one point") func innerCornerIsOnePoint() {
        var stroker = Stroker(halfWidth: 1, cap: .butt, join: .round, miterLimit: 4)
        stroker.stroke(Polyline(points: [Point(0, 0), Point(10, 0), Point(10, 10)], isClosed: false))
        let points = stroker.edges
        func has(_ p: Point) -> Bool { points.contains { abs($0.x - p.x) < 1e-9 && abs($0.y - p.y) < 1e-9 } }
        // Turning clockwise on screen (y down): the inside is the side of +y before the turn.
        #expect(has(Point(9, 1)))
        #expect(!has(Point(10, 0)))
        // A turn sharper than the segments leave room for keeps the path through the vertex.
        var sharp = Stroker(halfWidth: 1, cap: .butt, join: .round, miterLimit: 4)
        sharp.stroke(Polyline(points: [Point(0, 0), Point(3, 0), Point(0, 0.5)], isClosed: false))
        #expect(sharp.edges.contains { abs($0.x - 3) < 1e-9 && abs($0.y) < 1e-9 })
    }

    /// Zigzags of turns from 20 to 150 degrees: every pixel's coverage is the share of it within half
    /// the width of the polyline (32 x 32 samples a pixel), within the sampling's error.
    @Test("zigzag coverage is the strokes area") func zigzagCoverageIsTheStrokesArea() {
        for (k, rise) in [1.5, 4.0, 9.0, 22.0].enumerated() {
            let halfWidth = 1.5
            var pts: [Point] = []
            for i in 0..<9 { pts.append(Point(4.3 + Double(i) * 5.1, 20.4 + (i % 2 == 0 ? 0 : -rise) + Double(k) * 0.37)) }
            var path = Path()
            path.move(to: pts[0])
            for p in pts.dropFirst() { path.line(to: p) }
            let canvas = Canvas(buffer: PixelBuffer(width: 52, height: 30, fill: 0xFF00_0000))
            canvas.stroke(path, style: StrokeStyle(width: 2 * halfWidth, cap: .round, join: .round),
                          paint: .solid(Color(rgb: 0xFFFFFF)))
            func distance(_ x: Double, _ y: Double) -> Double {
                var best = Double.infinity
                for i in 0..<(pts.count - 1) {
                    let a = pts[i], b = pts[i + 1]
                    let dx = b.x - a.x, dy = b.y - a.y
                    let t = max(0, min(1, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy)))
                    best = min(best, ((x - a.x - t * dx) * (x - a.x - t * dx) + (y - a.y - t * dy) * (y - a.y - t * dy)).squareRoot())
                }
                return best
            }
            var worst = 0.0, at = (0, 0)
            for py in 0..<30 {
                for px in 0..<52 {
                    var inside = 0
                    for sy in 0..<32 {
                        for sx in 0..<32 where distance(Double(px) + (Double(sx) + 0.5) / 32, Double(py) + (Double(sy) + 0.5) / 32) <= halfWidth {
                            inside += 1
                        }
                    }
                    let error = abs(Double(canvas.buffer[px, py] & 0xFF) / 255 - Double(inside) / 1024)
                    if error > worst { worst = error; at = (px, py) }
                }
            }
            // The round joins and caps are flattened to within 0.1 px of the circle, which bounds
            // what a pixel there can be off by. (Looping through the vertex on the inside, they
            // were off by 0.30, 0.13, 0.06 and 0.23 here; now under 0.05, 0.06, under 0.05 and 0.08, the
            // last at a 154-degree turn, too sharp for the shortcut, on its outer arc.)
            #expect(worst < 0.1, "rise \(rise): pixel \(at) off by \(worst)")
        }
    }
}
