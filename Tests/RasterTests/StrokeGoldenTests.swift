import Raster
import TestSupport
import Testing

/// Small pictures of joins, caps and dashes, compared with golden PNGs that were looked at.
@Suite("Stroke golden images")
struct StrokeGoldenTests {
    static func strokes() -> Canvas {
        let canvas = Canvas(buffer: PixelBuffer(width: 240, height: 180, fill: 0xFF10_1418))
        let joins: [LineJoin] = [.miter, .round, .bevel]
        for (i, join) in joins.enumerated() {
            var p = Path()
            let x = 20 + Double(i) * 75
            p.move(to: Point(x, 60)); p.line(to: Point(x + 25, 15)); p.line(to: Point(x + 50, 60))
            canvas.stroke(p, style: StrokeStyle(width: 12, cap: .butt, join: join), paint: .solid(Color(rgb: 0x58A6FF)))
        }
        let caps: [LineCap] = [.butt, .round, .square]
        for (i, cap) in caps.enumerated() {
            var p = Path()
            let y = 90 + Double(i) * 22
            p.move(to: Point(30, y)); p.line(to: Point(110, y))
            canvas.stroke(p, style: StrokeStyle(width: 12, cap: cap), paint: .solid(Color(rgb: 0xF0883E)))
            var guide = Path()
            guide.move(to: Point(30.5, 80)); guide.line(to: Point(30.5, 160))
            guide.move(to: Point(110.5, 80)); guide.line(to: Point(110.5, 160))
            canvas.stroke(guide, style: StrokeStyle(width: 1), paint: .solid(Color(rgb: 0x8B949E)))
        }
        // Diagonal dashes with an offset, and a dashed circle.
        var diagonal = Path()
        diagonal.move(to: Point(130, 165)); diagonal.line(to: Point(225, 85))
        canvas.stroke(diagonal, style: StrokeStyle(width: 4, cap: .round, dashes: [10, 6], dashOffset: 3),
                      paint: .solid(Color(rgb: 0x3FB950)))
        var circle = Path()
        circle.addCircle(center: Point(190, 130), radius: 28)
        canvas.stroke(circle, style: StrokeStyle(width: 2, dashes: [5, 4]), paint: .solid(Color(rgb: 0xE6EDF3)))
        return canvas
    }

    @Test("joins (miter, round, bevel), caps (butt, round, square) and dashes match the golden image")
    func joinsCapsDashes() {
        let result = ImageComparison.check(Self.strokes().buffer, againstGolden: TestPaths.golden("strokes.png"),
                                           minimumPSNR: 40, maxFractionOver: 0.002)
        #expect(result.passed, "\(result.report)")
    }
}
