// Real prices: Apple daily 2000-03-01..2013-03-01 from the Quandl WIKI archive (public domain),
// kept outside the repository in ../shared/data. Facts checked here are listed in the .md beside it.

import Testing

@testable import Feed

@Suite struct RealDataTests {
    static let fileName = "AAPL_daily_unadjusted_2000-03-01_2013-03-01.csv"

    static func load(_ field: PriceField = .close) throws -> (PriceSeries, ParseReport) {
        let directory = try #require(TestFiles.sharedDataDirectory, "shared/data not found above \(#filePath)")
        return try YahooCSV.load(path: directory + "/" + fileName, priceField: field)
    }

    static func close(on day: CivilDate, in series: PriceSeries) -> Double? {
        series.bars.first { $0.time == day.unixTimeAtMidnightUTC }?.close
    }

    /// One-day change of the series' chosen price field, in percent, for the bar on `day`.
    static func change(on day: CivilDate, in series: PriceSeries) -> Double? {
        let index = series.firstIndex(atOrAfter: day.unixTimeAtMidnightUTC)
        guard index > 0, index < series.count, series.bars[index].time == day.unixTimeAtMidnightUTC else { return nil }
        let field = series.priceField
        return (series.bars[index].price(field) / series.bars[index - 1].price(field) - 1) * 100
    }

    @Test("parses every row") func parsesEveryRow() throws {
        let (series, report) = try Self.load()
        #expect(report.isClean && report.duplicateRows == 0)
        #expect(series.count == 3270)
        #expect(series.interval == .daily)
        #expect(series.name == "AAPL_daily_unadjusted_2000-03-01_2013-03-01")
        #expect(series.first?.time == date(2000, 3, 1).unixTimeAtMidnightUTC)
        #expect(series.last?.time == date(2013, 3, 1).unixTimeAtMidnightUTC)
        #expect(
            series.first
                == PriceBar(
                    time: date(2000, 3, 1).unixTimeAtMidnightUTC,
                    open: 118.56,
                    high: 132.06,
                    low: 118.5,
                    close: 130.31,
                    adjustedClose: 4.186662803811,
                    volume: 9_616_100
                )
        )
        #expect(series.hasOnlyFinitePrices)
        let closes = series.prices()
        #expect(closes.min() == 13.12 && closes.max() == 702.10)
        #expect(Self.close(on: date(2003, 4, 17), in: series) == 13.12)
        #expect(Self.close(on: date(2012, 9, 19), in: series) == 702.10)
        #expect(series.bars.compactMap(\.volume).reduce(0, +) == 60_894_142_600)
    }

    @Test("splits and the crash are present as data") func splitsAndTheCrashArePresentAsData() throws {
        let (series, _) = try Self.load()
        // The two 2:1 splits, unadjusted: the close roughly halves.
        #expect(Self.close(on: date(2000, 6, 20), in: series) == 101.25)
        #expect(Self.close(on: date(2000, 6, 21), in: series) == 55.63)
        #expect(Self.close(on: date(2005, 2, 25), in: series) == 88.99)
        #expect(Self.close(on: date(2005, 2, 28), in: series) == 44.86)
        #expect(abs(Self.change(on: date(2000, 6, 21), in: series)! - -45.06) < 0.01)
        #expect(abs(Self.change(on: date(2005, 2, 28), in: series)! - -49.59) < 0.01)
        // The real crash of 2000-09-29 (a profit warning), not a split.
        #expect(abs(Self.change(on: date(2000, 9, 29), in: series)! - -51.87) < 0.01)
        // Nothing else falls by more than 30 % in a day.
        var bigDrops: [CivilDate] = []
        for index in 1..<series.count where series.bars[index].close / series.bars[index - 1].close < 0.7 {
            bigDrops.append(CivilDate(unixTime: series.bars[index].time))
        }
        #expect(bigDrops == [date(2000, 6, 21), date(2000, 9, 29), date(2005, 2, 28)])
    }

    @Test("adjusted closes remove the splits but not the crash") func adjustedClosesRemoveTheSplitsButNotTheCrash() throws {
        let (series, _) = try Self.load(.adjustedClose)
        #expect(series.priceField == .adjustedClose)
        #expect(abs(Self.change(on: date(2000, 6, 21), in: series)! - 9.89) < 0.01)
        #expect(abs(Self.change(on: date(2005, 2, 28), in: series)! - 0.82) < 0.01)
        #expect(abs(Self.change(on: date(2000, 9, 29), in: series)! - -51.87) < 0.01)
        // Close / Adj Close ratio: ~31.1 before the first split, ~15.6 between, 7.67 at the end.
        let ratios = series.bars.map { $0.close / $0.adjustedClose! }
        #expect(abs(ratios[0] - 31.1) < 0.1)
        let between = series.firstIndex(atOrAfter: date(2005, 2, 25).unixTimeAtMidnightUTC)
        #expect(abs(ratios[between] - 15.6) < 0.1)
        #expect(abs(ratios[ratios.count - 1] - 7.67) < 0.01)
    }

    /// Every NYSE trading day in the range has a bar and no bar falls on a closed day; that checks
    /// the calendar against 13 years of real sessions, including 9/11, Reagan's and Ford's funerals
    /// and Hurricane Sandy.
    @Test("bars are exactly the NYSE trading days") func barsAreExactlyTheNYSETradingDays() throws {
        let (series, _) = try Self.load()
        let dates = series.bars.map { CivilDate(unixTime: $0.time) }
        let expected = NYSECalendar.tradingDays(from: date(2000, 3, 1), through: date(2013, 3, 1))
        let missing = Set(expected).subtracting(dates).sorted()
        let extra = Set(dates).subtracting(expected).sorted()
        #expect(missing == [])
        #expect(extra == [])
        #expect(expected.count == 3270)
        // The documented closures show as gaps.
        for (before, after) in [
            (date(2001, 9, 10), date(2001, 9, 17)), (date(2006, 12, 29), date(2007, 1, 3)),
            (date(2012, 10, 26), date(2012, 10, 31)),
        ] {
            let index = dates.firstIndex(of: before)
            #expect(index.map { dates[$0 + 1] } == after)
        }
    }
}
