import Chart
import Feed
import Raster
import TestSupport
import Testing
import Text

/// Issue 52 item 1 on screen: Apple's real closes (../shared/data, 2000-03-01..2013-03-01) on YTD
/// (from 2012's last close, 532.17, to 430.47: red, -101.70, -19.11 %) and MAX (from 130.31 in
/// March 2000: green, +300.16), with the eight ranges in the selector; goldens looked at.
@Suite("YTD and MAX on screen")
struct YearToDateGoldenTests {
    static var fonts: FontSet { try! FontSet.load() }

    @Test("YTD and MAX of Apple's closes, the selector offering all eight ranges",
          arguments: [("ytd-800x480.png", ChartRange.yearToDate, 800, 480), ("ytd-1920x1080.png", .yearToDate, 1920, 1080),
                      ("max-800x480.png", .max, 800, 480), ("max-1920x1080.png", .max, 1920, 1080)])
    func golden(name: String, range: ChartRange, width: Int, height: Int) throws {
        let shared = try #require(TestPaths.shared, "../shared not found")
        let (series, _) = try YahooCSV.load(path: shared + "/data/AAPL_daily_unadjusted_2000-03-01_2013-03-01.csv")
        let market = MarketData(daily: series, intraday: nil, timeZone: try ExchangeTimeZone(identifier: "America/New_York"))
        let model = ScreenModel(instrument: Instrument(name: "Apple", market: market), width: width, height: height,
                                fonts: Self.fonts, range: range, ranges: ChartRange.allCases)
        let values = model.values()
        let expected: (change: Double, percent: Double) = range == .yearToDate ? (-101.7029, -19.1109) : (300.16, 230.3430)
        // (Python: (430.47 / 532.1729 - 1) * 100 = -19.1109, (430.47 / 130.31 - 1) * 100 = 230.3430.)
        #expect(abs((values.change ?? 0) - expected.change) < 1e-9, "\(values)")
        #expect(abs((values.changePercent ?? 0) - expected.percent) < 1e-3, "\(values)")
        let frame = SceneRenderer().render(model, at: 10).buffer
        let result = ImageComparison.checkScreen(frame, golden: name)
        #expect(result.passed, "\(result.report)")
    }
}
