// The screen's power and light driven alone: times, touches, control requests and sensor readings
// in, DPMS, black frames, levels, palettes and the TV's orders out. The schedule is read in UTC so
// that every instant is worked out by hand (Tue 1 Dec 2026 00:00 UTC = day 20,788 since the epoch,
// 20,788 × 86,400 = 1,796,083,200; 20,788 mod 7 = 5, Thursday + 5 = Tuesday); expected values come
// from the rules in the comments, never from running the code.
import Control
import Feed
@testable import KioskCore
import Testing

private let evening = "Mon-Fri 07:00-22:00 100%, 22:00-07:00 20%, Sat-Sun off"
private let tuesday = 1_796_083_200.0  // Tue 1 Dec 2026 00:00 UTC
private let hour = 3600.0
private let saturday = tuesday + 4 * 86_400  // Sat 5 Dec 00:00, off all day
private let monday = tuesday + 6 * 86_400  // Mon 7 Dec 00:00

private func machine(_ schedule: String = evening, idle: Double = 0, nightPalette: Bool = false) -> ScreenPowerMachine {
    let parsed = Config.parse("[power]\nschedule = \(schedule)", file: "t.conf").0.schedule
    return ScreenPowerMachine(rule: ScreenPower(schedule: parsed, timeZone: .utc, blankAfterIdleSeconds: idle),
                              nightPalette: nightPalette)
}

extension ScreenPowerMachine {
    /// A decision with a display open, started at core second 0, dimmed in software.
    fileprivate mutating func decide(mono: Double, wall: Double, display: Bool = true, means: String = "software") -> [Action] {
        decide(at: KioskTime(mono: mono, wall: wall), startedAt: 0, displayOpen: display, means: means)
    }
}

@Suite struct ScreenPowerMachineTests {
    @Test("lit at full level at 21:59:30; the 22:00 dim is 30 s away, then it fades to 20 % over a second")
    func eveningDim() {
        var p = machine()
        // Tue 21:59:30: inside 07:00-22:00 at 100 %. The screen starts lit at full level, so
        // nothing changes but the TV hearing "on" (the schedule's edge unknown yet: no began).
        #expect(p.decide(mono: 100, wall: tuesday + 22 * hour - 30) == [.tellTV(screenOn: true, scheduleBegan: false)])
        #expect(p.state == .on(.day) && p.reason == .schedule)
        #expect(p.decisionDue == 130)
        // 22:00: 20 % until Wed 07:00, 9 h away, more than the hour's cap: due at 130 + 3600 s.
        #expect(p.decide(mono: 130, wall: tuesday + 22 * hour) == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 100 % -> 20 % (software)"), .repaint,
        ])
        #expect(p.decisionDue == 3730)
        // The fade starts at 130 s and lasts 1 s on the smoothstep: half-way the curve is at 0.5,
        // 100 % + (20 − 100) % × 0.5 = 60 %; from 131 s on, 20 %. No night palette without the key.
        #expect(p.percent(at: 130) == 100 && p.percent(at: 130.5) == 60 && p.percent(at: 131) == 20)
        #expect(p.palette == .day)
    }

    @Test("night-palette: below full level the night palette, at 07:00 the day's again")
    func nightPalette() {
        var p = machine(nightPalette: true)
        _ = p.decide(mono: 0, wall: tuesday + 21 * hour)
        #expect(p.decide(mono: 3600, wall: tuesday + 22 * hour) == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 100 % -> 20 % (software)"), .repaint,
            .log(.info, "power: night palette"), .paletteChanged,
        ])
        #expect(p.state == .on(.night))
        // Wed 07:00 (22:00 + 9 h): full level, the day's palette.
        #expect(p.decide(mono: 36_000, wall: tuesday + 31 * hour) == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 20 % -> 100 % (software)"), .repaint,
            .log(.info, "power: day palette"), .paletteChanged,
        ])
        #expect(p.state == .on(.day))
    }

    @Test("the weekend is dark by DPMS; a touch wakes it at once for the 120 s wake time")
    func weekendTouch() {
        var p = machine()
        // Sat 10:00: off. Next change Mon 07:00, two days away: the hour's cap, 1000 + 3600 s.
        #expect(p.decide(mono: 1000, wall: saturday + 10 * hour) == [
            .setPowered(false), .darkened, .tellTV(screenOn: false, scheduleBegan: false),
        ])
        #expect(p.state == .off(.dpms) && p.decisionDue == 4600 && p.percent(at: 1000) == 0)
        // A touch a minute later: a dark screen decides again.
        #expect(p.activity(at: saturday + 10 * hour + 60) == [.decide])
        #expect(p.decide(mono: 1060, wall: saturday + 10 * hour + 60) == [
            .log(.notice, "power: screen on"), .setPowered(true), .lit, .tellTV(screenOn: true, scheduleBegan: false),
        ])
        // Lit at once at full level (no fade up from black); dark again 120 s after the touch.
        #expect(p.state == .on(.day) && p.reason == .touched && p.percent(at: 1060) == 100)
        #expect(p.decisionDue == 1180)
        #expect(p.decide(mono: 1180, wall: saturday + 10 * hour + 180) == [
            .setPowered(false), .darkened, .tellTV(screenOn: false, scheduleBegan: false),
        ])
    }

    @Test("the schedule's off -> on edge is news for the TV, unless what was known of it was forgotten")
    func scheduleEdge() {
        var p = machine()
        _ = p.decide(mono: 0, wall: saturday + 10 * hour)
        // Mon 07:00: on, and the schedule went from off (Saturday) to on.
        #expect(p.decide(mono: 10, wall: monday + 7 * hour) == [
            .log(.notice, "power: screen on"), .setPowered(true), .lit, .tellTV(screenOn: true, scheduleBegan: true),
        ])
        var q = machine()
        _ = q.decide(mono: 0, wall: saturday + 10 * hour)
        // Another CEC adapter: the edge seen before it does not count.
        q.forgetSchedule()
        #expect(q.decide(mono: 10, wall: monday + 7 * hour).last == .tellTV(screenOn: true, scheduleBegan: false))
    }

    @Test("no display yet: dark without DPMS until one opens, which is then powered down once")
    func darkBeforeDisplay() {
        var p = machine()
        #expect(p.decide(mono: 0, wall: saturday, display: false) == [.darkened, .tellTV(screenOn: false, scheduleBegan: false)])
        #expect(p.state == .off(.notYet))
        #expect(p.displayOpened() == [.setPowered(false)])
        #expect(p.state == .off(.dpms))
        #expect(p.displayOpened() == [])
        #expect(p.frame(at: 1) == .dark)
        // Lit, a display opening changes nothing.
        var lit = machine()
        #expect(lit.displayOpened() == [])
    }

    @Test("a display without DPMS: one black frame, then nothing; with DPMS the flip in flight is forgotten")
    func blackFrame() {
        var p = machine()
        _ = p.decide(mono: 0, wall: saturday)
        #expect(p.offApplied(dpms: false) == [.log(.notice, "power: screen off (black frame): schedule")])
        #expect(p.state == .off(.blackFrameWanted))
        #expect(p.frame(at: 1) == .black)
        #expect(p.state == .off(.blackFrame))
        #expect(p.frame(at: 2) == .dark)
        var q = machine()
        _ = q.decide(mono: 0, wall: saturday)
        #expect(q.offApplied(dpms: true) == [.log(.notice, "power: screen off (DPMS): schedule"), .forgetFlip])
        #expect(q.state == .off(.dpms))
        // A report that comes after the screen is lit again says nothing.
        var lit = machine()
        #expect(lit.offApplied(dpms: true) == [])
    }

    @Test("idle from start-up: started at 0 s, 10 min of idle time, dark at 600 s, reason idle")
    func idleFromStart() {
        var p = machine(idle: 600)
        // Tue 10:00, 599 s after start: the start stands in for a touch 599 s ago, 1 s of idle left.
        #expect(p.decide(mono: 599, wall: tuesday + 10 * hour) == [.tellTV(screenOn: true, scheduleBegan: false)])
        #expect(p.decisionDue == 600)
        #expect(p.decide(mono: 600, wall: tuesday + 10 * hour + 1) == [
            .setPowered(false), .darkened, .tellTV(screenOn: false, scheduleBegan: false),
        ])
        #expect(p.reason == .idle)
        #expect(p.offApplied(dpms: true).first == .log(.notice, "power: screen off (DPMS): idle"))
    }

    @Test("a touch decides again only when it can change something: dark, an idle timeout, or a dimmed level")
    func activity() {
        var p = machine()
        _ = p.decide(mono: 0, wall: tuesday + 10 * hour)
        // Lit at full level, no idle timeout: a touch changes nothing.
        #expect(p.activity(at: tuesday + 10 * hour + 5) == [])
        _ = p.decide(mono: 10, wall: tuesday + 23 * hour)  // 20 %
        #expect(p.activity(at: tuesday + 23 * hour + 5) == [.decide])
        var idle = machine(idle: 600)
        _ = idle.decide(mono: 0, wall: tuesday + 10 * hour)
        #expect(idle.activity(at: tuesday + 10 * hour + 5) == [.decide])
    }

    @Test("ctl screen off holds the screen dark; a touch after the request lights it for 120 s, one before does not")
    func controlScreen() {
        var p = machine()
        let ten = tuesday + 10 * hour
        _ = p.decide(mono: 0, wall: ten)
        _ = p.activity(at: ten + 1)
        #expect(p.screen(.off, at: ten + 2) == [.log(.notice, "control: screen off"), .decide])
        #expect(p.controlMode == .off)
        // The touch at ten + 1 came before the request: dark, and no change of its own (the cap).
        #expect(p.decide(mono: 10, wall: ten + 10) == [.setPowered(false), .darkened, .tellTV(screenOn: false, scheduleBegan: false)])
        #expect(p.decisionDue == 3610)
        // A touch at ten + 20: lit until ten + 140, 120 s later.
        _ = p.activity(at: ten + 20)
        #expect(p.decide(mono: 20, wall: ten + 20).contains(.lit))
        #expect(p.reason == .touched && p.decisionDue == 140)
        #expect(p.screen(.auto, at: ten + 30) == [.log(.notice, "control: screen auto"), .decide])
        #expect(p.controlMode == .auto && p.controlLevel == nil)
    }

    @Test("ctl brightness: 40 holds 40 % on the control's means; 100 is full, 0 is off")
    func controlBrightness() {
        var p = machine()
        let ten = tuesday + 10 * hour
        _ = p.decide(mono: 0, wall: ten)
        #expect(p.brightness(40, at: ten) == [.log(.notice, "control: brightness 40 %"), .decide])
        #expect(p.controlMode == .on && p.controlLevel == 40)
        #expect(p.decide(mono: 1, wall: ten, means: "backlight intel_backlight") == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 100 % -> 40 % (backlight intel_backlight)"), .repaint,
        ])
        _ = p.brightness(100, at: ten + 1)
        #expect(p.controlMode == .on && p.controlLevel == nil)
        _ = p.brightness(0, at: ten + 2)
        #expect(p.controlMode == .off && p.controlLevel == nil)
        #expect(p.decide(mono: 3, wall: ten + 3).contains(.darkened))
    }

    @Test("the room's light: 3 lx is the darkest step, 20 %, under the schedule's 100 %; not under ctl screen on")
    func ambient() {
        var p = machine()
        let ten = tuesday + 10 * hour
        _ = p.decide(mono: 0, wall: ten)
        // The first reading is taken as it is: 3 ≤ 5 lx, the first step, 0.2.
        #expect(p.ambientReading(3, at: 1) == [.decide, .log(.info, "power: the light sensor reads 3 lx")])
        #expect(p.lux == 3)
        #expect(p.decide(mono: 1, wall: ten + 1) == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 100 % -> 20 % (software, the room's light)"), .repaint,
        ])
        // The operator's level is the operator's: the room does not lower it.
        _ = p.screen(.on, at: ten + 2)
        #expect(p.decide(mono: 2, wall: ten + 2) == [
            .tellTV(screenOn: true, scheduleBegan: false), .log(.info, "power: level 20 % -> 100 % (software)"), .repaint,
        ])
        #expect(p.ambientReading(nil, at: 3) == [.decide, .log(.warning, "power: the light sensor cannot be read; the schedule's level alone")])
        #expect(p.lux == nil)
    }

    @Test("a change of the room's step waits out 30 s since the last one, then the timer decides")
    func ambientWaits() {
        var p = machine()
        _ = p.ambientReading(3, at: 0)
        // 100 lx from step 0: past 5 × 1.25 and 50 × 1.25, not 200 × 1.25 = 250: step 2. Only
        // 10 s after the last change: it waits until 0 + 30 s, and says nothing (the sensor reads).
        #expect(p.ambientReading(100, at: 10) == [])
        #expect(p.ambientDue == 30)
        #expect(p.ambientTimer(at: 29) == [])
        #expect(p.ambientTimer(at: 30) == [.decide])
        #expect(p.ambientDue == nil)
    }

    @Test("frames: the level of the last frame presented against the fade's; a fade is no rest")
    func frames() {
        var p = machine()
        _ = p.decide(mono: 0, wall: tuesday + 21 * hour)
        // Lit at full level since the start, and the last frame was at full level.
        #expect(p.frame(at: 1) == .lit(level: 1, changed: false, fading: false))
        _ = p.decide(mono: 10, wall: tuesday + 22 * hour)  // fades to 0.2 from 10 s to 11 s
        guard case .lit(let level, let changed, let fading) = p.frame(at: 10.5) else {
            Issue.record("a lit screen gives a lit frame")
            return
        }
        // Half-way: 1 + (0.2 − 1) × 0.5 = 0.6.
        #expect(abs(level - 0.6) < 1e-9 && changed && fading)
        p.presented(level: level)
        #expect(p.frame(at: 11) == .lit(level: 0.2, changed: true, fading: false))
        p.presented(level: 0.2)
        #expect(p.frame(at: 12) == .lit(level: 0.2, changed: false, fading: false))
    }

    @Test("a new configuration keeps the screen's state until the next decision")
    func configure() {
        var p = machine()
        _ = p.decide(mono: 0, wall: saturday)
        p.configure(rule: ScreenPower(schedule: .always, timeZone: .utc), nightPalette: false)
        #expect(p.state == .off(.dpms))
        #expect(p.decide(mono: 1, wall: saturday + 1).contains(.lit))
    }
}

@Suite("Screen power: readings that are no reading")
struct ScreenPowerNonReadingTests {
    @Test("an infinite, NaN or negative lux is no reading: no trap in the log line, the schedule's level alone")
    func nonFiniteLux() {
        // The helper session that made the machine found the log line's Int(lux) would trap on an
        // infinite reading; the sensor's reader filters them, an event from elsewhere need not.
        for bad in [Double.infinity, -Double.infinity, .nan, -1] {
            var m = machine()
            let actions = m.ambientReading(bad, at: 10)
            #expect(!actions.contains { if case .log(_, let text) = $0 { text.contains("reads") } else { false } })
        }
        var m = machine()
        let actions = m.ambientReading(250, at: 10)
        // A real reading is told once, rounded: 250 lx.
        #expect(actions.contains { if case .log(_, let text) = $0 { text.contains("reads 250 lx") } else { false } })
    }
}
