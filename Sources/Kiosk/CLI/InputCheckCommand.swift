// InputCheck: the hidden `tickerboard input-check` diagnostic. It opens libinput on a seat (or on
// explicit event nodes), prints one line per input event and per recognised gesture for N seconds,
// then a summary with counts, the worst input lag and memory. Used by the VM touch end-to-end test
// (Tests/E2E/touch-e2e.sh) and by installers checking a touchscreen's rotation and calibration.
// Depends on Input and LinuxIO only.

import Input
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

public enum InputCheck {
    static let usage = """
        usage: tickerboard input-check [--seconds S] [--size WxH] [--rotation 0|90|180|270] [--seat NAME]
                                       [--device /dev/input/eventN]... [--calibration "a b c d e f"]
                                       [--ready-file PATH] [--quiet] [--report]
        Prints `DEVICE`, `TOUCH`, `POINTER`, `KEY` and `GESTURE` lines in logical picture pixels
        (WxH is the panel's mode size; default 1024x768), then a `SUMMARY` line.
        --device      use libinput's path backend on these nodes instead of the udev seat
        --quiet       print only DEVICE and GESTURE lines (for event floods)
        --report      print the `tickerboard inputs` listing of the seat and exit
        """

    /// Runs the check; returns the process exit status (0 ok, 1 input failure, 2 usage).
    public static func run(arguments: [String]) -> Int32 {
        var seconds = 10.0
        var width = 1024, height = 768, rotation = 0
        var seat = "seat0"
        var devices: [String] = []
        var calibration: CalibrationMatrix?
        var readyFile: String?
        var quiet = false
        var args = arguments[...]
        if args.first == "input-check" { args = args.dropFirst() }
        while let arg = args.popFirst() {
            func value() -> String? { args.popFirst() }
            switch arg {
            case "--seconds":
                guard let v = value().flatMap({ Double($0) }), v > 0, v < 86_400 else { return fail(usage, 2) }
                seconds = v
            case "--size":
                let parts = (value() ?? "").split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] < 65_536, parts[1] < 65_536 else {
                    return fail("input-check: bad --size (want WxH)", 2)
                }
                width = parts[0]; height = parts[1]
            case "--rotation":
                guard let r = value().flatMap({ Int($0) }), [0, 90, 180, 270].contains(r) else {
                    return fail("input-check: bad --rotation (want 0, 90, 180 or 270)", 2)
                }
                rotation = r
            case "--seat": seat = value() ?? seat
            case "--device":
                guard let path = value() else { return fail(usage, 2) }
                devices.append(path)
            case "--calibration":
                guard let m = value().flatMap({ CalibrationMatrix(parsing: $0) }) else {
                    return fail("input-check: bad --calibration (want six numbers)", 2)
                }
                calibration = m
            case "--ready-file": readyFile = value()
            case "--quiet": quiet = true
            case "--report":
                say(InputReport.make(seat: seat))
                return 0
            case "-h", "--help":
                say(usage)
                return 0
            default: return fail("input-check: unknown argument \(arg)\n\(usage)", 2)
            }
        }

        let signals: SignalFD
        do { signals = try SignalFD(signals: [SIGTERM, SIGINT]) } catch { return fail("input-check: signalfd: \(error)", 1) }
        guard let mapping = TouchMapping(panelWidth: width, panelHeight: height, rotationDegrees: rotation) else {
            return fail(usage, 2)
        }
        let log: (String) -> Void = { say("LOG \($0)") }
        let input: InputDevices
        do {
            input = devices.isEmpty
                ? try InputDevices(seat: seat, mapping: mapping, calibration: calibration, log: log)
                : try InputDevices(paths: devices, mapping: mapping, calibration: calibration, log: log)
        } catch {
            return fail("input-check: \(error)", 1)
        }
        say("input-check: \(devices.isEmpty ? "seat \(seat)" : "devices \(devices)") panel \(width)x\(height) rotation \(rotation)"
            + " logical \(mapping.logicalWidth)x\(mapping.logicalHeight)")

        var stats = Statistics()
        stats.rssStartKB = residentKB()
        let cpuStart = ProcessCPUTime.now()
        var gestures = GestureRecognizer(width: Double(mapping.logicalWidth), height: Double(mapping.logicalHeight), log: log)
        func handle(_ event: InputEvent) {
            stats.count(event)
            if !quiet || isDeviceEvent(event) { say(describe(event)) }
            gestures.process(event) { gesture in
                stats.gestures += 1
                if !quiet || !isMove(gesture) { say("GESTURE \(describe(gesture))") }
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
        do { loop = try EventLoop() } catch { return fail("input-check: event loop: \(error)", 1) }
        do {
            try loop.watch(input.pollDescriptor) { _ in dispatch() }
            try loop.watch(signals.descriptor.rawValue) { _ in
                while let info = try? signals.next() {
                    say("input-check: signal \(info.signal), stopping")
                    loop.stop()
                }
            }
            try loop.addTimer(after: .milliseconds(Int64(seconds * 1000))) { loop.stop() }
        } catch {
            return fail("input-check: \(error)", 1)
        }
        // The devices present at start are queued events: they do not make the descriptor readable.
        dispatch()
        say("input-check: ready, \(input.devices.count) devices")
        if let readyFile {
            let fd = open(readyFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 { close(fd) }
        }
        do { try loop.run() } catch { return fail("input-check: event loop: \(error)", 1) }

        let cpu = ProcessCPUTime.now()
        let cpuMS = (cpu.user + cpu.system - cpuStart.user - cpuStart.system) / 1_000_000
        let c = gestures.counters
        say("SUMMARY events=\(stats.events) touch_down=\(stats.touchDown) touch_motion=\(stats.touchMotion)"
            + " touch_up=\(stats.touchUp) touch_cancel=\(stats.touchCancel) frames=\(stats.frames)"
            + " pointer=\(stats.pointer) keys=\(stats.keys) added=\(stats.added) removed=\(stats.removed)"
            + " gestures=\(stats.gestures) dispatches=\(stats.dispatches) max_batch=\(stats.maxBatch)"
            + " max_lag_ms=\(Double(stats.maxLagMicroseconds) / 1000) last_lag_ms=\(Double(stats.lastLagMicroseconds) / 1000)"
            + " clamped=\(c.clamped) extra_fingers=\(c.extraFingers) unmatched=\(c.unmatched)"
            + " rss_kb_start=\(stats.rssStartKB) rss_kb_end=\(residentKB()) cpu_ms=\(cpuMS) devices_now=\(input.devices.count)")
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

    /// VmRSS from /proc/self/status in KiB (0 when unreadable).
    private static func residentKB() -> Int {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly) else { return 0 }
        defer { try? fd.close() }
        guard let bytes = try? fd.read(upTo: 4096) else { return 0 }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            // "VmRSS:\t   11328 kB": a tab after the colon, then spaces.
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }

    /// Writes a line to stdout unbuffered (print is fully buffered when stdout is a file).
    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }

    private static func fail(_ message: String, _ code: Int32) -> Int32 {
        let bytes = Array((message + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        return code
    }
}
