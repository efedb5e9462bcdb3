import Chart
import Control
import CoreDriver
import Feed
import StatusModel
@testable import KioskCore
import Testing

/// Every control request through the pure core on a manual clock: what it changes on screen, what
/// it answers, and what it leaves alone (with the screen off, mid-morph, with the display gone).
@Suite("Control requests in the core")
struct ControlCoreTests {
    var nextID: UInt64 = 0

    /// Sends `command` and returns the one answer it got (a status or screenshot request is answered
    /// by the shell: its effect stands for the answer).
    @discardableResult
    static func ask(_ d: CoreDriver, _ command: ControlCommand, id: UInt64 = 7) -> ControlReply? {
        let answers = d.answers(to: command, id: id)
        #expect(answers.allSatisfy { $0.id == id })
        #expect(answers.count == 1, "\(command): \(answers.count) answers")
        return answers.first?.reply
    }

    static func started(_ ids: [String] = ["A", "B", "C"], _ tweak: (inout Config) -> Void = { _ in }) -> CoreDriver {
        let d = KioskCoreTests.started(Config.watchlist(ids) { c in
            c.instrumentCycleSeconds = 120
            tweak(&c)
        })
        d.run(for: 5)
        return d
    }

    @Test("show and range: the instrument and range on screen, the cycle held by show; mistakes named")
    func showAndRange() {
        let d = Self.started()
        #expect(Self.ask(d, .show(instrument: "B", range: "1Y")) == .ok("showing B 1Y"))
        d.run(for: 2)
        #expect(d.core.status().instrumentID == "B")
        #expect(d.core.model?.range == .oneYear)
        #expect(d.core.paused)
        // Held: an hour later it is still B.
        d.run(for: 3600)
        #expect(d.core.status().instrumentID == "B")
        #expect(Self.ask(d, .range("5D")) == .ok("B 5D"))
        d.run(for: 2)
        #expect(d.core.model?.range == .fiveDays)
        #expect(Self.ask(d, .show(instrument: "Z", range: nil)) == .error(.refused("no instrument Z in the config; there are A, B, C")))
        if case .error(.refused(let m))? = Self.ask(d, .range("2W")) { #expect(m.hasPrefix("no range 2W")) } else { Issue.record("2W") }
        #expect(d.core.status().instrumentID == "B")
        #expect(Self.ask(d, .resume) == .ok("resumed"))
        #expect(!d.core.paused)
        d.run(for: 3600) { d.recordShown() }
        #expect(Set(d.shown.map(\.value)).contains { $0.hasPrefix("C ") })
    }

    @Test("a range only daily data cannot draw is refused, and says what the data has")
    func undrawable() {
        let d = CoreDriver(config: Config.watchlist(["A", "B"]))
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: SampleMarket.daily()))
        d.run(for: 5)
        guard case .error(.refused(let m))? = Self.ask(d, .range("1D")) else { Issue.record("1D accepted"); return }
        #expect(m.contains("cannot draw 1D"))
        #expect(d.core.model?.range != .oneDay)
    }

    @Test("a range request in the middle of a morph retargets it; the picture settles on the new range")
    func duringMorph() {
        let d = Self.started()
        #expect(Self.ask(d, .range("1Y")) != nil)
        d.run(for: 0.3)
        #expect(d.core.model?.isAnimating(at: d.time.mono) == true)
        #expect(Self.ask(d, .range("5D")) == .ok("A 5D"))
        d.run(for: 3)
        #expect(d.core.model?.range == .fiveDays)
        #expect(d.core.model?.isAnimating(at: d.time.mono) == false)
        #expect(d.presents.last?.value.settled == true)
    }

    @Test("next steps to the next instrument at once and the cycle goes on from there")
    func next() {
        let d = Self.started()
        #expect(d.core.status().instrumentID == "A")
        #expect(Self.ask(d, .next) == .ok("showing B"))
        #expect(d.core.status().instrumentID == "B")
        #expect(Self.ask(d, .next) == .ok("showing C"))
        #expect(Self.ask(d, .next) == .ok("showing A"))
        let one = Self.started(["A"])
        #expect(Self.ask(one, .next) == .error(.refused("one instrument only")))
    }

    @Test("pause holds the cycle for a day; resume lets it go on")
    func pauseResume() {
        let d = Self.started()
        #expect(Self.ask(d, .pause) == .ok("paused"))
        let range = d.core.model?.range
        d.run(for: 86_400) { d.recordShown() }
        #expect(d.core.model?.range == range)
        #expect(d.shown.count <= 1)
        #expect(Self.ask(d, .resume) == .ok("resumed"))
        d.run(for: 600) { d.recordShown() }
        #expect(d.shown.count > 2)
    }

    @Test("scene: bars, the draw-in and the watchlist on request; tape is named as absent")
    func scenes() {
        let d = Self.started { $0.watchlist = .cycle }
        #expect(Self.ask(d, .scene("bars"))?.isOK == true)
        d.run(for: 1)
        #expect(d.core.model?.scene == .bars)
        #expect(Self.ask(d, .scene("watchlist"))?.isOK == true)
        #expect(d.core.showingWatchlist)
        #expect(Self.ask(d, .range("1Y")) == .ok("watchlist 1Y"))
        #expect(Self.ask(d, .scene("chart"))?.isOK == true)
        #expect(!d.core.showingWatchlist)
        #expect(Self.ask(d, .scene("tape")) == .error(.refused("no scene tape; there are chart, bars, draw and watchlist")))
        let off = Self.started()
        #expect(Self.ask(off, .scene("watchlist")) == .error(.refused("no watchlist: [chart] watchlist = off")))
        #expect(Self.ask(off, .scene("tape")) == .error(.refused("no scene tape; there are chart, bars and draw")))
    }

    @Test("scene: the old spellings line and draw-in still name the chart and the draw-in, answered by today's names")
    func sceneAliases() {
        let d = Self.started()
        #expect(Self.ask(d, .scene("draw-in")) == .ok("scene draw, cycling held (resume to go on)"))
        #expect(d.core.model?.scene == .drawIn)
        #expect(Self.ask(d, .scene("line")) == .ok("scene chart, cycling held (resume to go on)"))
        #expect(d.core.model?.scene == .line)
        #expect(d.core.status().scene == .chart)
    }

    @Test("screen off darkens it until auto, through schedule changes; a touch after it wakes it for the wake time")
    func screen() {
        let d = Self.started()
        #expect(Self.ask(d, .screen(.off)) == .ok("screen off: off"))
        #expect(d.powered.last?.value == false)
        #expect(d.core.displayStatus == "off-control")
        d.run(for: 86_400)
        #expect(!d.core.screenOn)
        d.send(.gesture(.scrubBegan(x: 100, y: 100), inputMicros: nil))
        #expect(d.core.screenOn)
        d.run(for: 121)
        #expect(!d.core.screenOn)
        #expect(Self.ask(d, .screen(.auto)) == .ok("screen auto: on"))
        #expect(d.core.screenOn)
        // `on` holds it lit past the idle timeout.
        let idle = Self.started { $0.blankAfterIdleSeconds = 60 }
        #expect(Self.ask(idle, .screen(.on)) == .ok("screen on: on"))
        idle.run(for: 3600)
        #expect(idle.core.screenOn)
        #expect(Self.ask(idle, .screen(.auto)) == .ok("screen auto: off"))
    }

    @Test("brightness N: the screen on at N % through the light policy (a fade, software dimming here), a touch full for the wake time, 0 off, auto back to the schedule")
    func brightness() {
        let d = Self.started()
        #expect(Self.ask(d, .brightness(40)) == .ok("brightness 40 % (software), until screen auto"))
        #expect(d.core.screenControl == .on)
        d.run(for: 3)
        #expect(d.core.lightLevel == 40)
        #expect(d.presents.last?.value.brightness == 0.4)
        // A schedule that would turn it off does not: the request holds.
        d.run(for: 86_400)
        #expect(d.core.screenOn)
        #expect(d.core.lightLevel == 40)
        d.send(.gesture(.scrubBegan(x: 100, y: 100), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        d.run(for: 2)
        #expect(d.core.lightLevel == 100)
        d.run(for: 125)
        #expect(d.core.lightLevel == 40)
        #expect(Self.ask(d, .brightness(0)) == .ok("screen off"))
        #expect(!d.core.screenOn)
        #expect(d.core.displayStatus == "off-control")
        #expect(Self.ask(d, .brightness(100))?.isOK == true)
        d.run(for: 2)
        #expect(d.core.lightLevel == 100)
        #expect(Self.ask(d, .brightness(20))?.isOK == true)
        #expect(Self.ask(d, .screen(.auto)) == .ok("screen auto: on"))
        d.run(for: 3)
        #expect(d.core.lightLevel == 100)
        #expect(d.core.status().level == 100)
    }

    @Test("requests with the screen off change what will be shown, and say the screen is off")
    func screenOffRequests() {
        let d = Self.started()
        _ = Self.ask(d, .screen(.off))
        let frames = d.presents.count
        #expect(Self.ask(d, .show(instrument: "C", range: "6M")) == .ok("showing C 6M (the screen is off)"))
        d.run(for: 10)
        #expect(d.presents.count == frames)
        _ = Self.ask(d, .screen(.auto))
        d.run(for: 3)
        #expect(d.core.status().instrumentID == "C")
        #expect(d.core.model?.range == .sixMonths)
    }

    @Test("with the display gone requests still answer; what they chose shows when it returns")
    func displayGone() {
        let d = Self.started()
        d.send(.display(.connectorLost, d.display))
        #expect(Self.ask(d, .show(instrument: "B", range: "1M"))?.isOK == true)
        #expect(Self.ask(d, .screenshot) == .error(.refused("no picture: waiting-for-output")))
        let frames = d.presents.count
        d.run(for: 5)
        #expect(d.presents.count == frames)
        d.send(.display(.connectorReturned, d.display))
        d.run(for: 3)
        #expect(d.presents.count > frames)
        #expect(d.core.status().instrumentID == "B")
        // No display ever: nothing to show, said so.
        let none = CoreDriver(config: Config.watchlist(["A"]))
        none.displayPresent = false
        none.send(.start)
        #expect(Self.ask(none, .show(instrument: "A", range: nil)) == .error(.refused("nothing is shown yet: no-display")))
        #expect(Self.ask(none, .status)?.isOK == true)
    }

    @Test("a message shows for its time in every frame plan, then goes, each time redrawing the whole picture")
    func message() {
        let d = Self.started()
        #expect(Self.ask(d, .message(text: "Closed early", seconds: 30)) == .ok("message for 30 s"))
        d.run(for: 1)
        #expect(d.presents.last?.value.banner == "Closed early")
        #expect(d.presents.last?.value.fullCopy == true)
        #expect(d.core.status().message == "Closed early")
        let shownAt = d.time.mono
        d.run(for: 40)
        let gone = d.presents.first { $0.time.mono > shownAt && $0.value.banner == nil }
        #expect(gone.map { $0.time.mono - shownAt >= 28 && $0.time.mono - shownAt <= 30 } == true)
        #expect(gone?.value.fullCopy == true)
        #expect(d.presents.last?.value.banner == nil)
        #expect(d.core.status().message == nil)
        _ = Self.ask(d, .message(text: "x", seconds: nil))
        #expect(Self.ask(d, .clearMessage) == .ok("no message"))
        d.run(for: 1)
        #expect(d.presents.last?.value.banner == nil)
    }

    @Test("status, version, reload and screenshot are handed to the shell or answered at once")
    func shellRequests() {
        let d = Self.started()
        guard case .ok(let json?)? = Self.ask(d, .status) else { Issue.record("status"); return }
        #expect(json.hasPrefix("{\"instrument_id\": \"A\""))
        #expect(!json.contains("\n"))
        #expect(Self.ask(d, .version) == .ok("tickerboard-control 1"))
        #expect(Self.ask(d, .reload) == .ok("(shell)"))
        #expect(Self.ask(d, .screenshot) == .ok("(shell)"))
        guard case .ok(let list?)? = Self.ask(d, .instruments) else { Issue.record("instruments"); return }
        #expect(list.hasPrefix("{\"instruments\": [{\"id\": \"A\", \"name\": \"A\", \"currency\": \"USD\", \"price\": "))
        #expect(list.contains("\"previous_close\": "))
        #expect(list.hasSuffix("\"ranges\": [\"1D\", \"5D\", \"1M\", \"6M\", \"1Y\", \"5Y\"], \"scenes\": [\"chart\", \"bars\", \"draw\"]}"))
    }
}

extension ControlReply {
    var isOK: Bool { if case .ok = self { true } else { false } }
}

/// Issue 54 item 5: a close of 1e303 made `ctl instruments` print `"price": inf`; the bridge could
/// not parse it and took the whole device offline.
@Suite struct InstrumentsJSONTests {
    @Test("ctl instruments is valid JSON with a close of 1e303 (1e+303, not inf)")
    func hugeClose() throws {
        let d = CoreDriver(config: Config.watchlist(["A"]))
        d.send(.start)
        let bars = (0..<10).map { i in
            PriceBar(time: CivilDate(year: 2026, month: 6, day: 1 + i)!.unixTimeAtMidnightUTC, open: 1e303, high: 1e303, low: 1e303, close: 1e303)
        }
        d.send(.series(instrumentID: "A", slot: .daily, series: PriceSeries(name: "A", interval: .daily, bars: bars)))
        d.run(for: 2)
        guard case .ok(let list?)? = ControlCoreTests.ask(d, .instruments) else { Issue.record("instruments"); return }
        #expect(!list.contains("inf") && !list.contains("nan"), "\(list)")
        #expect(list.contains("\"price\": 1e+303"), "\(list)")
    }
}
