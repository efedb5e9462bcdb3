import Chart
import Feed
import TestSupport
import Testing

@Suite("Calendar ranges")
struct RangeTests {
    private func daily(_ dates: [(Int, Int, Int)], values: [Double]? = nil) -> PriceSeries {
        let bars = dates.enumerated().map { i, d in
            let t = CivilDate(year: d.0, month: d.1, day: d.2)!.unixTimeAtMidnightUTC
            let v = values?[i] ?? Double(100 + i)
            return PriceBar(time: t, open: v, high: v, low: v, close: v, adjustedClose: v / 2, volume: 1)
        }
        return PriceSeries(name: "T", interval: .daily, bars: bars)
    }

    @Test("1M goes back one calendar month from the newest day, clamped to month ends")
    func oneMonthFromMonthEnd() throws {
        let series = daily([(2024, 2, 28), (2024, 2, 29), (2024, 3, 1), (2024, 3, 15), (2024, 3, 29), (2024, 3, 31)])
        let market = MarketData(daily: series, intraday: nil, timeZone: .utc)
        let points = market.points(for: .oneMonth).points
        // One month before 31 March 2024 is 29 February (leap year).
        #expect(points.first?.time == CivilDate(year: 2024, month: 2, day: 29)!.unixTimeAtMidnightUTC)
        #expect(points.count == 5)
    }

    @Test("1Y and 5Y take whole calendar years; Adj Close can be chosen")
    func yearsAndAdjusted() {
        var dates: [(Int, Int, Int)] = []
        for y in 2015...2024 { dates.append((y, 6, 14)); dates.append((y, 12, 31)) }
        let series = daily(dates)
        let market = MarketData(daily: series, intraday: nil, timeZone: .utc)
        // From 2023-12-31 (inclusive): 2023-12-31, 2024-06-14, 2024-12-31.
        #expect(market.points(for: .oneYear).points.count == 3)
        #expect(market.points(for: .oneYear).points.first?.time == CivilDate(year: 2023, month: 12, day: 31)!.unixTimeAtMidnightUTC)
        // From 2019-12-31: that day plus two bars a year for 2020...2024.
        #expect(market.points(for: .fiveYears).points.count == 11)
        let adjusted = MarketData(daily: series, intraday: nil, timeZone: .utc, priceField: .adjustedClose)
        #expect(adjusted.points(for: .oneYear).points.last?.value == series.bars.last!.close / 2)
    }

    @Test("1D and 5D are the last sessions of intraday bars in the exchange's time zone")
    func intradaySessions() throws {
        let newYork = try ExchangeTimeZone(identifier: "America/New_York")
        var bars: [PriceBar] = []
        // Three sessions, 09:30-15:59 local, one bar an hour.
        for day in [25, 26, 27] {
            for hour in 9...15 {
                let local = CivilDateTime(year: 2026, month: 11, day: day, hour: hour, minute: 30)!
                let t = newYork.unixTime(for: local)
                bars.append(PriceBar(time: t, open: 1, high: 1, low: 1, close: Double(day), adjustedClose: nil, volume: nil))
            }
        }
        let market = MarketData(daily: nil, intraday: PriceSeries(name: "T", interval: .intraday(seconds: 3600), bars: bars),
                                timeZone: newYork)
        let oneDay = market.points(for: .oneDay)
        #expect(oneDay.points.count == 7)
        #expect(oneDay.points.allSatisfy { $0.value == 27 })
        #expect(!oneDay.usesDailyFallback)
        #expect(market.points(for: .fiveDays).points.count == 21)
    }

    @Test("24/7: 1D is the last 24 hours and 5D the last 120, not calendar days; the change is over 24 h")
    func aroundTheClockRollingWindows() throws {
        // Five-minute bars from 1 Dec 00:00 UTC to 4 Dec 02:45 UTC; the value is the bar's index.
        let t0 = CivilDate(year: 2026, month: 12, day: 1)!.unixTimeAtMidnightUTC
        let newest = CivilDate(year: 2026, month: 12, day: 4)!.unixTimeAtMidnightUTC + 2 * 3600 + 45 * 60
        let bars = stride(from: t0, through: newest, by: 300).enumerated().map { i, t in
            PriceBar(time: t, open: Double(i), high: Double(i), low: Double(i), close: Double(i))
        }
        let market = MarketData(daily: nil, intraday: PriceSeries(name: "BTC", interval: .intraday(seconds: 300), bars: bars),
                                timeZone: .utc, calendar: .alwaysOpen)
        let day = market.points(for: .oneDay)
        // From the price 24 h ago (a bar falls exactly there) to the newest: 24 × 12 + 1 points.
        #expect(day.points.count == 289)
        #expect(day.points.first?.time == newest - 86_400)
        #expect(day.points.last?.time == newest)
        #expect(day.baselineValue == Double(bars.count - 289))
        #expect(day.baselineKind == .first)
        #expect(day.sessionStarts.isEmpty)
        // 5D asks for more than there is: everything, with the midnights of 2, 3 and 4 December marked.
        let five = market.points(for: .fiveDays)
        #expect(five.points.count == bars.count)
        #expect(five.sessionStarts == [1, 2, 3].map { t0 + Int64($0) * 86_400 })
        // Between bars the window opens on the last price before its start.
        let sparse = MarketData(daily: nil, intraday: PriceSeries(name: "BTC", interval: .intraday(seconds: 300),
                                                                  bars: bars.filter { ($0.time - t0) % 3600 == 0 || $0.time == newest }),
                                timeZone: .utc, calendar: .alwaysOpen)
        let opening = try #require(sparse.points(for: .oneDay).points.first)
        #expect(opening.time == newest - 86_400 - 45 * 60)
        // The same bars on an exchange's calendar stay the calendar day (the sliver, which is right there).
        let exchange = MarketData(daily: nil, intraday: PriceSeries(name: "X", interval: .intraday(seconds: 300), bars: bars),
                                  timeZone: .utc)
        #expect(exchange.points(for: .oneDay).points.count == 34)
    }

    @Test("from minute bars alone the previous close is the closing auction's print, not the last continuous bar")
    func previousCloseIsTheAuctionPrint() throws {
        let berlin = try ExchangeTimeZone(identifier: "Europe/Berlin")
        let xetra = try #require(ExchangeCalendar.named("XETR"))
        func at(_ day: Int, _ h: Int, _ m: Int, _ v: Double) -> PriceBar {
            let t = berlin.unixTime(for: CivilDateTime(year: 2026, month: 11, day: day, hour: h, minute: m)!)
            return PriceBar(time: t, open: v, high: v, low: v, close: v)
        }
        // Thursday: continuous trading to 17:29, the auction's print at 17:35, then after-hours at 18:00
        let bars = [at(26, 9, 0, 100), at(26, 17, 29, 101), at(26, 17, 35, 102.5), at(26, 18, 0, 99),
                    at(27, 9, 0, 103), at(27, 10, 0, 104)]
        let market = MarketData(daily: nil, intraday: PriceSeries(name: "SAP", interval: .intraday(seconds: 60), bars: bars),
                                timeZone: berlin, calendar: xetra)
        let day = market.points(for: .oneDay)
        #expect(day.baselineKind == .previousClose)
        #expect(day.baseline == 102.5)
        // New York's closing cross is at 16:00: nothing is made after the close there.
        #expect(ExchangeCalendar.named("XNYS")?.closingPrintSeconds == 0)
        #expect(xetra.closingPrintSeconds == 420)
        #expect(ExchangeCalendar.alwaysOpen.closingPrintSeconds == 0)
    }

    /// Issue 48 item 2. Yahoo stamps a bar with its start (its 15-minute bar "15:45" is 15:45-16:00),
    /// so the bar stamped 16:00 is after-hours trading (16:00-16:15) and the 15:45 bar's close is the
    /// session's. Expected by hand: previous close 100, today 101, change +1.00 (+1.00 %).
    @Test("New York: the first post-market bar (stamped 16:00, Yahoo's bar start) is not the previous close, whatever extended-hours says",
          arguments: [ExtendedHoursDisplay.hide, .dim, .show])
    func newYorkPostMarketIsNotTheClose(mode: ExtendedHoursDisplay) throws {
        let york = try ExchangeTimeZone(identifier: "America/New_York")
        let nasdaq = try #require(ExchangeCalendar.named("XNAS"))
        func at(_ day: Int, _ h: Int, _ m: Int, _ v: Double) -> PriceBar {
            PriceBar(time: york.unixTime(for: CivilDateTime(year: 2026, month: 6, day: day, hour: h, minute: m)!), open: v, high: v, low: v, close: v)
        }
        let bars = [at(2, 15, 30, 100), at(2, 15, 45, 100), at(2, 16, 0, 99), at(2, 16, 15, 98), at(3, 9, 30, 101)]
        let market = MarketData(daily: nil, intraday: PriceSeries(name: "US", interval: .intraday(seconds: 900), bars: bars),
                                timeZone: york, calendar: nasdaq)
        let day = market.points(for: .oneDay, options: RangeOptions(extendedHours: mode))
        #expect(day.baselineKind == .previousClose)
        #expect(day.baseline == 100)
        #expect(day.points.last?.value == 101)
    }

    @Test("without intraday data 1D and 5D fall back to daily bars and say so")
    func dailyFallback() {
        let series = daily([(2024, 3, 1), (2024, 3, 4), (2024, 3, 5), (2024, 3, 6), (2024, 3, 7), (2024, 3, 8), (2024, 3, 11)])
        let market = MarketData(daily: series, intraday: nil, timeZone: .utc)
        let oneDay = market.points(for: .oneDay)
        #expect(oneDay.usesDailyFallback)
        #expect(oneDay.points.count == 2)
        #expect(market.points(for: .fiveDays).points.count == 6)
    }

    @Test("range labels parse case-insensitively and reject others")
    func labels() {
        #expect(ChartRange(label: "1y") == .oneYear)
        #expect(ChartRange(label: "5D") == .fiveDays)
        #expect(ChartRange(label: "ytd") == .yearToDate && ChartRange(label: "Max") == .max)
        #expect(ChartRange(label: "2W") == nil)
        // YTD and MAX are asked for by name: the default offer stays the six.
        #expect(ChartRange.standard.map(\.rawValue) == ["1D", "5D", "1M", "6M", "1Y", "5Y"])
        #expect(ChartRange.labels == "1D 5D 1M 6M YTD 1Y 5Y MAX")
    }

    /// Issue 52 item 1. Expected values by a Python script over the same file (csv module: the last
    /// row of 2012 is the baseline, the rows of 2013 follow; MAX is every row):
    ///   YTD first 2012-12-31 532.1729, 42 points, last 430.47, change -101.7029 (-19.1109 %)
    ///   MAX 3270 points from 2000-03-01 130.31, change +300.16
    ///   rows from 2013-01-15 only: YTD starts at that row (485.92), 32 points
    @Test("YTD starts at the previous year's last close and MAX at the first bar (real Apple closes)")
    func yearToDateAndMax() throws {
        let shared = try #require(TestPaths.shared, "../shared not found")
        let (series, _) = try YahooCSV.load(path: shared + "/data/AAPL_daily_unadjusted_2000-03-01_2013-03-01.csv", priceField: .close)
        let market = MarketData(daily: series, intraday: nil, timeZone: .utc)
        let ytd = market.points(for: .yearToDate)
        #expect(ytd.points.count == 42)
        #expect(ytd.points.first?.time == CivilDate(year: 2012, month: 12, day: 31)!.unixTimeAtMidnightUTC)
        #expect(ytd.points.first?.value == 532.1729)
        #expect(ytd.points.last?.value == 430.47)
        let ytdChange = try #require(ytd.points.last?.value) - (ytd.baselineValue ?? 0)
        #expect(abs(ytdChange - -101.7029) < 1e-9)
        let max = market.points(for: .max)
        #expect(max.points.count == 3270)
        #expect(max.points.first?.value == 130.31)
        #expect(abs(try #require(max.points.last?.value) - (max.baselineValue ?? 0) - 300.16) < 1e-9)
        // A file that begins in the year: YTD from its first row.
        let late = PriceSeries(name: "late", interval: .daily,
                               bars: series.bars.filter { $0.time >= CivilDate(year: 2013, month: 1, day: 15)!.unixTimeAtMidnightUTC })
        let lateYTD = MarketData(daily: late, intraday: nil, timeZone: .utc).points(for: .yearToDate)
        #expect(lateYTD.points.count == 32 && lateYTD.points.first?.value == 485.92)
        // Both are drawable ranges, and on 2 January the YTD line has two points: the old year's last close and today.
        #expect(market.drawableRanges(of: [.yearToDate, .max]) == [.yearToDate, .max])
        let jan2 = daily([(2012, 12, 28), (2012, 12, 31), (2013, 1, 2)], values: [10, 11, 12])
        let early = MarketData(daily: jan2, intraday: nil, timeZone: .utc).points(for: .yearToDate)
        #expect(early.points.map(\.value) == [11, 12])
    }
}

/// Issue 48: a `move` alert on an instrument with minute bars only had no previous close and never
/// fired. By hand, as the 1D chart: New York's 15:45 bar (100) is the close; 16:00 (99) after-hours.
@Suite struct AlertPreviousCloseTests {
    @Test("an alert's previous close from minute bars alone is the session's last print before the close")
    func intradayOnly() throws {
        let york = try ExchangeTimeZone(identifier: "America/New_York")
        func at(_ day: Int, _ h: Int, _ m: Int, _ v: Double) -> PriceBar {
            PriceBar(time: york.unixTime(for: CivilDateTime(year: 2026, month: 6, day: day, hour: h, minute: m)!), open: v, high: v, low: v, close: v)
        }
        let series = PriceSeries(name: "US", interval: .intraday(seconds: 900),
                                 bars: [at(2, 15, 30, 100), at(2, 15, 45, 100), at(2, 16, 0, 99), at(3, 9, 30, 101)])
        let o = try #require(Alerts.observation(daily: nil, intraday: series, field: .close, zone: york,
                                                calendar: ExchangeCalendar.named("XNAS"), at: at(3, 10, 0, 0).time))
        #expect(o.price == ExactDecimal(101) && o.previousClose == ExactDecimal(100))
        // Without a calendar the day's last print is all that is known.
        #expect(Alerts.observation(daily: nil, intraday: series, field: .close, zone: york, at: at(3, 10, 0, 0).time)?.previousClose == ExactDecimal(99))
    }
}
