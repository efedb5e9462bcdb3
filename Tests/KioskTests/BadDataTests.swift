import Chart
import Feed
import Kiosk
import KioskCore
import Raster
import Testing
import Text

/// Series no market should produce, drawn anyway: never a crash, never NaN in the picture.
@Suite("Bad data on screen")
struct BadDataTests {
    static func instrument(_ values: [Double], start: Int64 = 1_700_000_000, step: Int64 = 86_400) -> Instrument {
        let bars = values.enumerated().map { i, v in
            PriceBar(time: start + Int64(i) * step, open: v, high: v, low: v, close: v, adjustedClose: nil, volume: nil)
        }
        let daily = PriceSeries(name: "BAD", interval: .daily, bars: bars)
        return Instrument(name: "BAD", market: MarketData(daily: daily, intraday: nil, timeZone: .utc))
    }

    @Test("empty, single, flat and absurd series render with finite geometry", arguments: [
        [], [42.0], [5, 5, 5, 5, 5], [1e300, -1e300, 1e300], [1e308, -1e308], [0, 1e-300, 0],
        [100, 101, 99, 100.5, 100.25],
    ])
    func rendersSensibly(values: [Double]) throws {
        let fonts = try FontSet.load()
        let model = ScreenModel(instrument: Self.instrument(values), width: 320, height: 180, fonts: fonts,
                                range: .fiveYears)
        for range in ChartRange.allCases {
            model.select(range, at: 0)
            for t in [0.0, 0.3, 0.6, 2.0] {
                let canvas = SceneRenderer().render(model, at: t)
                // The background must be there: a broken frame would leave the buffer black or torn.
                #expect(canvas.buffer[2, 2] == ChartPalette.standard.background.premultiplied)
            }
            model.scrub(atX: 100)
            _ = SceneRenderer().render(model, at: 3)
            model.endScrub()
        }
        let scale = LineChartScale(fitting: values.map { ChartPoint(time: 0, value: $0) },
                                   in: PlotRect(left: 0, top: 0, right: 100, bottom: 100))
        for v in values { #expect(scale.y(v).isFinite) }
    }

    @Test("a range with no data says so on screen")
    func emptyRangeSaysSo() throws {
        let fonts = try FontSet.load()
        let model = ScreenModel(instrument: Self.instrument([]), width: 320, height: 180, fonts: fonts)
        #expect(model.selection(for: .oneMonth).points.isEmpty)
        _ = SceneRenderer().render(model, at: 0)
    }
}

@Suite("Live data on screen")
struct LiveDataScreenTests {
    @Test("an appended bar slides in from the right on the morph and the label shows its price")
    func appendedBarSlidesIn() throws {
        let fonts = try FontSet.load()
        let values = (0..<40).map { 100 + Double($0 % 7) }
        let before = BadDataTests.instrument(values)
        let model = ScreenModel(instrument: before, width: 640, height: 360, fonts: fonts, range: .fiveYears)
        model.labelFade = 0
        _ = SceneRenderer().render(model, at: 0)
        let oldLast = model.presentationForTesting(at: 0).positions.last!
        let after = BadDataTests.instrument(values + [123.45])
        model.replaceMarket(after.market, at: 1)
        let start = model.presentationForTesting(at: 1)
        let end = model.presentationForTesting(at: 5)
        #expect(start.positions.count == 41)
        #expect(start.positions.last! == oldLast)  // the new point starts at the old right end
        #expect(end.positions.last!.x > end.positions[39].x)
        #expect(model.isAnimating(at: 1.5))
        #expect(!model.isAnimating(at: 5))
        #expect(model.selection(for: .fiveYears).points.last?.value == 123.45)
    }
}
