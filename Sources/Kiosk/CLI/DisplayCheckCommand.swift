// DisplayCheck: the hidden `tickerboard display-check` diagnostic. It opens a display backend,
// flips a moving test pattern for N frames on the event loop, and reports the measured flip rate,
// missed vblanks and CPU time, then gives the screen back. Used by the VM end-to-end tests and by
// installers checking a new panel.

import Display
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

public enum DisplayCheck {
    /// Colours of the test pattern's four bars, left to right (the E2E test samples them).
    public static let barColors: [Color] = [
        Color(rgb: 0xFF0000), Color(rgb: 0x00FF00), Color(rgb: 0x0000FF), Color(rgb: 0xFFFF00),
    ]
    /// The lower band's background and the moving block.
    public static let bandColor = Color(rgb: 0x202020)
    public static let blockColor = Color(rgb: 0xFFFFFF)

    static let usage = """
        usage: tickerboard display-check [--device PATH] [--backend kms|fbdev] [--frames N]
                                         [--mode WxH[@Hz]] [--ready-file PATH] [--timer-pacing]
                                         [--idle-seconds S] [--legacy] [--wait-for-output]
        --idle-seconds S  after the flips, keep the screen and measure S seconds of idling
                          (event-loop wakeups and CPU time: both should be ~0)
        """

    /// Runs the check; returns the process exit status (0 ok, 1 display failure, 2 usage).
    public static func run(arguments: [String]) -> Int32 {
        var device: String?
        var backend = "kms"
        var frames = 120
        var mode: ModeRequest?
        var readyFile: String?
        var forceTimer = false
        var idleSeconds = 0.0
        var legacy = false
        var waitForOutput = false
        var args = arguments[...]
        if args.first == "display-check" { args = args.dropFirst() }
        while let arg = args.popFirst() {
            func value() -> String? { args.popFirst() }
            switch arg {
            case "--device": device = value()
            case "--backend": backend = value() ?? ""
            case "--frames":
                guard let n = value().flatMap({ Int($0) }), n > 0 else { return fail(usage, 2) }
                frames = n
            case "--mode":
                guard let m = value().flatMap({ ModeRequest($0) }) else { return fail("display-check: bad --mode (want WxH or WxH@Hz)", 2) }
                mode = m
            case "--ready-file": readyFile = value()
            case "--timer-pacing": forceTimer = true
            case "--legacy": legacy = true
            case "--wait-for-output": waitForOutput = true
            case "--idle-seconds":
                guard let v = value().flatMap({ Double($0) }), v >= 0, v < 3600 else { return fail(usage, 2) }
                idleSeconds = v
            case "-h", "--help":
                print(usage)
                return 0
            default: return fail("display-check: unknown argument \(arg)\n\(usage)", 2)
            }
        }

        // Block the signals before anything else so SIGTERM arrives as an event, not a kill.
        let signals: SignalFD
        do { signals = try SignalFD(signals: [SIGTERM, SIGINT]) } catch { return fail("display-check: signalfd: \(error)", 1) }

        let display: any Display
        var header: String
        do {
            switch backend {
            case "kms":
                let kms = try KMSDisplay(options: .init(devicePath: device, mode: mode, waitForOutput: waitForOutput,
                                                                   forceTimerPacing: forceTimer, legacyOnly: legacy),
                                         log: { say("display-check: \($0)") })
                display = kms
                header = "kms \(kms.devicePath) (\(kms.driverName)) \(kms.connectorName) \(kms.modeDescription)"
                    + " api=\(kms.usesAtomic ? "atomic" : "legacy")"
                    + " saved_fb=\(kms.savedFramebufferID.map(String.init) ?? "none")"
            case "fbdev":
                let fb = try FBDevDisplay(path: device ?? "/dev/fb0")
                display = fb
                header = "fbdev \(fb.devicePath) (\(fb.driverName)) \(fb.width)x\(fb.height) \(fb.pageCount) page(s)"
                    + " vsync_ioctl=\(fb.hasVSyncIoctl ? "yes" : "no")"
            default:
                return fail("display-check: unknown backend \(backend) (kms or fbdev)", 2)
            }
        } catch {
            return fail("display-check: \(error)", 1)
        }
        say("display-check: \(header)")

        let loop: EventLoop
        do { loop = try EventLoop() } catch { return fail("display-check: epoll: \(error)", 1) }
        var frame = PixelBuffer(width: display.width, height: display.height)
        var presented = 0, completed = 0, interrupted = false, patternIndex = 0
        var firstFlipNanos: UInt64 = 0, lastFlipNanos: UInt64 = 0
        var firstSequence: UInt64 = 0, lastSequence: UInt64 = 0, missed: UInt64 = 0
        var cpuAtFirstFlip = ProcessCPUTime.now()
        var wallAtFirstFlip: UInt64 = 0
        var failure: DisplayError?
        var idleStart: (cpu: (user: UInt64, system: UInt64), wall: UInt64, wakeups: UInt64)?
        var idleReport = ""

        func presentNext() {
            guard display.canPresent else { return }
            if frame.width != display.width || frame.height != display.height {
                // The output came back with another mode: start over at its size.
                frame = PixelBuffer(width: display.width, height: display.height)
                patternIndex = 0
            }
            let damage = drawPattern(into: &frame, frameIndex: patternIndex)
            do {
                try display.present(frame, damage: damage)
                presented += 1
                patternIndex += 1
            } catch {
                failure = error
                loop.stop()
            }
        }

        if let fd = display.pollDescriptor {
            do {
                try loop.watch(fd) { _ in
                    for event in display.handleReadable() {
                        switch event {
                        case .flipCompleted(let nanos, let sequence):
                            completed += 1
                            if completed == 1 {
                                firstFlipNanos = nanos
                                firstSequence = sequence
                                cpuAtFirstFlip = ProcessCPUTime.now()
                                wallAtFirstFlip = MonotonicClock.now()
                                if let readyFile { touch(readyFile) }
                            } else if sequence > lastSequence + 1 {
                                missed += sequence - lastSequence - 1
                            }
                            lastFlipNanos = nanos
                            lastSequence = sequence
                            if completed > frames && idleStart == nil {
                                if idleSeconds > 0 {
                                    idleStart = (ProcessCPUTime.now(), MonotonicClock.now(), loop.wakeupCount)
                                    _ = try? loop.addTimer(after: .milliseconds(Int64(idleSeconds * 1000))) {
                                        let cpu = ProcessCPUTime.now(), start = idleStart!
                                        let ms = (cpu.user &- start.cpu.user &+ cpu.system &- start.cpu.system) / 1_000_000
                                        // Minus 1: the wakeup of this very timer.
                                        idleReport = " idle_s=\(fmt(idleSeconds, 1)) idle_wakeups=\(loop.wakeupCount - start.wakeups - 1)"
                                            + " idle_cpu_ms=\(ms)"
                                        loop.stop()
                                    }
                                } else {
                                    loop.stop()
                                }
                            }
                        case .connectorLost, .masterLost, .connectorReturned, .masterRegained:
                            say("display-check: event \(event) after \(completed) flips")
                        }
                    }
                    if completed <= frames && idleStart == nil { presentNext() }
                }
            } catch {
                return fail("display-check: epoll add: \(error)", 1)
            }
        }
        do {
            try loop.watch(signals.descriptor.rawValue) { _ in
                while let info = try? signals.next() {
                    say("display-check: signal \(info.signal), stopping")
                    interrupted = true
                    loop.stop()
                }
            }
        } catch {
            return fail("display-check: epoll add: \(error)", 1)
        }

        presentNext()
        do { try loop.run() } catch { return fail("display-check: event loop: \(error)", 1) }

        // Statistics over the flips after the first (the first includes start-up work).
        let cpuNow = idleStart?.cpu ?? ProcessCPUTime.now()
        let wallNow = idleStart?.wall ?? MonotonicClock.now()
        let intervals = max(0, completed - 1)
        let flipSpan = Double(lastFlipNanos &- firstFlipNanos) / 1e9
        let hz = intervals > 0 && flipSpan > 0 ? Double(intervals) / flipSpan : 0
        let cpuNanos = (cpuNow.user &- cpuAtFirstFlip.user) &+ (cpuNow.system &- cpuAtFirstFlip.system)
        let wall = completed > 0 ? Double(wallNow &- wallAtFirstFlip) / 1e9 : 0
        let cpuPercent = wall > 0 ? Double(cpuNanos) / 1e9 / wall * 100 : 0
        var pacing = "vblank"
        if let kms = display as? KMSDisplay { pacing = kms.pacedByTimer ? "timer" : "vblank" }
        if let fb = display as? FBDevDisplay { pacing = fb.hasVSyncIoctl ? "vsync-ioctl+timer" : "timer" }
        display.shutdown()
        var restored = ""
        if let kms = display as? KMSDisplay {
            restored = " api=\(kms.usesAtomic ? "atomic" : "legacy")"
                + " crtc_fb_after=\(kms.crtcFramebufferID.map(String.init) ?? "none")"
        }
        say("display-check: flips=\(completed) presented=\(presented) seconds=\(fmt(flipSpan)) hz=\(fmt(hz, 1))"
            + " missed=\(missed) cpu_ms=\(cpuNanos / 1_000_000) cpu_pct=\(fmt(cpuPercent, 1))"
            + " cpu_ms_per_frame=\(fmt(intervals > 0 ? Double(cpuNanos) / 1e6 / Double(intervals) : 0, 2))"
            + " pacing=\(pacing) first_seq=\(firstSequence) last_seq=\(lastSequence)"
            + " signalled=\(interrupted ? 1 : 0)\(restored)\(idleReport) peak_rss_kb=\(peakRSSKilobytes())")
        if let failure { return fail("display-check: \(failure)", 1) }
        return 0
    }

    /// Draws frame `index` of the pattern; returns the damaged rectangle (everything on the first
    /// frame, then only the band where the block moves).
    @discardableResult
    public static func drawPattern(into frame: inout PixelBuffer, frameIndex index: Int) -> IntRect {
        let w = frame.width, h = frame.height
        let barBottom = h * 3 / 5
        let band = IntRect(x0: 0, y0: barBottom, x1: w, y1: h)
        if index == 0 {
            for (i, color) in barColors.enumerated() {
                frame.fill(color, in: IntRect(x0: w * i / 4, y0: 0, x1: w * (i + 1) / 4, y1: barBottom))
            }
        }
        frame.fill(bandColor, in: band)
        let blockW = max(1, w / 8), blockH = max(1, h / 5)
        let travel = max(1, w - blockW)
        let step = max(1, w / 120)
        var x = (index * step) % (2 * travel)
        if x > travel { x = 2 * travel - x }
        let y = barBottom + (h - barBottom - blockH) / 2
        frame.fill(blockColor, in: IntRect(x: x, y: y, width: blockW, height: blockH))
        return index == 0 ? frame.bounds : band
    }

    private static func fmt(_ v: Double, _ decimals: Int = 3) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (v * scale).rounded() / scale
        var s = String(r)
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < decimals { s += String(repeating: "0", count: decimals - have) }
        }
        return s
    }

    /// VmHWM from /proc/self/status (note the tab after the colon), 0 when unreadable.
    static func peakRSSKilobytes() -> Int {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly) else { return 0 }
        defer { try? fd.close() }
        let text = String(decoding: (try? fd.read(upTo: 8192)) ?? [], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }

    private static func touch(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd >= 0 { close(fd) }
    }

    /// Writes a line to stdout unbuffered (print is fully buffered when stdout is a file).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }

    private static func fail(_ message: String, _ code: Int32) -> Int32 {
        let bytes = Array((message + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        return code
    }
}
