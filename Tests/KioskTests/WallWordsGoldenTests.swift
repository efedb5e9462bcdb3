import Chart
import CoreDriver
import Feed
@testable import KioskCore
import Raster
import TestSupport
import Testing
import Text

/// Issue 52's screens, through the daemon's core and its renderer, against goldens that were looked
/// at: the overview sorted by the day's move (`watchlist-sort = move`), and an alert's banner in
/// German words and number format.
@Suite("Movers first and banners in the wall's language on screen")
struct WallWordsGoldenTests {
    /// A, B, C moving +0.99 %, -5.94 %, +8.91 % on the day (CoreAlertTests.series: 101 -> last).
    static func movers(size: (Int, Int)) -> CoreDriver {
        var config = Config.watchlist(["A", "B", "C"]) {
            $0.watchlist = .only
            $0.watchlistSort = .move
            $0.cycleSeconds = 0
            $0.staleAfterSeconds = 36_500 * 86_400
        }
        config.burnInShift = 0
        let d = CoreDriver(config: config, display: DisplayInfo(width: size.0, height: size.1, refreshHz: 10))
        d.send(.start)
        for (id, last) in [("A", 102.0), ("B", 95.0), ("C", 110.0)] {
            d.send(.series(instrumentID: id, slot: .daily, series: CoreFixtures.threeDays(id, last: last)))
        }
        d.run(for: 2)
        return d
    }

    @Test("the overview in the day's order: C (+8.91 %), A (+0.99 %), B (-5.94 %)",
          arguments: [("watchlist-movers-800x480.png", 800, 480), ("watchlist-movers-1920x1080.png", 1920, 1080)])
    func moversGolden(name: String, width: Int, height: Int) throws {
        let d = Self.movers(size: (width, height))
        let board = try #require(d.core.watchlist)
        #expect(board.tileContents.map(\.name) == ["C", "A", "B"])
        let frame = SceneRenderer().render(board).buffer
        let result = ImageComparison.checkScreen(frame, golden: name)
        #expect(result.passed, "\(result.report)")
    }

    @Test("an alert's banner on a de-DE wall: unter 12.150, the price as the header writes it",
          arguments: [("banner-de-DE-800x480.png", 800, 480, false), ("banner-de-DE-1920x1080.png", 1920, 1080, false),
                      ("banner-touch-800x480.png", 800, 480, true), ("banner-touch-1920x1080.png", 1920, 1080, true)])
    func bannerGolden(name: String, width: Int, height: Int, touch: Bool) throws {
        var config = Config.watchlist(["DAX"]) { c in
            c.locale = NumberLocale(identifier: "de-DE")!
            c.cycleSeconds = 0
            c.staleAfterSeconds = 36_500 * 86_400
            var alert = AlertConfig(name: "dax-tief", line: 40)
            alert.instrument = "DAX"
            alert.condition = .below(ExactDecimal(12150))
            alert.bannerSeconds = 600
            c.alerts = [alert]
        }
        config.burnInShift = 0
        config.instruments[0].currency = "EUR"
        let d = CoreDriver(config: config, display: DisplayInfo(width: width, height: height, refreshHz: 10))
        d.send(.start)
        // With a touchscreen attached the banner leaves the range selector free: a finger must
        // still reach it (issue 52 item 8); on a wall it is the lower third over it.
        if touch { d.send(.touchScreen(present: true)) }
        // Closes 100, 101, 12,100 after 12,300: the last is below 12,150.
        let today = CivilDate(unixTime: 1_796_000_000).unixTimeAtMidnightUTC
        let bars = [12_300.0, 12_250, 12_100].enumerated().map { i, c in
            PriceBar(time: today - Int64(2 - i) * 86_400, open: c, high: c, low: c, close: c)
        }
        d.send(.series(instrumentID: "DAX", slot: .daily, series: PriceSeries(name: "DAX", interval: .daily, bars: bars)))
        d.run(for: 5)
        let plan = try #require(d.presents.last?.value)
        #expect(plan.banner == "\u{26A0} dax-tief: unter 12.150")
        #expect(plan.bannerAboveSelector == touch)
        guard case .chart(let model) = plan.scene else { Issue.record("no chart: \(plan.scene)"); return }
        let renderer = SceneRenderer()
        renderer.banner = Banner(text: try #require(plan.banner), face: CoreDriver.fonts.bold, aboveSelector: plan.bannerAboveSelector)
        let frame = renderer.render(model, at: plan.time).buffer
        if touch {
            // The selector's touch band (from the plot's foot down, TickerLayout.range(atX:y:)) is
            // untouched by the banner: no pixel there has the banner's colour (the palette's text).
            let top = Int(model.screen.layout.plot.bottom.rounded(.up))
            let ink = model.screen.palette.text.argb
            var covered = 0
            for y in top..<height { for x in 0..<width where frame[x, y] == ink { covered += 1 } }
            // (The selector's own words are drawn in the text colour too: at most their pixels.)
            #expect(covered < width * (height - top) / 10, "\(covered) pixels of the banner's colour under the selector's top")
        }
        let result = ImageComparison.checkScreen(frame, golden: name)
        #expect(result.passed, "\(result.report)")
    }
}
