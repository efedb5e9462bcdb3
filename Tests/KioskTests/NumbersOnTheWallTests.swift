import Chart
import Control
import CoreDriver
import Feed
import FoundationEssentials
@testable import Kiosk
@testable import KioskCore
import LinuxIO
import StatusModel
import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// Issue 48: the numbers the wall shows for files people really have, through the daemon's own
/// core (`StillFrame`, what `render --config` runs). Each expectation is computed by hand in its
/// comment, never by running our code.
@Suite("Numbers on the wall")
struct NumbersOnTheWallTests {
    /// Writes `files` and a config into a fresh directory; returns the config's path.
    static func setUp(_ tag: String, files: [String: String], config: (String) -> String) throws -> String {
        let dir = TestPaths.temporary("numbers-\(tag)")
        mkdir(dir, 0o755)
        for (name, text) in files { try AtomicFile.write(Array(text.utf8), to: dir + "/" + name) }
        try AtomicFile.write(Array(config(dir).utf8), to: dir + "/t.conf")
        return dir + "/t.conf"
    }

    static func status(_ path: String, now: Int64, range: ChartRange) throws -> KioskStatus {
        var request = StillFrame.Request(configPath: path, now: Double(now))
        request.show = ShowRequest(range: range)
        request.size = (640, 360)
        return try #require(StillFrame.render(request, fonts: try FontSet.load())).status
    }

    /// The issue's repro: hourly bars 09:30-17:30 written without an offset, Berlin wall clock,
    /// 2 Aug (Fri) at 4700 + hour and 5 Aug (Mon) at 4600 + hour. By hand: the previous close is
    /// Friday's 17:30 bar, 4717; the last price Monday's 17:30 bar, 4617; change -100.00, -2.12 %
    /// (100 / 4717 = 2.1200 %); "as of 17:30 CEST". (Read as UTC they were 4715, -98, 19:30.)
    @Test("offset-less intraday times are the exchange's wall clock: Friday's 17:30 close is the baseline, as of 17:30 CEST")
    func offsetlessTimesAreExchangeTime() throws {
        var rows = "Datetime,Open,High,Low,Close,Adj Close,Volume\n"
        for (day, base) in [("2024-08-02", 4700), ("2024-08-05", 4600)] {
            for h in 9...17 { rows += "\(day) \(h < 10 ? "0" : "")\(h):30:00,\(base + h),\(base + h),\(base + h),\(base + h),\(base + h),0\n" }
        }
        let path = try Self.setUp("naive", files: ["naive.csv": rows]) { dir in
            "[data]\ndirectory = \(dir)\n[instrument SX5E]\nintraday = naive.csv\ntime-zone = Europe/Berlin\ncurrency = none\n"
        }
        // 2024-08-05 18:00 CEST = 16:00 UTC = 1722873600 (Python: datetime(2024,8,5,16,0,tzinfo=timezone.utc)).
        let s = try Self.status(path, now: 1_722_873_600, range: .oneDay)
        #expect(s.baseline == 4717)
        #expect(s.price == 4617)
        #expect(s.changeText?.contains("100.00") == true && s.changeText?.contains("2.12%") == true, "\(s.changeText ?? "nil")")
        #expect(s.note?.contains("17:30 CEST") == true, "\(s.note ?? "nil")")
        #expect(s.intradayTimesZone == "Europe/Berlin")
        #expect(s.keyValueLines(only: KioskStatus.pictureKeys).contains("intraday_times_zone=Europe/Berlin\n"))
        // check-config says which zone it assumed, at the intraday line.
        let (config, _) = Config.load(path: path)
        let said = DataCheck.findings(in: config, file: path).map(\.text)
        #expect(said.contains { $0.contains("t.conf:4: intraday:") && $0.contains("no UTC offset") && $0.contains("Europe/Berlin") }, "\(said)")
    }

    /// Issue 48 item 7: a daily file kept fresh by cron has no fetcher's status beside it, and the
    /// chart never said whether the market was open. XNYS on Friday 1 March 2013 (a trading day,
    /// 09:30-16:00 EST): open at 11:00 (1362153600, Python's zoneinfo), after hours at 18:00
    /// (1362178800), closed on Saturday at 11:00 (1362240000) until Monday 09:30.
    @Test("a daily-only chart says whether its exchange is open, from the calendar", arguments: [
        (Int64(1_362_153_600), "open", "Open"), (1_362_178_800, "after-hours", "After hours"),
        (1_362_240_000, "closed", "Closed · opens Mon 09:30"),
    ])
    func dailyOnlyMarketState(now: Int64, state: String, note: String) throws {
        var rows = "Date,Open,High,Low,Close,Adj Close,Volume\n"
        for (i, day) in ["2013-02-25", "2013-02-26", "2013-02-27", "2013-02-28", "2013-03-01"].enumerated() {
            rows += "\(day),\(440 + i),\(445 + i),\(435 + i),\(441 + i),\(441 + i),1000\n"
        }
        let path = try Self.setUp("daily-\(state)", files: ["aapl.csv": rows]) { dir in
            "[data]\ndirectory = \(dir)\n[instrument AAPL]\ndaily = aapl.csv\nexchange = XNYS\n"
        }
        let s = try Self.status(path, now: now, range: .fiveDays)
        #expect(s.sessionState == state)
        #expect(s.note?.hasSuffix(note) == true, "\(s.note ?? "nil")")  // 5D from daily bars says so first
    }
}

/// Issue 48 items 3 and 4 and the property: one price and one day change per instrument, said
/// alike by `ctl instruments` (and so the bridge), the status file, the header on 1D and the tape.
/// The expectation is a model written here, not our code: on New York days with bars inside the
/// regular session only, the price is the newest of the two files (a daily close counts when its
/// date is later than the intraday file's last day); the previous close is the daily close before
/// the price's day, else the intraday file's last bar of the session before.
@Suite("One price, one day change")
struct OneDayChangeTests {
    struct Listed: Decodable { var id: String; var price: Double?; var change: Double?; var previous_close: Double? }
    struct Listing: Decodable { var instruments: [Listed] }

    static let york = try! ExchangeTimeZone(identifier: "America/New_York")
    /// Weekdays of June 2026 that XNYS trades (19 June, Juneteenth, is a holiday).
    static let days: [CivilDate] = (1...30).map { CivilDate(year: 2026, month: 6, day: $0)! }
        .filter { !$0.weekday.isWeekend && $0.day != 19 }

    struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        mutating func price() -> Double { Double(5000 + next(10_000)) / 100 }
    }

    /// Daily bars on `count` days ending at day index `end`; intraday bars of `sessions` sessions
    /// ending at `intradayEnd`, every 30 min from 09:30 to 15:30.
    static func data(_ g: inout Generator, dailyEnd: Int?, intradayEnd: Int?) -> (PriceSeries?, PriceSeries?) {
        var daily: PriceSeries?
        if let end = dailyEnd {
            let bars = days[max(0, end - 8)...end].map { d -> PriceBar in
                let v = g.price(); return PriceBar(time: d.unixTimeAtMidnightUTC, open: v, high: v, low: v, close: v)
            }
            daily = PriceSeries(name: "d", interval: .daily, bars: bars)
        }
        var intraday: PriceSeries?
        if let end = intradayEnd {
            var bars: [PriceBar] = []
            for d in days[max(0, end - 2)...end] {
                for slot in 0..<(1 + g.next(13)) {
                    let m = 9 * 60 + 30 + 30 * slot
                    let t = york.unixTime(for: CivilDateTime(date: d, hour: m / 60, minute: m % 60)!)
                    let v = g.price()
                    bars.append(PriceBar(time: t, open: v, high: v, low: v, close: v))
                }
            }
            intraday = PriceSeries(name: "i", interval: .intraday(seconds: 1800), bars: bars)
        }
        return (daily, intraday)
    }

    /// The model: (price, previous close) by the rules above.
    static func expected(daily: PriceSeries?, intraday: PriceSeries?) -> (Double, Double?) {
        let dLast = daily?.bars.last, iLast = intraday?.bars.last
        let iDay = iLast.map { york.localDate(atUnixTime: $0.time) }
        let useDaily = dLast != nil && (iDay == nil || CivilDate(unixTime: dLast!.time) > iDay!)
        if useDaily {
            let bars = daily!.bars
            return (bars.last!.close, bars.count >= 2 ? bars[bars.count - 2].close : nil)
        }
        let day = iDay!
        if let before = daily?.bars.last(where: { CivilDate(unixTime: $0.time) < day }) { return (iLast!.close, before.close) }
        let earlier = intraday!.bars.last { york.localDate(atUnixTime: $0.time) < day }
        return (iLast!.close, earlier?.close)
    }

    @Test("for random instruments (daily-only, intraday-only, both, either one stale) ctl, status, the 1D header, a 1D tile, the tape and the alerts agree with the model")
    func property() throws {
        var g = Generator(state: 48)
        for round in 0..<40 {
            let ids = ["A", "B", "C"]
            let config = Config.watchlist(ids) { c in
                c.instrumentCycleSeconds = 0
                c.cycleSeconds = 0
                c.tapePosition = .bottom
            }
            let d = CoreDriver(config: config)
            d.send(.start)
            var model: [String: (Double, Double?)] = [:]
            for id in ids {
                let kind = g.next(5)   // 0 daily, 1 intraday, 2 both, 3 intraday stale, 4 daily stale
                let last = 10 + g.next(Self.days.count - 10)
                let (daily, intraday) = Self.data(&g, dailyEnd: kind == 1 ? nil : kind == 3 ? last : kind == 4 ? last - 3 : last,
                                                  intradayEnd: kind == 0 ? nil : kind == 3 ? last - 2 : last)
                if let daily { d.send(.series(instrumentID: id, slot: .daily, series: daily)) }
                if let intraday { d.send(.series(instrumentID: id, slot: .intraday, series: intraday)) }
                model[id] = Self.expected(daily: daily, intraday: intraday)
            }
            d.run(for: 3)
            guard case .ok(let json?)? = askOnce(d, .instruments) else { Issue.record("instruments"); return }
            let listed = try JSONDecoder().decode(Listing.self, from: Data(json.utf8)).instruments
            let tape = d.core.tapeEntries().map { TapeItem(entry: $0, palette: config.palette, options: config.rangeOptions) }
            for (i, id) in ids.enumerated() {
                let (price, previous) = try #require(model[id])
                let item = try #require(listed.first { $0.id == id })
                #expect(item.price == price, "round \(round) \(id): ctl price \(String(describing: item.price)), model \(price)")
                #expect(item.previous_close == previous, "round \(round) \(id): ctl previous close \(String(describing: item.previous_close)), model \(String(describing: previous))")
                // (ctl writes 6 decimals)
                #expect(abs((item.change ?? .infinity) - (previous.map { price - $0 } ?? .infinity)) < 1e-6 || (item.change == nil && previous == nil),
                        "round \(round) \(id): ctl change \(String(describing: item.change))")
                // The status file, whatever range is shown, and the header on 1D (drawable or not).
                _ = askOnce(d, .show(instrument: id, range: nil))
                d.run(for: 2)
                let s = d.core.status()
                #expect(s.lastPrice == price && s.previousClose == previous && s.dayChange == previous.map { price - $0 }, "round \(round) \(id): status")
                let market = d.core.model!.instrument.market
                let day = RangeSummary(selection: market.points(for: .oneDay, options: config.rangeOptions))
                if previous != nil { #expect(day?.last == price && day?.first == previous, "round \(round) \(id): 1D header") }
                // The alerts judge the same day: their observation's price and previous close.
                let seen = Alerts.observation(daily: market.daily, intraday: market.intraday, field: .close, zone: Self.york,
                                              calendar: ExchangeCalendar.named("XNYS"), at: 1_796_000_000)
                #expect(seen?.price == ExactDecimal(shortest: price), "round \(round) \(id): alert price")
                #expect(seen?.previousClose == previous.flatMap { ExactDecimal(shortest: $0) }, "round \(round) \(id): alert previous close")
                // Every range ends at that price (1M from daily bars too).
                if market.daily != nil {
                    #expect(market.points(for: .oneMonth, options: config.rangeOptions).points.last?.value == price, "round \(round) \(id): 1M ends elsewhere")
                }
                // The tape says the same words as the 1D header's labels.
                let header = d.core.model!.instrument.labels(for: market.points(for: .oneDay, options: config.rangeOptions), palette: config.palette)
                if previous != nil { #expect(tape[i].change == header.change, "round \(round) \(id): tape \(tape[i].change), 1D header \(header.change)") }
                // A watchlist tile on 1D says the same price and change (on other ranges its title names the range).
                let tile = WatchlistTileContent(entry: d.core.tapeEntries()[i], range: .oneDay, palette: config.palette)
                #expect(tile.price == tape[i].price, "round \(round) \(id): tile \(tile.price), tape \(tape[i].price)")
                if previous != nil { #expect(tile.change == tape[i].change, "round \(round) \(id): tile \(tile.change), tape \(tape[i].change)") }
            }
        }
    }
}

/// Issue 48 item 5. By hand: USDEUR 0.90 on 1-2 Jun 2020 and 0.92 on 1-2 Jun 2026; OLD (10 shares)
/// closed 100 then 99 on 1-2 Jun 2020 and its data stopped; NEW (10 shares) closed 100 then 99 on
/// 1-2 Jun 2026. At 2 Jun 2026 20:00 UTC (1780430400): each is worth 10 × 99 × 0.92 = 910.80 EUR.
/// OLD is stale (six years past stale-after): no day gain (it was 910.80 − 10 × 100 × 0.90 = +10.80,
/// six years of the dollar shown as today's gain). NEW: 10 × (99 − 100) × 0.92 = −9.20 at one rate.
/// Day gain −9.20 over the previous value 910.80 + 920.00 = 1830.80: −0.5025 % → −0.50. No cost was
/// given: no portfolio_cost and total_gain lines (they printed 0.00).
@Suite struct StaleHoldingTests {
    @Test("a holding whose data stopped adds no day gain and is named stale; a day's gain is at one rate; no cost, no cost lines")
    func staleHolding() throws {
        let text = "[portfolio]\ncurrency = EUR\n[instrument OLD]\ndaily = old.csv\ncurrency = USD\nquantity = 10\n"
            + "[instrument NEW]\ndaily = new.csv\ncurrency = USD\nquantity = 10\n[fx USDEUR]\ndaily = usdeur.csv\n"
        let (config, issues) = Config.parse(text, file: "p.conf")
        #expect(!issues.contains { $0.severity == .error }, "\(issues)")
        func daily(_ rows: [(Int, Int, Int, Double)]) -> PriceSeries {
            PriceSeries(name: "x", interval: .daily, bars: rows.map { y, m, d, v in
                PriceBar(time: CivilDate(year: y, month: m, day: d)!.unixTimeAtMidnightUTC, open: v, high: v, low: v, close: v)
            })
        }
        let portfolio = Portfolio(config: config,
                                  daily: ["OLD": daily([(2020, 6, 1, 100), (2020, 6, 2, 99)]),
                                          "NEW": daily([(2026, 6, 1, 100), (2026, 6, 2, 99)])],
                                  rates: ["USDEUR": daily([(2020, 6, 1, 0.90), (2020, 6, 2, 0.90), (2026, 6, 1, 0.92), (2026, 6, 2, 0.92)])])
        let f = try #require(portfolio.figures(at: 1_780_430_400))
        let lines = Portfolio.keyValueLines(f, show: .value)
        for expected in ["portfolio_value=1821.60\n", "day_gain=-9.20\n", "day_gain_percent=-0.50\n", "position.OLD.value_home=910.80\n",
                         "position.OLD.day_gain_home=-\n", "position.NEW.day_gain_home=-9.20\n", "portfolio_stale=OLD\n"] {
            #expect(lines.contains(expected), "\(expected) not in \(lines)")
        }
        #expect(!lines.contains("portfolio_cost=") && !lines.contains("total_gain="), "\(lines)")
    }
}

/// Issue 48 item 11: on a German wall `below = 20.400` is read as 20.4 and never fires.
@Suite struct ImplausibleLevelTests {
    @Test("check-config warns about an alert level 50 times the last price or a fiftieth of it, at its line")
    func implausibleLevel() throws {
        let rows = "Date,Open,High,Low,Close,Adj Close,Volume\n2026-06-01,20410,20500,20300,20412.5,20412.5,1\n"
        let path = try NumbersOnTheWallTests.setUp("level", files: ["dax.csv": rows]) { dir in
            "[data]\ndirectory = \(dir)\n[instrument DAX]\ndaily = dax.csv\nexchange = XETR\n"
                + "[alert dax-low]\ninstrument = DAX\nbelow = 20.400\n[alert dax-high]\ninstrument = DAX\nabove = 21000\n"
        }
        let (config, _) = Config.load(path: path)
        let said = DataCheck.findings(in: config, file: path).map(\.text)
        // 20412.5 / 20.4 = 1000.6: "1/1001"; 21000 is a plausible level and says nothing.
        #expect(said.contains { $0.contains("t.conf:8: below: [alert dax-low] below = 20.4 is 1/1001 of DAX's last price 20412.5") }, "\(said)")
        #expect(!said.contains { $0.contains("dax-high") })
    }
}

/// Issue 51: `render --config` painted plans with a hand copy of the daemon's present path and
/// dropped the alert banner (37,119 pixels differed, all in the banner band) and the plan's level.
/// It now hands every plan to the daemon's own `OutputScreen`.
@Suite struct OnePresentPathTests {
    @Test("render --config draws the alert banner the daemon shows, above the tape band")
    func bannerDrawn() throws {
        var rows = "Datetime,Open,High,Low,Close,Adj Close,Volume\n"
        for (day, base) in [("2024-08-02", 4700), ("2024-08-05", 4600)] {
            for h in 9...17 { rows += "\(day) \(h < 10 ? "0" : "")\(h):30:00,\(base + h),\(base + h),\(base + h),\(base + h),\(base + h),0\n" }
        }
        func light(_ alert: String) throws -> Int {
            let path = try NumbersOnTheWallTests.setUp("banner\(alert.count)", files: ["naive.csv": rows]) { dir in
                "[data]\ndirectory = \(dir)\n[instrument SX5E]\nintraday = naive.csv\ntime-zone = Europe/Berlin\ncurrency = none\n"
                    + "[tape]\nposition = bottom\n" + alert
            }
            var request = StillFrame.Request(configPath: path, now: 1_722_872_700)  // 2024-08-05 17:45 CEST
            request.size = (800, 480)
            let picture = try #require(StillFrame.render(request, fonts: try FontSet.load())).picture
            // Light pixels (the banner's pale band) between the chart and the tape band.
            var n = 0
            for y in 400..<448 { for x in 0..<800 where picture.pixels[y * picture.stride + x] & 0xFF > 0x90 { n += 1 } }
            return n
        }
        let without = try light("")
        let with = try light("[alert sx-low]\ninstrument = SX5E\nbelow = 4650\nbanner = 1h\n")
        #expect(without < 500, "\(without) light pixels without an alert")
        #expect(with > 20_000, "\(with) light pixels with the banner")
    }
}

/// `command` to the core and the one answer it got.
private func askOnce(_ d: CoreDriver, _ command: ControlCommand, id: UInt64 = 7) -> ControlReply? {
    let answers = d.answers(to: command, id: id)
    #expect(answers.count == 1, "\(command): \(answers.count) answers")
    return answers.first?.reply
}
