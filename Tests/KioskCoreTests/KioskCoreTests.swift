import Chart
import CoreDriver
import DisplayModel
import Feed
import InputModel
@testable import KioskCore
import Raster
import StatusModel
import Testing

/// The daemon's unattended behaviour, driven through the pure core with a manual clock: each test
/// is hours or days of running that takes milliseconds.
@Suite("Kiosk core")
struct KioskCoreTests {
    static let daily = CoreFixtures.daily
    static let intraday = CoreFixtures.intraday

    /// Starts a core with data for every instrument of `config`.
    static func started(_ config: Config, withData: Bool = true, _ tweak: (CoreDriver) -> Void = { _ in }) -> CoreDriver {
        CoreFixtures.started(config, withData: withData, tweak)
    }

    /// A burn-in shift of 2 px a minute on a settled chart of daily data that does not cycle: the
    /// frames presented in the `minutes` after start-up, every one a burn-in step.
    static func burnInSteps(minutes: Int, rotation: Int? = nil, display: DisplayInfo) -> (CoreDriver, [FramePlan]) {
        var config = Config.watchlist(["A"])
        config.burnInShift = 2
        config.burnInPeriodSeconds = 60
        config.cycleSeconds = 0
        config.rotation = rotation
        let d = CoreDriver(config: config, display: display)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: daily))
        d.run(for: 5)
        let start = d.time.mono
        d.run(for: 60 * Double(minutes))
        return (d, d.presents.filter { $0.time.mono > start }.map(\.value))
    }

    @Test("YTD and MAX, when the config names them, are in the cycle like the others")
    func yearToDateAndMaxCycle() {
        let config = Config.watchlist(["A"]) { $0.ranges = [.oneMonth, .yearToDate, .max] }
        let d = Self.started(config)
        d.run(for: 3_600) { d.recordShown() }
        let seen = Set(d.shown.map(\.value))
        for r in ["1M", "YTD", "MAX"] { #expect(seen.contains("A \(r)"), "A never showed \(r): \(seen)") }
        #expect(!seen.contains("A 1Y") && !seen.contains("A 5D"))
    }

    @Test("a day of cycling with two instruments shows every range and the bars of each, and honours instrument-interval")
    func dayOfCycling() {
        let config = Config.watchlist(["A", "B"]) { $0.instrumentCycleSeconds = 120 }
        let d = Self.started(config)
        d.run(for: 86_400) { d.recordShown() }
        let seen = Set(d.shown.map(\.value))
        for id in ["A", "B"] {
            for r in ChartRange.standard { #expect(seen.contains("\(id) \(r.rawValue)"), "\(id) never showed \(r)") }
            #expect(seen.contains("\(id) bars"))
        }
        // Instrument changes: never sooner than instrument-interval, and each instrument's round complete.
        var switches: [(Double, String)] = []
        for s in d.shown {
            let id = String(s.value.prefix(1))
            if switches.last?.1 != id { switches.append((s.time.mono, id)) }
        }
        #expect(switches.count > 300, "only \(switches.count) instrument changes in a day")
        for (a, b) in zip(switches, switches.dropFirst()) {
            #expect(b.0 - a.0 >= 120 - 1e-6, "instrument changed after \(b.0 - a.0) s")
        }
        // The new instrument starts on the first range and draws itself in.
        let firstAfterSwitch = d.shown.first { $0.value.hasPrefix("B") }
        #expect(firstAfterSwitch?.value == "B draw")
    }

    @Test("instrument-interval 0 stays on the first instrument")
    func instrumentIntervalZero() {
        let d = Self.started(Config.watchlist(["A", "B"]) { $0.instrumentCycleSeconds = 0 })
        d.run(for: 3600) { d.recordShown() }
        #expect(!d.shown.isEmpty)
        #expect(d.shown.allSatisfy { $0.value.hasPrefix("A") })
    }

    @Test("ranges limits the cycle, the buttons, swipes and keys")
    func rangesLimit() throws {
        let d = Self.started(Config.watchlist(["A"]) { $0.ranges = [.oneMonth, .oneYear]; $0.startRange = .fiveYears })
        let model = try #require(d.core.model)
        #expect(model.range == .oneMonth)
        #expect(model.screen.layout.ranges == [.oneMonth, .oneYear])
        d.run(for: 600) { d.recordShown() }
        #expect(Set(d.shown.map(\.value)) == ["A 1M", "A 1Y", "A bars"])
        d.send(.key(.selectRange(5)))  // key 6: there is no sixth range
        let before = d.core.model?.range
        #expect(before != nil)
        d.send(.key(.selectRange(1)))
        #expect(d.core.model?.range == .oneYear)
        d.send(.key(.nextRange))
        #expect(d.core.model?.range == .oneMonth)
        d.send(.gesture(.swipe(.right), inputMicros: nil))
        #expect(d.core.model?.range == .oneYear)
        // A tap on a button picks its range.
        let layout = model.screen.layout
        d.send(.gesture(.tap(x: layout.selectorCenters[0], y: layout.selectorBaseline), inputMicros: nil))
        #expect(d.core.model?.range == .oneMonth)
    }

    @Test("a touch pauses cycling for touch-pause, then it resumes")
    func touchPause() {
        let d = Self.started(Config.watchlist(["A"]) { $0.touchPauseSeconds = 30; $0.cycleSeconds = 8 })
        d.run(for: 20)
        let touchedAt = d.time.mono
        d.send(.gesture(.scrubBegan(x: 100, y: 100), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        let range = d.core.model?.range
        d.run(for: 29)
        #expect(d.core.model?.range == range, "cycled during the touch pause")
        d.run(until: touchedAt + 30 + 0.01)
        #expect(d.core.model?.range != range, "did not resume after the pause")
    }

    @Test("the power schedule switches across midnight and across a DST change, in local time")
    func powerScheduleAcrossMidnightAndDST() throws {
        var config = Config.watchlist(["A"])
        config.schedule = try parseSchedule("Mon-Sun 07:00-01:00").get()
        // Sat 2026-03-28 12:00 UTC (13:00 CET); Europe/Berlin springs forward on Sun 29 March.
        let d = CoreDriver(config: config, localZone: CoreDriver.berlin, start: KioskTime(mono: 1000, wall: 1_774_699_200))
        d.send(.start)
        d.run(for: 3 * 86_400)
        let changes = d.powered.map { ($0.time.wall, $0.value) }
        let expected: [(Double, Bool)] = [
            (1_774_742_400, false),  // Sun 29 Mar 01:00 CET = 00:00 UTC
            (1_774_760_400, true),   // Sun 29 Mar 07:00 CEST = 05:00 UTC (the night was an hour shorter)
            (1_774_825_200, false),  // Mon 30 Mar 01:00 CEST = Sun 23:00 UTC
            (1_774_846_800, true),   // Mon 30 Mar 07:00 CEST = 05:00 UTC
            (1_774_911_600, false),  // Tue 31 Mar 01:00 CEST
            (1_774_933_200, true),   // Tue 31 Mar 07:00 CEST
        ]
        #expect(changes.count == expected.count, "\(changes)")
        for (got, want) in zip(changes, expected) {
            #expect(got.1 == want.1)
            #expect(abs(got.0 - want.0) < 1.5, "switched \(got.1 ? "on" : "off") at \(got.0), expected \(want.0)")
        }
        // No frames while off; READY and watchdog pings throughout.
        let offPresents = d.presents.filter { p in
            p.time.wall > 1_774_742_401 && p.time.wall < 1_774_760_399 && !p.value.black
        }
        #expect(offPresents.isEmpty)
        #expect(d.watchdogPings.count >= Int(3 * 86_400 / 15) - 1)
    }

    /// A step into the on-window left the screen off until the next monotonic deadline (up to an
    /// hour); a step of twenty years left `stale` false as long.
    @Test("a clock step re-decides the screen hours and staleness at once")
    func clockStepRedecides() throws {
        var config = Config.watchlist(["A"])
        config.schedule = try parseSchedule("Mon-Sun 07:00-22:00").get()
        // Wed 2026-12-02 23:00 CET: off by the schedule.
        let d = CoreDriver(config: config, localZone: CoreDriver.berlin, start: KioskTime(mono: 1000, wall: 1_796_248_800), writesStatus: true)
        d.send(.start)
        // Daily bars up to today (the sample's, moved by whole days).
        let shift = 1_796_169_600 - (Self.daily.bars.last?.time ?? 0)
        let recent = PriceSeries(name: "A", interval: .daily, bars: Self.daily.bars.map { var b = $0; b.time += shift; return b })
        d.send(.series(instrumentID: "A", slot: .daily, series: recent))
        d.run(for: 5)
        #expect(!d.core.screenOn)
        // The board learns it is 09:00 the next morning: on now, not when the old deadline comes.
        d.stepWallClock(by: 10 * 3600)
        d.send(.clockStepped)
        #expect(d.core.screenOn)
        #expect(d.powered.last?.value == true)
        // Twenty years on, the last price is stale at once.
        let fresh = d.core.status().stale
        d.stepWallClock(by: 20 * 365 * 86_400)
        d.send(.clockStepped)
        #expect(d.core.status().stale && !fresh)
    }

    /// A board without a battery clock boots at 1970: the header said the market's state and
    /// "as of" from that clock until NTP answered.
    @Test("before the clock is set the header says so, and the step to the real time brings the market's state at once")
    func clockNotSetYet() throws {
        var config = Config.watchlist(["A"])
        config.cycleSeconds = 0
        let d = CoreDriver(config: config, start: KioskTime(mono: 1000, wall: 100_000), writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.send(.series(instrumentID: "A", slot: .intraday, series: Self.intraday))
        d.run(for: 5)
        #expect(d.core.model?.statusNote == "clock not set yet")
        #expect(d.core.status().sessionState == nil && !d.core.status().stale)
        // NTP answers: the real time, and the note follows at once.
        d.stepWallClock(by: (Double(Self.intraday.bars.last?.time ?? 0) + 60) - 100_005)
        d.send(.clockStepped)
        #expect(d.core.model?.statusNote != "clock not set yet")
        #expect(d.core.status().sessionState != nil)
    }

    @Test("without DPMS a black frame is shown when the screen goes off, and nothing else until on")
    func blackFrameWithoutDPMS() throws {
        var config = Config.watchlist(["A"])
        config.blankAfterIdleSeconds = 60
        let d = Self.started(config) { $0.hasDPMS = false }
        d.run(for: 61)
        let black = d.presents.filter(\.value.black)
        #expect(black.count == 1)
        let after = try #require(black.first).time.mono
        d.run(for: 600)
        #expect(d.presents.filter { $0.time.mono > after }.count == 0)
        #expect(d.core.status().display == "off-idle")
        // A touch wakes it (and does nothing else).
        let range = d.core.model?.range
        let woken = d.presents.count
        d.send(.gesture(.scrubBegan(x: 10, y: 10), inputMicros: nil))
        d.send(.gesture(.tap(x: 10, y: 260), inputMicros: nil))
        d.run(for: 1)
        #expect(d.core.screenOn)
        #expect(d.core.model?.range == range)
        // The first frame after the black one is whole (words that changed meanwhile then fade in,
        // as they do on the painted screen).
        #expect(d.presents.dropFirst(woken).first?.value.fullCopy == true)
    }

    @Test("burn-in: the shift follows its orbit, one step per period, a full copy each time")
    func burnIn() {
        var config = Config.watchlist(["A"])
        config.burnInShift = 2
        config.burnInPeriodSeconds = 60
        config.cycleSeconds = 0
        let d = Self.started(config)
        let start = d.time.mono
        d.run(for: 60 * 30)
        let shift = BurnInShift(shift: 2, periodSeconds: 60)
        // Idle otherwise: every present after start-up is a burn-in step.
        let steps = d.presents.filter { $0.time.mono > start + 5 }
        #expect(steps.count == 30)
        for p in steps {
            #expect(p.value.offset == shift.offset(at: p.value.time - start))
            #expect(p.value.fullCopy)
        }
        #expect(Set(steps.map(\.value.offset)).count > 10)
    }

    @Test("burn-in on a display that moves its scanout: a still picture's step paints and copies nothing")
    func burnInByScanout() {
        let (d, steps) = Self.burnInSteps(minutes: 30, display: DisplayInfo(width: 480, height: 270, refreshHz: 10, scanoutShiftLimit: 2))
        #expect(steps.count == 30)
        for p in steps {
            #expect(p.shiftByScanout)
            #expect(!p.redraw)
            #expect(!p.fullCopy)
        }
        #expect(Set(steps.map(\.offset)).count > 10)
        #expect(d.core.status().burnInShift == "fb-offset")
    }

    @Test("a turned panel: burn-in moves the scanout when the display turns the picture itself, else both are copies",
          arguments: [(Set<Int>([0, 1]), "plane", "fb-offset"), (Set<Int>([0, 2]), "copy", "copy")])
    func rotationByScanout(turns: Set<Int>, rotation: String, burnIn: String) {
        let (d, steps) = Self.burnInSteps(minutes: 10, rotation: 90,
                                          display: DisplayInfo(width: 480, height: 270, refreshHz: 10, scanoutShiftLimit: 2,
                                                               scanoutQuarterTurns: turns))
        #expect(steps.count == 10)
        #expect(steps.allSatisfy { $0.quarterTurns == 1 && $0.shiftByScanout == (rotation == "plane") })
        #expect(d.core.status().rotation == rotation)
        #expect(d.core.status().burnInShift == burnIn)
        // The picture is drawn in the turned panel's axes either way.
        #expect(d.core.model?.screen.layout.width == 270)
    }

    @Test("the stats line counts the bytes copied to scanout: the mean, the last frame's and the running total")
    func scanoutBytesInStats() {
        let d = CoreDriver(config: Config.watchlist(["A"]))
        d.send(.start)
        d.send(.framePresented(FrameReport(copiedBytes: 4000, frameBytes: 8000)))
        d.send(.framePresented(FrameReport(copiedBytes: 0, frameBytes: 8000)))
        d.send(.framePresented(FrameReport(copiedBytes: 200, frameBytes: 8000)))
        d.send(.statisticsRequested(""))
        let line = d.logs.last { $0.value.hasPrefix("stats: ") }?.value ?? ""
        // (the driver's own first frame counts 0 bytes: four frames)
        #expect(line.contains("frames 4,"), "\(line)")
        #expect(line.contains("scanout copy 1050 B/frame (13.13% of a frame), last 200 B, total 4200 B"), "\(line)")
    }

    @Test("burn-in beyond the display's room falls back to copying: a full copy only when the offset changes")
    func burnInPartlyByScanout() {
        let (d, steps) = Self.burnInSteps(minutes: 48, display: DisplayInfo(width: 480, height: 270, refreshHz: 10, scanoutShiftLimit: 1))
        #expect(d.core.status().burnInShift == "copy")
        var previousFits = true
        for p in steps {
            let fits = abs(p.offset.dx) <= 1 && abs(p.offset.dy) <= 1
            #expect(p.shiftByScanout == fits)
            // Each step moves the picture: copied, that is every pixel; by scanout, none (unless the
            // buffers hold a copied shift from the step before, which must be undone once).
            if !fits {
                #expect(p.fullCopy)
            } else if previousFits {
                #expect(!p.fullCopy && !p.redraw)
            } else {
                #expect(p.fullCopy && p.redraw)
            }
            previousFits = fits
        }
        #expect(steps.contains { $0.shiftByScanout } && steps.contains { !$0.shiftByScanout })
    }

    @Test("a data file that appears 10 minutes after start turns the placeholder into the chart")
    func dataArrivesLater() throws {
        let d = CoreDriver(config: Config.watchlist(["AAPL"]), writesStatus: true)
        d.send(.start)
        d.send(.dataProblems(["/data/AAPL.csv": "/data/AAPL.csv: no such file"]))
        d.run(for: 600)
        let waiting = d.core.status()
        #expect(waiting.waitingFor == "waiting for data: AAPL.csv, AAPL-1m.csv")
        #expect(waiting.instrumentName == "AAPL")
        #expect(waiting.price == nil)
        #expect(waiting.problems.map(\.description) == ["t.conf:10: daily: /data/AAPL.csv: no such file"])
        // Never the sample market in its place.
        #expect(d.core.model?.instrument.name != Instrument.sample().name)
        d.send(.series(instrumentID: "AAPL", slot: .daily, series: Self.daily))
        d.send(.dataProblems([:]))
        d.run(for: 3)
        let shown = d.core.status()
        #expect(shown.waitingFor == nil)
        #expect(shown.price == Self.daily.last?.close)
        #expect(shown.problems.isEmpty)
        #expect(d.effects.contains { $0.value.isStatusWrite && $0.time.mono > d.time.mono - 3 })
    }

    @Test("one instrument, no cycling: after the draw-in a live update is drawn (the line moves to it)")
    func liveUpdateAfterDrawIn() throws {
        let d = CoreDriver(config: Config.watchlist(["A"]) { $0.cycleSeconds = 0; $0.ranges = [.oneMonth] })
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 10)
        let model = try #require(d.core.model)
        #expect(model.scene == .line)
        // The shell renders each planned frame; here the last one, before and after the update.
        // (a copy of the pixels: the canvas keeps drawing into its own storage)
        let renderer = SceneRenderer()
        let before = renderer.render(model, at: d.time.mono).buffer.pixels.map { $0 }
        let presentsBefore = d.presents.count
        var bars = Self.daily.bars
        let last = try #require(bars.last)
        bars.append(PriceBar(time: last.time + 86_400, open: last.close, high: last.close * 1.2,
                             low: last.close, close: last.close * 1.2))
        d.send(.series(instrumentID: "A", slot: .daily, series: PriceSeries(name: "A", interval: .daily, bars: bars)))
        d.run(for: 10)
        #expect(d.core.status().price == last.close * 1.2)
        #expect(d.presents.count > presentsBefore + 1)   // the morph to the new line, not one frame
        let plot = model.screen.layout.plot
        let region = IntRect(x0: Int(plot.left), y0: Int(plot.top), x1: Int(plot.right), y1: Int(plot.bottom))
        #expect(d.core.model === model)
        #expect(!model.isAnimating(at: d.time.mono))
        let after = renderer.render(model, at: d.time.mono).buffer
        var changed = 0
        for y in region.y0..<region.y1 { for x in region.x0..<region.x1 where after[x, y] != before[y * after.stride + x] { changed += 1 } }
        #expect(changed > 1000)
    }

    @Test("daily bars only: 1D (two closes, a ruler) is left out of the selector and the cycle until intraday bars come")
    func dailyOnlyHasNoOneDay() throws {
        let d = CoreDriver(config: Config.watchlist(["A"]) { $0.startRange = .oneDay; $0.cycleSeconds = 8 })
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 1)
        let model = try #require(d.core.model)
        #expect(!d.core.shownRanges.contains(.oneDay))
        #expect(d.core.shownRanges.contains(.fiveDays))
        #expect(model.screen.layout.ranges == d.core.shownRanges)
        #expect(model.range == .fiveDays)   // the start range gives way to the next one it can draw
        var ranges: Set<ChartRange> = []
        d.run(for: 120) { if let m = d.core.model { ranges.insert(m.range) } }
        #expect(!ranges.contains(.oneDay))
        #expect(ranges.count == d.core.shownRanges.count)
        // One intraday bar is a price, not a chart: still no 1D. A second one makes it a line.
        let bars = Self.intraday.bars
        let lastDay = SampleMarket.timeZone.localDate(atUnixTime: try #require(bars.last).time)
        let today = bars.filter { SampleMarket.timeZone.localDate(atUnixTime: $0.time) == lastDay }
        d.send(.series(instrumentID: "A", slot: .intraday, series: PriceSeries(name: "A", interval: .intraday(seconds: 60), bars: Array(today.prefix(1)))))
        d.run(for: 1)
        #expect(!d.core.shownRanges.contains(.oneDay))
        d.send(.series(instrumentID: "A", slot: .intraday, series: PriceSeries(name: "A", interval: .intraday(seconds: 60), bars: Array(today.prefix(2)))))
        d.run(for: 1)
        #expect(d.core.shownRanges.first == .oneDay)
        #expect(d.core.model?.screen.layout.ranges.first == .oneDay)
    }

    @Test("a show request puts the instrument, range and scene on screen at once and holds the cycle there")
    func showRequestHolds() throws {
        let d = Self.started(Config.watchlist(["A", "B"]) { $0.cycleSeconds = 5; $0.instrumentCycleSeconds = 10 })
        d.run(for: 1)
        d.send(.show(ShowRequest(instrumentID: "B", range: .sixMonths, scene: .bars)))
        #expect(d.core.status().instrumentID == "B")
        #expect(d.core.model?.range == .sixMonths)
        #expect(d.core.model?.scene == .bars)
        #expect(d.core.paused)
        d.run(for: 120)
        #expect(d.core.status().instrumentID == "B" && d.core.model?.scene == .bars)
        // A name the config lacks changes nothing and says so.
        d.send(.show(ShowRequest(instrumentID: "Z")))
        #expect(d.core.status().instrumentID == "B")
        #expect(d.logs.contains { $0.value.contains("no instrument Z") })
        // The line scene is settled at once: no draw-in.
        d.send(.show(ShowRequest(instrumentID: "A", range: .oneYear)))
        let model = try #require(d.core.model)
        #expect(model.scene == .line && model.range == .oneYear)
    }

    @Test("a file replaced with garbage keeps the last good data and reports FILE:LINE")
    func garbageKeepsLastGood() {
        let d = Self.started(Config.watchlist(["A"]))
        let price = d.core.status().price
        #expect(price != nil)
        d.send(.dataProblems(["/data/A.csv": "/data/A.csv:1: expected a Date or Datetime header"]))
        d.run(for: 60)
        #expect(d.core.status().price == price)
        #expect(d.core.status().problems.map(\.description)
                == ["t.conf:10: daily: /data/A.csv:1: expected a Date or Datetime header"])
    }

    @Test("a reload with a wrong data path or time zone keeps the last good instrument")
    func reloadWithBadPathKeepsLastGood() throws {
        let config = Config.watchlist(["A"])
        let d = Self.started(config)
        let price = try #require(d.core.status().price)
        var broken = config
        broken.instruments[0].dailyFile = "A-typo.csv"
        broken.instruments[0].timeZone = "Mars/Olympus_Mons"
        let setup = KioskSetup(config: broken, zones: [:], localZone: .utc,
                               problems: [KioskProblem(file: "t.conf", line: 12, key: "time-zone", message: "unknown")],
                               configFile: "t.conf")
        d.send(.configure(setup))
        d.send(.dataProblems(["/data/A-typo.csv": "/data/A-typo.csv: no such file"]))
        d.run(for: 10)
        #expect(d.core.status().price == price)
        #expect(d.core.model?.instrument.market.timeZone == SampleMarket.timeZone)
        #expect(d.core.status().instrumentName == "A")
        #expect(d.core.status().problems.map(\.description)
                == ["t.conf:12: time-zone: unknown", "t.conf:10: daily: /data/A-typo.csv: no such file"])
        #expect(d.logs.contains { $0.value == "config: t.conf:12: time-zone: unknown" })
    }

    @Test("a rejected reload keeps everything and says READY again")
    func rejectedReload() {
        let d = Self.started(Config.watchlist(["A"]))
        let price = d.core.status().price
        d.send(.reloadRejected(summary: "reload: t.conf has 1 error(s); keeping the running configuration",
                               problems: [KioskProblem(file: "t.conf", line: 3, key: "cycle-interval", message: "bad")]))
        #expect(d.core.status().price == price)
        #expect(d.logs.contains { $0.value == "config: t.conf:3: cycle-interval: bad" })
        #expect(d.notifications.last?.value == "READY=1")
    }

    @Test("[display] changes on reload reopen the display, [input] changes reopen input")
    func reloadReopens() {
        let config = Config.watchlist(["A"])
        let d = Self.started(config)
        var changed = config
        changed.connector = "HDMI-A-1"
        changed.seat = "seat1"
        d.send(.configure(KioskSetup(config: changed, zones: ["A": SampleMarket.timeZone], localZone: .utc)))
        let recent = d.effects.suffix(30).map(\.value)
        #expect(recent.contains(.reopenDisplay))
        #expect(recent.contains(.openInput))
    }

    @Test("boot with no display: READY, watchdog pings, then a hotplugged display presents")
    func bootWithoutDisplay() {
        let d = CoreDriver(config: Config.watchlist(["A"]))
        d.displayPresent = false
        d.send(.start)
        #expect(d.notifications.first?.value == "READY=1\nSTATUS=no display; waiting for one")
        #expect(d.effects.contains { $0.value == .watchHotplug(true) })
        d.run(for: 120)
        #expect(d.watchdogPings.count == 8)
        #expect(d.presents.isEmpty)
        d.displayPresent = true
        d.send(.hotplug)
        d.run(for: 1)
        #expect(!d.presents.isEmpty)
        #expect(d.core.displayState == .presenting)
    }

    /// A board whose KMS driver loads after boot (fbdev was all there was): the framebuffer keeps
    /// a hotplug watch, and a connected KMS output replaces it without a restart.
    @Test("a framebuffer that yields to KMS moves to a KMS output when one appears")
    func framebufferYieldsToKMS() {
        let d = CoreDriver(config: Config.watchlist(["A"]), display: DisplayInfo(width: 480, height: 270, refreshHz: 10, yieldsToKMS: true))
        d.send(.start)
        d.run(for: 2)
        #expect(d.effects.last { if case .watchHotplug = $0.value { return true } else { return false } }?.value == .watchHotplug(true))
        let reopensBefore = d.effects.filter { $0.value == .reopenDisplay }.count
        d.display = DisplayInfo(width: 480, height: 270, refreshHz: 10)   // what the reopen finds: KMS
        let presentsBefore = d.presents.count
        d.send(.kmsOutputAppeared(reason: "/dev/dri/card1 (vc4) has HDMI-A-1 connected"))
        #expect(d.effects.filter { $0.value == .reopenDisplay }.count == reopensBefore + 1)
        #expect(d.logs.contains { $0.value.contains("moving from the framebuffer to KMS") })
        #expect(d.effects.last { if case .watchHotplug = $0.value { return true } else { return false } }?.value == .watchHotplug(false))
        d.run(for: 1)
        #expect(d.presents.count > presentsBefore)
        #expect(d.core.displayState == .presenting)
        // Once on KMS, the same news changes nothing.
        d.send(.kmsOutputAppeared(reason: "again"))
        #expect(d.effects.filter { $0.value == .reopenDisplay }.count == reopensBefore + 1)
    }

    /// The timer-descriptor leak per uevent (issue 13) was the old shell arming a timer per hotplug.
    /// Now a hotplug only moves the core's one open-retry deadline: a storm of uevents while no
    /// display opens costs one open attempt per half second and nothing that accumulates.
    @Test("a storm of hotplug uevents with no display: one retry at a time")
    func hotplugStorm() {
        let d = CoreDriver(config: Config.watchlist(["A"]))
        d.displayPresent = false
        d.send(.start)
        let opensBefore = d.effects.filter { $0.value == .openDisplay }.count
        for i in 0..<1000 {
            d.send(.hotplug)
            if i % 100 == 99 { d.run(for: 0.2) }
        }
        d.run(for: 1)
        let opens = d.effects.filter { $0.value == .openDisplay }.count - opensBefore
        // 1000 uevents over about 3 s of core time: a retry per half second at most, not per event.
        #expect(opens >= 1 && opens <= 8, "\(opens) open attempts")
        #expect(d.core.nextDeadline != nil)
    }

    @Test("output unplugged and back: no frames while away, pings throughout, a full frame on return")
    func outputUnplugged() {
        let d = Self.started(Config.watchlist(["A"]))
        d.run(for: 5)
        d.send(.display(.connectorLost, d.display))
        let lost = d.time.mono
        d.run(for: 300)
        #expect(d.presents.filter { $0.time.mono > lost }.isEmpty)
        #expect(d.watchdogPings.filter { $0.time.mono > lost }.count == 20)
        #expect(d.core.status().display == "waiting-for-output")
        d.display = DisplayInfo(width: 640, height: 360, refreshHz: 10)
        d.send(.display(.connectorReturned, d.display))
        #expect(d.presents.last?.value.fullCopy == true)
        #expect(d.core.model?.screen.layout.width == 640)
    }

    @Test("VT away for an hour: the display is released, pings throughout, frames resume on return")
    func vtAwayForAnHour() {
        let d = Self.started(Config.watchlist(["A"]))
        d.run(for: 5)
        d.send(.vtRelease)
        #expect(d.effects.last { $0.value == .releaseDisplay } != nil)
        let away = d.time.mono
        d.run(for: 3600)
        #expect(d.presents.filter { $0.time.mono > away }.isEmpty)
        #expect(d.watchdogPings.filter { $0.time.mono > away }.count == 240)
        #expect(d.core.status().display == "vt-away")
        d.send(.vtAcquire)
        d.send(.display(.masterRegained, d.display))
        d.run(for: 1)
        #expect(d.core.status().display == "presenting", "\(d.logs.suffix(5).map(\.value))")
        #expect(!d.presents.filter { $0.time.mono >= away + 3600 }.isEmpty)
    }

    @Test("another DRM master: waits without restarts, then takes over")
    func otherMaster() {
        let d = Self.started(Config.watchlist(["A"]))
        d.run(for: 5)
        d.send(.display(.masterLost, d.display))
        let lost = d.time.mono
        d.run(for: 120)
        #expect(d.core.status().display == "other-master")
        #expect(d.watchdogPings.filter { $0.time.mono > lost }.count == 8)
        #expect(d.presents.filter { $0.time.mono > lost }.isEmpty)
    }

    @Test("a flip that never completes stops the watchdog (and says so once)")
    func stuckFlip() {
        let d = Self.started(Config.watchlist(["A"]))
        d.run(for: 30)
        let healthy = d.watchdogPings.count
        #expect(healthy == 2)
        d.flipsComplete = false
        d.send(.key(.nextRange))  // a frame is wanted; its flip never completes
        let stuckAt = d.time.mono
        d.run(for: 120)
        let after = d.watchdogPings.filter { $0.time.mono > stuckAt + KioskCore.flipTimeout + 15 }
        #expect(after.isEmpty)
        #expect(d.logs.filter { $0.value.contains("a flip has been pending") }.count == 1)
    }

    @Test("the status file says what is shown: price, change against the baseline, range, display state")
    func statusValues() throws {
        let d = Self.started(Config.watchlist(["A"]) { $0.startRange = .oneYear })
        d.run(for: 3)
        let s = d.core.status()
        let points = try #require(d.core.model).selection(for: .oneYear).points
        #expect(s.range == "1Y")
        #expect(s.price == points.last?.value)
        #expect(s.baseline == points.first?.value)
        let change = try #require(s.change)
        #expect(abs(change - (points.last!.value - points.first!.value)) < 1e-9)
        #expect(s.display == "presenting")
        #expect(s.frames > 0)
        #expect(s.json.contains("\"range\": \"1Y\""))
        #expect(s.keyValueLines(only: ["range", "display"]) == "range=1Y\ndisplay=presenting\n")
    }

    @Test("status writes: on change, at most once per interval")
    func statusRateLimit() {
        let d = CoreDriver(config: Config.watchlist(["A"]), writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 60)
        let writes = d.effects.filter { $0.value.isStatusWrite }.map(\.time.mono)
        #expect(writes.count >= 8)  // the range changes every 8 s
        for (a, b) in zip(writes, writes.dropFirst()) { #expect(b - a >= 1 - 1e-9) }
    }

    @Test("the settled picture reaches the status file within one interval of the last frame")
    func statusSettles() throws {
        // Scripts (and the E2E) wait for `"animating": false` before they judge the screen: the
        // write after the last frame of the draw-in must come, without anything else happening.
        let d = CoreDriver(config: Config.watchlist(["A"]) { $0.cycleSeconds = 0 }, writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 20)
        let lastFrame = try #require(d.presents.last).time.mono
        let last = try #require(d.statuses.last)
        #expect(d.statuses.contains { $0.value.animating })
        #expect(!last.value.animating)
        #expect(last.value.frames == d.presents.count)
        #expect(last.time.mono >= lastFrame && last.time.mono - lastFrame <= 1 + 1e-9)
        // nothing moves afterwards: no write until the minute's refresh
        #expect(d.statuses.filter { $0.time.mono > last.time.mono }.isEmpty)
    }

    @Test("settled_frame catches up with frames only when the frame at rest is on screen")
    func statusSettledFrame() throws {
        // The E2E's readings around a scrub must not take in draw-in frames: `animating` turns false
        // when the draw-in's time is up, even while its last frame still waits for a flip.
        let d = CoreDriver(config: Config.watchlist(["A"]) { $0.cycleSeconds = 0 }, writesStatus: true)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 0.5)
        let moving = d.core.status()
        #expect(moving.animating)
        #expect(moving.frames > 1 && moving.settledFrame < moving.frames)
        // a stuck flip: the draw-in's two seconds pass with a mid-motion frame the last one shown
        d.flipsComplete = false
        d.run(for: 3)
        let timeUp = d.core.status()
        #expect(!timeUp.animating)
        #expect(timeUp.frames >= moving.frames && timeUp.settledFrame < timeUp.frames)
        d.flipsComplete = true
        d.run(for: 2)
        let last = try #require(d.statuses.last).value
        #expect(!last.animating)
        #expect(last.settledFrame == last.frames && last.frames == d.presents.count)
        #expect(last.json.contains("\"settled_frame\": \(last.frames),"))
    }

    @Test("scrubbing follows the finger point by point, and a release ends it")
    func scrub() throws {
        let d = Self.started(Config.watchlist(["A"]) { $0.startRange = .fiveDays })
        d.run(for: 2)
        let model = try #require(d.core.model)
        let xs = model.presentationForTesting(at: d.time.mono).positions.map(\.x)
        var visited: [Int] = []
        var x = xs[0]
        d.send(.gesture(.scrubBegan(x: x, y: 100), inputMicros: nil))
        // Slow: a third of the local spacing per event, however dense the points are there.
        while x < xs[xs.count - 1] {
            let i = model.scrubIndex ?? 0
            let gap = xs[min(i + 1, xs.count - 1)] - xs[i]
            x += max(0.001, gap / 3)
            d.send(.gesture(.scrubMoved(x: x, y: 100), inputMicros: nil))
            if let i = model.scrubIndex, visited.last != i { visited.append(i) }
        }
        // Every point with its own x, in order (points at the same x cannot be told apart).
        let distinct = xs.indices.filter { $0 == 0 || xs[$0] > xs[$0 - 1] }
        let skipped = distinct.filter { !visited.contains($0) && $0 >= (visited.first ?? 0) }
        #expect(skipped.isEmpty, "skipped \(skipped.count) of \(distinct.count) points, first \(skipped.prefix(5))")
        #expect(visited == visited.sorted())
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        #expect(model.scrubIndex == nil)
    }

    @Test("the reason reaches the wall: a provider's 404 on the placeholder, a bad zone with its line, an outage in the note")
    func theReasonOnScreen() throws {
        // No data yet, and the provider does not know the symbol.
        let d = CoreDriver(config: Config.watchlist(["DAX"]), start: KioskTime(mono: 1000, wall: 1_796_000_000), writesStatus: true)
        d.send(.start)
        var missing = FetchStatus()
        missing.symbol = "^GDAXI"
        missing.lastError = "daily: yahoo: HTTP 404: No data found, symbol may be delisted"
        missing.errorSince = 1_796_000_000
        d.send(.fetchStatus(instrumentID: "DAX", missing))
        d.run(for: 1)
        #expect(d.core.status().waitingFor == "waiting for data: DAX.csv, DAX-1m.csv · yahoo: ^GDAXI not found")
        #expect(d.core.status().problem == d.core.status().waitingFor)
        #expect(d.core.status().json.contains("\"problem\": \"waiting for data: DAX.csv, DAX-1m.csv · yahoo: ^GDAXI not found\""))

        // Data, then the network goes: nothing on the wall for a blip, the reason once it lasts.
        d.send(.series(instrumentID: "DAX", slot: .daily, series: Self.daily))
        d.send(.series(instrumentID: "DAX", slot: .intraday, series: Self.intraday))
        var good = FetchStatus()
        good.provider = "yahoo"
        good.fetchedAt = Int64(d.time.wall) - 120
        good.lastPriceTime = try #require(Self.intraday.last?.time)
        d.send(.fetchStatus(instrumentID: "DAX", good))
        d.run(for: 5)
        #expect(d.core.status().problem == nil)
        var down = good
        down.lastError = "intraday: yahoo: cannot connect: Could not resolve host: query1.finance.yahoo.com"
        down.errorSince = Int64(d.time.wall)
        d.send(.fetchStatus(instrumentID: "DAX", down))
        d.run(for: 60)
        #expect(d.core.status().problem == nil)
        #expect(d.core.status().note?.contains("unreachable") == false)
        d.run(for: Double(FetchStatus.problemGrace))   // the note changes by itself: a timer, no new event
        #expect(d.core.status().problem == "yahoo unreachable")
        let note = try #require(d.core.status().note)
        #expect(note.contains("no update since ") && note.hasSuffix(": yahoo unreachable"), "\(note)")
        d.send(.fetchStatus(instrumentID: "DAX", good))
        d.run(for: 1)
        #expect(d.core.status().problem == nil)
    }

    @Test("an unknown time zone says so with its config line, on the screen and in the status")
    func unknownZoneOnScreen() throws {
        var config = Config.watchlist(["DAX"])
        config.instruments[0].timeZone = "Europe/Frankfurt"
        config.instruments[0].lines["time-zone"] = 18
        let d = CoreDriver(config: config, zones: [:], writesStatus: true, configFile: "/etc/tickerboard/tickerboard.conf")
        d.send(.start)
        d.send(.series(instrumentID: "DAX", slot: .daily, series: Self.daily))
        d.run(for: 3)
        #expect(d.core.status().waitingFor == "tickerboard.conf line 18: unknown time zone Europe/Frankfurt")
        #expect(d.core.status().problem == d.core.status().waitingFor)
        #expect(d.core.model?.placeholder == d.core.status().waitingFor)
    }

    @Test("'as of' names the year once the date is more than half a year back")
    func asOfYear() throws {
        let ny = SampleMarket.timeZone
        let now = Double(ny.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 4, hour: 12, minute: 0)!))
        func said(_ y: Int, _ m: Int, _ d: Int) -> String {
            KioskCore.describe(ny.unixTime(for: CivilDateTime(year: y, month: m, day: d, hour: 16, minute: 0)!), in: ny, now: now)
        }
        #expect(said(2026, 12, 4) == "16:00 EST")
        #expect(said(2026, 11, 27) == "27 Nov 16:00 EST")
        #expect(said(2026, 7, 1) == "1 Jul 16:00 EDT")
        #expect(said(2026, 6, 1) == "1 Jun 2026 16:00 EDT")
        #expect(said(2025, 10, 29) == "29 Oct 2025 16:00 EDT")
        #expect(said(2027, 1, 2) == "2 Jan 2027 16:00 EST")
    }

    @Test("the fetcher's status: 'as of' in exchange time, its delay, and a stale mark when old")
    func freshnessFromTheFetcher() throws {
        // The sample's newest bar is Fri 27 Nov 2026; the wall clock starts Sat 28 Nov 2026 15:00 UTC.
        let d = CoreDriver(config: Config.watchlist(["A"]), start: KioskTime(mono: 1000, wall: 1_795_878_000))
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.send(.series(instrumentID: "A", slot: .intraday, series: Self.intraday))
        var status = FetchStatus()
        status.lastPriceTime = try #require(Self.intraday.last?.time)
        status.delaySeconds = 900
        status.marketState = "CLOSED"
        status.currency = "GBp"
        status.previousClose = 12.34
        d.send(.fetchStatus(instrumentID: "A", status))
        d.run(for: 1)
        // The provider's previous close (for the session of its newest price) is 1D's baseline.
        #expect(d.core.model?.selection(for: .oneDay).baseline == 12.34)
        // No currency in the config: the fetcher's word for it (pence) is how the price reads.
        #expect(d.core.model?.currentLabels().price.hasSuffix("p") == true, "\(d.core.model?.currentLabels().price ?? "")")
        let note = try #require(d.core.status().note)
        // Saturday: the calendar's words (the provider's CLOSED has no fetch time, so it is not "now").
        #expect(note.hasPrefix("Closed · opens Mon 09:30 · as of 27 Nov 1"), "\(note)")
        #expect(d.core.status().sessionState == "closed")
        #expect(d.core.status().asOf == Self.intraday.last?.time)
        #expect(note.contains("EST"))
        #expect(note.contains("delayed 15 min"))
        #expect(!note.contains("stale"))
        #expect(!d.core.isStale)
        // A week later with nothing new: the same time, now marked stale.
        d.run(for: 7 * 86_400)
        let later = try #require(d.core.status().note)
        #expect(later.hasPrefix("Closed · opens Mon 09:30 · as of 27 Nov"), "\(later)")
        #expect(later.hasSuffix("stale"))
        #expect(d.core.status().stale)
        // A fresh word from the provider wins over the calendar (an unscheduled closure, a late open).
        var fresh = status
        fresh.fetchedAt = Int64(d.core.status().time) - 60
        fresh.marketState = "REGULAR"
        d.send(.fetchStatus(instrumentID: "A", fresh))
        d.run(for: 1)
        #expect(d.core.status().note?.hasPrefix("Open · as of 27 Nov") == true, "\(d.core.status().note ?? "")")
        #expect(d.core.status().sessionState == "open")
    }
}
