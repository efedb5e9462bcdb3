import Chart
import Feed
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
        #expect(ChartRange(label: "2W") == nil)
    }
}
