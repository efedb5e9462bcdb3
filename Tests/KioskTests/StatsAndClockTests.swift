import Chart
import CoreDriver
import Feed
import Kiosk
@testable import KioskCore
import LinuxIO
import Raster
import TestSupport
import Testing
import Text

/// Issue 52 items 2 and 3: the stats line (the day's range, the 52-week range with the price's
/// place in it, the volume) and the header's clock. Expected figures come from the data by hand or
/// by the Python lines quoted beside them, never from running this code.
@Suite("The stats line and the header's clock")
struct StatsAndClockTests {
    static let apple = "/data/AAPL_daily_unadjusted_2000-03-01_2013-03-01.csv"
    static let newYork = try! ExchangeTimeZone(identifier: "America/New_York", posixRule: "EST5EDT,M3.2.0,M11.1.0")

    static func appleMarket() throws -> MarketData {
        let shared = try #require(TestPaths.shared, "../shared not found")
        let (series, _) = try YahooCSV.load(path: shared + apple)
        return MarketData(daily: series, intraday: nil, timeZone: newYork)
    }

    @Test("Apple's real file: the day, the 52 weeks and the volume equal a script over the CSV")
    func appleStats() throws {
        let stats = try #require(try Self.appleMarket().stats())
        // The file's last row: 2013-03-01,438.0,438.1799,429.98,430.47,56.137...,19730300.
        #expect(stats.day == CivilDate(year: 2013, month: 3, day: 1))
        #expect(stats.dayLow == 429.98 && stats.dayHigh == 438.1799 && stats.volume == 19_730_300)
        // python3: rows with '2012-03-01' < Date <= '2013-03-01' (250 rows): max High 705.07
        // (2012-09-21), min Low 429.98 (2013-03-01); (430.47 - 429.98) / (705.07 - 429.98) * 100 = 0.178.
        #expect(stats.yearLow == 429.98 && stats.yearHigh == 705.07)
        #expect(abs((stats.yearPosition ?? -1) - 0.1781235232105889) < 1e-9)
        let usd = PriceFormat(currency: Currency(code: "USD")!, locale: .enUS)
        #expect(stats.text(mode: .full, format: usd, phrases: .english) == "Day 429.98–438.18 · 52 wk 429.98–705.07 (0%) · Vol 19.7M")
        #expect(stats.text(mode: .range, format: usd, phrases: .english) == "Day 429.98–438.18 · 52 wk 429.98–705.07 (0%)")
        #expect(stats.text(mode: .off, format: usd, phrases: .english) == "")
        let eur = PriceFormat(currency: Currency(code: "EUR")!, locale: NumberLocale(identifier: "de-DE")!)
        #expect(stats.text(mode: .full, format: eur, phrases: Phrases(locale: "de-DE"))
                == "Tag 429,98–438,18 · 52 W. 429,98–705,07 (0\u{A0}%) · Vol. 19,7\u{A0}Mio.")
    }

    @Test("no High and Low columns, a short file, a zero volume: those figures are left out, never 0")
    func absentColumns() {
        let day = CivilDate(year: 2026, month: 12, day: 4)!.unixTimeAtMidnightUTC
        // Closes only (the parser fills High and Low from the close), two years of them, volume 0.
        let flat: [PriceBar] = (0..<800).map { (i: Int) -> PriceBar in
            let c = 100 + Double(i % 3)
            return PriceBar(time: day - Int64(799 - i) * 86_400, open: 100, high: c, low: c, close: c, volume: 0)
        }
        let market = MarketData(daily: PriceSeries(name: "F", interval: .daily, bars: flat), intraday: nil, timeZone: .utc)
        let stats = market.stats()
        #expect(stats?.dayLow == nil && stats?.yearLow == nil && stats?.volume == nil, "\(String(describing: stats))")
        #expect(stats?.text(mode: .full, format: PriceFormat(), phrases: .english) == "")
        // Three months of real High/Low: the day's range, but no "52-week" range from 90 days.
        let short: [PriceBar] = (0..<90).map { (i: Int) -> PriceBar in
            PriceBar(time: day - Int64(89 - i) * 86_400, open: 100, high: 110, low: 90 - Double(i), close: 100, volume: 5)
        }
        let recent = MarketData(daily: PriceSeries(name: "S", interval: .daily, bars: short), intraday: nil, timeZone: .utc).stats()
        #expect(recent?.dayLow == 1 && recent?.dayHigh == 110 && recent?.yearLow == nil && recent?.volume == 5)
    }

    @Test("an intraday day on NYSE: the regular session's bars, not the pre-market print (by hand)")
    func intradayDay() throws {
        // Monday 7 December 2026: 08:00 EST pre-market (13:00 UTC, 1796648400) low 90; 09:30 EST
        // (1796653800) 100-105; 10:00 EST (1796655600) 101-108, last 107. Daily bars to Friday.
        let bars = [PriceBar(time: 1_796_648_400, open: 95, high: 96, low: 90, close: 95, volume: 1000),
                    PriceBar(time: 1_796_653_800, open: 101, high: 105, low: 100, close: 104, volume: 2000),
                    PriceBar(time: 1_796_655_600, open: 104, high: 108, low: 101, close: 107, volume: 3000)]
        let friday = CivilDate(year: 2026, month: 12, day: 4)!.unixTimeAtMidnightUTC
        let daily = [PriceBar(time: friday - 86_400, open: 98, high: 99, low: 97, close: 98, volume: 9),
                     PriceBar(time: friday, open: 98, high: 100, low: 96, close: 99, volume: 9)]
        var market = MarketData(daily: PriceSeries(name: "D", interval: .daily, bars: daily),
                                intraday: PriceSeries(name: "I", interval: .intraday(seconds: 1800), bars: bars), timeZone: Self.newYork,
                                calendar: ExchangeCalendar.xnys)
        let stats = try #require(market.stats())
        #expect(stats.day == CivilDate(year: 2026, month: 12, day: 7))
        #expect(stats.dayLow == 100 && stats.dayHigh == 108 && stats.volume == 5000 && stats.price == 107)
        #expect(stats.yearLow == nil)
        // Without a calendar nothing tells pre-market apart: the day is every bar of the date.
        market.calendar = nil
        #expect(market.stats()?.dayLow == 90)
    }

    @Test("short volumes in CLDR's short decimal forms (by hand from CLDR's patterns)")
    func compactNumbers() {
        let en = PriceFormat(), de = PriceFormat(currency: Currency(code: "EUR")!, locale: NumberLocale(identifier: "de-DE")!)
        func c(_ v: Double, _ f: PriceFormat = PriceFormat(), _ p: Phrases = .english) -> String { MarketStats.compact(v, format: f, phrases: p) }
        #expect(c(950) == "950")
        #expect(c(1_500, en) == "1.5K")
        #expect(c(19_730_300) == "19.7M")
        #expect(c(999_960_000) == "1B")
        #expect(c(2_345_678_901) == "2.35B")
        #expect(c(19_730_300, de, Phrases(locale: "de-DE")) == "19,7\u{A0}Mio.")
        #expect(c(19_730_300, en, Phrases(locale: "ja-JP")) == "1973万")
        #expect(c(5_000, en, Phrases(locale: "it-IT")) == "5000")
    }

    @Test("the clock: the wall's time, the exchange's with its zone, the next minute (Python's datetime)")
    func clockWords() {
        // 2026-12-07 15:32:10 UTC = 1796657530: 16:32 in Berlin (CET), 10:32 EST in New York.
        let berlin = CoreDriver.berlin
        let local = HeaderClock(mode: .local, now: 1_796_657_530, localZone: berlin, exchangeZone: Self.newYork)
        #expect(local.text == "16:32" && local.nextChange == 1_796_657_580)
        let exchange = HeaderClock(mode: .exchange, now: 1_796_657_530, localZone: berlin, exchangeZone: Self.newYork)
        #expect(exchange.text == "10:32 EST")
        #expect(HeaderClock(mode: .off, now: 1_796_657_530, localZone: berlin, exchangeZone: nil).text == nil)
        #expect(HeaderClock(mode: .local, now: 30, localZone: berlin, exchangeZone: nil, clockSet: false).text == nil)
        // German names CET's abbreviation MEZ.
        let de = HeaderClock(mode: .exchange, now: 1_796_657_530, localZone: berlin, exchangeZone: berlin, phrases: Phrases(locale: "de-DE"))
        #expect(de.text == "16:32 MEZ")
    }

    /// One instrument, idle, with the header's clock on or off: what the core does in `minutes`.
    static func idle(clock: ClockMode, minutes: Double) -> (driver: CoreDriver, wakes: Int, frames: Int) {
        var config = Config.watchlist(["A"]) {
            $0.cycleSeconds = 0
            $0.staleAfterSeconds = 36_500 * 86_400
            $0.clock = clock
        }
        config.burnInShift = 0
        let d = CoreDriver(config: config, localZone: CoreDriver.berlin, watchdogInterval: nil)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: CoreFixtures.threeDays("A", last: 102)))
        d.run(for: 10)
        let frames = d.presents.count
        var wakes = 0
        d.run(for: minutes * 60) { wakes += 1 }
        return (d, wakes, d.presents.count - frames)
    }

    @Test("the clock wakes an idle wall once a minute and redraws only itself (a count)")
    func clockWakesOncePerMinute() throws {
        let off = Self.idle(clock: .off, minutes: 10)
        let on = Self.idle(clock: .local, minutes: 10)
        // Ten minute boundaries pass in ten minutes: a wake-up and a frame each (and one wake-up
        // more at most, where the first minute's was asked for before the power check's own).
        #expect(on.wakes - off.wakes <= 11, "clock on \(on.wakes) wake-ups, off \(off.wakes)")
        #expect(on.frames - off.frames >= 9 && on.frames - off.frames <= 10, "frames on \(on.frames), off \(off.frames)")
        let model = try #require(on.driver.core.model)
        // CoreDriver starts at Unix 1796000000 (2026-11-30 01:53:20 CET) + 10 s + 600 s = 02:03:30.
        #expect(model.clock == "02:03")
        #expect(on.driver.presents.last?.value.fullCopy == false)
        // A minute's frame is the clock's ink, not the picture.
        let renderer = SceneRenderer()
        let plan = try #require(on.driver.presents.last?.value)
        renderer.render(model, at: plan.time)
        model.clock = "02:04"
        renderer.render(model, at: plan.time + 60)
        let whole = on.driver.display.width * on.driver.display.height
        let drawn = renderer.lastRedrawnRegions.reduce(0) { $0 + $1.width * $1.height }
        #expect(drawn > 0 && drawn < whole / 20, "the clock's frame drew \(drawn) of \(whole) pixels")
    }
}

/// The stats line and the clock on screen, through the daemon's core (what `render --config`
/// runs): Apple's real file on its last day, 1 March 2013 at 16:05 EST; goldens looked at.
@Suite("The stats line and the clock on screen")
struct StatsAndClockGoldenTests {
    /// Apple's real file on a wall configured with `extra`, drawn by the daemon's core on
    /// 2013-03-01 at 21:05 UTC = 16:05 EST (Python's datetime: 1362171900), on 1Y.
    static func appleWall(_ tag: String, size: (Int, Int), extra: String) throws -> (StillFrame.Request, StillFrame.Result) {
        let shared = try #require(TestPaths.shared, "../shared not found")
        let path = try NumbersOnTheWallTests.setUp(tag, files: [:]) { _ in
            "[data]\ndirectory = \(shared)/data\nstale-after = 36500d\n[instrument AAPL]\nname = Apple\n"
                + "daily = AAPL_daily_unadjusted_2000-03-01_2013-03-01.csv\nexchange = XNYS\ncurrency = USD\n" + extra
        }
        var request = StillFrame.Request(configPath: path, now: 1_362_171_900)
        request.show = ShowRequest(range: .oneYear)
        request.size = size
        return (request, try #require(StillFrame.render(request, fonts: try FontSet.load())))
    }

    @Test("Day, 52 weeks, volume and the exchange's time in the header",
          arguments: [("stats-clock-800x480.png", 800, 480), ("stats-clock-1920x1080.png", 1920, 1080)])
    func golden(name: String, width: Int, height: Int) throws {
        let (_, result) = try Self.appleWall("stats", size: (width, height), extra: "[chart]\nstats = full\nclock = exchange\n")
        #expect(result.status.clock == "16:05 EST")
        #expect(result.status.statsText == "Day 429.98–438.18 · 52 wk 429.98–705.07 (0%) · Vol 19.7M")
        #expect(result.status.dayLow == 429.98 && result.status.high52w == 705.07 && result.status.volume == 19_730_300)
        let check = ImageComparison.checkScreen(result.picture, golden: name)
        #expect(check.passed, "\(check.report)")
    }
}

/// Issue 52 item 7, the safe area on screen: `[display] safe-area = 5%` with the stats line, the
/// clock, a tape band and an alert banner, through the daemon's core and its `OutputScreen` onto a
/// headless display (what `render --config` runs); goldens looked at, and a count: not one pixel
/// in the margins differs from the background.
@Suite("The safe area on screen")
struct SafeAreaGoldenTests {
    @Test("everything inside 5 % of each side, the background to the edges",
          arguments: [("safe-area-800x480.png", 800, 480), ("safe-area-1920x1080.png", 1920, 1080)])
    func golden(name: String, width: Int, height: Int) throws {
        let (request, result) = try StatsAndClockGoldenTests.appleWall(
            "safe", size: (width, height),
            extra: "[display]\nsafe-area = 5%\n[chart]\nstats = full\nclock = exchange\n[tape]\nposition = bottom\n"
                + "[alert low]\ninstrument = AAPL\nbelow = 450\n")
        let picture = result.picture
        #expect(picture.width == width && picture.height == height)
        // The margins by hand: 5 % of each side, rounded (40 and 24 at 800x480, 96 and 54 at 1080p).
        let mx = Int((Double(width) * 0.05).rounded()), my = Int((Double(height) * 0.05).rounded())
        let background = ChartPalette.standard.background.argb
        func inkCount(_ picture: PixelBuffer) -> (outside: Int, inside: Int) {
            var outside = 0, inside = 0
            for y in 0..<height {
                for x in 0..<width {
                    let inMargin = x < mx || x >= width - mx || y < my || y >= height - my
                    if picture[x, y] != background { if inMargin { outside += 1 } else { inside += 1 } }
                }
            }
            return (outside, inside)
        }
        let (stray, drawn) = inkCount(picture)
        #expect(stray == 0, "\(stray) pixels of ink in the margins")
        #expect(drawn > width * height / 50, "nothing drawn inside: \(drawn)")
        // `render --config` with a tape draws the band at the crawl time asked for: inside the
        // margins too, never a second band at the screen's edge.
        var later = request
        later.at = 3
        let tape = try #require(StillFrame.render(later, fonts: try FontSet.load()))
        let band = try #require(tape.band)
        #expect(tape.time == 3)
        #expect(inkCount(tape.picture).outside == 0, "render --config's tape band in the margins")
        #expect(band.x0 == mx && band.x1 == width - mx && band.y1 <= height - my, "\(band)")
        #expect(result.status.statsText?.hasPrefix("Day 429.98–438.18") == true)
        let check = ImageComparison.checkScreen(picture, golden: name)
        #expect(check.passed, "\(check.report)")
    }
}
