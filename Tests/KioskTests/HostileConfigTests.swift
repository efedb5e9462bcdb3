import Chart
@testable import Commands
import DisplayModel
import Feed
import InputModel
@testable import Kiosk
@testable import KioskCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Values that once passed parsing and then trapped (check-config, start-up or a reload): each is
/// now either refused with a `FILE:LINE: key: message` line or runs.
@Suite("Hostile config values")
struct HostileConfigTests {
    static let refused: [BrokenConfig] = [
        .init(text: "[power]\nschedule = - 07:00-22:00", expected: "t.conf:2: schedule: \"-\" is not a day or day range like Mon-Fri"),
        .init(text: "[power]\nschedule = Mon-Fri 07:00-08:00, - -", expected: "t.conf:2: schedule: \"-\" is not a day or day range like Mon-Fri"),
        .init(text: "[power]\nschedule = " + Array(repeating: "Mon 07:00-07:01", count: 33).joined(separator: ", "),
              expected: "t.conf:2: schedule: expected at most 32 clauses, found 33"),
        .init(text: "[data]\nstale-after = 1e300d",
              expected: "t.conf:2: stale-after: expected a duration like 3d, 12h or 90min (1s to 36500d), found \"1e300d\""),
        .init(text: "[data]\nstale-after = 0.2s",
              expected: "t.conf:2: stale-after: expected a duration like 3d, 12h or 90min (1s to 36500d), found \"0.2s\""),
        .init(text: "[power]\nblank-after-idle = 1e300d",
              expected: "t.conf:2: blank-after-idle: expected 0 (never) or a duration like 10min (at most 7d), found \"1e300d\""),
        .init(text: "[burn-in]\nperiod = 1e300",
              expected: "t.conf:2: period: expected a duration from 10s to 7d, found \"1e300\""),
        .init(text: "[chart]\ninstrument-interval = 1e300h",
              expected: "t.conf:2: instrument-interval: expected 0 or a duration from 5s to 7d, found \"1e300h\""),
        .init(text: "[chart]\nmorph-curve = cubic-bezier(0.5, 1e308, 0.5, -1e308)",
              expected: "t.conf:2: morph-curve: expected cubic-bezier(x1, y1, x2, y2) with x1 and x2 from 0 to 1 and y1 and y2 from -5 to 5, found \"cubic-bezier(0.5, 1e308, 0.5, -1e308)\""),
        .init(text: "[display]\nmode = 100000x100000",
              expected: "t.conf:2: mode: expected WxH or WxH@Hz like 1920x1080@60 (at most 8192x8192, 1 to 1000 Hz), found \"100000x100000\""),
        .init(text: "[display]\nmode = 640x480@inf",
              expected: "t.conf:2: mode: expected WxH or WxH@Hz like 1920x1080@60 (at most 8192x8192, 1 to 1000 Hz), found \"640x480@inf\""),
        .init(text: "[input]\ncalibration = 1e300 0 0 0 1 0",
              expected: "t.conf:2: calibration: expected six numbers from -1000 to 1000 (libinput's calibration matrix), found \"1e300 0 0 0 1 0\""),
        .init(text: "[input]\ncalibration = 1 0 0 0 1 0 x",
              expected: "t.conf:2: calibration: expected six numbers (a b c d e f of libinput's calibration matrix), found \"1 0 0 0 1 0 x\""),
        .init(text: "[chart]\ncurrency-symbol = " + String(repeating: "$", count: 9),
              expected: "t.conf:2: currency-symbol: expected at most 8 characters, found \"$$$$$$$$$…\""),
        .init(text: "[instrument A]\nname = " + String(repeating: "n", count: 65),
              expected: "t.conf:2: name: expected a name of at most 64 characters"),
    ]

    @Test("refused with a located message", arguments: refused)
    func refusedValue(_ c: BrokenConfig) {
        let issues = Config.parse(c.text, file: "t.conf").1
        #expect(issues.map(\.description) == [c.expected])
        #expect(!ConfigReload.reload(current: Config(), text: c.text, file: "t.conf").applied)
    }

    @Test("the 101st instrument is refused")
    func instrumentCount() {
        let text = (0...100).map { "[instrument I\($0)]\ndaily = I\($0).csv\n" }.joined()
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(config.instruments.count == 100)
        #expect(issues.map(\.description) == ["t.conf:202: daily: more than 100 [instrument] sections"])
    }

    /// The largest value of each key check-config accepts, all at once, through a day and a half of
    /// the core (start, data, cycling, touch, reload): it must run, not trap.
    @Test("the extremes check-config accepts run")
    func extremesRun() {
        let text = """
            [display]
            mode = 8192x8192@1000
            [input]
            calibration = 1000 -1000 1000 -1000 1000 -1000
            [data]
            stale-after = 36500d
            [chart]
            cycle-interval = 24h
            instrument-interval = 7d
            touch-pause = 24h
            morph-duration = 10s
            morph-curve = cubic-bezier(0, 5, 1, -5)
            currency-symbol = €€€€€€€€
            [power]
            schedule = Sun-Sat 23:59-00:00
            blank-after-idle = 7d
            [burn-in]
            shift = 16
            period = 7d
            [instrument A]
            daily = A.csv
            intraday = A-1m.csv
            """
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        let d = ConfigEffectTests.drive(config, seconds: 1.5 * 86_400)
        d.send(.gesture(.scrubBegan(x: 100, y: 100), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        d.send(.configure(KioskSetup(config: config, zones: [:], localZone: .utc)))
        d.run(for: 600)
        #expect(!d.presents.isEmpty)
        #expect(d.core.nextDeadline.map(\.isFinite) ?? true)
        let model = d.core.model
        #expect(model != nil)
        if let model { _ = SceneRenderer().render(model, at: d.time.mono + 0.5) }
    }

    @Test("the power schedule and burn-in shift take any clock")
    func absurdClocks() {
        let power = ScreenPower(schedule: Config.parse("[power]\nschedule = Mon 07:00-08:00", file: "t").0.schedule,
                                timeZone: .utc, blankAfterIdleSeconds: 7 * 86_400)
        for t in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 9.3e18, 0] {
            let d = power.decide(at: t, lastActivity: t)
            #expect(d.nextChange.map { !$0.isNaN } ?? true)
        }
        let shift = BurnInShift(shift: 16, periodSeconds: 7 * 86_400)
        for t in [Double.nan, .infinity, 1e300, -1e300] { _ = shift.offset(at: t); _ = shift.nextChange(after: t) }
    }

    /// A FIFO given as the config (no writer) must not block check-config, start-up or a reload.
    @Test("a FIFO as the config is refused at once")
    func fifoConfig() {
        let path = "/tmp/tickerboard-fifo-\(getpid()).conf"
        defer { unlink(path) }
        #expect(mkfifo(path, 0o600) == 0)
        #expect(Config.load(path: path).1.map(\.description) == ["\(path):0: cannot open: not a regular file"])
        #expect(!ConfigReload.reload(current: Config(), path: path).applied)
    }
}
