import Chart
import Raster
import Testing

@Suite("Scrubbing, bars and draw-in")
struct SceneTests {
    @Test("snapping finds the nearest point on uneven spacing (weekend gaps)")
    func snapUneven() {
        // Five weekdays, a weekend gap, five weekdays.
        let xs: [Double] = [0, 10, 20, 30, 40, 70, 80, 90, 100, 110]
        let s = ScrubSnapper(xs: xs, hysteresis: 0)
        #expect(s.nearest(to: 54) == 4)
        #expect(s.nearest(to: 56) == 5)
        #expect(s.nearest(to: -50) == 0)
        #expect(s.nearest(to: 500) == 9)
        #expect(s.nearest(to: .nan) == nil)
        #expect(ScrubSnapper(xs: []).nearest(to: 3) == nil)
    }

    @Test("hysteresis keeps the selection near a midpoint and lets go past it")
    func hysteresis() {
        var s = ScrubSnapper(xs: [0, 10, 20], hysteresis: 2)
        #expect(s.update(x: 4) == 0)
        #expect(s.update(x: 5.5) == 0)  // just past the midpoint: stays
        #expect(s.update(x: 7.5) == 1)  // clearly closer to 10
        #expect(s.update(x: 4.5) == 1)  // back a little past the midpoint: stays
        #expect(s.update(x: 19) == 2)   // jumps over more than one point at once
    }

    @Test("bars grow in staggered order on the timing curve")
    func barStagger() {
        let bars = (0..<5).map { Bar(label: "\($0)", value: Double($0) - 2) }
        let scene = BarChartScene(bars: bars, plot: PlotRect(left: 0, top: 0, right: 500, bottom: 300),
                                  palette: .standard, timing: MorphTiming(duration: 0.8, curve: .tickerboard))
        #expect(scene.growth(ofBar: 0, at: 0) == 0)
        #expect(scene.growth(ofBar: 3, at: 0.3) == 0)  // starts at 0.3 s
        #expect(scene.growth(ofBar: 3, at: 0.31) > 0)
        #expect(scene.growth(ofBar: 0, at: 0.5) > scene.growth(ofBar: 1, at: 0.5))
        #expect(scene.growth(ofBar: 4, at: scene.totalDuration) == 1)
        #expect(abs(scene.totalDuration - 1.2) < 1e-12)
        // Negative bars hang below the zero line, positive ones stand on it.
        let negative = scene.barRect(0), positive = scene.barRect(4)
        #expect(negative.endY > negative.zeroY)
        #expect(positive.endY < positive.zeroY)
    }

    @Test("nice ticks are 1, 2 or 5 times a power of ten and stay inside the range")
    func ticks() {
        #expect(niceTicks(lo: -13.2, hi: 6.1, count: 4) == [-10, -5, 0, 5])
        #expect(niceTicks(lo: 0, hi: 1, count: 5) == [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1])
        #expect(niceTicks(lo: 5, hi: 5) == [0])
    }

    @Test("the draw-in tip moves uniformly in x on its curve and sits on the line")
    func drawInTip() {
        let v = [Point(100, 50), Point(200, 150), Point(400, 50)]
        let scene = DrawInScene(vertices: v, timing: MorphTiming(duration: 2, curve: .linear))
        #expect(scene.tip(at: 0) == Point(100, 50))
        #expect(scene.tip(at: 2) == Point(400, 50))
        #expect(scene.tip(at: 0.5) == Point(175, 125))  // x = 100 + 300/4, on the first segment
        #expect(scene.tip(at: 1.5) == Point(325, 87.5))
        #expect(DrawInScene(vertices: []).tip(at: 1) == nil)
    }

    @Test("the draw-in paints no line right of the tip, only the whole baseline")
    func drawInClip() {
        let canvas = Canvas(width: 300, height: 200)
        let v = (0...20).map { Point(20 + Double($0) * 13, 100 + Double(($0 * 37) % 40)) }
        let painter = LineChartPainter(palette: .standard, metrics: LineChartMetrics(scale: 1),
                                       plot: PlotRect(left: 20, top: 20, right: 280, bottom: 180))
        let frame = LineChartFrame(vertices: v, baselineY: 100, lineColor: Color(rgb: 0x00C805))
        let scene = DrawInScene(vertices: v, timing: MorphTiming(duration: 2, curve: .linear))
        scene.draw(frame, painter: painter, on: canvas, at: 1)
        let tip = scene.tip(at: 1)!
        let background = ChartPalette.standard.background.premultiplied
        var baselineInk = 0
        for y in 0..<200 {
            for x in Int(tip.x + 8)..<300 where canvas.buffer[x, y] != background {
                #expect(y == 100 && x < 280, "pixel \(x),\(y)")   // the dashed baseline at y 100, to the plot's right
                baselineInk += 1
            }
        }
        #expect(baselineInk > 10)
        #expect(canvas.buffer[Int(tip.x), Int(tip.y)] != background)  // the dot
    }
}

@Suite("Trend colour")
struct TrendColourTests {
    @Test("green when the last value is at or above the baseline, red below", arguments: [
        ([100.0, 90, 100], true), ([100.0, 120, 100.01], true), ([100.0, 130, 99.99], false), ([5.0], true),
    ])
    func colourBySide(values: [Double], up: Bool) {
        let points = values.enumerated().map { ChartPoint(time: Int64($0.offset), value: $0.element) }
        let scale = LineChartScale(fitting: points, in: PlotRect(left: 0, top: 0, right: 100, bottom: 100))
        let frame = LineChartFrame(points: points, scale: scale, palette: .standard)
        #expect(frame.lineColor == (up ? ChartPalette.standard.up : ChartPalette.standard.down))
        let blind = LineChartFrame(points: points, scale: scale, palette: .colorBlindSafe)
        #expect(blind.lineColor == (up ? ChartPalette.colorBlindSafe.up : ChartPalette.colorBlindSafe.down))
        // The baseline sits at the first value.
        #expect(frame.baselineY == scale.y(values[0]))
    }
}
