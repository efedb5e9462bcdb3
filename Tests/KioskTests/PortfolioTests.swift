// The portfolio's figures on real daily prices (Stooq's AAPL in USD and BTC in PLN, ../shared/data)
// and an illustrative London share in pence, summed in EUR, against the independent computation in
// Python's decimal (Tests/Portfolio/portfolio_check.py), to the cent: across the US and EU DST
// changes, a weekend (every market carries its last close) and Thanksgiving (New York closed,
// the PLN market open).

@testable import Commands
import Feed
import Kiosk
import KioskCore
import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

@Suite struct PortfolioTests {
    static var fixtures: String { TestPaths.repositoryRoot + "/Tests/Portfolio/fixtures" }

    /// The three holdings, in three currencies, with a home of EUR: USD converted by USDEUR, PLN by
    /// EURPLN inverted, GBp by GBPEUR after the shift from pence.
    static func configText(stooq: String, show: String = "value") -> String {
        """
        [data]
        directory = \(fixtures)

        [portfolio]
        currency = EUR
        show = \(show)

        [instrument AAPL]
        daily = \(stooq)/aapl_us_d_2025-01-08_partial_last_day.csv
        currency = USD
        lot = 2024-10-28 10 @ 233.40
        lot = 2024-11-05 2.5 @ 223.45

        [instrument BTCPLN]
        daily = \(stooq)/btcpln_d_no_volume_column.csv
        currency = PLN
        session = 24/7
        quantity = 0.125
        cost-total = 34250.00

        [instrument TBGB.L]
        daily = TBGB.L.daily.csv
        currency = GBp
        time-zone = Europe/London
        quantity = 400
        cost = 1198.5

        [fx USDEUR]
        daily = USDEUR.daily.csv

        [fx EURPLN]
        daily = EURPLN.daily.csv

        [fx GBPEUR]
        daily = GBPEUR.daily.csv

        [alert aapl-high]
        instrument = AAPL
        above = 235

        [alert btc-jump]
        instrument = BTCPLN
        move = 5%
        """
    }

    static var stooq: String? {
        TestPaths.shared.map { $0 + "/data/providers/stooq" }
    }

    /// The moments: before the second AAPL lot, either side of the DST changes, a Saturday, Thanksgiving.
    static let moments: [Int64] = [
        1_729_900_800 + 12 * 3600,  // 2024-10-26 Sat 12:00 UTC (EU DST ends the next night)
        1_730_073_600 + 21 * 3600,  // 2024-10-28 Mon 21:00 UTC: the first lot's day
        1_730_419_200 + 21 * 3600,  // 2024-11-01 Fri
        1_730_592_000 + 9 * 3600,   // 2024-11-03 Sun (US DST ends)
        1_730_678_400 + 22 * 3600,  // 2024-11-04 Mon
        1_730_764_800 + 22 * 3600,  // 2024-11-05 Tue: the second lot's day
        1_732_752_000 + 22 * 3600,  // 2024-11-28 Thu, Thanksgiving: New York closed
        1_732_838_400 + 22 * 3600,  // 2024-11-29 Fri
        1_733_443_200 + 22 * 3600,  // 2024-12-06 Fri: the last rate of the fixtures
    ]

    static func load(_ config: Config) throws -> Portfolio {
        var daily: [String: PriceSeries] = [:]
        var rates: [String: PriceSeries] = [:]
        for inst in config.instruments {
            let path = DataSources.resolve(try #require(inst.dailyFile), in: config.dataDirectory)
            daily[inst.id] = try YahooCSV.load(path: path, priceField: .close).0
        }
        for pair in config.fxPairs {
            let path = DataSources.resolve(try #require(pair.dailyFile), in: config.dataDirectory)
            rates[pair.id] = try YahooCSV.load(path: path, priceField: .close).0
        }
        return Portfolio(config: config, daily: daily, rates: rates)
    }

    /// `text` in a temporary file named `name` (for the Python script, which reads the config itself).
    static func written(_ text: String, _ name: String) throws -> String {
        let path = TestPaths.temporary(name)
        let file = try #require(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
        return path
    }

    /// The Python script's lines, one block per moment.
    static func python(configPath: String, moments: [Int64]) throws -> [[String]] {
        let script = TestPaths.repositoryRoot + "/Tests/Portfolio/portfolio_check.py"
        let command = "python3 '\(script)' '\(configPath)' " + moments.map(String.init).joined(separator: " ")
        let pipe = try #require(popen(command, "r"))
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        #expect(pclose(pipe) == 0, "\(command) failed")
        var blocks: [[String]] = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("now=") { blocks.append([]) } else if !blocks.isEmpty { blocks[blocks.count - 1].append(line) }
        }
        return blocks
    }

    @Test("three holdings in three currencies equal Python's decimal, to the cent")
    func matchesPython() throws {
        let stooq = try #require(Self.stooq, "../shared/data not found")
        let text = Self.configText(stooq: stooq)
        let (config, issues) = Config.parse(text, file: "portfolio.conf")
        #expect(issues.filter { $0.severity == .error }.isEmpty, "\(issues)")
        let path = try Self.written(text, "portfolio.conf")
        defer { unlink(path) }
        let portfolio = try Self.load(config)
        let expected = try Self.python(configPath: path, moments: Self.moments)
        #expect(expected.count == Self.moments.count)
        for (n, now) in Self.moments.enumerated() where n < expected.count {
            let figures = try #require(portfolio.figures(at: now))
            let swift = Portfolio.keyValueLines(figures, show: .value).split(separator: "\n").map(String.init)
            #expect(swift == expected[n], "at \(now)")
        }
    }

    @Test("the value line: every date's value equals Python's portfolio_value, and dates with a holding missing are left out")
    func valueLineMatchesPython() throws {
        let stooq = try #require(Self.stooq, "../shared/data not found")
        let text = Self.configText(stooq: stooq)
        let (config, _) = Config.parse(text, file: "portfolio.conf")
        let path = try Self.written(text, "portfolio-line.conf")
        defer { unlink(path) }
        let portfolio = try Self.load(config)
        let line = try #require(portfolio.valueSeries(name: "portfolio"))
        // Every date any holding has a bar: the line's candidates.
        let dates = Set(portfolio.held.flatMap { portfolio.daily[$0.id]?.bars.map(\.time) ?? [] }).sorted()
        let expected = try Self.python(configPath: path, moments: dates)
        #expect(expected.count == dates.count)
        let drawn = Dictionary(uniqueKeysWithValues: line.bars.map { ($0.time, $0.close) })
        var valued = 0
        for (n, t) in dates.enumerated() where n < expected.count {
            let fields = Dictionary(expected[n].compactMap { l -> (String, String)? in
                let kv = l.split(separator: "=", maxSplits: 1).map(String.init)
                return kv.count == 2 ? (kv[0], kv[1]) : nil
            }, uniquingKeysWith: { a, _ in a })
            let complete = fields["portfolio_missing"] == "-" && fields["portfolio_value"].flatMap(Double.init).map { $0 != 0 } == true
            if complete, let value = fields["portfolio_value"].flatMap(Double.init) {
                valued += 1
                let ours = try #require(drawn[t], "at \(t) Python values the portfolio at \(value); the line has no point")
                #expect(abs(ours - value) < 0.005, "at \(t): \(ours) against Python's \(value)")
            } else {
                #expect(drawn[t] == nil, "at \(t) a holding is missing (\(fields["portfolio_missing"] ?? "?")); the line has a point")
            }
        }
        #expect(valued == line.bars.count && valued > 20, "\(valued) dates valued, \(line.bars.count) drawn")
    }

    @Test("a changed series values only from its first changed bar, and the line equals a whole recomputation")
    func incrementalLine() throws {
        let stooq = try #require(Self.stooq, "../shared/data not found")
        let (config, _) = Config.parse(Self.configText(stooq: stooq), file: "portfolio.conf")
        let before = try Self.load(config)
        let line = try #require(before.valueSeries(name: "portfolio"))
        // AAPL's close changed in the middle of the history and a day appended; a rate changed later.
        var after = before
        var aapl = try #require(after.daily["AAPL"]).bars
        aapl[aapl.count / 2].close += 1.25
        let changedAt = aapl[aapl.count / 2].time
        var next = aapl[aapl.count - 1]
        next.time += 86_400
        aapl.append(next)
        after.daily["AAPL"] = PriceSeries(name: "AAPL", interval: .daily, bars: aapl)
        var usd = try #require(after.rates["USDEUR"]).bars
        usd[usd.count - 3].close *= 1.01
        after.rates["USDEUR"] = PriceSeries(name: "USDEUR", interval: .daily, bars: usd)
        let from = try #require([Portfolio.firstDifference(before.daily, after.daily),
                                 Portfolio.firstDifference(before.rates, after.rates)].compactMap { $0 }.min())
        #expect(from == changedAt)
        let incremental = try #require(after.valueSeries(name: "portfolio", keeping: (line, from)))
        let whole = try #require(after.valueSeries(name: "portfolio"))
        #expect(incremental.bars == whole.bars)
        #expect(incremental.bars != line.bars)
        #expect(Portfolio.firstDifference(after.daily, after.daily) == nil)
    }

    @Test("the figures of one moment, by hand") func byHand() throws {
        let stooq = try #require(Self.stooq, "../shared/data not found")
        let (config, _) = Config.parse(Self.configText(stooq: stooq), file: "portfolio.conf")
        let portfolio = try Self.load(config)
        // Thanksgiving 2024: AAPL carries 27 Nov's close 234.93; BTC has 28 Nov's 390422 PLN.
        let f = try #require(portfolio.figures(at: Self.moments[6]))
        let aapl = try #require(f.positions.first { $0.id == "AAPL" })
        #expect(aapl.quantity == ExactDecimal("12.5")!)
        #expect(aapl.price == ExactDecimal("234.93")!)
        #expect(aapl.value == ExactDecimal("2936.62")!)  // 2936.625: the half goes to the even cent
        let btc = try #require(f.positions.first { $0.id == "BTCPLN" })
        #expect(btc.value == ExactDecimal("48802.75")!)
        let pence = try #require(f.positions.first { $0.id == "TBGB.L" })
        #expect(pence.currency == "GBP")
        // BTC's day: 27 Nov 391548 -> 28 Nov 390422 at the EURPLN rates of those days.
        #expect(btc.dayGainHome != nil && btc.dayGainHome!.isNegative)
        #expect(f.missing.isEmpty)
        // Before 28 Oct no AAPL lot is held: it is left out, not valued at zero.
        let early = try #require(portfolio.figures(at: Self.moments[0]))
        #expect(!early.positions.contains { $0.id == "AAPL" })
        #expect(early.positions.count == 2)
    }

    @Test("percent shows no money, off shows nothing") func privacy() throws {
        let stooq = try #require(Self.stooq, "../shared/data not found")
        let (config, _) = Config.parse(Self.configText(stooq: stooq, show: "percent"), file: "portfolio.conf")
        #expect(config.portfolio.show == .percent)
        let f = try #require(try Self.load(config).figures(at: Self.moments[7]))
        let lines = Portfolio.keyValueLines(f, show: .percent)
        #expect(lines.contains("day_gain_percent="))
        #expect(!lines.contains("portfolio_value") && !lines.contains("position.") && !lines.contains("EUR"))
        #expect(Portfolio.keyValueLines(f, show: .off).isEmpty)
    }
}

@Suite struct HoldingsConfigTests {
    func issues(_ text: String) -> [String] {
        Config.parse(text, file: "t.conf").1.map(\.description)
    }

    @Test("holdings, lots, the home currency and rate pairs are read exactly") func reads() throws {
        let (config, issues) = Config.parse("""
            [portfolio]
            currency = EUR
            show = percent
            [instrument AAPL]
            quantity = 12.5
            cost = 151.20
            lot = 2024-03-01 10 @ 151.20
            lot = 3 @ 160
            lot = 2024-04-02 1
            [fx USD/EUR]
            daily = usdeur.csv
            symbol = EURUSD=X
            """, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        let h = try #require(config.instruments.first?.holding)
        #expect(h.quantity == ExactDecimal("12.5") && h.unitCost == ExactDecimal("151.2"))
        #expect(h.lots.count == 3)
        #expect(h.lots[0] == Lot(date: CivilDate(year: 2024, month: 3, day: 1), quantity: ExactDecimal(10), unitCost: ExactDecimal("151.20"), line: 7))
        #expect(h.lots[1].date == nil && h.lots[2].unitCost == nil)
        #expect(config.portfolio.currency == "EUR" && config.portfolio.show == .percent)
        #expect(config.fxPairs.map(\.id) == ["USDEUR"])
        #expect(config.fxPair(from: "EUR", to: "USD")?.inverted == true)
        #expect(config.homeCurrency == "EUR")
    }

    @Test("each mistake is explained at its line") func mistakes() {
        let found = issues("""
            [portfolio]
            currency = Euro
            show = loud
            [instrument A]
            quantity = -3
            cost = 1,5
            [instrument B]
            quantity = 2
            cost = 10
            cost-total = 20
            lot = yesterday 10 @ 5
            lot = 2024-01-01 10 @ 5 @ 6
            lot = 0.0000000000001
            [instrument C]
            currency = PLN
            quantity = 1
            [instrument D]
            cost = 5
            [fx EURO]
            daily = x.csv
            [fx USDEUR]
            symbol = EURUSD=X
            """)
        let expected = [
            "t.conf:2: currency: expected the ISO 4217 code of the home currency like EUR",
            "t.conf:3: show: expected value, percent",
            "t.conf:5: quantity: expected a quantity above 0",
            "t.conf:6: cost: expected the price paid per unit",
            "t.conf:10: cost-total: cost and cost-total are two ways",
            "t.conf:11: lot: \"yesterday\" is not a date",
            "t.conf:12: lot: expected \"[YYYY-MM-DD] QUANTITY [@ UNIT-COST]\"",
            "t.conf:13: lot: the quantity must be a number above 0",
            // The home currency was not understood: it is the first holding's (B, USD by default).
            "t.conf:16: quantity: [instrument C] is in PLN: add [fx PLNUSD] (or [fx USDPLN]) with daily = FILE to value it in USD",
            "t.conf:18: cost: a cost without quantity",
            "t.conf:20: daily: [fx EURO]: expected a pair of currency codes",
            "t.conf:22: daily: [fx USDEUR] has no daily = FILE",
        ]
        for prefix in expected {
            #expect(found.contains { $0.hasPrefix(prefix) }, "\(prefix) not in \(found)")
        }
    }

    @Test("[portfolio] tiles: price or value") func tiles() {
        #expect(Config.parse("[portfolio]\ntiles = value\n", file: "t.conf").0.portfolio.tileValues)
        #expect(!Config.parse("[portfolio]\ntiles = Price\n", file: "t.conf").0.portfolio.tileValues)
        #expect(issues("[portfolio]\nshow = value\ntiles = money\n").contains { $0.hasPrefix("t.conf:3: tiles: expected price or value") })
    }

    @Test("a holding in an instrument without a currency is named as such, whether none or XXX") func noCurrency() {
        for code in ["none", "XXX", "None"] {
            let found = issues("[portfolio]\ncurrency = EUR\n[instrument DAX]\ncurrency = \(code)\nquantity = 2\n")
            #expect(found.contains { $0.hasPrefix("t.conf:5: quantity: [instrument DAX] has no currency (currency = none)") }, "\(found)")
            #expect(!found.contains { $0.contains("[fx") }, "\(found)")
        }
    }
}

@Suite struct PortfolioRenderTests {
    /// The test config on disk, with the shared data's real path.
    static func writeConfig(show: String, tag: String) throws -> String {
        let stooq = try #require(PortfolioTests.stooq, "../shared/data not found")
        let path = TestPaths.temporary(tag + ".conf")
        let file = try #require(fopen(path, "w"))
        fputs(PortfolioTests.configText(stooq: stooq, show: show), file)
        fclose(file)
        return path
    }

    /// `render --values` prints what the independent computation prints.
    @Test("render --values prints the EUR total of the Python computation") func values() throws {
        let path = try Self.writeConfig(show: "value", tag: "pf-values")
        defer { unlink(path) }
        let (config, issues) = Config.load(path: path)
        #expect(!issues.contains { $0.severity == .error })
        let (portfolio, problems) = PortfolioData.load(config: config)
        #expect(problems.isEmpty)
        let printed = RenderCommand.portfolioValues(portfolio, at: 1_732_917_600)
        let expected = try PortfolioTests.python(configPath: path, moments: [1_732_917_600])
        var lines = printed.split(separator: "\n").map(String.init)
        // AAPL closed at 237.33, above 235; BTC moved +1.2 % (its +16 % of 11 Nov re-armed the next day).
        #expect(lines.popLast() == "alerts=aapl-high")
        #expect(lines == expected.first)
        #expect(printed.contains("portfolio_value=20232.24\n"))
    }

    /// Issue 48: the portfolio screen beside a tape band, as the daemon shows it (its core shown
    /// "portfolio", the band at the foot); the header's value is the one `--values` prints at that
    /// moment (20644.78 at 22 Nov 2024 22:00 UTC, which Python's computation gives in `figures`).
    @Test("the portfolio screen renders beside the tape band as the daemon shows it, with --values' value in its header")
    func portfolioBesideTheTape() throws {
        let stooq = try #require(PortfolioTests.stooq, "../shared/data not found")
        let path = TestPaths.temporary("pf-band.conf")
        let file = try #require(fopen(path, "w"))
        fputs(PortfolioTests.configText(stooq: stooq, show: "value") + "\n[tape]\nposition = bottom\n", file)
        fclose(file)
        defer { unlink(path) }
        let expected = try PortfolioTests.python(configPath: path, moments: [1_732_312_800])
        #expect(expected.first?.contains("portfolio_value=20644.78") == true, "\(expected)")
        var request = StillFrame.Request(configPath: path, now: 1_732_312_800)
        request.show = ShowRequest(instrumentID: KioskCore.portfolioID, range: .fiveDays)
        request.size = (960, 540)
        let still = try #require(StillFrame.render(request, fonts: try FontSet.load()))
        let band = try #require(still.band)
        #expect(still.status.priceText == "€20,644.78", "\(still.status.priceText ?? "nil")")
        #expect(band.y1 == 540 && band.y0 > 480)
        let frame = try renderedFrame(["render", "--config", path, "--scene", "portfolio", "--now", "1732312800", "--range", "5D",
                                       "--size", "960x540"], tag: "pf-band")
        #expect(frame.pixels == still.picture.pixels, "render --scene portfolio draws the same picture")
        let result = ImageComparison.checkScreen(frame, golden: "portfolio-value-5D-band.png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("the portfolio line: value and percent, a red week (to 4 Nov) and a green one (to 22 Nov)", arguments: [
        ("value", "1730757600", "red"), ("value", "1732312800", "green"),
        ("percent", "1730757600", "red"), ("percent", "1732312800", "green"),
    ])
    func golden(show: String, now: String, day: String) throws {
        let path = try Self.writeConfig(show: show, tag: "pf-\(show)-\(day)")
        defer { unlink(path) }
        let frame = try renderedFrame(["render", "--config", path, "--scene", "portfolio", "--now", now, "--range", "5D",
                                       "--size", "960x540"], tag: "pf-\(show)-\(day)")
        let result = ImageComparison.checkScreen(frame, golden: "portfolio-\(show)-5D-\(day).png")
        #expect(result.passed, "\(result.report)")
    }
}
