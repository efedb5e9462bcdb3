import Chart
import Feed
@testable import KioskCore
import TestSupport
import Testing
import Text

/// The line scene on the panels people mount (golden PNGs, looked at before acceptance): a 3.5"
/// 480x320, the official 7" Pi panel (800x480), the Pi Touch Display 2 in portrait (720x1280) and
/// a portrait 1080p screen. A German index with a large price, a long name and the market's note.
@Suite("Small and portrait panels")
struct SmallPanelGoldenTests {
    static let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin", posixRule: "CET-1CEST,M3.5.0,M10.5.0/3")

    /// The DAX on Xetra in de-DE: Monday's whole session and Tuesday up to 14:05, with the status
    /// line the daemon shows at that moment.
    static func model(width: Int, height: Int) throws -> ScreenModel {
        let fonts = try FontSet.load()
        let day = SessionGoldenTests.day
        let series = SessionGoldenTests.bars([(day(2026, 11, 23), (9, 0), (17, 30)), (day(2026, 11, 24), (9, 0), (14, 5))],
                                             zone: berlin, start: 23_874.12, seed: 5)
        let market = MarketData(daily: nil, intraday: series, timeZone: berlin, calendar: .xetr)
        let now = berlin.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 24, hour: 14, minute: 5)!)
        let format = PriceFormat(currency: Currency(code: "EUR")!, locale: NumberLocale(identifier: "de-DE")!)
            .usingMinusSign(supportedBy: fonts.regular)
        let instrument = Instrument(name: "^GDAXI · DAX Performance-Index", market: market, priceFormat: format)
        let m = ScreenModel(instrument: instrument, width: width, height: height, fonts: fonts, range: .oneDay)
        m.statusNote = MarketNote(calendar: .xetr, zone: berlin, now: now, fetch: nil, newest: series, staleness: nil).text
        return m
    }

    @Test("The line scene on small and portrait panels matches its golden image",
          arguments: [(480, 320), (800, 480), (720, 1280), (1080, 1920)])
    func panel(size: (Int, Int)) throws {
        let m = try Self.model(width: size.0, height: size.1)
        let frame = SceneRenderer().render(m, at: 0).buffer
        let result = ImageComparison.checkScreen(frame, golden: "panel-\(size.0)x\(size.1)-1D.png")
        #expect(result.passed, "\(result.report)")
    }
}
