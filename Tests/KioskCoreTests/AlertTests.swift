// Alerts on a manual clock (issue 36): once per crossing, hysteresis, no repeat at restart, a move
// re-arms on a new day, stale, the banner's time, and check-config's messages.

@testable import Chart
import CoreDriver
import Feed
import Raster
import Text
@testable import KioskCore
import Testing

@Suite struct AlertTests {
    static let t0: Int64 = 1_732_800_000  // 2024-11-28 13:20 UTC
    static let day = CivilDate(year: 2024, month: 11, day: 28)!

    func alert(_ text: String) throws -> AlertConfig {
        let (config, issues) = Config.parse("[instrument X]\nname = X\n[alert a]\ninstrument = X\n" + text, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        return try #require(config.alerts.first)
    }

    func obs(_ price: String, prev: String? = "100", at time: Int64 = t0, day: CivilDate = day) -> AlertObservation {
        AlertObservation(price: ExactDecimal(price)!, previousClose: prev.flatMap { ExactDecimal($0) }, priceTime: time, day: day)
    }

    /// Steps through prices a second apart; returns the indices that fired.
    func fires(_ a: AlertConfig, _ prices: [String], state: inout AlertState) -> [Int] {
        var out: [Int] = []
        for (i, p) in prices.enumerated() {
            let now = Self.t0 + Int64(i)
            let r = Alerts.step(a, obs(p, at: now), now: now, state: state)
            state = r.state
            if r.fired { out.append(i) }
        }
        return out
    }

    @Test("above fires once per crossing; hovering at the level does not re-fire") func above() throws {
        let a = try alert("above = 300\nhysteresis = 1%")
        var s = AlertState()
        // 300 is met; 299, 297.5 are inside the 1 % band (3.00): no re-arm; 296.99 re-arms; 301 fires again.
        let fired = fires(a, ["299", "300", "299", "301", "297.5", "300.5", "296.99", "298", "301"], state: &s)
        #expect(fired == [1, 8])
        #expect(Alerts.active([a], states: ["a": s]) == ["a"])
    }

    @Test("below, with the default 0.5 % band") func below() throws {
        let a = try alert("below = 250")
        var s = AlertState()
        #expect(fires(a, ["251", "250", "249", "251", "251.25", "251.26", "249.99"], state: &s) == [1, 6])
    }

    @Test("a restart handed the saved state does not fire again") func restart() throws {
        let a = try alert("above = 300")
        var s = AlertState()
        #expect(fires(a, ["299", "305"], state: &s) == [1])
        // The state value the shell keeps across a restart, handed back.
        let saved = s
        var restored = saved
        #expect(fires(a, ["306", "307"], state: &restored) == [])
        // A lost state fires again: that is what the saved one is for.
        var lost = AlertState()
        #expect(fires(a, ["306"], state: &lost) == [0])
    }

    @Test("a move fires once a day and re-arms on the next") func move() throws {
        let a = try alert("move = 5%")
        var s = AlertState()
        var r = Alerts.step(a, obs("104.99"), now: Self.t0, state: s)
        #expect(!r.fired)
        r = Alerts.step(a, obs("94.5"), now: Self.t0 + 60, state: r.state)   // -5.5 %
        #expect(r.fired)
        r = Alerts.step(a, obs("106"), now: Self.t0 + 120, state: r.state)   // +6 %, same day: no
        #expect(!r.fired)
        s = r.state
        let next = CivilDate(year: 2024, month: 11, day: 29)!
        r = Alerts.step(a, obs("112", prev: "106", day: next), now: Self.t0 + 86_400, state: s)  // +5.66 % on a new day
        #expect(r.fired)
        // No previous close: a move cannot be judged and nothing changes.
        let none = Alerts.step(a, obs("200", prev: nil), now: Self.t0, state: AlertState())
        #expect(!none.fired && none.state == AlertState())
    }

    @Test("stale fires when the newest price is older than the limit") func stale() throws {
        let a = try alert("stale = 30m")
        let o = obs("100", at: Self.t0)
        #expect(!Alerts.step(a, o, now: Self.t0 + 1799, state: AlertState()).fired)
        let r = Alerts.step(a, o, now: Self.t0 + 1800, state: AlertState())
        #expect(r.fired)
        #expect(!Alerts.step(a, o, now: Self.t0 + 3600, state: r.state).fired)
        // A fresh price re-arms it.
        let fresh = Alerts.step(a, obs("100", at: Self.t0 + 3600), now: Self.t0 + 3601, state: r.state)
        #expect(fresh.state.armed)
    }

    @Test("the banner shows for its time after a firing") func banner() throws {
        let a = try alert("above = 300\nbanner = 2min")
        let r = Alerts.step(a, obs("301"), now: Self.t0, state: AlertState())
        let states = ["a": r.state]
        #expect(Alerts.banners([a], states: states, now: Self.t0) == ["a"])
        #expect(Alerts.banners([a], states: states, now: Self.t0 + 119) == ["a"])
        #expect(Alerts.banners([a], states: states, now: Self.t0 + 120).isEmpty)
    }

    @Test("the saved states read back; damaged lines are skipped") func stateFile() {
        var s = AlertState()
        s.armed = false
        s.firedDay = 20_055
        s.firedAt = 1_732_800_000
        let text = AlertState.encode(["a": s, "b": AlertState()])
        #expect(text == "a fired 20055 1732800000 -\nb armed - - -\n")
        #expect(AlertState.decode(text) == ["a": s, "b": AlertState()])
        #expect(AlertState.decode("a fired x 1 -\nb maybe - - -\nc armed - - - extra\n\u{0}").isEmpty)
    }

    @Test("check-config explains alert mistakes") func mistakes() {
        let issues = Config.parse("""
            [instrument X]
            [alert a]
            above = 300
            below = 200
            [alert b]
            instrument = Y
            move = five
            stale = 10s
            [alert c]
            instrument = X
            [alert d e!]
            above = 1
            """, file: "t.conf").1.map(\.description)
        let expected = [
            "t.conf:4: below: [alert a] already has a condition",
            "t.conf:7: move: expected a change against the previous close like 5%",
            "t.conf:8: stale: expected a duration like 30m",
            "t.conf:12: above: [alert NAME]: a name is",
            "t.conf:3: instrument: [alert a] needs instrument = ID",
            "t.conf:6: instrument: no [instrument Y] in this file",
            "t.conf:6: above: [alert b] needs one of above",
            "t.conf:10: above: [alert c] needs one of above",
        ]
        for prefix in expected { #expect(issues.contains { $0.hasPrefix(prefix) }, "\(prefix) not in \(issues)") }
    }
}

/// The alerts in the core, on the manual clock: a firing is logged once, jumps to the instrument,
/// shows its banner for its time, lists in the status, and a restart handed the state does not fire again.
@Suite struct CoreAlertTests {
    /// Daily bars for the three days before the driver's wall clock, the last closing at `last`.
    static func series(_ id: String, last: Double, wall: Double = 1_796_000_000) -> PriceSeries {
        CoreFixtures.threeDays(id, last: last, wall: wall)
    }

    static func config() -> Config {
        Config.watchlist(["A", "B"]) { c in
            var alert = AlertConfig(name: "b-high", line: 40)
            alert.instrument = "B"
            alert.condition = .above(ExactDecimal(110))
            alert.bannerSeconds = 120
            c.alerts = [alert]
            c.staleAfterSeconds = 36_500 * 86_400
        }
    }

    func started(_ states: [String: AlertState] = [:], bLast: Double) -> CoreDriver {
        let d = CoreDriver(config: Self.config(), alertStates: states)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.series("A", last: 50)))
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: bLast)))
        d.run(for: 2)
        return d
    }

    @Test("fires once, jumps to B, banner for its time, status lists it; re-arms below the band")
    func firesOnce() throws {
        let d = started(bLast: 105)
        #expect(d.core.status().alerts.isEmpty)
        #expect(d.core.status().instrumentID == "A")
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 112.5)))
        d.run(for: 2)
        #expect(d.logs.filter { $0.value.hasPrefix("alert b-high") }.count == 1)
        #expect(d.core.status().alerts == ["b-high"])
        #expect(d.core.status().instrumentID == "B")
        #expect(d.presents.last?.value.banner == "\u{26A0} b-high: above 110")
        #expect(d.presents.first { $0.value.banner != nil }?.value.fullCopy == true)
        #expect(d.core.model?.statusNote?.hasPrefix("\u{26A0}") != true)
        // The same level again: no second firing; the banner ends after 120 s.
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 113)))
        d.run(for: 60)
        #expect(d.logs.filter { $0.value.hasPrefix("alert b-high") }.count == 1)
        d.stepWallClock(by: 120)
        d.run(for: 61)
        #expect(d.presents.last?.value.banner == nil)
        #expect(d.core.status().alerts == ["b-high"])
        // 109.50 is inside the 0.5 % band (109.45): still in effect; 109.40 re-arms.
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 109.5)))
        d.run(for: 2)
        #expect(d.core.status().alerts == ["b-high"])
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 109.4)))
        d.run(for: 2)
        #expect(d.core.status().alerts.isEmpty)
        #expect(d.core.status().json.contains("\"alerts\": []"))
    }

    @Test("a restart handed the saved state does not fire again; without it, it does")
    func restart() throws {
        let first = started(bLast: 112.5)
        #expect(first.logs.contains { $0.value.hasPrefix("alert b-high") })
        // Through the daemon's file format, as a restart reads it back.
        let text = AlertState.encode(first.core.alertStates)
        #expect(text.hasPrefix("b-high fired "))
        let saved = AlertState.decode(text)
        #expect(saved == first.core.alertStates)
        let again = started(saved, bLast: 112.5)
        #expect(!again.logs.contains { $0.value.hasPrefix("alert b-high") })
        #expect(again.core.status().alerts == ["b-high"])
        #expect(again.core.status().json.contains("\"alerts\": [\"b-high\"]"))
        let lost = started(bLast: 112.5)
        #expect(lost.logs.contains { $0.value.hasPrefix("alert b-high") })
    }

    @Test("a firing outlines its watchlist tile and names the alert there for the banner time")
    func highlightedTile() throws {
        var config = Self.config()
        config.watchlist = .only
        let d = CoreDriver(config: config)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.series("A", last: 50)))
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 105)))
        d.run(for: 2)
        var tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles.allSatisfy { $0.alert == nil })
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.series("B", last: 112.5)))
        d.run(for: 2)
        tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles[1].alert == "b-high" && tiles[1].note == "\u{26A0} b-high")
        #expect(tiles[0].alert == nil && tiles[0].note == "")
        // The jump to B's chart gives way to the overview after the touch pause; B is still outlined.
        d.run(for: config.touchPauseSeconds + 2)
        #expect(d.core.showingWatchlist)
        let board = try #require(d.core.watchlist)
        let picture = SceneRenderer().render(board).buffer
        let outline = WatchlistScene.alertColor.premultiplied
        func edge(_ i: Int) -> UInt32 {
            let r = board.layout.tiles[i]
            return picture[(r.x0 + r.x1) / 2, r.y0]
        }
        #expect(edge(1) == outline, "B's tile top edge: \(String(edge(1), radix: 16))")
        #expect(edge(0) != outline)
        // The banner's time (120 s) ends: the tile is plain again.
        d.run(for: 120)
        tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles[1].alert == nil && tiles[1].note == "")
        #expect(d.core.status().alerts == ["b-high"], "still in effect (the overview's status lists it too), only the highlight ended")
        let after = SceneRenderer().render(board).buffer
        #expect(after[(board.layout.tiles[1].x0 + board.layout.tiles[1].x1) / 2, board.layout.tiles[1].y0] != outline)
    }
}

/// Banners in the wall's language (issue 52 item 8). The separators are CLDR's (the table that
/// Tests/Locale/check-cldr.sh holds to Babel): de-DE groups with "." and sets "%" apart with a
/// no-break space, fr-FR groups with a narrow no-break space and writes "," for the decimal point.
@Suite struct AlertBannerWordsTests {
    static func words(_ condition: AlertConfig.Condition, _ locale: String, currency: String = "USD") -> String {
        var c = Config()
        c.locale = NumberLocale(identifier: locale)!
        return KioskCore.bannerWords(condition, phrases: Phrases(locale: locale), format: c.priceFormat(currencyCode: currency))
    }

    @Test("the level and the percentage in the locale's words and format")
    func localized() {
        #expect(Self.words(.below(ExactDecimal(12150)), "de-DE") == "unter 12.150")
        #expect(Self.words(.move(ExactDecimal(2)), "de-DE") == "Bewegung von 2\u{00A0}% oder mehr")
        #expect(Self.words(.below(ExactDecimal(shortest: 1234.5)!), "fr-FR", currency: "EUR") == "en dessous de 1\u{202F}234,5")
        #expect(Self.words(.above(ExactDecimal(3000)), "ja-JP", currency: "JPY") == "3,000 超")
        #expect(Self.words(.above(ExactDecimal(shortest: 0.75)!), "en-US") == "above 0.75")
        #expect(Self.words(.above(ExactDecimal(12150)), "en-US") == "above 12,150")
        #expect(Self.words(.stale(7200), "en-US") == "no price for 2h")
        #expect(Self.words(.stale(1800), "de-DE") == "kein Kurs seit 30min")
    }
}
