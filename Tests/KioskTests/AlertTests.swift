// Alerts on a manual clock (issue 36): once per crossing, hysteresis, no repeat at restart, a move
// re-arms on a new day, stale, the banner's time, and check-config's messages.

import Feed
import KioskCore
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
