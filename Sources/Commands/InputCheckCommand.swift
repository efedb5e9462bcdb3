// `tickerboard input-check`: a diagnostic that opens libinput on a seat (or on explicit event
// nodes), prints one line per input event and per recognised gesture for N seconds, then a summary
// with counts, the worst input lag and memory. Used by the VM touch end-to-end test
// (Tests/E2E/touch-e2e.sh) and by installers checking a touchscreen's rotation and calibration.

import Input
import InputModel
import Kiosk
import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

enum InputCheckCommand {
    static let help = """
        usage: tickerboard input-check [--seconds S] [--size WxH] [--rotation 0|90|180|270] [--seat NAME]
                                       [--device /dev/input/eventN]... [--calibration "a b c d e f"]
                                       [--ready-file PATH] [--quiet] [--report]

        Prints `DEVICE`, `TOUCH`, `POINTER`, `KEY` and `GESTURE` lines in logical picture pixels
        (WxH is the panel's mode size; default 1024x768) for S seconds (default 10), then a `SUMMARY` line.
          --device      use libinput's path backend on these nodes instead of the udev seat (repeatable)
          --ready-file  create PATH once the devices present at start are listed
          --quiet       print only DEVICE and GESTURE lines (for event floods)
          --report      print the `tickerboard inputs` listing of the seat and exit
        """

    struct Options: Equatable {
        var seconds = 10.0
        var width = 1024, height = 768
        var rotation = 0
        var seat = "seat0"
        var devices: [String] = []
        var calibration: CalibrationMatrix?
        var readyFile: String?
        /// Only DEVICE and GESTURE lines; or only the seat's device listing.
        var quiet = false, report = false
    }

    /// The options of `raw`; nil when help was asked for.
    static func parse(_ raw: [String]) throws(UsageError) -> Options? {
        var args = Arguments(command: "input-check", raw)
        if args.wantsHelp() { return nil }
        var o = Options()
        o.seconds = try args.number("--seconds", in: 0.001...86_400) ?? o.seconds
        if let size = try args.size() { (o.width, o.height) = size }
        o.rotation = try args.value("--rotation", expected: "0, 90, 180 or 270", parseRotation) ?? o.rotation
        o.seat = try args.option("--seat") ?? o.seat
        o.devices = try args.repeatable("--device")
        o.calibration = try args.value("--calibration", expected: "six numbers a b c d e f", CalibrationMatrix.init(parsing:))
        o.readyFile = try args.option("--ready-file")
        o.quiet = args.flag("--quiet")
        o.report = args.flag("--report")
        try args.finish()
        return o
    }

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        guard let options = try parse(raw) else { printLine(help); return 0 }
        return run(options)
    }

    /// Runs the check; returns the process exit status (0 ok, 1 input failure).
    static func run(_ options: Options) -> Int32 {
        if options.report {
            print(InputReport.make(seat: options.seat), terminator: "")
            return 0
        }
        let seat = options.seat, devices = options.devices, quiet = options.quiet
        let signals: SignalFD
        do { signals = try SignalFD(signals: [SIGTERM, SIGINT]) } catch { return fail("signalfd: \(error)") }
        let mapping = TouchMapping(panelWidth: options.width, panelHeight: options.height, quarterTurns: options.rotation / 90)
        let log: (String) -> Void = { printLine("LOG \($0)") }
        let input: InputDevices
        do {
            input = devices.isEmpty
                ? try InputDevices(seat: seat, mapping: mapping, calibration: options.calibration, log: log)
                : try InputDevices(paths: devices, mapping: mapping, calibration: options.calibration, log: log)
        } catch {
            return fail("\(error)")
        }
        printLine("input-check: \(devices.isEmpty ? "seat \(seat)" : "devices \(devices)") panel \(options.width)x\(options.height)"
            + " rotation \(options.rotation)"
            + " logical \(mapping.logicalWidth)x\(mapping.logicalHeight)")

        var stats = Statistics()
        stats.rssStartKB = ProcessStatus.kilobytes("VmRSS")
        let cpuStart = ProcessCPUTime.now()
        var gestures = GestureRecognizer(width: Double(mapping.logicalWidth), height: Double(mapping.logicalHeight), log: log)
        func handle(_ event: InputEvent) {
            stats.count(event)
            if !quiet || isDeviceEvent(event) { printLine(describe(event)) }
            gestures.process(event) { gesture in
                stats.gestures += 1
                if !quiet || !isMove(gesture) { printLine("GESTURE \(describe(gesture))") }
            }
        }
        func dispatch() {
            var batch = 0
            input.dispatch { event in
                batch += 1
                handle(event)
                if let t = event.time {
                    let now = MonotonicClock.now() / 1000
                    stats.lastLagMicroseconds = now > t ? now - t : 0
                    stats.maxLagMicroseconds = max(stats.maxLagMicroseconds, stats.lastLagMicroseconds)
                }
            }
            stats.dispatches += 1
            stats.maxBatch = max(stats.maxBatch, batch)
        }

        let loop: EventLoop
        do { loop = try EventLoop() } catch { return fail("event loop: \(error)") }
        do {
            try loop.watch(input.pollDescriptor) { _ in dispatch() }
            try loop.watch(signals.descriptor.rawValue) { _ in
                while let info = try? signals.next() {
                    printLine("input-check: signal \(info.signal), stopping")
                    loop.stop()
                }
            }
            try loop.addTimer(after: .milliseconds(Int64(options.seconds * 1000))) { loop.stop() }
        } catch {
            return fail("\(error)")
        }
        // The devices present at start are queued events: they do not make the descriptor readable.
        dispatch()
        printLine("input-check: ready, \(input.devices.count) devices")
        if let readyFile = options.readyFile { createReadyFile(readyFile) }
        do { try loop.run() } catch { return fail("event loop: \(error)") }

        let cpu = ProcessCPUTime.now()
        let cpuMS = (cpu.user + cpu.system - cpuStart.user - cpuStart.system) / 1_000_000
        let c = gestures.counters
        printLine("SUMMARY events=\(stats.events) touch_down=\(stats.touchDown) touch_motion=\(stats.touchMotion)"
            + " touch_up=\(stats.touchUp) touch_cancel=\(stats.touchCancel) frames=\(stats.frames)"
            + " pointer=\(stats.pointer) keys=\(stats.keys) added=\(stats.added) removed=\(stats.removed)"
            + " gestures=\(stats.gestures) dispatches=\(stats.dispatches) max_batch=\(stats.maxBatch)"
            + " max_lag_ms=\(Double(stats.maxLagMicroseconds) / 1000) last_lag_ms=\(Double(stats.lastLagMicroseconds) / 1000)"
            + " clamped=\(c.clamped) extra_fingers=\(c.extraFingers) unmatched=\(c.unmatched)"
            + " rss_kb_start=\(stats.rssStartKB) rss_kb_end=\(ProcessStatus.kilobytes("VmRSS")) cpu_ms=\(cpuMS) devices_now=\(input.devices.count)")
        return 0
    }

    private struct Statistics {
        var events = 0, touchDown = 0, touchMotion = 0, touchUp = 0, touchCancel = 0, frames = 0
        var pointer = 0, keys = 0, added = 0, removed = 0, gestures = 0, dispatches = 0, maxBatch = 0
        var maxLagMicroseconds: UInt64 = 0, lastLagMicroseconds: UInt64 = 0
        var rssStartKB = 0

        mutating func count(_ event: InputEvent) {
            events += 1
            switch event {
            case .touchDown: touchDown += 1
            case .touchMotion: touchMotion += 1
            case .touchUp: touchUp += 1
            case .touchCancel: touchCancel += 1
            case .touchFrame: frames += 1
            case .pointerMotion, .pointerButton: pointer += 1
            case .key: keys += 1
            case .deviceAdded: added += 1
            case .deviceRemoved: removed += 1
            }
        }
    }

    private static func isDeviceEvent(_ event: InputEvent) -> Bool {
        switch event {
        case .deviceAdded, .deviceRemoved: true
        default: false
        }
    }

    private static func isMove(_ gesture: Gesture) -> Bool {
        if case .scrubMoved = gesture { true } else { false }
    }

    private static func describe(_ event: InputEvent) -> String {
        switch event {
        case .touchDown(let slot, let x, let y, let t): "TOUCH down slot=\(slot) x=\(x) y=\(y) t_us=\(t)"
        case .touchMotion(let slot, let x, let y, let t): "TOUCH motion slot=\(slot) x=\(x) y=\(y) t_us=\(t)"
        case .touchUp(let slot, let t): "TOUCH up slot=\(slot) t_us=\(t)"
        case .touchCancel(let slot, let t): "TOUCH cancel slot=\(slot) t_us=\(t)"
        case .touchFrame(let t): "TOUCH frame t_us=\(t)"
        case .pointerMotion(let x, let y, let t): "POINTER motion x=\(x) y=\(y) t_us=\(t)"
        case .pointerButton(let button, let pressed, let x, let y, let t):
            "POINTER button code=\(button) pressed=\(pressed ? 1 : 0) x=\(x) y=\(y) t_us=\(t)"
        case .key(let code, let pressed, let command, let t):
            "KEY code=\(code) pressed=\(pressed ? 1 : 0) command=\(command.map { "\($0)" } ?? "none") t_us=\(t)"
        case .deviceAdded(let info): "DEVICE added id=\(info.id) \(info) now_us=\(MonotonicClock.now() / 1000)"
        case .deviceRemoved(let info): "DEVICE removed id=\(info.id) \(info) now_us=\(MonotonicClock.now() / 1000)"
        }
    }

    private static func describe(_ gesture: Gesture) -> String {
        switch gesture {
        case .scrubBegan(let x, let y): "scrubBegan x=\(x) y=\(y)"
        case .scrubMoved(let x, let y): "scrubMoved x=\(x) y=\(y)"
        case .scrubEnded: "scrubEnded"
        case .tap(let x, let y): "tap x=\(x) y=\(y)"
        case .swipe(let direction): "swipe \(direction)"
        }
    }

    private static func fail(_ message: String) -> Int32 {
        Log.error("input-check: \(message)")
        return 1
    }
}
