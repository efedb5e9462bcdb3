// `tickerboard display-check`: a diagnostic that opens a display backend, flips a moving test
// pattern for N frames on the event loop, and reports the measured flip rate, missed vblanks and
// CPU time, then gives the screen back. Used by the VM end-to-end tests and by installers checking
// a new panel.

import Display
import DisplayModel
import Kiosk
import KioskCore
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

enum DisplayCheckCommand {
    /// Colours of the test pattern's four bars, left to right (the E2E test samples them).
    static let barColors: [Color] = [
        Color(rgb: 0xFF0000), Color(rgb: 0x00FF00), Color(rgb: 0x0000FF), Color(rgb: 0xFFFF00),
    ]
    /// The lower band's background and the moving block.
    static let bandColor = Color(rgb: 0x202020)
    static let blockColor = Color(rgb: 0xFFFFFF)

    static let help = """
        usage: tickerboard display-check [--device PATH] [--backend kms|fbdev] [--frames N]
                                         [--mode WxH[@Hz]] [--ready-file PATH] [--timer-pacing]
                                         [--idle-seconds S] [--legacy] [--wait-for-output]
                                         [--rotation 0|90|180|270] [--connector NAME]

        Flips a moving test pattern N times (default 120) and reports the flip rate, missed vblanks
        and CPU time in one `display-check: flips=...` line, then gives the screen back.
          --ready-file PATH   create PATH once the first flip has completed
          --done-file PATH    create PATH once the last flip has completed (with --idle-seconds
                              the last frame then stays on screen; `block_x` in the report is
                              where its moving block starts)
          --idle-seconds S    after the flips, keep the screen and measure S seconds of idling
                              (event-loop wakeups and CPU time: both should be ~0)
          --timer-pacing, --legacy, --wait-for-output (KMS only): pace by a timer instead of
                              vblank events, use SetCrtc + PageFlip instead of atomic commits,
                              wait for an output to be connected instead of failing
          --connector NAME    drive this connector (e.g. HDMI-A-2, Virtual-2; KMS only)
                              instead of the first connected one
          --rotation DEG      turn the pattern clockwise: by the plane's `rotation` property
                              where the driver offers it, else by a rotated copy
                              (`rotation_path=plane|copy` in the report)
        """

    struct Options: Equatable {
        enum Backend: String { case kms, fbdev }
        var device: String?
        var backend = Backend.kms
        var frames = 120
        var mode: ModeRequest?
        var readyFile: String?
        var doneFile: String?
        var idleSeconds = 0.0
        /// KMS only: pace by a timer, not vblank events; SetCrtc + PageFlip, not atomic commits.
        var timerPacing = false, legacy = false
        var waitForOutput = false
        var rotation = 0
        var connector: String?
    }

    /// The options of `raw`; nil when help was asked for.
    static func parse(_ raw: [String]) throws(UsageError) -> Options? {
        var args = Arguments(command: "display-check", raw)
        if args.wantsHelp() { return nil }
        var o = Options()
        o.device = try args.option("--device")
        o.backend = try args.value("--backend", expected: "kms or fbdev", Options.Backend.init(rawValue:)) ?? o.backend
        o.frames = try args.integer("--frames", in: 1...100_000_000) ?? o.frames
        o.mode = try args.value("--mode", expected: "a mode like 1920x1080 or 1920x1080@60", ModeRequest.init)
        o.readyFile = try args.option("--ready-file")
        o.doneFile = try args.option("--done-file")
        o.timerPacing = args.flag("--timer-pacing")
        o.idleSeconds = try args.number("--idle-seconds", in: 0...3600) ?? o.idleSeconds
        o.legacy = args.flag("--legacy")
        o.waitForOutput = args.flag("--wait-for-output")
        o.rotation = try args.value("--rotation", expected: "0, 90, 180 or 270", parseRotation) ?? o.rotation
        o.connector = try args.option("--connector")
        try args.finish()
        let kmsOnly = [(o.timerPacing, "--timer-pacing"), (o.legacy, "--legacy"),
                       (o.waitForOutput, "--wait-for-output"), (o.mode != nil, "--mode"),
                       (o.connector != nil, "--connector")].filter { $0.0 }
        if o.backend == .fbdev, let first = kmsOnly.first {
            throw UsageError("display-check: \(first.1) goes with --backend kms, not fbdev")
        }
        return o
    }

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        guard let options = try parse(raw) else { printLine(help); return 0 }
        return run(options)
    }

    /// Runs the check; returns the process exit status (0 ok, 1 display failure).
    static func run(_ options: Options) -> Int32 {
        let frames = options.frames, idleSeconds = options.idleSeconds, readyFile = options.readyFile, doneFile = options.doneFile

        // Block the signals before anything else so SIGTERM arrives as an event, not a kill.
        let signals: SignalFD
        do { signals = try SignalFD(signals: [SIGTERM, SIGINT]) } catch { return fail("signalfd: \(error)") }

        let display: any Display
        let header: String
        do {
            switch options.backend {
            case .kms:
                let kms = try KMSDisplay(options: .init(devicePath: options.device, connectorName: options.connector, mode: options.mode,
                                                        waitForOutput: options.waitForOutput,
                                                        forceTimerPacing: options.timerPacing, legacyOnly: options.legacy),
                                         log: { printLine("display-check: \($0)") })
                display = kms
                header = "kms \(kms.devicePath) (\(kms.driverName)) \(kms.connectorName) \(kms.modeDescription)"
                    + " api=\(kms.commitPath.rawValue) pacing=\(kms.pacingMethod)"
                    + " plane_turns=\(kms.scanoutQuarterTurns.sorted().map { String($0 * 90) }.joined(separator: ","))"
                    + " saved_fb=\(kms.savedFramebufferID.map(String.init) ?? "none")"
            case .fbdev:
                let fb = try FBDevDisplay(path: options.device ?? "/dev/fb0")
                display = fb
                header = "fbdev \(fb.devicePath) (\(fb.driverName)) \(fb.width)x\(fb.height) \(fb.pageCount) page(s)"
                    + " vsync_ioctl=\(fb.hasVSyncIoctl ? "yes" : "no")"
            }
        } catch {
            return fail("\(error)")
        }
        // The plane turns the picture where it can; the pattern is then drawn at the turned size.
        let turns = options.rotation / 90
        let byPlane = turns == 0 || display.rotateScanout(quarterTurns: turns)
        if turns != 0 {
            printLine("display-check: rotation \(options.rotation)° by \(byPlane ? "plane" : "copy")")
        }
        printLine("display-check: \(header)")

        let loop: EventLoop
        do { loop = try EventLoop() } catch { return fail("epoll: \(error)") }
        // The pattern's size: the mode's, transposed for a quarter turn.
        func patternSize() -> (Int, Int) { turns % 2 == 1 ? (display.height, display.width) : (display.width, display.height) }
        var frame = PixelBuffer(width: patternSize().0, height: patternSize().1)
        var turned: PixelBuffer?
        var presented = 0, completed = 0, interrupted = false, patternIndex = 0
        var firstFlipNanos: UInt64 = 0, lastFlipNanos: UInt64 = 0
        var firstSequence: UInt64 = 0, lastSequence: UInt64 = 0
        var vblanks = VblankSequenceTracker()
        var cpuAtFirstFlip = ProcessCPUTime.now()
        var wallAtFirstFlip: UInt64 = 0
        var failure: DisplayError?
        var idleStart: (cpu: (user: UInt64, system: UInt64), wall: UInt64, wakeups: UInt64)?
        var idleReport = ""

        func presentNext() {
            guard display.canPresent else { return }
            if frame.width != patternSize().0 || frame.height != patternSize().1 {
                // The output came back with another mode: start over at its size.
                frame = PixelBuffer(width: patternSize().0, height: patternSize().1)
                turned = nil
                patternIndex = 0
            }
            let damage = drawPattern(into: &frame, frameIndex: patternIndex)
            do {
                if byPlane {
                    try display.present(frame, damage: damage)
                } else {
                    var out = turned ?? PixelBuffer(width: display.width, height: display.height)
                    turned = nil
                    _ = frame.rotate(quarterTurns: turns, into: &out)
                    try display.present(out, damage: out.bounds)
                    turned = out
                }
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
                                if let readyFile { createReadyFile(readyFile) }
                            }
                            vblanks.record(sequence)
                            lastFlipNanos = nanos
                            lastSequence = sequence
                            if completed > frames && idleStart == nil {
                                if let doneFile { createReadyFile(doneFile) }
                                if idleSeconds > 0 {
                                    idleStart = (ProcessCPUTime.now(), MonotonicClock.now(), loop.wakeupCount)
                                    _ = try? loop.addTimer(after: .milliseconds(Int64(idleSeconds * 1000))) {
                                        let cpu = ProcessCPUTime.now(), start = idleStart!
                                        let ms = (cpu.user &- start.cpu.user &+ cpu.system &- start.cpu.system) / 1_000_000
                                        // Minus 1: the wakeup of this very timer.
                                        idleReport = " idle_s=\(format(idleSeconds, 1)) idle_wakeups=\(loop.wakeupCount - start.wakeups - 1)"
                                            + " idle_cpu_ms=\(ms)"
                                        loop.stop()
                                    }
                                } else {
                                    loop.stop()
                                }
                            }
                        case .connectorLost, .masterLost, .connectorReturned, .masterRegained, .masterFree:
                            printLine("display-check: event \(event) after \(completed) flips")
                        }
                    }
                    if completed <= frames && idleStart == nil { presentNext() }
                }
            } catch {
                return fail("epoll add: \(error)")
            }
        }
        do {
            try loop.watch(signals.descriptor.rawValue) { _ in
                while let info = try? signals.next() {
                    printLine("display-check: signal \(info.signal), stopping")
                    interrupted = true
                    loop.stop()
                }
            }
        } catch {
            return fail("epoll add: \(error)")
        }

        presentNext()
        do { try loop.run() } catch { return fail("event loop: \(error)") }

        // Statistics over the flips after the first (the first includes start-up work).
        let cpuNow = idleStart?.cpu ?? ProcessCPUTime.now()
        let wallNow = idleStart?.wall ?? MonotonicClock.now()
        let intervals = max(0, completed - 1)
        let flipSpan = Double(lastFlipNanos &- firstFlipNanos) / 1e9
        let hz = intervals > 0 && flipSpan > 0 ? Double(intervals) / flipSpan : 0
        let cpuNanos = (cpuNow.user &- cpuAtFirstFlip.user) &+ (cpuNow.system &- cpuAtFirstFlip.system)
        let wall = completed > 0 ? Double(wallNow &- wallAtFirstFlip) / 1e9 : 0
        let cpuPercent = wall > 0 ? Double(cpuNanos) / 1e9 / wall * 100 : 0
        let pacing = display.pacingMethod
        let path = display.presentMethod
        display.shutdown()
        var restored = " commit=\(path)"
        if turns != 0 { restored += " rotation_path=\(byPlane ? "plane" : "copy")" }
        if let report = display.connectorReport {
            restored += " api=\(path)"
                + " crtc_fb_after=\(report.crtcFramebufferID.map(String.init) ?? "none")"
        }
        printLine("display-check: flips=\(completed) presented=\(presented) seconds=\(format(flipSpan, 3)) hz=\(format(hz, 1))"
            + " missed=\(vblanks.missed) cpu_ms=\(cpuNanos / 1_000_000) cpu_pct=\(format(cpuPercent, 1))"
            + " cpu_ms_per_frame=\(format(intervals > 0 ? Double(cpuNanos) / 1e6 / Double(intervals) : 0, 2))"
            + " pacing=\(pacing) first_seq=\(firstSequence) last_seq=\(lastSequence)"
            + " signalled=\(interrupted ? 1 : 0)\(restored)\(idleReport) block_x=\(blockX(width: frame.width, frameIndex: max(0, patternIndex - 1))) peak_rss_kb=\(ProcessStatus.kilobytes("VmHWM"))")
        if let failure { return fail("\(failure)") }
        return 0
    }

    /// Draws frame `index` of the pattern; returns the damaged rectangle (everything on the first
    /// frame, then only the band where the block moves).
    static func drawPattern(into frame: inout PixelBuffer, frameIndex index: Int) -> IntRect {
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
        let y = barBottom + (h - barBottom - blockH) / 2
        frame.fill(blockColor, in: IntRect(x: blockX(width: w, frameIndex: index), y: y, width: blockW, height: blockH))
        return index == 0 ? frame.bounds : band
    }

    /// Where the moving block of frame `index` starts: it sweeps right and back, w/120 a frame.
    static func blockX(width w: Int, frameIndex index: Int) -> Int {
        let travel = max(1, w - max(1, w / 8))
        let x = (index * max(1, w / 120)) % (2 * travel)
        return x > travel ? 2 * travel - x : x
    }

    private static func fail(_ message: String) -> Int32 {
        Log.error("display-check: \(message)")
        return 1
    }
}
