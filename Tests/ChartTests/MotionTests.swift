import Chart
import Raster
import Testing

@Suite("Timing curves and the time-anchored morph")
struct MotionTests {
    // Reference values computed independently with exact rational bisection (60 halvings).
    @Test("cubic-bezier matches reference values to 1e-6", arguments: [
        (CubicBezier(0.64, 0, 0, 1), [0.1: 0.009918587671187747, 0.25: 0.09920108449105038, 0.5: 0.830927063879014,
                                      0.75: 0.9729442401835926, 0.9: 0.996341850229282]),
        (CubicBezier(0.25, 0.1, 0.25, 1), [0.1: 0.09479630571604325, 0.25: 0.40851059135539586, 0.5: 0.802403387584857,
                                           0.75: 0.9604589783489741, 0.9: 0.9943164774845563]),
        (CubicBezier(0.42, 0, 0.58, 1), [0.1: 0.019722453548311196, 0.25: 0.12916193104731982, 0.5: 0.5,
                                         0.75: 0.8708380689526802, 0.9: 0.9802775464516889]),
    ])
    func bezierReferenceValues(curve: CubicBezier, expected: [Double: Double]) {
        for (x, y) in expected { #expect(abs(curve.value(at: x) - y) < 1e-6, "x = \(x)") }
        #expect(curve.value(at: 0) == 0)
        #expect(curve.value(at: 1) == 1)
        #expect(curve.value(at: -3) == 0)
        #expect(curve.value(at: .nan) == 1)
    }

    @Test("the curve is monotonic for the default easing")
    func monotonic() {
        var last = -1.0
        for i in 0...1000 {
            let v = CubicBezier.tickerboard.value(at: Double(i) / 1000)
            #expect(v >= last - 1e-12)
            last = v
        }
    }

    private func view(_ times: [Int64], xs: [Double], ys: [Double], baseline: Double = 50) -> ChartView {
        ChartView(times: times, positions: zip(xs, ys).map { Point($0, $1) }, baselineY: baseline,
                  color: Color(rgb: 0x00C805))
    }

    @Test("points that stay move, new history starts at the old left edge, leaving history ends at the new one")
    func timeAnchoredMorph() {
        // Old view: times 10...12 spread over 0...100. New view: times 0...12 spread over 0...120.
        let old = view([10, 11, 12], xs: [0, 50, 100], ys: [10, 20, 30], baseline: 10)
        let new = view([0, 5, 10, 11, 12], xs: [0, 30, 60, 90, 120], ys: [5, 6, 7, 8, 9], baseline: 5)
        var morph = ChartMorph(showing: old)
        morph.retarget(to: new, at: 0, timing: MorphTiming(duration: 1, curve: .linear))
        let start = morph.presentation(at: 0)
        #expect(start.times == [0, 5, 10, 11, 12])
        // Times 0 and 5 are older than the old view: they start on its left edge (its first vertex).
        #expect(start.positions[0] == Point(0, 10))
        #expect(start.positions[1] == Point(0, 10))
        #expect(start.positions[3] == Point(50, 20))
        let half = morph.presentation(at: 0.5)
        #expect(half.positions[3] == Point(70, 14))
        #expect(abs(half.baselineY - 7.5) < 1e-12)
        let end = morph.presentation(at: 1)
        #expect(end == new)
        #expect(!morph.isAnimating(at: 1))
    }

    @Test("a change in mid-flight starts from what is on screen: no jump")
    func retargetMidFlight() {
        let a = view([1, 2, 3], xs: [0, 50, 100], ys: [0, 0, 0])
        let b = view([1, 2, 3], xs: [0, 50, 100], ys: [100, 100, 100])
        let c = view([2, 3], xs: [0, 100], ys: [40, 40])
        var morph = ChartMorph(showing: a)
        morph.retarget(to: b, at: 0, timing: .standard)
        let before = morph.presentation(at: 0.5)
        morph.retarget(to: c, at: 0.5, timing: .standard)
        let after = morph.presentation(at: 0.5)
        #expect(before.positions == after.positions)
        #expect(before.baselineY == after.baselineY)
        // Time 1 is leaving: it ends at the new view's left edge.
        let end = morph.presentation(at: 10)
        #expect(end == c)
    }

    @Test("decimation keeps at most two vertices per pixel column and every extreme")
    func decimation() {
        var points: [Point] = []
        for i in 0..<100_000 {
            let x = 10 + Double(i) / 100  // 100 points per column
            let y = 500 + 100 * Double((i * 7919) % 101) / 101 - (i == 54_321 ? 400 : 0)
            points.append(Point(x, y))
        }
        let thin = decimated(points)
        #expect(thin.count <= 2 * 1001 + 2)
        #expect(thin.first == points.first)
        #expect(thin.last == points.last)
        #expect(thin.contains(points[54_321]))  // the spike survives
        let minY = points.map(\.y).min()!, maxY = points.map(\.y).max()!
        #expect(thin.map(\.y).min() == minY)
        #expect(thin.map(\.y).max() == maxY)
    }
}
