import Chart
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import Text

/// `tickerboard bench`: the reference scene of shared/bench/SCENE.md, timed frame by frame and
/// reported in exactly the line format the cairo baseline prints, so run.sh compares them.
enum BenchCommand {
    static let engineName = "tickerboard-0.1"

    static let help = """
        usage: tickerboard bench [--mode static|morph|scrub|text|clear|tape|daemon] [--n N] [--na N --nb N] [--size WxH]
                                 [--seconds S] [--min-frames K] [--max-frames K] [--warmup K] [--tag STR]
                                 [--png FILE] [--dump-series] [--font FILE] [--threads N] [--rewrite-all]
                                 [--versus-one-thread [--pair-frames K]] [--brightness N]
                                 [--tape-position full|bottom] [--speed PX] [--tape-draw blit|direct]
                         [--workload morph|scrub|tape|turned-90|shift-by-copy|watchlist] [--frames N]

        Draws the benchmark scene of shared/bench/SCENE.md with Tickerboard's rasterizer and prints
        one RESULT line (and a CHECK line for scrub). Speed is measured here, never in the tests.
        --threads N (N > 1) draws in horizontal bands on N threads, as `[display] render-threads`.
        --rewrite-all (static): before each frame the canvas forgets which pixels already hold the
        backdrop, so the clear rewrites all of them (the frame's cost without the clear-skip).
        --versus-one-thread (static, --threads N > 1): the frames are drawn in turns of K (default
        8), on N threads and on one canvas each, which goes first alternating; the RESULT line gains
        one_thread_median_ms and speedup (the median of the turns' one-thread/N-thread ratios of
        median frame time: a host whose speed drifts from second to second slows both alike), and
        a CHECK line says whether the two pictures are equal. A turn's first frame finds the other
        canvas's pixels in the cache and is not counted; --pair-frames 1 alternates every frame
        and counts them all, so both canvases always start cold.
        --brightness N draws every frame with software dimming at N % (compare with and without).
        --mode tape: the ticker tape crawling at --speed px/s (default 120), frame i at i/60 s, twelve
        instruments; --tape-position full (the tape alone, default) or bottom (a band under the
        sample chart, which is drawn once: an idle chart costs nothing). RESULT gains
        scanout_copy_fraction (double-buffered, the band's rows per frame). --tape-draw direct lays
        the glyphs out on the screen every frame instead of shifting each item's image (to compare).
        --mode daemon: not the rasterizer alone but the daemon's own loop (core, shell, renderer,
        present) on the headless display (60 Hz, copying what it is given as scanout would), one
        render thread unless --threads: after --warmup frames (default 120), --frames N (default
        300) of --workload (default morph; scrub sweeps a finger across the settled chart). RESULT:
        CPU per frame (user + system), the drawing's own CPU, the present's (the copy to scanout),
        the rest, and the loop's ratio to the drawing, minor page faults, bytes copied to scanout, the drawn and copied fractions, the peak RSS (VmHWM), and
        with Tests/Bench/alloc-count.c preloaded the allocations per frame.
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "bench", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let mode = try args.option("--mode") ?? "static"
        let n = try args.integer("--n", in: 2...1_000_000) ?? 260
        let na = try args.integer("--na", in: 2...1_000_000) ?? 260
        let nb = try args.integer("--nb", in: 2...1_000_000) ?? 1300
        let size = try args.size() ?? (1920, 1080)
        let seconds = try args.number("--seconds", in: 0...3600) ?? 1.0
        var minFrames = try args.integer("--min-frames", in: 1...10_000_000) ?? 30
        let maxFrames = try args.integer("--max-frames", in: 1...10_000_000) ?? 100_000
        let warmup = try args.integer("--warmup", in: 0...1_000_000) ?? 10
        let tag = try args.option("--tag")
        let png = try args.option("--png")
        let font = try args.option("--font")
        let dump = args.flag("--dump-series")
        let rewriteAll = args.flag("--rewrite-all")
        let versusOne = args.flag("--versus-one-thread")
        let pairFrames = try args.integer("--pair-frames", in: 1...1000)
        _ = args.flag("--argb")  // accepted for protocol compatibility; frames are XRGB either way
        // 0 (the protocol's "not threaded") and 1 draw on this thread; more replay bands in parallel.
        let threads = try args.integer("--threads", in: 0...16) ?? 0
        let brightness = try args.integer("--brightness", in: 0...100)
        let tapePositionName = try args.option("--tape-position") ?? "full"
        let tapeSpeed = try args.number("--speed", in: 1...5000) ?? 120
        let tapeDraw = try args.option("--tape-draw") ?? "blit"
        let workload = try args.option("--workload")
        let daemonFrames = try args.integer("--frames", in: 1...1_000_000)
        try args.finish()
        if mode == "daemon" {
            return try BenchDaemon.run(workload: workload ?? "morph", size: size, frames: daemonFrames ?? 300,
                                       warmup: args.given("--warmup") ? warmup : 120, threads: max(1, threads), tag: tag)
        }
        if workload != nil || daemonFrames != nil { throw UsageError("bench: --workload and --frames need --mode daemon") }
        if mode == "tape" {
            guard let position = TapePosition(rawValue: tapePositionName), position != .off else {
                throw UsageError("bench: --tape-position \"\(tapePositionName)\" is not full, bottom or top")
            }
            guard tapeDraw == "blit" || tapeDraw == "direct" else {
                throw UsageError("bench: --tape-draw \"\(tapeDraw)\" is not blit or direct")
            }
            return benchTape(position: position, speed: tapeSpeed, direct: tapeDraw == "direct", size: size, warmup: warmup,
                             seconds: seconds, minFrames: minFrames, maxFrames: maxFrames, tag: tag, png: png)
        }
        if versusOne && (mode != "static" || threads < 2) {
            throw UsageError("bench: --versus-one-thread needs --mode static and --threads 2 or more")
        }
        if pairFrames != nil && !versusOne { throw UsageError("bench: --pair-frames needs --versus-one-thread") }

        if dump { dumpSeries(); return 0 }
        let L = ReferenceScene.Layout(width: size.width, height: size.height)
        let canvas = Canvas(width: size.width, height: size.height)
        // Software dimming, as the daemon draws below full level: the colours are scaled as they
        // enter the rasterizer, so the frame should cost the same.
        canvas.dimming = brightness.flatMap { Dimming(level: Double($0) / 100) }
        canvas.renderThreads = max(1, threads)
        var times: [Double] = []
        var reportedN = n
        var extra = ""

        switch mode {
        case "static":
            let values = ReferenceScene.series(n, seed: 42)
            var frame = ReferenceScene.layout(L, values)
            func drawStatic(on target: Canvas) {
                // A write through `buffer` makes the canvas forget what its rows hold.
                if rewriteAll { target.buffer.pixels[0] = 0 }
                frame = ReferenceScene.layout(L, values)
                ReferenceScene.draw(L, frame, on: target)
            }
            var check: String?
            if versusOne {
                let single = Canvas(width: size.width, height: size.height)
                single.dimming = canvas.dimming
                let (many, one, ratios) = measurePairs(warmup: warmup, seconds: seconds, minFrames: minFrames,
                                                       maxFrames: maxFrames, turn: pairFrames ?? 8,
                                                       { _ in drawStatic(on: canvas) }, { _ in drawStatic(on: single) })
                times = many
                extra = "one_thread_median_ms=\(format(median(one), 4)) speedup=\(format(median(ratios), 3)) "
                let same = single.buffer.pixels == canvas.buffer.pixels
                check = "CHECK mode=static threads=\(threads) versus_one_thread same_pixels=\(same ? 1 : 0)"
            } else {
                times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames) { _ in
                    drawStatic(on: canvas)
                }
            }
            extra += "fp=\(hex16(ReferenceScene.fingerprint(frame)))" + (rewriteAll ? " rewrite_all=1" : "")
            if let check { printLine(check) }
        case "morph":
            let m = max(na, nb)
            let ra = ReferenceScene.resample(ReferenceScene.series(na, seed: 1001), to: m)
            let rb = ReferenceScene.resample(ReferenceScene.series(nb, seed: 2002), to: m)
            var values = [Double](repeating: 0, count: m)
            func drawFrame(_ i: Int) {
                let e = ReferenceScene.ease(Double(i % 72) / 71.0)
                for j in 0..<m { values[j] = ra[j] + (rb[j] - ra[j]) * e }
                ReferenceScene.draw(L, ReferenceScene.layout(L, values), on: canvas)
            }
            minFrames = max(minFrames, 72)
            times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames, drawFrame)
            reportedN = m
            extra = "na=\(na) nb=\(nb)"
            if png != nil { drawFrame(36) }
        case "scrub":
            let values = ReferenceScene.series(n, seed: 42)
            var frame = ReferenceScene.layout(L, values)
            ReferenceScene.draw(L, frame, on: canvas)
            var k = frame.cursor, direction = 1
            var damagedPixels = 0.0, frames = 0
            // What double-buffered scanout would copy per frame: each frame's damage plus what
            // the back buffer missed (the display's own bookkeeping; no pixels move here).
            var scanout = ScanoutDamage(bufferCount: 2, bounds: canvas.buffer.bounds)
            _ = scanout.write([canvas.buffer.bounds], into: 0)
            _ = scanout.write([], into: 1)
            var back = 0, copiedPixels = 0.0
            let pad = L.dotRadius + 2.0 * L.s
            times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames) { _ in
                if k + direction < 0 || k + direction > n - 1 { direction = -direction }
                let old = k
                k += direction
                let xa = min(frame.x[old], frame.x[k]), xb = max(frame.x[old], frame.x[k])
                let damage = IntRect(x0: Int((xa - pad).rounded(.down)), y0: Int(L.top.rounded(.down)) - 1,
                                     x1: Int((xb + pad).rounded(.up)), y1: Int(L.bottom.rounded(.up)) + 1)
                    .intersection(canvas.buffer.bounds)
                frame = ReferenceScene.layout(L, values, cursor: k)
                ReferenceScene.draw(L, frame, on: canvas, clip: damage)
                damagedPixels += Double(damage.width * damage.height)
                copiedPixels += Double(scanout.write([damage], into: back).area)
                back = 1 - back
                frames += 1
            }
            let framePixels = Double(frames) * Double(size.width * size.height)
            extra = "damage_frac=\(format(damagedPixels / framePixels, 4)) scanout_copy_fraction=\(format(copiedPixels / framePixels, 4))"
            if let product = screenScrubCopyFraction(width: size.width, height: size.height) {
                extra += " screen_copy_fraction=\(format(product, 4))"
            }
            if let png { write(canvas.buffer, png) }
            // A full redraw must give the pixels the chain of damage redraws gave.
            let chained = canvas.buffer
            ReferenceScene.draw(L, frame, on: canvas)
            var maxDiff = 0, differing = 0
            for i in 0..<chained.pixels.count {
                let a = chained.pixels[i], b = canvas.buffer.pixels[i]
                if a == b { continue }
                var m = 0
                for shift in [0, 8, 16] as [UInt32] {
                    m = max(m, abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)))
                }
                if m > 0 { differing += 1 }
                maxDiff = max(maxDiff, m)
            }
            printResult(mode: mode, n: reportedN, size: size, threads: threads, times: times, extra: extra, tag: tag)
            printLine("CHECK scrub-damage-vs-full engine=\(engineName) w=\(size.width) h=\(size.height) max_diff=\(maxDiff) differing_px=\(differing)")
            return 0
        case "text":
            let frame = ReferenceScene.layout(L, ReferenceScene.series(n, seed: 42))
            ReferenceScene.draw(L, frame, on: canvas)
            let clock = ContinuousClock()
            let t0 = clock.now
            let text: SceneText
            do { text = try SceneText(fontPath: font) } catch { Log.error("bench: \(error)"); return 1 }
            let t1 = clock.now
            text.draw(into: &canvas.buffer)
            let t2 = clock.now
            times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames) { _ in
                text.draw(into: &canvas.buffer)
            }
            reportedN = SceneText.glyphCount
            extra = "glyphs24=40 glyphs64=7 font_load_ms=\(format(milliseconds(t1 - t0), 4)) first_draw_ms=\(format(milliseconds(t2 - t1), 4))"
            if png != nil {
                ReferenceScene.draw(L, frame, on: canvas)
                text.draw(into: &canvas.buffer)
            }
        case "clear":
            // The pixel buffer's own fill: Canvas.clear would skip pixels that already hold the colour
            // and time nothing on the second frame.
            let background = Color(rgb: 0x0D1117)
            times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames) { _ in
                canvas.buffer.fill(background)
            }
            reportedN = 0
        default:
            throw UsageError("bench: --mode \"\(mode)\" is not one of static, morph, scrub, text, clear, tape")
        }
        printResult(mode: mode, n: reportedN, size: size, threads: threads, times: times, extra: extra, tag: tag)
        if let png { write(canvas.buffer, png) }
        return 0
    }

    /// The daemon's own scrub at this size, untimed: the sample chart's 6M range scrubbed left to
    /// right at 60 frames a second (header cross-fade on, as configured by default), the share of
    /// the frame's bytes double-buffered scanout receives per frame. Nil without fonts.
    static func screenScrubCopyFraction(width: Int, height: Int) -> Double? {
        guard let fonts = try? FontSet.load() else { return nil }
        let m = ScreenModel(instrument: .sample(), width: width, height: height, fonts: fonts, range: .sixMonths)
        let renderer = SceneRenderer()
        let bounds = renderer.render(m, at: 0).buffer.bounds
        var scanout = ScanoutDamage(bufferCount: 2, bounds: bounds)
        _ = scanout.write([bounds], into: 0)
        _ = scanout.write([], into: 1)
        let plot = m.screen.layout.plot
        let points = max(2, m.selection(for: .sixMonths).points.count)
        var back = 0, copied = 0, frames = 0, t = 1.0
        // One point further per frame, as a steady finger does.
        for i in 0..<points {
            m.scrub(atX: plot.left + (plot.right - plot.left) * Double(i) / Double(points - 1))
            renderer.render(m, at: t)
            copied += scanout.write(renderer.lastRedrawnRegions, into: back).area
            back = 1 - back
            frames += 1
            t += 1.0 / 60
        }
        return Double(copied) / Double(frames * width * height)
    }

    /// `--mode tape`: frames of the crawl at 60 Hz; only the band is drawn and copied.
    static func benchTape(position: TapePosition, speed: Double, direct: Bool, size: (width: Int, height: Int), warmup: Int,
                          seconds: Double, minFrames: Int, maxFrames: Int, tag: String?, png: String?) -> Int32 {
        let fonts: FontSet
        do { fonts = try FontSet.load() } catch { Log.error("bench: \(error)"); return 1 }
        let canvas = Canvas(width: size.width, height: size.height)
        let tape = TapeRenderer(position: position, width: size.width, height: size.height, fonts: fonts, speed: speed)
        // Twelve instruments as the tape words them; every third with its day's line.
        let day = Instrument.sample().market.points(for: .oneDay).points.map(\.value)
        let names = ["AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "SAP", "ASML", "NESN", "7203", "BTC-USD"]
        var items: [TapeItem] = []
        for (i, name) in names.enumerated() {
            let up = i % 3 != 1
            let price = 37.5 + Double(i * i) * 41.37
            items.append(TapeItem(name: name, price: "$" + String(Int(price)) + "." + String(10 + i * 7),
                                  change: (up ? "▲ +" : "▼ −") + "1.\(20 + i)  (" + (up ? "+" : "−") + "0.\(40 + i)%)",
                                  direction: up ? .up : .down, note: i == 9 ? "closed" : nil, sparkline: i % 3 == 0 ? day : []))
        }
        tape.setItems(items, now: 0)
        let area = TapeLayout.contentArea(position: position, width: size.width, height: size.height)
        if position != .full {
            // The chart beside the band, drawn once: it does not change while the tape crawls.
            let model = ScreenModel(instrument: .sample(), width: area.width, height: area.height, fonts: fonts)
            var settle = 0.0
            while model.isAnimating(at: settle) && settle < 60 { settle += 0.5 }
            let chart = SceneRenderer().render(model, at: settle).buffer
            _ = canvas.buffer.copy(chart.bounds, from: chart, dx: area.x0, dy: area.y0)
        }
        var scanout = ScanoutDamage(bufferCount: 2, bounds: canvas.bounds)
        _ = scanout.write([canvas.bounds], into: 0)
        _ = scanout.write([canvas.bounds], into: 1)
        var back = 0, copied = 0.0, frames = 0
        let times = measure(warmup: warmup, seconds: seconds, minFrames: minFrames, maxFrames: maxFrames) { i in
            let t = Double(i) / 60
            let damage = direct ? tape.drawDirect(at: t, on: canvas) : tape.draw(at: t, on: canvas)
            copied += Double(scanout.write([damage], into: back).area)
            back = 1 - back
            frames += 1
        }
        // Warmup frames count in `copied`: the first one paints the whole screen around a full tape.
        let fraction = copied / (Double(frames) * Double(size.width * size.height))
        let b = tape.band
        let extra = "tape_position=\(position.rawValue) tape_draw=\(direct ? "direct" : "blit") speed=\(format(speed, 1)) "
            + "band=\(b.width)x\(b.height) band_fraction=\(format(Double(b.width * b.height) / Double(size.width * size.height), 4)) "
            + "scanout_copy_fraction=\(format(fraction, 4))"
        printResult(mode: "tape", n: items.count, size: size, threads: 0, times: times, extra: extra, tag: tag)
        if let png { write(canvas.buffer, png) }
        return 0
    }

    private static func write(_ buffer: PixelBuffer, _ path: String) {
        do { try PNG.write(buffer, to: path) } catch { Log.error("bench: \(error)") }
    }

    /// Runs `warmup` untimed frames, then timed frames until both `seconds` and `minFrames` are done.
    private static func measure(warmup: Int, seconds: Double, minFrames: Int, maxFrames: Int,
                                _ frame: (Int) -> Void) -> [Double] {
        for i in 0..<warmup { frame(i) }
        let clock = ContinuousClock()
        let start = clock.now
        var times: [Double] = []
        times.reserveCapacity(min(maxFrames, 100_000))
        var i = warmup
        while times.count < maxFrames {
            let a = clock.now
            frame(i)
            let b = clock.now
            times.append(milliseconds(b - a))
            i += 1
            if times.count >= minFrames && milliseconds(b - start) >= seconds * 1000 { break }
        }
        return times
    }

    /// `measure` for two ways of drawing the same frame on canvases of their own, in turns of
    /// `turn` frames, the way that goes first alternating. Returns both ways' counted frame times
    /// and, per pair of turns, the ratio of b's median frame time to a's. A turn's first frame
    /// finds the other canvas's pixels in the cache (at 4K both canvases are twice the L3) and is
    /// counted only when turns are one frame long.
    private static func measurePairs(warmup: Int, seconds: Double, minFrames: Int, maxFrames: Int, turn: Int,
                                     _ a: (Int) -> Void, _ b: (Int) -> Void) -> ([Double], [Double], [Double]) {
        let clock = ContinuousClock()
        var timesA: [Double] = [], timesB: [Double] = [], ratios: [Double] = []
        let skip = turn > 1 ? 1 : 0, warmupTurns = (warmup + turn - 1) / turn
        func timedTurn(_ draw: (Int) -> Void, _ i: Int, into times: inout [Double]) -> Double {
            var turnTimes: [Double] = []
            for k in 0..<turn {
                let t0 = clock.now
                draw(i)
                if k >= skip { turnTimes.append(milliseconds(clock.now - t0)) }
            }
            if i >= warmupTurns { times += turnTimes }
            return median(turnTimes)
        }
        _ = measure(warmup: warmupTurns, seconds: seconds, minFrames: (minFrames + turn - 1) / turn,
                    maxFrames: (maxFrames + turn - 1) / turn) { i in
            let ta: Double, tb: Double
            if i % 2 == 0 {
                ta = timedTurn(a, i, into: &timesA); tb = timedTurn(b, i, into: &timesB)
            } else {
                tb = timedTurn(b, i, into: &timesB); ta = timedTurn(a, i, into: &timesA)
            }
            if i >= warmupTurns { ratios.append(tb / ta) }
        }
        return (timesA, timesB, ratios)
    }

    private static func median(_ values: [Double]) -> Double {
        let s = values.sorted(), count = s.count
        guard count > 0 else { return .nan }
        return count % 2 == 1 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2
    }

    private static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    private static func printResult(mode: String, n: Int, size: (width: Int, height: Int), threads: Int, times: [Double],
                                    extra: String, tag: String?) {
        let s = times.sorted()
        let count = s.count
        let median = median(s)
        let p10 = s[Int((0.1 * Double(count - 1)).rounded(.down))]
        let p90 = s[Int((0.9 * Double(count - 1)).rounded(.up))]
        let mean = s.reduce(0, +) / Double(count)
        var line = "RESULT engine=\(engineName) mode=\(mode) n=\(n) w=\(size.width) h=\(size.height) fmt=xrgb threads=\(threads)"
        line += " frames=\(count) median_ms=\(format(median, 4)) min_ms=\(format(s[0], 4)) max_ms=\(format(s[count - 1], 4))"
        line += " p10_ms=\(format(p10, 4)) p90_ms=\(format(p90, 4)) mean_ms=\(format(mean, 4))"
        if !extra.isEmpty { line += " " + extra }
        if let tag { line += " tag=\(tag)" }
        printLine(line)
    }

    /// The FRAME fingerprint lines of SCENE.md §7.
    private static func dumpSeries() {
        for n in [22, 260, 1300, 5000] {
            for (w, h) in [(1920, 1080), (3840, 2160)] {
                let f = ReferenceScene.layout(ReferenceScene.Layout(width: w, height: h), ReferenceScene.series(n, seed: 42))
                printLine("FRAME static n=\(n) \(w)x\(h) fp=\(hex16(ReferenceScene.fingerprint(f)))")
            }
        }
        let ra = ReferenceScene.resample(ReferenceScene.series(260, seed: 1001), to: 1300)
        let rb = ReferenceScene.resample(ReferenceScene.series(1300, seed: 2002), to: 1300)
        for fi in [0, 1, 36, 71] {
            let e = ReferenceScene.ease(Double(fi) / 71.0)
            let v = (0..<1300).map { ra[$0] + (rb[$0] - ra[$0]) * e }
            let f = ReferenceScene.layout(ReferenceScene.Layout(width: 1920, height: 1080), v)
            printLine("FRAME morph 260->1300 frame=\(fi) 1920x1080 fp=\(hex16(ReferenceScene.fingerprint(f)))")
        }
    }
}

func hex16(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}
