import Testing

@testable import Feed

@Suite struct SampleMarketTests {
    static var assetsDirectory: String { TestFiles.repositoryRoot + "/assets/sample" }
    static let dailyFile = "TBSC.daily.csv"
    static let intradayFile = "TBSC.intraday.csv"

    /// The checked-in CSVs are the generator's output, byte for byte, and parse back to the same
    /// series. To refresh them after a deliberate generator change:
    /// `TB_REGENERATE_SAMPLE=1 swift test --disable-xctest --filter SampleMarketTests`.
    /// (One test, so regenerating cannot race with the comparison.)
    @Test("checked in files match the generator and parse back") func checkedInFilesMatchTheGeneratorAndParseBack() throws {
        let files = [
            (Self.dailyFile, SampleMarket.dailyCSV(), SampleMarket.daily()),
            (Self.intradayFile, SampleMarket.intradayCSV(), SampleMarket.intraday()),
        ]
        if TestFiles.environment("TB_REGENERATE_SAMPLE") == "1" {
            for (name, text, _) in files {
                #expect(TestFiles.write(Array(text.utf8), to: Self.assetsDirectory + "/" + name))
            }
        }
        for (name, text, series) in files {
            let path = Self.assetsDirectory + "/" + name
            let stored = try #require(TestFiles.read(path), "\(name) is missing")
            let expected = Array(text.utf8)
            // Compared as a Bool so a failure prints an offset, not two 100 KB arrays.
            let firstByteDifference = Array(zip(stored, expected)).firstIndex { $0 != $1 }
            let identical = stored.count == expected.count && firstByteDifference == nil
            #expect(
                identical,
                """
                \(name) differs from SampleMarket (\(stored.count) vs \(expected.count) bytes, first difference \
                at byte \(firstByteDifference ?? min(stored.count, expected.count))); regenerate it (see README)
                """
            )

            let (parsed, report) = try YahooCSV.load(path: path)
            #expect(report.isClean)
            #expect(parsed.interval == series.interval)
            #expect(parsed.count == series.count)
            let firstDifference = Array(zip(parsed.bars, series.bars)).firstIndex { $0 != $1 }
            #expect(firstDifference == nil, "\(name): bar \(firstDifference ?? 0) differs after parsing")
        }
    }

    @Test("is deterministic") func isDeterministic() {
        // Fresh generators (not the cached result) must agree with each other and with the cache.
        let first = SampleGenerator.run()
        let second = SampleGenerator.run()
        #expect(first.daily.map(\.bar) == second.daily.map(\.bar))
        #expect(first.intraday.map(\.bar) == second.intraday.map(\.bar))
        #expect(first.daily.map(\.bar) == SampleMarket.daily().bars)
        // Pinned: any change to the model, the seed or float behaviour shows up here (and then the
        // checked-in CSVs, golden images and these constants must be refreshed together).
        let daily = SampleMarket.daily()
        #expect(daily.count == 1757 && SampleMarket.intraday().count == 4 * 390 + 210)
        #expect(daily.first?.open == 38.19 && daily.last?.close == 75.51)
        #expect(fnv1a(SampleMarket.dailyCSV()) == 0xba39_8b6b_b923_e9c4)
        #expect(fnv1a(SampleMarket.intradayCSV()) == 0xe55a_b5da_4c37_e9fa)
    }

    @Test("daily covers six years of trading days") func dailyCoversSixYearsOfTradingDays() {
        let daily = SampleMarket.daily()
        let dates = daily.bars.map { CivilDate(unixTime: $0.time) }
        #expect(dates.first == SampleMarket.firstDate)
        #expect(dates.last == SampleMarket.lastDate)
        #expect(SampleMarket.lastDate.daysSinceEpoch - SampleMarket.firstDate.daysSinceEpoch >= 6 * 366)
        #expect(dates == NYSECalendar.tradingDays(from: SampleMarket.firstDate, through: SampleMarket.lastDate))
        #expect(!dates.contains { $0.weekday.isWeekend })
        #expect(!dates.contains(date(2024, 3, 29)) && !dates.contains(date(2025, 1, 9)))
        #expect(daily.name == "TBSC" && daily.interval == .daily)
    }

    @Test("bars are consistent") func barsAreConsistent() {
        for series in [SampleMarket.daily(), SampleMarket.intraday()] {
            for bar in series.bars {
                if !(bar.low <= min(bar.open, bar.close) && max(bar.open, bar.close) <= bar.high && bar.low > 0) {
                    Issue.record("inconsistent bar \(bar)")
                    return
                }
                if !(bar.volume.map { $0 > 0 && $0.rounded() == $0 } ?? false) || bar.adjustedClose == nil {
                    Issue.record("bad volume or adjusted close in \(bar)")
                    return
                }
            }
            #expect(series.hasOnlyFinitePrices)
        }
    }

    @Test("volatility and drift are realistic") func volatilityAndDriftAreRealistic() {
        let closes = SampleMarket.daily().prices(.adjustedClose)
        var returns: [Double] = []
        for index in 1..<closes.count { returns.append(closes[index] / closes[index - 1] - 1) }
        let mean = returns.reduce(0, +) / Double(returns.count)
        let variance = returns.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(returns.count - 1)
        let annualVolatility = (variance * 252).squareRoot()
        #expect(annualVolatility > 0.18 && annualVolatility < 0.34, "annual volatility \(annualVolatility)")
        // Fat tails from clustering and jumps: some days beyond 4 standard deviations.
        let sd = variance.squareRoot()
        #expect(returns.filter { abs($0 - mean) > 4 * sd }.count >= 3)
        // Clustering: rolling 20-day volatility varies by at least 2x between calm and busy spells.
        var rolling: [Double] = []
        for end in stride(from: 20, through: returns.count, by: 20) {
            let window = returns[(end - 20)..<end]
            rolling.append((window.reduce(0) { $0 + $1 * $1 } / 20).squareRoot())
        }
        #expect(rolling.max()! > 2 * rolling.min()!)
        #expect(closes.last! > 5 && closes.last! < 500)
        // Dividends make Adj Close lower than Close in the past, equal at the end.
        let daily = SampleMarket.daily()
        #expect(daily.first!.adjustedClose! < daily.first!.close)
        #expect(daily.last!.adjustedClose == daily.last!.close)
    }

    @Test("intraday is five sessions of minute bars") func intradayIsFiveSessionsOfMinuteBars() {
        let intraday = SampleMarket.intraday()
        let zone = SampleMarket.timeZone
        var perDay: [CivilDate: [CivilDateTime]] = [:]
        for bar in intraday.bars {
            let local = zone.localDateTime(atUnixTime: bar.time)
            perDay[local.date, default: []].append(local)
        }
        #expect(perDay.keys.sorted() == NYSECalendar.tradingDays(from: date(2026, 11, 20), through: date(2026, 11, 27)))
        for (day, times) in perDay {
            let close = NYSECalendar.isEarlyClose(day) ? 13 * 60 : 16 * 60
            #expect(times.map { $0.hour * 60 + $0.minute } == Array((9 * 60 + 30)..<close), "\(day)")
        }
        #expect(perDay[date(2026, 11, 27)]?.count == 210)  // early close at 13:00
        #expect(perDay[date(2026, 11, 25)]?.count == 390)
        #expect(intraday.interval == .intraday(seconds: 60))
        #expect(zip(intraday.bars, intraday.bars.dropFirst()).allSatisfy { $1.time > $0.time })
    }

    @Test("intraday joins the daily series") func intradayJoinsTheDailySeries() {
        let daily = SampleMarket.daily()
        let intraday = SampleMarket.intraday()
        #expect(daily.last!.close == intraday.last!.close)
        // Each of the last five daily bars summarises its session's minute bars.
        for dailyBar in daily.bars.suffix(SampleMarket.intradaySessionCount) {
            let day = CivilDate(unixTime: dailyBar.time)
            let minutes = intraday.bars.filter { SampleMarket.timeZone.localDate(atUnixTime: $0.time) == day }
            #expect(dailyBar.open == minutes.first!.open)
            #expect(dailyBar.close == minutes.last!.close)
            #expect(dailyBar.high == minutes.map(\.high).max())
            #expect(dailyBar.low == minutes.map(\.low).min())
            #expect(dailyBar.volume == minutes.compactMap(\.volume).reduce(0, +))
        }
        // Sessions open near the previous close (no jump at the seam between daily and intraday).
        let seamIndex = daily.count - SampleMarket.intradaySessionCount
        #expect(abs(intraday.first!.open / daily.bars[seamIndex - 1].close - 1) < 0.05)
    }

    @Test("csv layout") func csvLayout() {
        let daily = SampleMarket.dailyCSV().split(separator: "\n")
        #expect(daily.first == "Date,Open,High,Low,Close,Adj Close,Volume")
        #expect(daily.count == SampleMarket.daily().count + 1)
        #expect(daily[1].hasPrefix("2019-12-02,"))
        let intraday = SampleMarket.intradayCSV().split(separator: "\n")
        #expect(intraday.first == "Datetime,Open,High,Low,Close,Adj Close,Volume")
        #expect(intraday[1].hasPrefix("2026-11-20 09:30:00-05:00,"))
        #expect(intraday.last!.hasPrefix("2026-11-27 12:59:00-05:00,"))
        // Six decimals on every price, an integer volume.
        let fields = intraday[1].split(separator: ",")
        #expect(fields.count == 7)
        #expect(fields[1...5].allSatisfy { $0.split(separator: ".").last?.count == 6 })
        #expect(Int(fields[6]) != nil)
    }

    @Test("time zone rule matches the database") func timeZoneRuleMatchesTheDatabase() throws {
        // The built-in rule must agree with tzdata for the sample's whole span.
        let database = try ExchangeTimeZone(identifier: SampleMarket.timeZoneIdentifier)
        var time = SampleMarket.firstDate.unixTimeAtMidnightUTC
        var mismatches = 0
        while time < SampleMarket.lastDate.adding(days: 1).unixTimeAtMidnightUTC {
            if database.utcOffset(atUnixTime: time) != SampleMarket.timeZone.utcOffset(atUnixTime: time) {
                mismatches += 1
            }
            time += 1800
        }
        #expect(mismatches == 0)
    }
}

private func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}
