import Chart
import Feed
import Kiosk
import Raster
import Text
import Testing

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
                let canvas = model.render(at: t)
                // The background must be there: a broken frame would leave the buffer black or torn.
                #expect(canvas.buffer[2, 2] == ChartPalette.standard.background.premultiplied)
            }
            model.scrub(atX: 100)
            _ = model.render(at: 3)
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
        _ = model.render(at: 0)
    }
}
