import Display
import DisplayModel
import InputModel
import Kiosk
import KioskCore
import LinuxIO
import Text

/// `bench --mode daemon`: the daemon's real loop, not the rasterizer alone. The daemon's own core,
/// shell, renderer and present path run on the headless display (a simulated 60 Hz scanout that
/// copies what it is given, as KMS copies into its back buffer) through a named workload, and the
/// kernel's counters say what each presented frame cost beside what its drawing alone cost.
enum BenchDaemon {
    struct Workload: Sendable {
        /// Lines of `[display]` beyond its render threads, and the other sections.
        var display = ""
        let config: String
        /// How much faster than real time the daemon's clock runs (more morphs a second).
        let timeScale: Double
        /// A finger on the chart: the gesture sent after frame i is presented.
        var gesture: (@Sendable (Int, Int, Int) -> Gesture)? = nil
    }

    /// The workloads (README, "The daemon's frame"). Each keeps frames coming on the built-in
    /// sample market: a cycle every 2 s (a 1.2 s morph each) sped up so most frames are morph
    /// frames, a finger sweeping the settled chart, the tape crawling on its own.
    static let workloads: [String: Workload] = [
        "morph": Workload(config: "[chart]\ncycle-interval = 2s\n", timeScale: 3),
        "scrub": Workload(config: "[chart]\ncycle-interval = 0\n", timeScale: 1, gesture: { i, w, h in
            // Across the plot and back every 4 s, as a finger that reads the chart.
            let phase = Double(i % 240) / 120, along = phase < 1 ? phase : 2 - phase
            let x = Double(w) * (0.08 + 0.84 * along), y = Double(h) * 0.5
            return i == 0 ? .scrubBegan(x: x, y: y) : .scrubMoved(x: x, y: y)
        }),
        "tape": Workload(config: "[chart]\ncycle-interval = 0\n[tape]\nposition = bottom\nspeed = 100\n", timeScale: 1),
        "turned-90": Workload(display: "rotation = 90\n", config: "[chart]\ncycle-interval = 2s\n", timeScale: 3),
        "shift-by-copy": Workload(config: "[chart]\ncycle-interval = 2s\n[burn-in]\nshift = 2\nperiod = 10s\n", timeScale: 10),
        "watchlist": Workload(config: "[chart]\ncycle-interval = 2s\nwatchlist = cycle\ninstrument-interval = 5s\n", timeScale: 3),
    ]

    static func run(workload name: String, size: (width: Int, height: Int), frames: Int, warmup: Int, threads: Int,
                    tag: String?) throws(UsageError) -> Int32 {
        guard let workload = workloads[name] else {
            throw UsageError("bench: --workload \"\(name)\" is not one of \(workloads.keys.sorted().joined(separator: ", "))")
        }
        let text = "[display]\nrender-threads = \(threads)\n" + workload.display + workload.config
        let (config, issues) = Config.parse(text, file: "bench:\(name)")
        for issue in issues { Log.error("bench: the workload's config: \(issue)") }
        guard issues.isEmpty else { return 1 }
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("bench: \(error)"); return 1 }
        var options = Daemon.Options()
        options.displayChoice = .headless
        options.timeScale = workload.timeScale
        options.modeOverride = ModeRequest("\(size.width)x\(size.height)")
        ProcessResources.returnLargeBlocksToTheKernel()
        let figures: DaemonBenchFigures?
        do {
            let daemon = try Daemon(config: config, options: options, fonts: fonts)
            let (w, h) = (size.width, size.height)
            figures = try daemon.measureFrames(warmup: warmup, frames: frames, timeout: 120 + Double(warmup + frames),
                                               gesture: workload.gesture.map { g in { i in g(i, w, h) } })
        } catch {
            Log.error("bench: the daemon's loop: \(error)")
            return 1
        }
        guard let f = figures, f.frames > 0 else {
            Log.error("bench: \(name): the daemon presented fewer than \(warmup + frames) frames in time")
            return 1
        }
        let n = Double(f.frames)
        let cpu = Double(f.userNanos + f.systemNanos) / 1e6 / n, draw = Double(f.drawNanos) / 1e6 / n
        var line = "RESULT engine=\(BenchCommand.engineName) mode=daemon workload=\(name) w=\(size.width) h=\(size.height) threads=\(threads)"
        line += " frames=\(f.frames) cpu_ms_per_frame=\(format(cpu, 4)) user_ms_per_frame=\(format(Double(f.userNanos) / 1e6 / n, 4))"
        line += " system_ms_per_frame=\(format(Double(f.systemNanos) / 1e6 / n, 4)) draw_ms_per_frame=\(format(draw, 4))"
        // What the loop adds to the drawing: the copy towards scanout, and the rest (the core, the
        // event loop and its system calls, the shell's bookkeeping).
        let present = Double(f.presentNanos) / 1e6 / n
        line += " present_ms_per_frame=\(format(present, 4)) rest_ms_per_frame=\(format(cpu - draw - present, 4))"
        line += " loop_to_draw_ratio=\(draw > 0 ? format(cpu / draw, 3) : "none")"
        line += " faults_per_frame=\(format(Double(f.minorFaults) / n, 2))"
        if let a = f.allocations {
            line += " allocs_per_frame=\(format(Double(a.calls) / n, 1)) alloc_bytes_per_frame=\(format(Double(a.bytes) / n, 0))"
        }
        line += " scanout_bytes_per_frame=\(format(Double(f.copiedBytes) / n, 0))"
        line += " drawn_fraction=\(format(Double(f.drawnPixels) / Double(max(1, f.framePixels)), 4))"
        line += " copy_fraction=\(format(Double(f.copiedBytes) / 4 / Double(max(1, f.framePixels)), 4)) peak_rss_kb=\(f.peakKB)"
        if let tag { line += " tag=\(tag)" }
        printLine(line)
        return 0
    }
}
