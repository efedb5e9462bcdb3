// A crypto pair from a keyless exchange on the wall (issue 52 item 5): Kraken's daily candles, in
// the shape of its documented OHLC answer, through the adapter, the fetcher's CSV and the daemon's
// parser onto the screen, around the clock in euros with the stats line. The candles are made up (a
// saw-tooth climbing from 60,000), so the picture is a chart and not three points; the expected
// figures are the formula's, worked out in Python beside them. Goldens looked at.

import Chart
@testable import Feed
@testable import Fetch
import TestSupport
import Testing
import Text

@Suite("A crypto pair on screen")
struct CryptoOnScreenTests {
    /// 120 daily candles to 2024-03-31 (Unix 1711843200), close_i = 60000 + ((i * 7919) % 37) * 100
    /// + 50 i, open the close before, high and low 150 beyond them, in Kraken's array of strings.
    static func krakenDaily() -> [UInt8] {
        var rows: [String] = []
        var previous = 60_000
        for i in 0..<120 {
            let close = 60_000 + ((i * 7919) % 37) * 100 + i * 50
            let t = 1_711_843_200 - (119 - i) * 86_400
            rows.append("[\(t),\"\(previous).0\",\"\(max(previous, close) + 150).0\",\"\(min(previous, close) - 150).0\","
                        + "\"\(close).0\",\"\(close).0\",\"\(1000 + i).5\",\(5000 + i)]")
            previous = close
        }
        return Array("{\"error\":[],\"result\":{\"XXBTZEUR\":[\(rows.joined(separator: ","))],\"last\":1711756800}}".utf8)
    }

    @Test("BTC-EUR from Kraken: 24/7 in euros, the day's range and volume",
          arguments: [("crypto-btc-eur-800x480.png", 800, 480), ("crypto-btc-eur-1920x1080.png", 1920, 1080)])
    func golden(name: String, width: Int, height: Int) throws {
        let data = try cryptoParse("kraken", Self.krakenDaily(), symbol: "BTC-EUR", slot: .daily).get()
        #expect(data.currency == "EUR" && data.tradesAroundTheClock && data.bars.count == 120)
        // What the fetcher writes and the daemon reads.
        let csv = DataFile.render(data.bars, slot: .daily, zone: .utc)
        let (series, _) = try YahooCSV.parse(csv, source: "BTC.csv")
        let market = MarketData(daily: series, intraday: nil, timeZone: .utc, calendar: ExchangeCalendar.alwaysOpen)
        let format = PriceFormat(currency: Currency(code: "EUR")!, locale: .enUS)
        let model = ScreenModel(instrument: Instrument(name: "Bitcoin · BTC-EUR", market: market, priceFormat: format),
                                width: width, height: height, fonts: try FontSet.load(), range: .oneMonth, stats: .range)
        // python3: close(119) = 60000 + (119*7919 % 37)*100 + 119*50 = 66750, close(118) = 66600;
        // the last day's low 66600 - 150, high 66750 + 150.
        let values = model.values()
        #expect(values.price == 66_750 && values.priceText == "€66,750.00")
        #expect(values.statsText.hasPrefix("Day 66,450.00–66,900.00"), "\(values.statsText)")
        let frame = SceneRenderer().render(model, at: 10).buffer
        let result = ImageComparison.checkScreen(frame, golden: name)
        #expect(result.passed, "\(result.report)")
    }
}
