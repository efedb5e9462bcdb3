// Round joins and caps in the fewest equal steps that stay within tolerance, with trigonometry of
// our own (ArcMath) so the points do not depend on the C library.
@testable import Raster
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Arcs")
struct ArcTests {
    @Test("angle matches libm") func angleMatchesLibm() {
        var worst = 0.0
        for i in 0...2000 {
            let a = Double(i) / 2000 * Double.pi
            for r in [1e-3, 1.0, 37.5, 1e6] {
                let got = ArcMath.angle(cosine: r * cos(a), sine: max(0, r * sin(a)))
                worst = max(worst, abs(got - a))
            }
        }
        #expect(worst < 1e-9)
        #expect(ArcMath.angle(cosine: 0, sine: 0) == 0)
        #expect(ArcMath.angle(cosine: .nan, sine: 1) == 0)
        #expect(ArcMath.angle(cosine: -1, sine: 0) == Double.pi)
    }

    @Test("cosine and sine match libm") func cosineAndSineMatchLibm() {
        var worst = 0.0
        for i in 0...4000 {
            let phi = Double(i) / 4000 * Double.pi
            let (c, s) = ArcMath.cosineAndSine(phi)
            worst = max(worst, abs(c - cos(phi)), abs(s - sin(phi)))
        }
        #expect(worst < 1e-12)
    }

    /// The chords of the outer side of a join turning `degrees` on a line of half width 3 at
    /// tolerance 0.1 (one step may turn 29.65°): the edges with both ends on the circle around the
    /// vertex. Each is checked to stay within tolerance of the circle.
    private func arcChords(turning degrees: Double) -> Int {
        let t = degrees * Double.pi / 180
        var stroker = Stroker(halfWidth: 3, cap: .butt, join: .round, miterLimit: 4)
        stroker.stroke(Polyline(points: [Point(0, 0), Point(40, 0), Point(40 + 40 * cos(t), 40 * sin(t))], isClosed: false))
        let v = Point(40, 0), e = stroker.edges
        var chords = 0
        for k in stride(from: 0, to: e.count, by: 2)
        where abs(e[k].distance(to: v) - 3) < 1e-9 && abs(e[k + 1].distance(to: v) - 3) < 1e-9 {
            let mid = Point((e[k].x + e[k + 1].x) / 2, (e[k].y + e[k + 1].y) / 2)
            #expect(mid.distance(to: v) >= 3 - 0.1)
            chords += 1
        }
        return chords
    }

    @Test("joins take the fewest steps within tolerance") func joinsTakeTheFewestStepsWithinTolerance() {
        // ceil(turn / 29.65°). Halving the angle until it was small enough took 8, 8, 4 and 1.
        #expect(arcChords(turning: 179) == 7)
        #expect(arcChords(turning: 120) == 5)
        #expect(arcChords(turning: 80) == 3)
        #expect(arcChords(turning: 20) == 1)
    }
}
