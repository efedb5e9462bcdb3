import Chart
@testable import Commands
import Display
import DisplayModel
import Feed
@testable import Kiosk
@testable import KioskCore
import LinuxIO
import Raster
import StatusModel
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// A headless display (real timerfd-paced flips) that records what the shell asks of it and can
/// be told that its output went away, as a KMS display says after a hotplug uevent.
final class RecordingDisplay: Display {
    let inner = HeadlessDisplay(width: 480, height: 270, refreshHz: 60, simulatedVsync: true)
    var connected = true
    private(set) var presents = 0
    private(set) var powerCalls: [Bool] = []
    private(set) var suspended = false
    private(set) var suspendCalls = 0
    private(set) var resumeCalls = 0
    /// Events to report with the next `handleReadable` (a connector lost or back, a master lost).
    var injected: [DisplayEvent] = []
    /// Who holds the screen while a master is lost (as KMSDisplay reads it from /proc).
    var holder: String?
    var screenHolder: String? { holder }

    var width: Int { inner.width }
    var height: Int { inner.height }
    var refreshHz: Double { inner.refreshHz }
    var pollDescriptor: CInt? { inner.pollDescriptor }
    var canPresent: Bool { connected && inner.canPresent }
    var screen: PixelBuffer { inner.screen }

    func present(_ frame: Picture, damage: [IntRect], shift: ScanoutShift, placement: CopyPlacement) throws(DisplayError) -> Int {
        guard connected, !suspended else {
            throw DisplayError(.invalidRequest, device: "recording", operation: "present", detail: "not presentable now")
        }
        presents += 1
        return try inner.present(frame, damage: damage, shift: shift, placement: placement)
    }

    func handleReadable() -> [DisplayEvent] {
        let events = injected + inner.handleReadable()
        injected = []
        return events
    }

    func setPowered(_ on: Bool) -> Bool {
        powerCalls.append(on)
        return inner.setPowered(on)
    }

    /// Times the shell opened it (the daemon's display opener hands out this one display).
    var opens = 0

    func suspend() { suspended = true; suspendCalls += 1 }
    /// As KMS does: the screen is ours again once the display says so.
    func resume() {
        suspended = false
        resumeCalls += 1
        injected.append(.masterRegained)
    }
}

/// The real daemon (its event loop, LiveData over inotify, the config file, the status file)
/// around the real core, with a recording display instead of a screen: the wiring between them,
/// which the core tests (a driver of their own) and the VM checks (no Swift) do not reach.
@Suite("Daemon wiring", .serialized)
final class DaemonWiringTests {
    let directory: String
    let display = RecordingDisplay()
    /// What the shell's second and later openings get (a new descriptor, as KMS opens the card
    /// anew); nil: the same display again.
    var reopened: RecordingDisplay?
    var daemon: Daemon!

    init() throws {
        var template = Array("/tmp/tb-wiring-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        directory = String(cString: try #require(dir))
        Log.usesPriorityPrefixes = false
    }

    deinit {
        for name in FileSystem.list(directory) { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    var configPath: String { directory + "/tickerboard.conf" }
    var statusPath: String { directory + "/status.json" }

    /// Daily rows ending at `lastClose`, dated from 2024-01-02 on (one a day).
    static func dailyCSV(rows: Int, lastClose: Double) -> String {
        var text = "Date,Open,High,Low,Close,Adj Close,Volume\n"
        for i in 0..<rows {
            let close = i == rows - 1 ? lastClose : 100 + Double(i % 7)
            let day = CivilDate(year: 2024, month: 1, day: 2)!.adding(days: i)
            text += "\(day),\(close),\(close + 1),\(close - 1),\(close),\(close),1000\n"
        }
        return text
    }

    /// Writes `text` whole under a temporary name and renames it over `name`, as a fetcher does.
    func replace(_ name: String, _ text: String) throws {
        try AtomicFile.write(Array(text.utf8), to: directory + "/" + name)
    }

    func config(instruments: [String], extra: String = "", cycle: String = "0") -> String {
        var text = "[data]\ndirectory = \(directory)\n[chart]\ncycle-interval = \(cycle)\n[burn-in]\nshift = 0\n" + extra
        for id in instruments { text += "[instrument \(id)]\ndaily = \(id).csv\ntime-zone = America/New_York\n" }
        return text
    }

    /// `extra`: the displays the outputs after the first open, one per opening, in turn.
    func startDaemon(config text: String, timeScale: Double = 1, extra: [RecordingDisplay] = []) throws {
        try replace("tickerboard.conf", text)
        let (config, issues) = Config.load(path: configPath)
        #expect(issues.filter { $0.severity == .error }.isEmpty, "\(issues)")
        var options = Daemon.Options()
        options.configPath = configPath
        options.displayChoice = .headless
        options.statusFile = statusPath
        options.timeScale = timeScale
        if !extra.isEmpty {
            var opened = 0
            daemon = try Daemon(config: config, options: options, fonts: FontSet.load(), openDisplay: { [display, reopened] in display.opens += 1; return display.opens > 1 ? reopened ?? display : display },
                                openExtraDisplay: { _ in
                                    defer { opened += 1 }
                                    return extra[min(opened, extra.count - 1)]
                                })
        } else {
            daemon = try Daemon(config: config, options: options, fonts: FontSet.load(), openDisplay: { [display, reopened] in display.opens += 1; return display.opens > 1 ? reopened ?? display : display })
        }
        try daemon.start()
    }

    /// Turns the daemon's loop until `condition` holds. The bound is for "never" (a failure), not
    /// a judgement of speed: each turn waits for a descriptor or the core's timer.
    @discardableResult
    func run(until condition: () -> Bool, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        for _ in 0..<600 {
            if condition() { return true }
            try daemon.step(timeout: .milliseconds(500))
        }
        Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
        return false
    }

    var status: KioskStatus { daemon.core.status() }
    var statusFile: String { (try? RegularFile.read(statusPath, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    @Test("data arrival: a file replaced on disk reaches the core through inotify, is drawn, and the status file says so")
    func dataArrival() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 && statusFile.contains("111.25") },
                "the first file drawn and in status.json")
        let before = display.presents
        let pictureBefore = display.screen
        try replace("AAA.csv", Self.dailyCSV(rows: 41, lastClose: 123.5))
        try run(until: { status.price == 123.5 && display.presents > before }, "the replaced file drawn")
        try run(until: { statusFile.contains("123.5") }, "status.json naming the new price")
        try run(until: { status.settledFrame == status.frames }, "the update settled on screen")
        #expect(display.screen.pixels != pictureBefore.pixels, "the picture changed with the data")
        // Each key once (a JSON reader keeps one of two, silently: "animating" and "paused" were
        // written twice), and the peak memory as the kernel counts it for this program (VmHWM).
        let keys = statusFile.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: ":")[0] }
        #expect(Set(keys).count == keys.count, "a key written twice: \(keys.filter { k in keys.filter { $0 == k }.count > 1 })")
        let peak = statusFile.split(separator: "\n").first { $0.hasPrefix("  \"peak_rss_kb\": ") }
            .flatMap { Int($0.dropFirst("  \"peak_rss_kb\": ".count).prefix { $0.isNumber }) }
        #expect(peak.map { $0 >= ProcessStatus.kilobytes("VmRSS") / 2 && $0 > 1000 } == true, "peak_rss_kb: \(String(describing: peak))")
    }

    /// Issue 51: the shell writes the metrics and the alerts' states from the status write alone.
    @Test("a status write carries the metrics and the alert states: tickerboard.prom names the instrument, the fired alert is saved")
    func statusWriteCarriesMetricsAndAlerts() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        let text = config(instruments: ["AAA"], extra: "[alert high]\ninstrument = AAA\nabove = 120\n")
        try replace("tickerboard.conf", text)
        let (config, _) = Config.load(path: configPath)
        var options = Daemon.Options()
        options.configPath = configPath
        options.displayChoice = .headless
        options.statusFile = statusPath
        options.metricsFile = directory + "/tickerboard.prom"
        options.alertStateFile = directory + "/alerts.state"
        daemon = try Daemon(config: config, options: options, fonts: FontSet.load(), openDisplay: { [display] in display })
        try daemon.start()
        func read(_ name: String) -> String {
            (try? RegularFile.read(directory + "/" + name, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        try run(until: { read("tickerboard.prom").contains("tickerboard_instrument_problem{instrument=\"AAA\"} 0") },
                "the metrics naming AAA with its data")
        try run(until: { read("alerts.state") == "high armed - - -\n" }, "the alert saved armed: nothing fired at 111.25")
        // 123.5 is above 120: the alert fires and its state is saved beside the status, `fired`
        // in Alerts.encode's words (name, fired, day, time, move day).
        try replace("AAA.csv", Self.dailyCSV(rows: 41, lastClose: 123.5))
        try run(until: { read("alerts.state").hasPrefix("high fired ") }, "the fired alert saved")
    }

    /// Issue 48 item 9: the second instrument naming a file waited for data for ever (the first's
    /// reading had made the file "unchanged" for it).
    @Test("two instruments naming one file both get its data, at start and when it is replaced")
    func sharedFile() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        let text = "[data]\ndirectory = \(directory)\n[chart]\ncycle-interval = 0\n[burn-in]\nshift = 0\n"
            + "[instrument AAA]\ndaily = AAA.csv\n[instrument ALSO]\ndaily = AAA.csv\nprice = adjusted\n"
        try startDaemon(config: text)
        try run(until: { daemon.core.entries.count == 2 && daemon.core.entries.allSatisfy(\.hasData) }, "both instruments with data")
        #expect(daemon.core.entries.map { $0.daily?.last?.close } == [111.25, 111.25])
        #expect(daemon.core.entries.map { $0.daily?.priceField } == [.close, .adjustedClose], "each with its own price field")
        try replace("AAA.csv", Self.dailyCSV(rows: 41, lastClose: 123.5))
        try run(until: { daemon.core.entries.allSatisfy { $0.daily?.last?.close == 123.5 } }, "the replaced file reaching both")
    }

    @Test("reload: a good config file is taken (a new instrument's file is read); a broken one keeps the running config")
    func reload() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try replace("BBB.csv", Self.dailyCSV(rows: 40, lastClose: 222.5))
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 }, "the first picture")
        try replace("tickerboard.conf", config(instruments: ["AAA", "BBB"]))
        daemon.runner.recordsEffects = true
        daemon.reload()
        #expect(daemon.core.config.instruments.map(\.id) == ["AAA", "BBB"])
        // systemd hears RELOADING=1 first and READY=1 when the new file is in force.
        let told = daemon.runner.effects.map(\.effect).filter { $0.systemdMessage != nil }
        #expect(told.first == .reloading && told.contains(.ready(status: nil)), "\(told)")
        try run(until: { daemon.core.entries.allSatisfy(\.hasData) && daemon.core.entries.count == 2 },
                "the new instrument's file read after the reload")
        let presents = display.presents
        try replace("tickerboard.conf", config(instruments: ["AAA"], extra: "[chart]\ncycle-interval = banana\n"))
        daemon.reload()
        #expect(daemon.core.config.instruments.map(\.id) == ["AAA", "BBB"], "a broken file changes nothing")
        #expect(status.problems.contains { $0.key == "cycle-interval" }, "\(status.problems)")
        #expect(display.presents >= presents && !display.powerCalls.contains(false), "the last good picture stays")
    }

    @Test("hotplug: an output lost stops the frames and the status says so; back, a whole frame is presented")
    func hotplug() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 && !status.animating }, "the first picture at rest")
        display.connected = false
        display.injected = [.connectorLost]
        daemon.handleAllDisplayEvents()
        #expect(status.display == KioskCore.DisplayState.waitingForOutput.rawValue, "\(status.display ?? "nil")")
        let lost = display.presents
        display.connected = true
        display.injected = [.connectorReturned]
        daemon.handleAllDisplayEvents()
        try run(until: { display.presents > lost && status.display == KioskCore.DisplayState.presenting.rawValue },
                "a frame after the output came back")
    }

    /// Issue 49 item 1: Raspberry Pi OS with the desktop. Its compositor is DRM master on the active
    /// VT; the daemon waited for ever while the service was "active", and nothing said why.
    @Test("another program holding the screen is said once, in the journal and the status file (who, when known); gone when the screen is back")
    func desktopHoldsTheScreen() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 && !status.animating }, "the first picture at rest")
        display.holder = "4242 (labwc)"
        display.injected = [.masterLost]
        daemon.handleAllDisplayEvents()
        #expect(status.display == KioskCore.DisplayState.otherMaster.rawValue)
        #expect(status.displayDetail == "4242 (labwc) holds the screen (DRM master)")
        try run(until: { statusFile.contains("\"display_detail\": \"4242 (labwc) holds the screen (DRM master)\"") }, "the status file says who")
        display.holder = nil
        display.injected = [.masterRegained]
        daemon.handleAllDisplayEvents()
        #expect(status.displayDetail == nil)
    }

    /// Issue 49 item 1, the end of it: the desktop was DRM master when the daemon opened the card,
    /// so the daemon's descriptor may never take master (drm_auth.c: only a descriptor that held it,
    /// or CAP_SYS_ADMIN, which the unit does not grant). When the desktop lets go, KMS says
    /// `.masterFree` and the shell opens the display again: the new descriptor is master.
    @Test("the program holding the screen lets go: the display is opened again and draws")
    func desktopLetsGo() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        let fresh = RecordingDisplay()
        reopened = fresh
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 && !status.animating }, "the first picture at rest")
        #expect(display.opens == 1)
        display.holder = "4242 (labwc)"
        display.injected = [.masterLost]
        daemon.handleAllDisplayEvents()
        #expect(status.display == KioskCore.DisplayState.otherMaster.rawValue)
        display.holder = nil
        display.injected = [.masterFree]
        daemon.handleAllDisplayEvents()
        #expect(display.opens == 2, "opened again")
        try run(until: { fresh.presents > 0 && status.display == KioskCore.DisplayState.presenting.rawValue },
                "a frame on the display opened again")
        #expect(status.displayDetail == nil)
    }

    @Test("VT loss: the display is suspended and nothing is presented while away; back, it resumes and draws")
    func vtLoss() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try startDaemon(config: config(instruments: ["AAA"]))
        try run(until: { status.price == 111.25 && display.presents > 0 && !status.animating }, "the first picture at rest")
        daemon.send(.vtRelease)
        #expect(display.suspended && display.suspendCalls == 1)
        #expect(status.display == KioskCore.DisplayState.away.rawValue, "\(status.display ?? "nil")")
        // A data update while away is taken, but not drawn until the VT is back.
        let away = display.presents
        try replace("AAA.csv", Self.dailyCSV(rows: 41, lastClose: 130))
        try run(until: { status.price == 130 }, "the update taken while away")
        #expect(display.presents == away, "no frame while away")
        daemon.send(.vtAcquire)
        #expect(display.resumeCalls == 1 && !display.suspended)
        daemon.handleAllDisplayEvents()  // the display's descriptor says "master regained"
        try run(until: { display.presents > away && status.display == KioskCore.DisplayState.presenting.rawValue },
                "a frame once the VT is back")
    }

    @Test("screen off: the idle timeout switches the display off through the shell (DPMS), and the core hears it applied")
    func screenOff() throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        // At 600x the 10 min of idle pass in a second of the loop's time.
        try startDaemon(config: config(instruments: ["AAA"], extra: "[power]\nblank-after-idle = 10min\n"), timeScale: 600)
        try run(until: { display.presents > 0 }, "the first picture")
        try run(until: { display.powerCalls.contains(false) }, "the screen switched off after the idle time")
        #expect(!daemon.core.screenOn)
        let off = display.presents
        try daemon.step(timeout: .milliseconds(50))
        #expect(display.presents == off, "no frame drawn for a dark screen (DPMS did it)")
    }
    @Test("two outputs: one core, a screen machine and scene each (chart, tape), the data held once reaches both, one unplugged leaves the other running, the status lists both")
    func twoOutputs() throws {
        let second = RecordingDisplay(), third = RecordingDisplay()
        try replace("AAA.csv", Self.dailyCSV(rows: 40, lastClose: 111.25))
        try startDaemon(config: config(instruments: ["AAA"], extra: "[output first]\nscene = chart\n[output second]\nscene = tape\n[tape]\nspeed = 60\n"
                                                   + "[input]\noutput = second\n"),
                        extra: [second, third])
        try run(until: { status.price == 111.25 && display.presents > 0 && !status.animating && second.presents > 10 },
                "the chart at rest on the first output while the tape crawls on the second")
        // The tape alone: its band across the middle, background above and below; the chart's
        // screen is another picture.
        let tape = second.screen, chart = display.screen
        #expect(tape.pixels != chart.pixels)
        let band = TapeLayout.band(position: .full, width: tape.width, height: tape.height)
        let corner = tape[0, 0]
        var inkInBand = 0, inkOutside = 0
        for y in 0..<tape.height { for x in 0..<tape.width where tape[x, y] != corner {
            if y >= band.y0 && y < band.y1 { inkInBand += 1 } else { inkOutside += 1 }
        } }
        #expect(inkInBand > 500 && inkOutside == 0, "tape ink \(inkInBand) in the band, \(inkOutside) outside")
        #expect(daemon.touchOutputIndex == 1, "[input] output = second")
        // The settled chart costs nothing while the tape goes on.
        let chartPresents = display.presents, tapePresents = second.presents
        try run(until: { second.presents > tapePresents + 20 }, "the tape crawling on")
        #expect(display.presents == chartPresents, "the idle chart presented \(display.presents - chartPresents) frames")
        // New data reaches both outputs (one core: the data is held once).
        #expect(daemon.core.outputCount == 2)
        try replace("AAA.csv", Self.dailyCSV(rows: 41, lastClose: 123.5))
        try run(until: { status.price == 123.5 && daemon.core.output(1).model?.instrument.market.daily?.bars.last?.close == 123.5 },
                "the new price on both outputs")
        let secondModel = try #require(daemon.core.output(1).model)
        try run(until: { statusFile.contains("\"outputs\": [") && statusFile.contains("\"name\": \"second\"")
                         && statusFile.contains("\"scene\": \"tape\"") }, "the status file listing both outputs")
        // The first output unplugged: the second keeps crawling; back, the first draws again.
        display.connected = false
        display.injected = [.connectorLost]
        daemon.handleAllDisplayEvents()
        let lost = display.presents, crawling = second.presents
        try run(until: { second.presents > crawling + 30 }, "the tape crawling while the first output is gone")
        #expect(display.presents == lost)
        #expect(status.display == KioskCore.DisplayState.waitingForOutput.rawValue)
        display.connected = true
        display.injected = [.connectorReturned]
        daemon.handleAllDisplayEvents()
        try run(until: { display.presents > lost }, "the chart back on the first output")
        // A reload that renames the second section starts its output again (a new screen machine,
        // its display opened anew): it has the data and crawls on; the first output goes on.
        try replace("tickerboard.conf", config(instruments: ["AAA"], extra: "[output first]\nscene = chart\n[output DP-1]\nscene = tape\n"))
        daemon.reload()
        try run(until: { third.presents > 10 }, "the restarted output's tape crawling on its display")
        let restarted = try #require(daemon.core.output(1).model)
        #expect(restarted !== secondModel)
        #expect(restarted.instrument.market.daily?.bars.last?.close == 123.5)
    }
}

/// Where the display cannot read back (KMS, fbdev), a screenshot is the shell's own record of the
/// last picture. That record used to be a second owner of the canvas's pixel array, so the next
/// frame's first write copied the whole picture (issue 50: ~2,000 page faults a 1080p frame).
extension DaemonWiringTests {
    static let lastPictureSetups = [
        "",                                         // the canvas itself
        "[tape]\nposition = bottom\n",              // the tape composer's screen
        "[display]\nrotation = 90\n",               // turned by copy
        "[burn-in]\nshift = 2\nperiod = 10s\n",      // moved by copy
    ]

    @Test("the last picture equals what the display received (plain, beside a tape band, turned, shifted by copy), and frames reuse their buffers",
          arguments: lastPictureSetups)
    func lastPictureWithoutACopy(extra: String) throws {
        try replace("AAA.csv", Self.dailyCSV(rows: 60, lastClose: 111.25))
        try replace("BBB.csv", Self.dailyCSV(rows: 60, lastClose: 99.5))
        let cycling = config(instruments: ["AAA", "BBB"], extra: extra, cycle: "2s")
        try startDaemon(config: cycling, timeScale: 30)
        try run(until: { display.presents > 30 }, "the first frames (a burn-in step among them)")
        func storage(_ b: PixelBuffer?) -> UnsafeRawPointer? { b?.pixels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        // The canvas and the display's screen (turned and moved as it is copied in, no picture
        // between them): each written in place frame after frame.
        func buffers() -> [UnsafeRawPointer?] {
            [storage(daemon.screen.renderer.canvas.buffer), storage(display.screen)]
        }
        let first = buffers()
        let presents = display.presents
        // Every picture of the morphs and cycles between: the record follows without being kept.
        try run(until: { display.presents > presents + 40 }, "40 more frames (cycling at 30x)")
        let last = try #require(daemon.screen.lastPresented)
        #expect(last.width == display.screen.width && last.height == display.screen.height)
        #expect(last.pixels == display.screen.pixels, "the screenshot is the picture last presented")
        for (before, after) in zip(first, buffers()) where before != nil && after != nil {
            #expect(before == after, "a buffer drawn into a new allocation 40 frames later (copied on write): \(first) \(buffers())")
        }
        #expect(first[0] != nil && first[1] != nil)
    }
}

/// A hundred files at the row limit took 63 s before READY (the unit allows 60) and a reload as
/// long, past the 30 s watchdog, with nothing said to systemd meanwhile.
@Suite struct LoadKeepAliveTests {
    @Test("a long load pings the watchdog every five seconds and, before READY, asks for more time to start")
    func longLoadKeepsSystemdInformed() {
        var startUp = LoadKeepAlive(startedAt: 100, ready: false)
        var sent: [String] = []
        for i in 1...100 {
            // 0.63 s a file: 63 s in all.
            if let m = startUp.progress(at: 100 + Double(i) * 0.63, done: i, of: 100) { sent.append(m) }
        }
        #expect(sent.count == 12)
        #expect(sent.allSatisfy { $0.contains("WATCHDOG=1") && $0.contains("EXTEND_TIMEOUT_USEC=30000000") })
        #expect(sent.first?.contains("STATUS=reading data files (8 of 100)") == true)
        var reload = LoadKeepAlive(startedAt: 0, ready: true)
        let m = reload.progress(at: 6, done: 3, of: 9)
        #expect(m?.contains("WATCHDOG=1") == true && m?.contains("EXTEND_TIMEOUT") == false)
        // A quick load says nothing.
        var quick = LoadKeepAlive(startedAt: 0, ready: false)
        #expect(quick.progress(at: 4.9, done: 1, of: 1) == nil)
    }

}
