// Levels in the screen's schedule (`schedule = Mon-Fri 07:00-22:00 100%, 22:00-07:00 20%, Sat-Sun off`):
// the syntax and its mistakes, and every transition of the level policy on a manual clock (the
// schedule, the markets, a touch that wakes to full level, idle blanking). Instants computed with
// Python's zoneinfo for Europe/Berlin, December 2026 (no DST change inside).
import Chart
import CoreDriver
import Feed
import Raster
@testable import KioskCore
import Testing

private let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin")
private let evening = "Mon-Fri 07:00-22:00 100%, 22:00-07:00 20%, Sat-Sun off"

private func parse(_ text: String) -> (PowerSchedule, [String]) {
    let (config, issues) = Config.parse("[power]\nschedule = \(text)", file: "t.conf")
    return (config.schedule, issues.map(\.description))
}

// Tue 1 Dec 2026, Berlin.
private let tue0600: Double = 1_796_101_200
private let tue0700: Int64 = 1_796_104_800
private let day: Int64 = 86_400

@Suite("Light levels: schedule syntax and the level policy")
struct LightLevelTests {
    @Test("the level syntax: a level per clause, clauses without days take the previous days, a later clause wins")
    func syntax() {
        let (s, issues) = parse(evening)
        #expect(issues.isEmpty)
        #expect(s.level(weekday: 2, minute: 6 * 60) == 20)  // Tue 06:00: Monday's night
        #expect(s.level(weekday: 2, minute: 7 * 60) == 100)
        #expect(s.level(weekday: 2, minute: 22 * 60) == 20)
        #expect(s.level(weekday: 1, minute: 60) == 0)  // Mon 01:00: Sunday is off, its night too
        #expect(s.level(weekday: 6, minute: 60) == 0)  // Sat 01:00: Friday's night, overridden by Sat off
        #expect(s.level(weekday: 5, minute: 23 * 60) == 20)
        #expect(!s.isAlwaysOn && !s.isNeverOn)
        // Today's syntax means what it meant: full level, days not named off.
        let (office, _) = parse("Mon-Fri 07:00-22:00, Sat 09:00-18:00")
        #expect(office.level(weekday: 3, minute: 420) == 100 && office.level(weekday: 0, minute: 600) == 0)
        // Whole days at a level; on and 0% spelled out.
        let (quiet, _) = parse("Mon-Sun 30%, Mon-Fri 08:00-18:00 on, Wed 12:00-13:00 0%")
        #expect(quiet.level(weekday: 0, minute: 0) == 30 && quiet.level(weekday: 1, minute: 480) == 100)
        #expect(quiet.level(weekday: 3, minute: 750) == 0 && quiet.level(weekday: 3, minute: 780) == 100)
        #expect(parse("Mon-Sun 100%").0.isAlwaysOn)
    }

    @Test("check-config explains each mistake of the level syntax at its line")
    func mistakes() {
        #expect(parse("Mon-Fri 07:00-22:00 150%").1 == ["t.conf:2: schedule: \"150%\" is not a level like 20%, on or off (in \"Mon-Fri 07:00-22:00 150%\")"])
        #expect(parse("22:00-07:00 20%, Mon-Fri 07:00-22:00").1 == ["t.conf:2: schedule: \"22:00-07:00 20%\": the first clause names its days, like Mon-Fri 07:00-22:00"])
        #expect(parse("Mon-Fri 07:00-22:00 20% bright").1 == ["t.conf:2: schedule: \"bright\" after the level in \"Mon-Fri 07:00-22:00 20% bright\"; expected DAYS HH:MM-HH:MM LEVEL"])
        #expect(parse("Mon-Fri dim").1 == ["t.conf:2: schedule: \"dim\" is not a level like 20%, on or off (in \"Mon-Fri dim\")"])
        #expect(parse("Mon-Fri 07:00-22:00 -5%").1 == ["t.conf:2: schedule: \"-5%\" is not a level like 20%, on or off (in \"Mon-Fri 07:00-22:00 -5%\")"])
        #expect(parse("Mon-Fri").1 == ["t.conf:2: schedule: expected \"Mon-Fri 07:00-22:00\" clauses separated by commas, found \"Mon-Fri\""])
    }

    @Test("every transition of a week: bright days, dim nights, a dark weekend")
    func weekOfTransitions() {
        let p = ScreenPower(schedule: parse(evening).0, timeZone: berlin)
        var expected: [Int64] = []
        // append, not +=: Swift 6.0.3 (the arm64 build) cannot type these literals through the inout operator.
        for d in 0..<4 {
            let morning: Int64 = tue0700 + Int64(d) * day
            expected.append(morning)
            expected.append(morning + 15 * 3600)
        }
        let monday: Int64 = 1_796_623_200
        expected.append(contentsOf: [1_796_425_200, monday, monday + 15 * 3600] as [Int64])  // Sat 00:00, Mon 07:00, Mon 22:00
        #expect(p.scheduleChanges(from: Int64(tue0600), through: Int64(tue0600) + 7 * day) == expected)
        var levels: [Int] = []
        var t = tue0600
        for _ in 0..<12 {
            let d = p.decide(at: t, lastActivity: -1e12)
            levels.append(d.level)
            guard let next = d.nextChange else { break }
            t = next
        }
        #expect(levels == [20, 100, 20, 100, 20, 100, 20, 100, 20, 0, 100, 20])
    }

    @Test("a touch wakes to full level for the wake time, dimmed or off alike, then the schedule's level returns")
    func touchWakes() {
        let p = ScreenPower(schedule: parse(evening).0, timeZone: berlin)
        let tue2300 = Double(tue0700 + 16 * 3600)
        let d = p.decide(at: tue2300 + 10, lastActivity: tue2300)
        #expect(d.level == 100 && d.reason == .touched && d.nextChange == tue2300 + 120)
        let after = p.decide(at: tue2300 + 120, lastActivity: tue2300)
        #expect(after.level == 20 && after.reason == .schedule)
        let sat = Double(1_796_461_200)  // Sat 10:00: off
        #expect(p.decide(at: sat + 1, lastActivity: sat).level == 100)
        #expect(p.decide(at: sat + 120, lastActivity: sat).level == 0)
    }

    @Test("idle blanking: off after the idle time; the dim evening keeps it off, the bright morning lights it")
    func idleBlank() {
        let p = ScreenPower(schedule: parse(evening).0, timeZone: berlin, blankAfterIdleSeconds: 600)
        let t0700 = Double(tue0700)
        #expect(p.decide(at: t0700 + 1, lastActivity: 0).level == 100)
        let idle = p.decide(at: t0700 + 600, lastActivity: 0)
        #expect(idle.level == 0 && idle.reason == .idle)
        #expect(p.decide(at: t0700 + 15 * 3600 + 1, lastActivity: 0).level == 0)  // 22:00 dims: still off
        let morning = p.decide(at: t0700 + Double(day) + 1, lastActivity: 0)  // Wed 07:00
        #expect(morning.level == 100 && morning.nextChange == t0700 + Double(day) + 600)
        // A touch during the dim night lifts it to full level until the idle time blanks it again.
        let night = t0700 + 16 * 3600
        #expect(p.decide(at: night + 5, lastActivity: night).level == 100)
        #expect(p.decide(at: night + 600, lastActivity: night).level == 0)
    }

    @Test("markets on top of a dim schedule: full level in the windows, the schedule's level outside")
    func marketsOverDim() {
        let (c, _) = Config.parse("[power]\nfollow-markets = on\nschedule = Mon-Sun 15%\n[instrument A]\ndaily = /x.csv\nexchange = XETR\n", file: "t.conf")
        let p = ScreenPower(config: c, timeZone: berlin, zones: ["A": berlin])
        let from = Int64(tue0600) - 6 * 3600, to = from + day
        let plan = PowerPlan.intervals(p, from: from, to: to)
        #expect(plan.map(\.state) == ["dim 15%", "on", "dim 15%"])
        #expect(plan[1].start == tue0700 + 3600 + 1800)  // Xetra 09:00 minus the 30 min lead
        #expect(plan[0].reason == "schedule")
    }
}

@Suite("Light levels: the fade, on the manual clock")
struct LightFadeTests {
    @Test("the fade curve: from, to, eased, monotone, a second long, retargeted from where it is")
    func curve() {
        var f = LightFade(level: 1)
        #expect(!f.isFading(at: 0) && f.level(at: 0) == 1)
        f.fade(to: 0.2, at: 10)
        #expect(f.level(at: 10) == 1 && f.level(at: 11) == 0.2 && f.level(at: 12) == 0.2)
        #expect(abs(f.level(at: 10.5) - 0.6) < 1e-12)  // smoothstep is half-way at half time
        let samples = stride(from: 10.0, through: 11.0, by: 0.01).map { f.level(at: $0) }
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $1 <= $0 })
        // Slow at both ends: the first and last hundredth move less than the middle one.
        #expect(samples[0] - samples[1] < samples[50] - samples[51] && samples[99] - samples[100] < samples[50] - samples[51])
        #expect(f.isFading(at: 10.99) && !f.isFading(at: 11))
        // A new target mid-fade starts where the level is, not where the last fade began.
        f.fade(to: 1, at: 10.5)
        #expect(abs(f.level(at: 10.5) - 0.6) < 1e-12 && f.level(at: 11.5) == 1)
        f.jump(to: 0.3)
        #expect(f.level(at: 11.6) == 0.3 && !f.isFading(at: 11.6))
    }

    @Test("the core fades at a transition of the schedule, a frame per refresh, each painted whole, then rests")
    func coreFades() throws {
        var config = Config.watchlist(["A"])
        config.schedule = try parseSchedule("Mon-Sun 00:00-12:00 100%, 12:00-24:00 20%").get()
        let noon = 1_796_040_000.0  // Sun 29 Nov 2026 12:00 UTC
        let d = CoreDriver(config: config, start: KioskTime(mono: 1000, wall: noon - 10), writesStatus: true)
        d.send(.start)
        d.run(for: 5)
        #expect(d.core.status().level == 100 && d.core.status().brightnessMeans == "software")
        let before = d.presents.count
        d.run(for: 10)
        let fade = d.presents.dropFirst(before).filter { $0.value.brightness < 1 }
        let levels = fade.map(\.value.brightness)
        // 10 Hz display: about ten frames over the second, falling, ending at 0.2.
        #expect(fade.count >= 9 && fade.count <= 13, "\(levels)")
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $1 <= $0 })
        #expect(levels.last == 0.2)
        #expect(fade.allSatisfy { $0.value.fullCopy && $0.value.redraw })
        let first = try #require(fade.first), last = try #require(fade.last)
        #expect(first.time.wall >= noon && last.time.wall - noon < 1.3)
        // Then nothing: no frame after the fade's last.
        #expect(d.presents.last?.time.mono == last.time.mono)
        #expect(d.core.status().level == 20)
        // A touch wakes to full level (fading up), for the wake time.
        d.send(.gesture(.scrubBegan(x: 5, y: 5), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        d.run(for: 3)
        #expect(d.core.status().level == 100)
        d.run(for: 125)
        #expect(d.core.status().level == 20)
    }
}

@Suite("Light levels: the night palette")
struct NightPaletteTests {
    @Test("below full level the screen shows the night palette, at full level the day's; a touch brings the day back")
    func switches() throws {
        var config = Config.watchlist(["A"])
        config.nightPalette = true
        config.schedule = try parseSchedule("Mon-Sun 00:00-12:00 100%, 12:00-24:00 20%").get()
        let noon = 1_796_040_000.0
        let d = CoreDriver(config: config, start: KioskTime(mono: 1000, wall: noon - 10))
        d.send(.start)
        d.run(for: 5)
        let day = ChartPalette.standard, night = ChartPalette.standard.night
        #expect(d.core.model?.screen.palette == day)
        d.run(for: 10)
        #expect(d.core.model?.screen.palette == night)
        // Darker background, text of lower contrast, muted up colour.
        func luma(_ c: Color) -> Double { 0.2126 * Double(c.red) + 0.7152 * Double(c.green) + 0.0722 * Double(c.blue) }
        #expect(luma(night.background) < luma(day.background) && luma(night.text) < luma(day.text))
        #expect(luma(night.up) < luma(day.up) && night.up.green < day.up.green)
        d.send(.gesture(.scrubBegan(x: 5, y: 5), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        d.run(for: 2)
        #expect(d.core.model?.screen.palette == day)
        // Without the key the dim screen keeps the day palette.
        config.nightPalette = false
        let plain = CoreDriver(config: config, start: KioskTime(mono: 1000, wall: noon + 10))
        plain.send(.start)
        plain.run(for: 2)
        #expect(plain.core.model?.screen.palette == day && plain.core.status().level == 20)
    }
}
