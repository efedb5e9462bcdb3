// The portfolio screen in the daemon's core (issue 36), on the manual clock: one more screen in the
// round after the instruments, drawn like one (ranges, morph, scrub), its value from the holdings'
// series and the rates as they arrive; money hidden with show = percent; absent with show = off.

import Chart
import Control
import CoreDriver
import Feed
@testable import KioskCore
import Testing

@Suite struct PortfolioCoreTests {
    static let wall: Int64 = 1_796_000_000

    /// `days` daily closes ending on the driver's day: `close(i)` for day i (0 the oldest).
    static func series(_ id: String, days: Int = 400, _ close: (Int) -> Double) -> PriceSeries {
        let today = CivilDate(unixTime: wall).unixTimeAtMidnightUTC
        let bars = (0..<days).map { i in
            let c = close(i)
            return PriceBar(time: today - Int64(days - 1 - i) * 86_400, open: c, high: c, low: c, close: c)
        }
        return PriceSeries(name: id, interval: .daily, bars: bars)
    }
    static let a = series("A") { 100 + Double($0) * 0.25 }
    static let b = series("B") { 40 + Double($0 % 7) }
    static let eurusd = series("EURUSD") { _ in 1.25 }

    static func config(show: PortfolioShow = .value, bInEUR: Bool = false) -> Config {
        Config.watchlist(["A", "B"]) { c in
            c.instrumentCycleSeconds = 120
            c.staleAfterSeconds = 36_500 * 86_400
            c.instruments[0].holding.quantity = ExactDecimal(2)
            c.instruments[1].holding.quantity = ExactDecimal(3)
            c.portfolio.show = show
            if bInEUR {
                c.instruments[1].currency = "EUR"
                c.portfolio.currency = "USD"
                c.fxPairs = [FXPairConfig(base: "EUR", quote: "USD", dailyFile: "EURUSD.csv", line: 50)]
            }
        }
    }

    static func started(_ config: Config, rates: Bool = true) -> CoreDriver {
        let d = CoreDriver(config: config)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: a))
        d.send(.series(instrumentID: "B", slot: .daily, series: b))
        if rates, !config.fxPairs.isEmpty { d.send(.series(instrumentID: "fx-EURUSD", slot: .daily, series: eurusd)) }
        d.run(for: 2)
        return d
    }

    /// 2 A + 3 B on the last day, in USD: computed here from the closes, not by the Portfolio code.
    static var lastValue: Double { 2 * (100 + 399 * 0.25) + 3 * (40 + Double(399 % 7)) }

    @Test("series that arrive together are valued once: thirty holdings read at start make one value line, not thirty")
    func valuedOnceAfterABurst() {
        // A start reads every file in one go; each held series used to recompute the whole line
        // (every date x every holding): 100 holdings over 30 years kept READY back for 74 s.
        let ids = (0..<30).map { "H\($0)" }
        let config = Config.watchlist(ids) { c in
            c.staleAfterSeconds = 36_500 * 86_400
            for i in c.instruments.indices { c.instruments[i].holding.quantity = ExactDecimal(i + 1) }
        }
        let d = CoreDriver(config: config)
        d.send(.start)
        for (i, id) in ids.enumerated() { d.send(.series(instrumentID: id, slot: .daily, series: Self.series(id) { 10 + Double(($0 + i) % 9) })) }
        d.run(for: 2)
        let computed = d.core.valueLine.computations
        #expect(computed <= 2, "\(computed) computations of the value line for one burst (the configuration's own, then the burst's)")
        // 1 H0 + 2 H1 + ... + 30 H29 on the last day (i = 399): computed here from the closes.
        var last = 0.0
        for i in 0..<30 {
            let close = 10 + Double((399 + i) % 9)
            last += Double(i + 1) * close
        }
        #expect(ControlCoreTests.ask(d, .show(instrument: "portfolio", range: "6M")) == .ok("showing portfolio 6M"))
        d.run(for: 2)
        #expect(d.core.status().price == last)
        // A held update later is valued again, once.
        d.send(.series(instrumentID: "H0", slot: .daily, series: Self.series("H0") { 11 + Double($0 % 9) }))
        d.run(for: 2)
        #expect(d.core.valueLine.computations == computed + 1)
        // H0's last close is now 11 + 399 % 9 = 11 (was 10 + 399 % 9 = 10): one more, once held.
        #expect(d.core.status().price == last + 1)
    }

    @Test("the portfolio follows the instruments in the round, drawn on its ranges, worth 2 A + 3 B")
    func inTheCycle() {
        let d = Self.started(Self.config())
        d.run(for: 3 * 3600) { d.recordShown() }
        let shown = d.shown.map(\.value)
        let first = shown.firstIndex { $0.hasPrefix("portfolio ") }
        #expect(first != nil, "\(shown)")
        if let first {
            #expect(first > 0 && shown[first - 1].hasPrefix("B "), "the portfolio comes after B: \(shown)")
        }
        // Its own round: several ranges and the monthly bars, like an instrument.
        let own = Set(shown.filter { $0.hasPrefix("portfolio ") })
        #expect(own.contains("portfolio 1M") && own.contains("portfolio 1Y") && own.contains("portfolio bars"), "\(own)")
        // Then A again.
        if let first, let back = shown[first...].firstIndex(where: { $0.hasPrefix("A ") }) { #expect(back > first) } else {
            Issue.record("the round does not go on after the portfolio: \(shown)")
        }
        #expect(ControlCoreTests.ask(d, .show(instrument: "portfolio", range: "6M")) == .ok("showing portfolio 6M"))
        d.run(for: 2)
        let s = d.core.status()
        #expect(s.instrumentID == "portfolio" && s.instrumentName == "Portfolio · USD")
        #expect(s.price == Self.lastValue)
        #expect(s.priceText?.contains("$") == true)
    }

    @Test("ranges morph and the scrub reads a day's value, as on an instrument's chart")
    func morphAndScrub() throws {
        let d = Self.started(Self.config())
        #expect(ControlCoreTests.ask(d, .show(instrument: "portfolio", range: "1Y")) != nil)
        d.run(for: 3)
        #expect(ControlCoreTests.ask(d, .range("1M")) == .ok("portfolio 1M"))
        d.run(for: 0.2)
        let model = try #require(d.core.model)
        #expect(model.isAnimating(at: d.time.mono), "the range change morphs")
        d.run(for: 3)
        #expect(!model.isAnimating(at: d.time.mono) && model.range == .oneMonth)
        #expect(d.presents.last?.value.settled == true)
        // A finger on the middle of the plot: the indicator snaps to a day and the header says its value.
        let plot = model.screen.layout.plot
        d.send(.gesture(.scrubBegan(x: plot.left + plot.width / 2, y: plot.top + plot.height / 2), inputMicros: nil))
        d.run(for: 0.5)
        let i = try #require(model.scrubIndex)
        let points = model.selection(for: .oneMonth).points
        #expect(i > 0 && i < points.count - 1)
        let s = d.core.status()
        #expect(s.price == points[i].value)
        #expect(points[i].value != points.last?.value)
        // Independently: the day's closes of A and B.
        let day = Int((points[i].time - Self.a.bars[0].time) / 86_400)
        #expect(points[i].value == 2 * (100 + Double(day) * 0.25) + 3 * (40 + Double(day % 7)))
    }

    @Test("held in EUR: waits for the rates, then converts with them")
    func ratesArrive() throws {
        let d = Self.started(Self.config(bInEUR: true), rates: false)
        #expect(ControlCoreTests.ask(d, .show(instrument: "portfolio", range: "1Y")) != nil)
        d.run(for: 2)
        #expect(d.core.model?.placeholder?.contains("EURUSD.csv") == true, "\(d.core.model?.placeholder ?? "-")")
        d.send(.series(instrumentID: "fx-EURUSD", slot: .daily, series: Self.eurusd))
        d.run(for: 3)
        #expect(d.core.model?.placeholder == nil)
        #expect(d.core.status().price == 2 * (100 + 399 * 0.25) + 3 * (40 + Double(399 % 7)) * 1.25)
        #expect(DataSources.sources(for: Self.config(bInEUR: true)).contains { $0.instrumentID == "fx-EURUSD" && $0.path == "/data/EURUSD.csv" })
        // A problem with the rates' file is said at the [fx] section's line, as an instrument's is.
        let problem = KioskCore.locate(path: "/data/EURUSD.csv", message: "bad", in: Self.config(bInEUR: true), file: "t.conf")
        #expect(problem.description.hasPrefix("t.conf:50: daily: bad"), "\(problem)")
    }

    @Test("show = percent: changes only, no money in the header, the status or ctl instruments")
    func percent() throws {
        let d = Self.started(Self.config(show: .percent))
        #expect(ControlCoreTests.ask(d, .show(instrument: "portfolio", range: "1Y")) != nil)
        d.run(for: 3)
        let s = d.core.status()
        #expect(s.instrumentName == "Portfolio")
        #expect(s.price == nil && s.change == nil && s.baseline == nil)
        #expect(s.priceText?.hasSuffix("%") == true && s.priceText?.contains("$") == false, "\(s.priceText ?? "-")")
        #expect(s.changeText?.contains("$") == false)
        guard case .ok(let json?)? = ControlCoreTests.ask(d, .instruments) else { Issue.record("no answer"); return }
        #expect(!json.contains("portfolio"))
    }

    @Test("show = off: no portfolio screen in the round, and ctl show portfolio is refused")
    func off() {
        let d = Self.started(Self.config(show: .off))
        d.run(for: 3 * 3600) { d.recordShown() }
        #expect(!d.shown.contains { $0.value.hasPrefix("portfolio") })
        #expect(d.shown.contains { $0.value.hasPrefix("B ") })
        guard case .error(.refused(let m))? = ControlCoreTests.ask(d, .show(instrument: "portfolio", range: nil)) else {
            Issue.record("show portfolio accepted"); return
        }
        #expect(m.hasPrefix("no instrument portfolio"))
        #expect(!DataSources.sources(for: Self.config(show: .off, bInEUR: true)).contains { $0.instrumentID.hasPrefix("fx-") })
    }

    /// The tiles of A (2 held, then 0.5 more from a lot dated today) and B (not held) on the overview.
    static func tiles(show: PortfolioShow, values: Bool, lot: String? = nil) throws -> [WatchlistTileContent] {
        var c = config(show: show)
        c.watchlist = .only
        c.instruments[1].holding = Holding()
        c.portfolio.tileValues = values
        if let lot { c.instruments[0].holding.lots = [try Config.parseLot(lot, line: 1).get()] }
        let d = started(c)
        d.run(for: 3)
        return try #require(d.core.watchlist?.tileContents)
    }

    @Test("tiles = value: a held instrument's tile shows its position, exactly; prices otherwise and in percent or off")
    func positionTiles() throws {
        // A closes at 199.75 on the last day: 2 held are 399.50; the tile's range (1M, 31 days of
        // +0.25) changed the price by 7.75 and the position by 15.50, the same percentage.
        let value = try Self.tiles(show: .value, values: true)
        #expect(value[0].price == "$399.50", "\(value[0].price)")
        #expect(value[0].change == "▲ +15.50  (+4.04%)", "\(value[0].change)")
        #expect(value[1].price == "$40.00", "B is not held: its price")
        let withLot = try Self.tiles(show: .value, values: true, lot: "2020-01-01 0.5")
        #expect(withLot[0].price == "$499.38", "2.5 × 199.75 = 499.375, half to even: \(withLot[0].price)")
        let later = try Self.tiles(show: .value, values: true, lot: "2099-01-01 5")
        #expect(later[0].price == "$399.50", "a lot dated later is not held yet")
        for (show, values) in [(PortfolioShow.value, false), (.percent, true), (.off, true)] {
            let tiles = try Self.tiles(show: show, values: values)
            #expect(tiles[0].price == "$199.75", "\(show) \(values): \(tiles[0].price)")
            #expect(tiles[0].change == "▲ +7.75  (+4.04%)", "\(tiles[0].change)")
        }
    }
}

/// Issue 48: the portfolio's day change on the wall is the holdings' day gain (one rate a day),
/// the same figure `render --values` prints. By hand, with B held in EUR at a rate that moves:
/// A closes 199.75 after 199.50 (2 held: +0.50 USD), B closes 42 after 41 (3 held: +3 EUR, at
/// today's 1.30: +3.90 USD); the day gain is +4.40 USD, whatever yesterday's rate (1.20) was. The
/// value line's step between the two days is 2 x 199.75 + 3 x 42 x 1.30 - (2 x 199.50 + 3 x 41 x 1.20)
/// = +16.70, which the header said before.
@Suite struct PortfolioDayChangeTests {
    @Test("the portfolio screen's day change is the day gain at one rate, not the value line's step")
    func dayChangeIsDayGain() throws {
        let rates = PortfolioCoreTests.series("EURUSD") { $0 == 399 ? 1.30 : 1.20 }
        let b = PortfolioCoreTests.series("B") { $0 == 399 ? 42 : $0 == 398 ? 41 : 40 }
        let d = CoreDriver(config: PortfolioCoreTests.config(bInEUR: true))
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: PortfolioCoreTests.a))
        d.send(.series(instrumentID: "B", slot: .daily, series: b))
        d.send(.series(instrumentID: "fx-EURUSD", slot: .daily, series: rates))
        d.run(for: 2)
        _ = ControlCoreTests.ask(d, .show(instrument: KioskCore.portfolioID, range: nil))
        d.run(for: 2)
        let s = d.core.status()
        #expect(s.instrumentID == KioskCore.portfolioID)
        let change = try #require(s.dayChange)
        #expect(abs(change - 4.40) < 0.005, "day change \(change)")
        #expect(abs((s.lastPrice ?? 0) - (2 * 199.75 + 3 * 42 * 1.30)) < 0.005)
    }

    /// The same over random closes and rates: the wall's day change of the portfolio is
    /// 2 x (A today - A yesterday) + 3 x (B today - B yesterday) x today's rate, by this formula.
    @Test("random closes and rates: the portfolio's day change on the wall is the holdings' day gain at today's rate")
    func randomDays() throws {
        var state: UInt64 = 48
        func next(_ n: Int) -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double((state >> 33) % UInt64(n))
        }
        for round in 0..<12 {
            let (a0, a1, b0, b1) = (50 + next(100), 50 + next(100), 20 + next(40), 20 + next(40))
            let (r0, r1) = (1 + next(50) / 100, 1 + next(50) / 100)
            let a = PortfolioCoreTests.series("A") { $0 == 399 ? a1 : $0 == 398 ? a0 : 60 }
            let b = PortfolioCoreTests.series("B") { $0 == 399 ? b1 : $0 == 398 ? b0 : 30 }
            let rates = PortfolioCoreTests.series("EURUSD") { $0 == 399 ? r1 : r0 }
            let d = CoreDriver(config: PortfolioCoreTests.config(bInEUR: true))
            d.send(.start)
            d.send(.series(instrumentID: "A", slot: .daily, series: a))
            d.send(.series(instrumentID: "B", slot: .daily, series: b))
            d.send(.series(instrumentID: "fx-EURUSD", slot: .daily, series: rates))
            d.run(for: 2)
            _ = ControlCoreTests.ask(d, .show(instrument: KioskCore.portfolioID, range: nil))
            d.run(for: 2)
            let expected = 2 * (a1 - a0) + 3 * (b1 - b0) * r1
            let change = try #require(d.core.status().dayChange)
            // Each line rounded to the cent, as a statement adds up: within a cent per holding.
            #expect(abs(change - expected) < 0.021, "round \(round): \(change) against \(expected)")
        }
    }
}

/// The value line's schedule alone: inputs and timers in, work out. Dates are UTC midnights
/// (86,400 s apart), so "from" is read off the series written here.
@Suite struct ValueLineScheduleTests {
    static func daily(_ closes: [Double]) -> PriceSeries {
        PriceSeries(name: "A", interval: .daily, bars: closes.enumerated().map { i, c in
            PriceBar(time: Int64(i) * 86_400, open: c, high: c, low: c, close: c)
        })
    }

    @Test func aBurstIsOneComputationAndANewDayRecomputesFromThatDay() {
        var s = ValueLineSchedule()
        let inputs = PortfolioInputs(held: [InstrumentConfig(id: "A")], pairs: [], home: "EUR")
        #expect(s.deadline == nil)
        // Thirty series at t = 5: due once, from the first.
        for _ in 0..<30 { s.inputChanged(at: 5) }
        s.inputChanged(at: 6)
        #expect(s.state == .due(since: 5) && s.deadline == 5)
        let early = s.timer(at: 4.9)
        #expect(!early)
        let now = s.timer(at: 6)
        #expect(now && s.state == .current)
        let first = s.work(inputs: inputs, daily: ["A": Self.daily([1, 2])], rates: [:])
        #expect(first == .whole && s.computations == 1)
        // Nothing changed: no work, not counted.
        let same = s.work(inputs: inputs, daily: ["A": Self.daily([1, 2])], rates: [:])
        #expect(same == nil && s.computations == 1)
        // A third day (index 2, 2 × 86,400 s): from that day.
        let newDay = s.work(inputs: inputs, daily: ["A": Self.daily([1, 2, 3])], rates: [:])
        #expect(newDay == .from(172_800) && s.computations == 2)
        // Another holding: the whole line again.
        let other = PortfolioInputs(held: [InstrumentConfig(id: "A"), InstrumentConfig(id: "B")], pairs: [], home: "EUR")
        let whole = s.work(inputs: other, daily: ["A": Self.daily([1, 2, 3])], rates: [:])
        #expect(whole == .whole && s.computations == 3)
    }
}
