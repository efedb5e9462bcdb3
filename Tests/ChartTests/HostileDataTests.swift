@testable import Chart
import Feed
import Raster
import Testing
import Text

/// Data values that once trapped a scene the daemon shows by itself every cycle.
@Suite("Hostile data values")
struct HostileDataTests {
    /// A daily series with one bar per month at these closes.
    static func monthly(_ closes: [Double]) -> Instrument {
        let bars = closes.enumerated().map { i, v in
            PriceBar(time: Int64(19_000 + 31 * i) * 86_400, open: v, high: v, low: v, close: v)
        }
        let daily = PriceSeries(name: "M", interval: .daily, bars: bars)
        return Instrument(name: "M", market: MarketData(daily: daily, intraday: nil, timeZone: .utc))
    }

    @Test("an absurd month-over-month change draws the bar chart", arguments: [
        [1e-300, 1e300, 1], [1, 1e18, 1], [1, 1e308, 1e-308, 1e308], [5e-324, 1.7e308], [1, 2, 3, 4e300],
    ])
    func absurdMonthlyChange(closes: [Double]) throws {
        let model = ScreenModel(instrument: Self.monthly(closes), width: 320, height: 180, fonts: try FontSet.load())
        model.show(.bars, at: 0)
        for t in [0.0, 0.4, 3.0] {
            let canvas = SceneRenderer().render(model, at: t)
            #expect(canvas.buffer[2, 2] == ChartPalette.standard.background.premultiplied)
        }
        let scene = model.barScene()
        #expect(scene.bars.allSatisfy { b in b.value.isFinite && abs(b.value) <= 1e9 })
    }

    @Test("tick labels in the locale's way: de-DE writes +2,5 % and −20 %")
    func tickLabelLocale() {
        var scene = BarChartScene(bars: [], plot: PlotRect(left: 0, top: 0, right: 10, bottom: 10), palette: .standard,
                                  valueSuffix: "\u{00A0}%")
        scene.decimalSeparator = ","
        #expect(scene.formatTick(2.5) == "+2,5\u{00A0}%")
        #expect(scene.formatTick(-20) == "\u{2212}20\u{00A0}%")
        #expect(BarChartScene(bars: [], plot: PlotRect(left: 0, top: 0, right: 10, bottom: 10), palette: .standard).formatTick(2.5) == "+2.5%")
    }

    @Test("tick labels for any value", arguments: [1e300, -1e300, 9.3e18, -9.3e18, 1e15, .nan, .infinity, 123.456, -0.004])
    func tickLabel(value: Double) {
        let scene = BarChartScene(bars: [], plot: PlotRect(left: 0, top: 0, right: 10, bottom: 10), palette: .standard)
        let label = scene.formatTick(value)
        // A value the axis never reaches (beyond the bar cap) has no label; any other ends in "%".
        #expect(label.isEmpty == !(value.isFinite && abs(value) < 1e15))
        if !label.isEmpty { #expect(label.hasSuffix("%")) }
        #expect(label.count < 40)
    }

    @Test("ticks over any span end", arguments: [(-1e308, 1e308), (-Double.greatestFiniteMagnitude, .greatestFiniteMagnitude),
                                                   (0, 5e-324), (1e300, 1e300 * (1 + 1e-15)), (0, 100),
                                                   (7.2911220196625e-304, .greatestFiniteMagnitude)])
    func ticksEnd(lo: Double, hi: Double) {
        let ticks = niceTicks(lo: lo, hi: hi, count: 4)
        #expect(ticks.count <= 101)
        #expect(ticks.allSatisfy { $0.isFinite })
        if lo == 0 && hi == 100 { #expect(ticks == [0, 50, 100]) }
    }

    /// Found by fuzz-format: fewer than three lines for values on both sides of zero searched until
    /// the step was infinite, and the one line was NaN.
    @Test("a nice scale across zero with too few lines asked for", arguments: [0, 1, 2])
    func niceScaleAcrossZero(maxLines: Int) {
        let scale = NiceScale(covering: -2.6729e-16, 0, maxLines: maxLines)
        #expect(scale.lines.allSatisfy { $0.isFinite })
        #expect(scale.lines.contains(0))
        #expect(scale.lines.count == 3)
        #expect(NiceScale(covering: -5, 5, maxLines: 2).lines == [-10, 0, 10])
    }
}
