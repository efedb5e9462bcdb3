import Chart
import Feed
import Raster
import Testing
import Text

/// The monthly-change bar chart: value lines at nice steps, month-to-date, absurd data.
@Suite("Bar chart")
struct BarChartTests {
    /// A font set per use: a FontSet (its faces and glyph caches) must not be shared between
    /// threads, and Swift Testing runs tests in parallel.
    static var fonts: FontSet { try! FontSet.load() }

    /// True when `step` is 1, 2 or 5 times a power of ten (within rounding).
    static func isNiceStep(_ step: Double) -> Bool {
        guard step > 0, step.isFinite else { return false }
        var m = step
        while m >= 10 { m /= 10 }
        while m < 1 { m *= 10 }
        return [1.0, 2.0, 5.0, 10.0].contains { abs(m - $0) < 1e-6 }
    }

    @Test("value lines: a nice step, zero among them, 3 to 6 of them, covering every value",
          arguments: [(-13.2, 6.1), (0.0, 1.0), (-0.4, 0.0), (0.0, 0.0), (-3.0, 27.0), (-99.0, 1000.0),
                      (2.0, 2.0), (-0.003, 0.002), (-1e12, 5.0), (0.0, 1e300), (-7.5, 7.5), (-0.1, 48.0)])
    func niceScale(lo: Double, hi: Double) {
        let s = NiceScale(covering: lo, hi)
        #expect(Self.isNiceStep(s.step), "step \(s.step)")
        #expect(s.lines.contains(0))
        #expect(s.lines.count >= 2 && s.lines.count <= 6, "\(s.lines)")
        #expect(s.lo <= min(0, lo) && s.hi >= max(0, hi))
        for (a, b) in zip(s.lines, s.lines.dropFirst()) { #expect(abs(b - a - s.step) <= s.step * 1e-9) }
        // Both signs, enough room: at least three lines (zero and one either side).
        if lo < 0 && hi > 0 { #expect(s.lines.count >= 3) }
    }

    @Test("too few lines asked for values on both sides of zero: still finite lines through zero (fuzz-format crash)",
          arguments: [0, 1, 2])
    func fewLinesBothSigns(maxLines: Int) {
        for (lo, hi) in [(-1.0, 1.0), (-3.2, 0.0009), (-1e300, 1e300)] {
            let s = NiceScale(covering: lo, hi, maxLines: maxLines)
            #expect(s.lines.allSatisfy(\.isFinite) && s.lines.contains(0), "\(lo)...\(hi), \(maxLines): \(s.lines)")
            #expect(s.lines.count >= 3 && s.lines.count <= 12)
            #expect(s.lo <= lo && s.hi >= hi)
        }
    }

    @Test("non-finite input makes a scale, not a trap")
    func scaleOfNonsense() {
        for (lo, hi) in [(Double.nan, 3.0), (-.infinity, .infinity), (.nan, .nan)] {
            let s = NiceScale(covering: lo, hi)
            #expect(s.lines.contains(0) && s.lines.count >= 2 && s.lines.allSatisfy(\.isFinite))
        }
    }

    @Test("absurd monthly changes are clamped or skipped and still draw")
    func absurdBars() throws {
        let bars = [Bar(label: "Jan", value: 1e12), Bar(label: "Feb", value: .nan), Bar(label: "Mar", value: -.infinity),
                    Bar(label: "Apr", value: 3), Bar(label: "May", value: .infinity, isPartial: true)]
        let scene = BarChartScene(bars: bars, plot: PlotRect(left: 10, top: 10, right: 290, bottom: 190), palette: .standard)
        #expect(scene.bars.map(\.value) == [BarChartScene.valueLimit, 0, -BarChartScene.valueLimit, 3, BarChartScene.valueLimit])
        #expect(scene.bars.map(\.label) == ["Jan", "Feb", "Mar", "Apr", "May"])
        let r = scene.valueRange
        #expect(r.lo >= -2 * BarChartScene.valueLimit && r.hi <= 2 * BarChartScene.valueLimit)
        for i in scene.bars.indices {
            let rect = scene.barRect(i)
            #expect(rect.endY >= 10 - 1e-9 && rect.endY <= 190 + 1e-9, "bar \(i) inside the plot")
        }
        let canvas = Canvas(width: 300, height: 240)
        let font = try Font(face: Self.fonts.regular, pixelSize: 12)
        scene.draw(on: canvas, at: 10, text: TextRenderer(), font: font)
        // Something was drawn: the clamped bar's colour appears.
        var upPixels = 0
        for y in 0..<240 { for x in 0..<300 where canvas.buffer[x, y] != canvas.buffer[0, 0] { upPixels += 1 } }
        #expect(upPixels > 1000)
    }

    @Test("a month is in progress while weekdays of it are still to come", arguments: [
        ((2026, 11, 27), true),   // Friday; Monday 30 November follows
        ((2026, 11, 30), false),  // the last day
        ((2026, 2, 27), false),   // Friday; only the weekend is left
        ((2024, 2, 28), true),    // leap year: Thursday 29th follows
        ((2025, 12, 31), false),
    ])
    func monthInProgress(date: (Int, Int, Int), expected: Bool) {
        #expect(ScreenModel.isMonthInProgress(CivilDate(year: date.0, month: date.1, day: date.2)!) == expected)
    }

    static func daily(_ rows: [(Int, Int, Int, Double)]) -> MarketData {
        let bars = rows.map { r in
            let t = CivilDate(year: r.0, month: r.1, day: r.2)!.unixTimeAtMidnightUTC
            return PriceBar(time: t, open: r.3, high: r.3, low: r.3, close: r.3)
        }
        return MarketData(daily: PriceSeries(name: "T", interval: .daily, bars: bars), intraday: nil, timeZone: .utc)
    }

    @Test("the sample ends on 27 November: twelve bars, the last one is November month to date")
    func sampleMonthToDate() {
        let m = ScreenModel(instrument: .sample(), width: 960, height: 540, fonts: Self.fonts)
        let bars = m.barScene().bars
        #expect(bars.count == 12)
        #expect(bars.last?.label == "Nov" && bars.last?.isPartial == true)
        #expect(bars.dropLast().allSatisfy { !$0.isPartial })
    }

    @Test("a month closed on its last weekday is a whole month")
    func finishedMonth() {
        let m = ScreenModel(instrument: Instrument(name: "T", market: Self.daily([(2026, 1, 30, 10), (2026, 2, 27, 11)])),
                            width: 960, height: 540, fonts: Self.fonts)
        let bars = m.barScene().bars
        #expect(bars.count == 1)
        #expect(bars.first?.isPartial == false)
        #expect(abs((bars.first?.value ?? 0) - 10) < 1e-9)
    }

    @Test("a near-zero month end (a 1e14 % change) and a negative price render the bars without trapping")
    func absurdMonthEnds() {
        let market = Self.daily([(2026, 8, 31, 1e-12), (2026, 9, 30, 100), (2026, 10, 30, -50), (2026, 11, 10, 0), (2026, 11, 12, 20)])
        let m = ScreenModel(instrument: Instrument(name: "T", market: market), width: 480, height: 800, fonts: Self.fonts)
        let bars = m.barScene().bars
        #expect(bars.map(\.value) == [BarChartScene.valueLimit, -150, 140])
        #expect(bars.last?.isPartial == true)
        m.show(.bars, at: 0)
        _ = SceneRenderer().render(m, at: 0.3)
        _ = SceneRenderer().render(m, at: 5)
        #expect(!m.isAnimating(at: 5))
    }
}
