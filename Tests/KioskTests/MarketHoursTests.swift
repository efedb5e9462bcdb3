// Screen hours that follow the exchanges: `[power] follow-markets`, `lead`, `trail`, the plan that
// `tickerboard power-plan` prints, and the daemon's ScreenPower deciding by it. Expected instants
// were computed independently (Python's zoneinfo) from the exchanges' published hours for
// Christmas and New Year 2025/26 (the same days `tickerboard calendar` lists).
@testable import Commands
import CoreDriver
import Feed
@testable import KioskCore
import Testing

private let newYork = try! ExchangeTimeZone(identifier: "America/New_York")
private let london = try! ExchangeTimeZone(identifier: "Europe/London")
private let tokyo = try! ExchangeTimeZone(identifier: "Asia/Tokyo")
private let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin")

private func config(_ power: String, _ exchanges: [String]) -> (Config, [ConfigIssue]) {
    var text = "[power]\n\(power)\n"
    for (i, mic) in exchanges.enumerated() {
        text += "[instrument I\(i)]\ndaily = /x.csv\n" + (mic == "24/7" ? "session = 24/7\n" : "exchange = \(mic)\n")
    }
    return Config.parse(text, file: "t.conf")
}

/// The daemon's ScreenPower for `exchanges`, each instrument's zone resolved as the shell does.
private func power(_ powerLines: String, _ exchanges: [String], local: ExchangeTimeZone) -> ScreenPower {
    let (c, issues) = config(powerLines, exchanges)
    precondition(issues.allSatisfy { $0.severity == .warning }, "\(issues)")
    var zones: [String: ExchangeTimeZone] = [:]
    for inst in c.instruments { zones[inst.id] = try! ExchangeTimeZone(identifier: inst.timeZone) }
    return ScreenPower(config: c, timeZone: local, zones: zones)
}

private func onIntervals(_ p: ScreenPower, _ from: Int64, _ to: Int64) -> [[Int64]] {
    PowerPlan.intervals(p, from: from, to: to).filter { $0.level == 100 }.map { [$0.start, $0.end] }
}

@Suite("Market hours: follow-markets, lead and trail")
struct MarketHoursTests {
    let followUS = "follow-markets = on\nlead = 30m\ntrail = 30m"

    @Test("XNYS over Christmas 2025: 30 min around each session, the early close, off over the holiday with its name")
    func newYorkChristmas() {
        let p = power(followUS, ["XNYS"], local: newYork)
        let from = newYork.startOfDay(CivilDate(year: 2025, month: 12, day: 24)!)
        let to = newYork.startOfDay(CivilDate(year: 2025, month: 12, day: 27)!)
        let plan = PowerPlan.intervals(p, from: from, to: to)
        let expected: [[Int64]] = [[1_766_584_800, 1_766_601_000], [1_766_757_600, 1_766_784_600]]
        #expect(onIntervals(p, from, to) == expected)
        #expect(plan.map(\.state) == ["off", "on", "off", "on", "off"])
        #expect(plan[1].reason == "XNYS open 09:30-13:00 EST, early close: Christmas Eve")
        #expect(plan[2].reason == "XNYS closed: Christmas Day")
        #expect(plan.last?.reason == "weekend")
        // Contiguous, clipped to the range.
        #expect(plan.first?.start == from && plan.last?.end == to)
        #expect(zip(plan, plan.dropFirst()).allSatisfy { $0.end == $1.start })
    }

    @Test("XNYS New Year: closed on 1 January, open again on Friday 2 January 09:00 with the lead")
    func newYorkNewYear() {
        let p = power(followUS, ["XNYS"], local: newYork)
        let d = p.decide(at: 1_767_216_600, lastActivity: -1e12)  // Wed 31 Dec 16:30 EST: the trail ends
        #expect(!d.isOn)
        #expect(d.nextChange == 1_767_362_400)
        #expect(p.decide(at: 1_767_216_599, lastActivity: -1e12).isOn)
        let plan = PowerPlan.intervals(p, from: 1_767_216_600, to: 1_767_362_400)
        #expect(plan.count == 1 && plan[0].reason == "XNYS closed: New Year's Day")
    }

    @Test("XLON: early closes on 24 and 31 December, Christmas and Boxing Day and the weekend in one off stretch")
    func londonChristmas() {
        let p = power(followUS, ["XLON"], local: london)
        let from = london.startOfDay(CivilDate(year: 2025, month: 12, day: 24)!)
        let to = london.startOfDay(CivilDate(year: 2026, month: 1, day: 3)!)
        let on = onIntervals(p, from, to)
        #expect(on.first == [1_766_561_400, 1_766_581_200])  // 07:30-13:00 GMT on the 24th
        #expect(on[1][0] == 1_766_993_400)  // next: Monday 29th 07:30
        #expect(on.contains { $0[1] == 1_767_186_000 })  // 31st: 12:30 close + 30 min
        #expect(on.last?[0] == 1_767_339_000)  // Friday 2 January 07:30
        let off = PowerPlan.intervals(p, from: from, to: to).first { $0.start == 1_766_581_200 }
        #expect(off?.reason == "XLON closed: Christmas Day, Boxing Day; weekend")
        #expect(off?.end == 1_766_993_400)
    }

    @Test("XTKS: the New Year closure (31 December to 3 January), the lunch break stays on")
    func tokyoNewYear() {
        let p = power("follow-markets = on\nlead = 15m\ntrail = 1h", ["XTKS"], local: tokyo)
        let from = tokyo.startOfDay(CivilDate(year: 2025, month: 12, day: 30)!)
        let to = tokyo.startOfDay(CivilDate(year: 2026, month: 1, day: 6)!)
        let on = onIntervals(p, from, to)
        let expected: [[Int64]] = [[1_767_051_900, 1_767_079_800], [1_767_570_300, 1_767_598_200]]  // 08:45-16:30 JST
        #expect(on == expected)
        let off = PowerPlan.intervals(p, from: from, to: to).first { $0.start == 1_767_079_800 }
        #expect(off?.reason.hasPrefix("XTKS closed: ") == true)
        #expect(off?.reason.contains("New Year's Day") == true)
        // 12:00 JST on the 30th is the lunch break: on.
        #expect(p.isScheduledOn(at: 1_767_063_600))
    }

    @Test("the plan agrees with the calendar's sessions: every session's window and nothing else, for three exchanges")
    func agreesWithCalendar() {
        for (mic, zone) in [("XNYS", newYork), ("XLON", london), ("XTKS", tokyo)] {
            let p = power(followUS, [mic], local: zone)
            let calendar = ExchangeCalendar.named(mic)!
            let first = CivilDate(year: 2025, month: 12, day: 15)!, last = CivilDate(year: 2026, month: 1, day: 10)!
            let expected = calendar.sessions(from: first, through: last, zone: zone).map { [$0.open - 1800, $0.close + 1800] }
            #expect(onIntervals(p, zone.startOfDay(first), zone.startOfDay(last.adding(days: 1))) == expected, "\(mic)")
        }
    }

    @Test("several exchanges: overlapping windows merge, each says which sessions; 24/7 adds none")
    func severalExchanges() {
        let p = power(followUS, ["XNYS", "XLON", "24/7"], local: berlin)
        #expect(p.markets?.exchanges.map(\.calendar.mic) == ["XNYS", "XLON"])
        // Tue 23 Dec 2025: London 07:30-17:00 GMT and New York 14:00-21:30 UTC merge: 08:30-22:30 CET.
        let from = berlin.startOfDay(CivilDate(year: 2025, month: 12, day: 23)!)
        let plan = PowerPlan.intervals(p, from: from, to: from + 86_400)
        #expect(plan.map(\.state) == ["off", "on", "off"])
        let start: Int64 = from + 30_600, end: Int64 = from + 81_000  // 08:30 and 22:30
        #expect(plan[1].start == start && plan[1].end == end)
        #expect(plan[1].reason == "XLON open 08:00-16:30 GMT + XNYS open 09:30-16:00 EST")
    }

    @Test("DST: New York's open moves an hour earlier on the Berlin screen between the two changes (March 2026)")
    func daylightSaving() {
        let p = power(followUS, ["XNYS"], local: berlin)
        // Fri 6 March: EST, 09:30 New York is 15:30 Berlin; the lead starts at 15:00.
        #expect(p.nextScheduleChange(after: 1_772_805_600 - 3600) == 1_772_805_600)
        // Mon 9 March: New York is on EDT, Berlin not yet: 14:30 Berlin, lead from 14:00.
        #expect(p.nextScheduleChange(after: 1_773_061_200 - 3600) == 1_773_061_200)
        #expect(p.nextScheduleChange(after: 1_774_616_400 - 3600) == 1_774_616_400)  // Fri 27 March, 14:00 CET
        // Mon 30 March: both on summer time, 15:00 CEST again.
        #expect(p.nextScheduleChange(after: 1_774_875_600 - 3600) == 1_774_875_600)
    }

    @Test("the weekly schedule and the markets unite; without a schedule the screen is off outside the windows")
    func unionWithSchedule() {
        let bare = power(followUS, ["XNYS"], local: newYork)
        #expect(!bare.isScheduledOn(at: 1_766_851_200))  // Sat 27 Dec 11:00 EST
        let weekend = power(followUS + "\nschedule = Sat-Sun 10:00-12:00", ["XNYS"], local: newYork)
        #expect(weekend.isScheduledOn(at: 1_766_851_200))
        let plan = PowerPlan.intervals(weekend, from: 1_766_851_200 - 3600, to: 1_766_851_200 + 7200)  // 10:00-13:00
        #expect(plan.map(\.state) == ["on", "off"] && plan[0].reason == "schedule")
        #expect(plan.last?.reason == "weekend" && plan.last?.start == 1_766_851_200 + 3600)
    }

    @Test("24/7 only: nothing to follow, a warning at the line, the schedule alone decides")
    func aroundTheClockOnly() {
        let (c, issues) = config("schedule = always\nfollow-markets = on", ["24/7"])
        #expect(issues.map(\.description) == ["t.conf:3: follow-markets: no instrument trades on an exchange with hours (24/7 ones never turn the screen on); the schedule alone decides"])
        let p = ScreenPower(config: c, timeZone: newYork, zones: ["I0": .utc])
        #expect(p.markets == nil && p.isScheduledOn(at: 1_766_851_200))
        let off = power("follow-markets = off", ["XNYS"], local: newYork)
        #expect(off.markets == nil && off.schedule.isAlwaysOn)
    }

    @Test("check-config explains each mistake at its line")
    func configMistakes() {
        let (_, issues) = config("follow-markets = sometimes\nlead = 13h\ntrail = soon", ["XNYS"])
        #expect(issues.map(\.description) == [
            "t.conf:2: follow-markets: expected on or off, found \"sometimes\"",
            "t.conf:3: lead: expected a duration from 0 to 12h before the first open, like 30m, found \"13h\"",
            "t.conf:4: trail: expected a duration from 0 to 12h after the last close, like 30m, found \"soon\"",
        ])
    }

    @Test("power-plan --tsv: ISO 8601 with the offset, the state, the reason")
    func tsvLine() {
        let line = PowerPlanCommand.tsvLine(PowerPlan.Interval(start: 1_766_601_000, end: 1_766_757_600, level: 0,
                                                               reason: "XNYS closed: Christmas Day"), zone: newYork)
        #expect(line == "2025-12-24T13:30:00-05:00\t2025-12-26T09:00:00-05:00\toff\tXNYS closed: Christmas Day")
    }
}


@Suite("Market hours: the core")
struct MarketHoursCoreTests {
    @Test("the core switches the screen at the window edges over Christmas, on the manual clock")
    func coreFollowsMarkets() {
        var config = Config.watchlist(["A"]) { $0.instruments[0].exchange = "XNYS" }
        config.followMarkets = true
        // Wed 24 Dec 2025 08:00 EST.
        let d = CoreDriver(config: config, zones: ["A": newYork], localZone: newYork,
                           start: KioskTime(mono: 1000, wall: 1_766_581_200))
        d.send(.start)
        d.run(for: 3 * 86_400)
        let changes = d.powered.map { ($0.time.wall, $0.value) }
        let expected: [(Double, Bool)] = [
            (1_766_581_200, false),  // 08:00: before the lead
            (1_766_584_800, true),   // 09:00: lead 30m before the open
            (1_766_601_000, false),  // 13:30: trail after the 13:00 early close
            (1_766_757_600, true),   // Fri 26 Dec 09:00: Christmas Day passed dark
            (1_766_784_600, false),  // 16:30
        ]
        #expect(changes.count == expected.count, "\(changes)")
        for (got, want) in zip(changes, expected) {
            #expect(got.1 == want.1)
            #expect(abs(got.0 - want.0) < 1.5, "switched \(got.1 ? "on" : "off") at \(got.0), expected \(want.0)")
        }
    }
}
