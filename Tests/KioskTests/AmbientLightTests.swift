// The ambient-light sensor's level (`[power] light-sensor`, issue 52 item 6): a lux trace through a
// day — dawn, a passing cloud, a lamp switched on — against the level curve worked out by hand from
// AmbientLight.steps (5, 50, 200, 800 lx: 20, 40, 60, 80, 100 %), the 25 % hysteresis at each edge
// (a step up past edge × 1.25, down below edge × 0.75) and at most one change per 30 s.
@testable import Commands
import Chart
import CoreDriver
import Feed
@testable import KioskCore
import Raster
import TestSupport
import Testing

@Suite("Ambient light: lux to level")
struct AmbientLightTests {
    @Test("a day's trace: dawn, a cloud, a lamp, the sensor gone")
    func trace() {
        var a = AmbientLight()
        #expect(a.level == nil)
        // (time, lux, level changed?, level after)
        let trace: [(Double, Double?, Bool, Double?)] = [
            (0, 2, true, 0.2),          // night: the first reading is taken as it is
            (600, 4, false, 0.2),       // dawn: 4 < 6.25, still the darkest step
            (1200, 8, true, 0.4),       // 8 > 6.25: a step up (a quarter past the 5 lx edge)
            (1800, 70, true, 0.6),      // 70 > 62.5 (50 × 1.25), not past 250: 60 %
            (1810, 40, false, 0.6),     // a cloud: 40 is not below 37.5 (50 × 0.75)
            (1815, 30, false, 0.6),     // below 37.5, but 15 s after the last change: waits until 1830
            (1820, 70, false, 0.6),     // the cloud passed before 1830: nothing changes
            (1900, 900, true, 0.8),     // a lamp: past 250, not past 1,000
            (1910, 1100, false, 0.8),   // past 1,000, 10 s after the lamp's change: waits until 1930
        ]
        for (t, lux, changed, level) in trace {
            #expect(a.reading(lux: lux, at: t) == changed, "at \(t)")
            #expect(a.level == level, "at \(t)")
        }
        #expect(a.nextDeadline == 1930)
        #expect(!a.timer(at: 1929) && a.level == 0.8)
        #expect(a.timer(at: 1930) && a.level == 1.0 && a.nextDeadline == nil)
        #expect(a.lux == 1100)
        // The cloud's wait at 1815 was dropped at 1820: no deadline was left behind for 1830.
        #expect(a.reading(lux: nil, at: 2000) && a.level == nil && a.lux == nil)
        #expect(!a.reading(lux: .nan, at: 2001) && !a.reading(lux: -3, at: 2002))
    }

    @Test("the schedule's level is the ceiling; the room lowers it; status says lux and level")
    func core() throws {
        var config = Config.watchlist(["A"])
        config.schedule = try parseSchedule("Mon-Sun 00:00-24:00 80%").get()
        config.lightSensor = .auto
        let d = CoreDriver(config: config, writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: SampleMarket.daily()))
        d.run(for: 3)
        #expect(d.core.status().level == 80 && d.core.status().lux == nil)
        // A dim room (20 lx: 40 %) lowers the level below the schedule's 80 %.
        d.send(.ambientLight(lux: 20))
        d.run(for: 3)
        #expect(d.core.status().level == 40 && d.core.status().lux == 20)
        // Daylight asks for 100 %: the schedule's 80 % stays the ceiling (after the 30 s a change waits).
        d.send(.ambientLight(lux: 5000))
        d.run(for: 3)
        #expect(d.core.status().level == 40)
        d.run(for: 30)
        #expect(d.core.status().level == 80 && d.core.status().lux == 5000)
        // The sensor unreadable: the schedule alone.
        d.send(.ambientLight(lux: 3))
        d.run(for: 35)
        #expect(d.core.status().level == 20)
        d.send(.ambientLight(lux: nil))
        d.run(for: 3)
        #expect(d.core.status().level == 80 && d.core.status().lux == nil)
    }

    @Test("light-sensor takes off, auto or a sensor's directory; anything else is explained")
    func configKey() {
        #expect(Config.parse("[power]\nlight-sensor = auto\n", file: "t.conf").0.lightSensor == .auto)
        #expect(Config.parse("[power]\nlight-sensor = /sys/bus/iio/devices/iio:device1\n", file: "t.conf").0.lightSensor
                == .path("/sys/bus/iio/devices/iio:device1"))
        let (c, issues) = Config.parse("[power]\nlight-sensor = bright\n", file: "t.conf")
        #expect(c.lightSensor == .off)
        #expect(issues.contains { $0.key == "light-sensor" && $0.message.hasPrefix("expected off, auto") }, "\(issues)")
    }

    @Test("a dim room on screen: the frame at the sensor's 40 %, dimmed in linear light",
          arguments: [("light-dim-800x480.png", 800, 480), ("light-dim-1920x1080.png", 1920, 1080)])
    func golden(name: String, width: Int, height: Int) throws {
        var config = Config.watchlist(["A"]) { $0.cycleSeconds = 0 }
        config.lightSensor = .auto
        config.staleAfterSeconds = 36_500 * 86_400
        let d = CoreDriver(config: config, display: DisplayInfo(width: width, height: height, refreshHz: 10))
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: SampleMarket.daily()))
        d.run(for: 3)
        // 20 lx is a dim room: 40 % (AmbientLight.steps), faded to in a second or two.
        d.send(.ambientLight(lux: 20))
        d.run(for: 5)
        let plan = try #require(d.presents.last?.value)
        #expect(plan.brightness == 0.4)
        guard case .chart(let model) = plan.scene else { Issue.record("no chart: \(plan.scene)"); return }
        let renderer = SceneRenderer()
        renderer.brightness = plan.brightness
        let frame = renderer.render(model, at: plan.time).buffer
        // Python over IEC 61966-2-1's curves: the background 0D1117 at 40 % of its linear light is
        // 05070B, the text E6EDF3 is 999DA1 (enc(dec(c / 255) * 0.4) * 255, rounded).
        #expect(frame[0, 0] == 0xFF05_070B)
        #expect(frame.pixels.contains(0xFF99_9DA1), "no pixel of the dimmed text colour")
        let result = ImageComparison.checkScreen(frame, golden: name)
        #expect(result.passed, "\(result.report)")
    }
}
