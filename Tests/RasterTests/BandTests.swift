@testable import Raster
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// Drawing in horizontal bands on several threads must give exactly the pixels of one thread.
@Suite("Bands on several threads")
struct BandTests {
    /// A frame that exercises everything a band replay must get right: deferred clears (full and
    /// partial), gradients along both axes, both blend modes and fill rules, strokes with every join
    /// and cap, dashes, shapes crossing band borders and the canvas edge, and a clip.
    static func drawFrame(_ c: Canvas, frame: Int) {
        let w = Double(c.width), h = Double(c.height)
        let shift = Double(frame) * 3.7
        c.clip = c.bounds
        c.clear(Color(rgb: 0x0D1117))
        var area = Path()
        area.move(to: Point(-5, h * 0.6))
        for i in 0...40 {
            let x = Double(i) * w / 40, y = h * 0.5 + (Double((i * 37 + frame * 11) % 23) - 11) * h / 60
            area.line(to: Point(x, y))
        }
        area.line(to: Point(w + 5, h - 10)); area.line(to: Point(-5, h - 10)); area.close()
        c.fill(area, paint: .linearGradient(LinearGradient(start: Point(0, h * 0.3), end: Point(0, h),
                                                           stops: [(0, Color(argb: 0x4000_C805)), (1, Color(argb: 0x0000_C805))])))
        var star = Path()
        for i in 0..<11 {
            let p = Point(Double((i * 37) % 200) * w / 200 + shift - 20, Double((i * 53) % 160) * h / 160 - 20)
            if i == 0 { star.move(to: p) } else { star.line(to: p) }
        }
        star.close()
        c.fill(star, paint: .solid(Color(argb: 0xA0FF_2000)), rule: .evenOdd)
        c.stroke(star, style: StrokeStyle(width: 7, cap: .square, join: .miter, dashes: [7, 3]),
                 paint: .solid(Color(rgb: 0x00FF00)))
        var zigzag = Path()
        zigzag.move(to: Point(10, 10 + shift))
        for i in 1..<60 { zigzag.line(to: Point(10 + Double(i) * (w - 20) / 59, 10 + shift + Double(i % 2) * h * 0.8)) }
        for (i, join) in [LineJoin.round, .bevel, .miter].enumerated() {
            c.transform = .translation(Double(i) * 1.3, Double(i) * 2.1)
            c.stroke(zigzag, style: StrokeStyle(width: 2.5 + Double(i), cap: [LineCap.round, .butt, .square][i], join: join),
                     paint: .solid(Color(argb: [0xFF00_C805, 0x80FF_FFFF, 0xC0FF_00FF][i])))
        }
        c.transform = .identity
        var circle = Path()
        circle.addCircle(center: Point(w * 0.7 - shift, h * 0.4), radius: h * 0.45)
        c.fill(circle, paint: .linearGradient(LinearGradient(start: Point(0, 0), end: Point(w, h),
                                                             stops: [(0, Color(argb: 0x80FF_FFFF)), (1, Color(argb: 0x4000_00FF))])))
        // A damage-style partial redraw over band borders, with source copy.
        c.clip = IntRect(x0: Int(w * 0.3), y0: 50, x1: Int(w * 0.45), y1: Int(h) - 30)
        c.clear(Color(rgb: 0x0D1117))
        c.fillRect(x: w * 0.32 + 0.3, y: 55.5, width: 9.25, height: h * 0.6, paint: .solid(Color(argb: 0x9020_40FF)),
                   blend: .sourceCopy)
        c.clip = c.bounds
        c.finish()
    }

    @Test("banded frames equal one thread's bit for bit, frame after frame", arguments: [2, 3])
    func sameAsOneThread(threads: Int) {
        let one = Canvas(width: 301, height: 277)
        let banded = Canvas(width: 301, height: 277)
        banded.renderThreads = threads
        #expect(banded.renderThreads == threads)
        #expect(one.renderThreads == 1)
        for frame in 0..<6 {
            Self.drawFrame(one, frame: frame)
            Self.drawFrame(banded, frame: frame)
            let a = banded.buffer.pixels, b = one.buffer.pixels
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(differing == 0, "frame \(frame): \(differing) pixels differ, first at \(a.indices.first { a[$0] != b[$0] } ?? -1)")
            if frame == 3 {
                // Direct pixel writes in between (as text does) are seen by the next banded frame.
                one.buffer[5, 200] = 0xFFFF_FFFF
                banded.buffer[5, 200] = 0xFFFF_FFFF
            }
        }
    }

    @Test("a long line's outline built side by side on two threads: one thread's pixels, and the same as one polygon")
    func longOutlineBySides() {
        // Every join and cap on both side tasks; long enough to be split.
        let n = Stroker.outlineBySidesSegments + 300
        var line = Path()
        for i in 0...n {
            let p = Point(5 + Double(i) * 390 / Double(n), 150 + 120 * Double((i * 7919) % 13 - 6) / 6)
            if i == 0 { line.move(to: p) } else { line.line(to: p) }
        }
        let styles = [StrokeStyle(width: 3, cap: .round, join: .round),
                      StrokeStyle(width: 4, cap: .square, join: .miter, miterLimit: 10),
                      StrokeStyle(width: 2, cap: .butt, join: .bevel)]
        for style in styles {
            let one = Canvas(width: 400, height: 300), two = Canvas(width: 400, height: 300)
            two.renderThreads = 2
            for c in [one, two] {
                c.clear(Color(rgb: 0x0D1117))
                #expect(c.stroke(line, style: style, paint: .solid(Color(argb: 0xC000_C805))) == .drawn)
            }
            #expect(two.buffer.pixels == one.buffer.pixels, "\(style.join)")
            #expect(one.buffer.pixels.contains { $0 != Color(rgb: 0x0D1117).premultiplied })
            // The same edges, in the same order, as the outline built as one polygon.
            let pts = line.flattened(transform: .identity, tolerance: 0.1).polylines[0]
            func stroker() -> Stroker {
                Stroker(halfWidth: style.width / 2, cap: style.cap, join: style.join, miterLimit: style.miterLimit)
            }
            // Two strokers, each with its own working lists (a copy would share them).
            var split = stroker(), whole = stroker()
            whole.outlineBySidesFrom = .max
            split.stroke(pts)
            whole.stroke(pts)
            #expect(split.edges == whole.edges, "\(style.join)")
            #expect(split.bounds == whole.bounds)
            #expect(split.edges.count > 4 * n)
        }
    }

    @Test("what is recorded is drawn when the frame is read or the threads change, dropped when the pixels are replaced")
    func recordedFrameEnds() {
        // Each way of ending a frame: the next frame must start from exactly one thread's pixels.
        let one = Canvas(width: 301, height: 277)
        for ending in 0..<4 {
            let banded = Canvas(width: 301, height: 277)
            banded.renderThreads = 2
            for frame in 0..<3 {
                Self.drawFrame(one, frame: frame)
                banded.clip = banded.bounds
                banded.clear(Color(rgb: 0x0D1117))
                banded.fillRect(x: 3.5, y: 2.25, width: 290, height: 270, paint: .solid(Color(argb: 0x80FF_FFFF)))
                banded.fillRect(x: 20, y: 20, width: 10, height: 10, paint: .solid(Color(rgb: 0xFF0000)))
                switch ending {
                case 0: banded.buffer = PixelBuffer(width: 301, height: 277)  // replaced: discarded
                case 1: banded.renderThreads = 3                                // drawn first, then new threads
                case 2: _ = banded.buffer[0, 0]                                  // read: drawn
                default: banded.renderThreads = 2                                // no change: still recorded
                }
                Self.drawFrame(banded, frame: frame)
                let a = banded.buffer.pixels, b = one.buffer.pixels
                let differing = zip(a, b).filter { $0 != $1 }.count
                #expect(differing == 0, "ending \(ending), frame \(frame): \(differing) pixels differ")
            }
            if ending == 3 {
                // Dropped with draw calls still recorded.
                banded.fillRect(x: 0, y: 0, width: 300, height: 270, paint: .solid(Color(rgb: 0xFFFFFF)))
                banded.fillRect(x: 0, y: 0, width: 3, height: 3, paint: .solid(Color(rgb: 0xFFFFFF)))
            }
        }
    }

    @Test("axis-aligned strokes on whole pixels (drawn without the edge walk, on one thread and in bands) equal the grid's")
    func wholePixelStrokes() {
        // One thread and the bands take the shortcut for these; `walked` draws them through the
        // stroker and the edges like any stroke.
        let one = Canvas(width: 203, height: 151)
        let banded = Canvas(width: 203, height: 151)
        banded.renderThreads = 2
        let walked = Canvas(width: 203, height: 151)
        walked.wholePixelStrokes = false
        for (frame, clip) in [IntRect(x0: 0, y0: 0, x1: 203, y1: 151), IntRect(x0: 37, y0: 20, x1: 121, y1: 96)].enumerated() {
            for c in [one, banded, walked] {
                c.clip = c.bounds
                c.clear(Color(rgb: 0x0D1117))
                c.fillRect(x: 10.5, y: 30.25, width: 150, height: 80, paint: .solid(Color(argb: 0x6000_C805)))
                c.clip = clip
                c.clear(Color(rgb: 0x0D1117))
                let strokes: [(Point, Point, Double, LineCap, [Double], UInt32)] = [
                    (Point(3, 40.5), Point(200, 40.5), 1, .butt, [2, 3], 0xFFA0_A0A0),    // the baseline's dashes
                    (Point(190, 60), Point(5, 60), 2, .square, [4, 2], 0x80FF_FFFF),     // right to left, square ends
                    (Point(60.5, 2), Point(60.5, 149), 1, .butt, [], 0xFF8B_949E),       // the scrub cursor
                    (Point(100, 140), Point(100, 8), 4, .butt, [5, 5], 0xC0FF_00FF),     // upwards, dashed
                    (Point(-20, 120.5), Point(230, 120.5), 1, .butt, [], 0xFF00_FF00),   // past both edges
                    (Point(30, 5.25), Point(150, 5.25), 1, .butt, [3, 1], 0xFFFF_FFFF),  // off the pixel grid
                ]
                for (a, b, w, cap, dashes, argb) in strokes {
                    var p = Path()
                    p.move(to: a); p.line(to: b)
                    c.stroke(p, style: StrokeStyle(width: w, cap: cap, dashes: dashes), paint: .solid(Color(argb: argb)))
                }
                c.clip = c.bounds
                c.finish()
            }
            let reference = walked.buffer.pixels
            for (name, c) in [("one thread", one), ("bands", banded)] {
                let differing = zip(c.buffer.pixels, reference).filter { $0 != $1 }.count
                #expect(differing == 0, "frame \(frame), \(name): \(differing) pixels differ from the edge walk's")
            }
            if frame == 0 { #expect(reference[40 * 203 + 8] == Color(argb: 0xFFA0_A0A0).premultiplied, "a dash on its pixel") }
        }
    }

    @Test("draw calls wait for finish (or a read of the buffer) and then all appear")
    func recordedUntilRead() {
        let banded = Canvas(width: 64, height: 200)
        banded.renderThreads = 2
        banded.clear(Color(rgb: 0x000000))
        banded.fillRect(x: 10, y: 10, width: 20, height: 170, paint: .solid(Color(rgb: 0xFFFFFF)))
        let pixels = banded.buffer
        #expect(pixels[15, 15] == 0xFFFF_FFFF && pixels[15, 175] == 0xFFFF_FFFF && pixels[40, 100] == 0xFF00_0000)
        banded.renderThreads = 1
        #expect(banded.buffer[15, 100] == 0xFFFF_FFFF)
    }

    @Test("one thread on a large canvas draws full redraws in bands and a small damage at once: the same pixels")
    func bandsFollowTheClip() {
        // 1,120,000 pixels: above the area where one thread bands a redraw. `direct` never bands.
        let banded = Canvas(width: 1400, height: 800)
        let direct = Canvas(width: 1400, height: 800)
        direct.bandClipArea = .max
        #expect(banded.renderThreads == 1 && direct.renderThreads == 1)
        for frame in 0..<6 {
            if frame % 2 == 0 {
                for c in [banded, direct] { Self.drawFrame(c, frame: frame) }
                // The frame narrowed its clip while recorded; it stayed in bands and is now back.
                #expect(banded.recordsInBands && !direct.recordsInBands, "frame \(frame)")
            } else {
                // A scrub's damage: small, drawn at once; widening the clip inside the frame keeps that.
                for c in [banded, direct] {
                    c.clip = IntRect(x0: 200 + frame * 30, y0: 90, x1: 330 + frame * 30, y1: 760)
                    #expect(!c.recordsInBands, "frame \(frame)")
                    c.clear(Color(rgb: 0x0D1117))
                    var line = Path()
                    line.move(to: Point(150, 700))
                    for i in 1..<40 { line.line(to: Point(150 + Double(i) * 8.5, 700 - Double((i * 29 + frame * 7) % 31) * 19)) }
                    c.stroke(line, style: StrokeStyle(width: 3, cap: .round, join: .round), paint: .solid(Color(rgb: 0x00C805)))
                    c.clip = c.bounds
                    #expect(!c.recordsInBands, "frame \(frame): a clear is pending")
                    c.fillRect(x: 240.5 + Double(frame), y: 100, width: 1, height: 650, paint: .solid(Color(argb: 0xFF8B_949E)))
                    c.finish()
                }
                #expect(banded.recordsInBands, "frame \(frame): the whole clip again, once the frame is drawn")
            }
            let a = banded.buffer.pixels, b = direct.buffer.pixels
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(differing == 0, "frame \(frame): \(differing) pixels differ, first at \(a.indices.first { a[$0] != b[$0] } ?? -1)")
        }
    }

    @Test("a held choice draws many small rectangles in bands, through text's reads of the buffer, with the pixels drawn at once")
    func heldChoice() {
        let held = Canvas(width: 1400, height: 800)
        let direct = Canvas(width: 1400, height: 800)
        direct.bandClipArea = .max
        for c in [held, direct] {
            // A partial redraw: its damage is large in all (a band around a morph's line), each
            // rectangle small; between rectangles text is drawn straight into `buffer`.
            c.holdDrawingChoice(for: IntRect(x0: 100, y0: 100, x1: 1300, y1: 700))
            for k in 0..<6 {
                c.clip = IntRect(x0: 100 + k * 200, y0: 100 + k * 50, x1: 300 + k * 200, y1: 400 + k * 50)
                #expect(c.recordsInBands == (c === held), "rectangle \(k)")
                c.clear(Color(rgb: 0x0D1117))
                var line = Path()
                line.move(to: Point(80, 600))
                for i in 1..<60 { line.line(to: Point(80 + Double(i) * 21, 600 - Double((i * 37) % 29) * 17)) }
                c.stroke(line, style: StrokeStyle(width: 3, cap: .round, join: .round), paint: .solid(Color(rgb: 0x00C805)))
                _ = c.buffer  // as text drawn into the buffer finishes what was recorded
            }
            c.releaseDrawingChoice()
            c.clip = IntRect(x0: 100, y0: 100, x1: 300, y1: 400)
            #expect(!c.recordsInBands, "released: a small clip draws at once again")
            c.clip = c.bounds
        }
        let a = held.buffer.pixels, b = direct.buffer.pixels
        #expect(zip(a, b).filter { $0 != $1 }.isEmpty)
    }

    /// The pool's hand-offs without locks: a helper that watches for work, one woken early by
    /// `expectWork`, one asleep, and a caller that watches for the last helper or sleeps. Every
    /// task must run exactly once on a valid worker in every case; a lost wake-up hangs (the time
    /// limit fails it: a hang detector, not a judgement of speed). The limit's clock starts when
    /// the case is started, not when its body gets a thread (swift-testing's own timeLimit test
    /// was fixed for the same wait, swiftlang/swift-testing#190): inside the whole parallel `swift test`
    /// on two cores the daemon's tests hold both for minutes, and this case, under a second of
    /// work there (measured), was "started" 117-120 s before it ended and failed a fresh run at
    /// the old two minutes. Ten minutes is beyond any wait seen; 600 rounds (each kind of hand-off
    /// still taken hundreds of times) keep a real hang's cost the limit alone.
    @Test("the worker pool runs every task once whether its helpers watch, were alerted or sleep",
          .timeLimit(.minutes(10)), arguments: [(1, 1_000_000), (1, 20_000), (1, 0), (3, 1_000_000)])
    func workerPoolHandOffs(helpers: Int, spin: Int) {
        let pool = WorkerPool(helpers: helpers, spinNanoseconds: spin)
        defer { pool.shutdown() }
        #expect(pool.helperCount == helpers)
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
        defer { hits.deallocate() }
        var failures = 0
        // Three helpers spinning a millisecond each on a 2-core host (or under qemu-user) take turns
        // with the caller, so their rounds are dearer: fewer of them, the same hand-offs.
        let rounds = helpers > 1 ? 200 : 600
        for round in 0..<rounds {
            // Some rounds start only once every helper sleeps (a state, not a delay), so the
            // sleeping path is taken whatever the host's speed; the rest follow at once.
            if round % 7 == 0, pool.spinNanoseconds < 100_000 {
                while pool.helpersAsleep < pool.helperCount { sched_yield() }
            }
            if round % 3 == 0 { pool.expectWork() }
            let tasks = (round * 13) % 40
            hits.initialize(repeating: 0)
            let workers = hits.count - 1
            pool.run(tasks: tasks, moreFollows: round % 5 != 0) { worker, task in
                if worker > helpers { hits[workers] = 1 }
                hits[task] += 1
            }
            if hits[workers] != 0 || hits[..<tasks].contains(where: { $0 != 1 }) || hits[tasks..<workers].contains(where: { $0 != 0 }) {
                failures += 1
            }
        }
        #expect(failures == 0)
    }

    /// Each worker first takes the front of its own equal stretch of the tasks, so a band stays on
    /// one core from frame to frame. In its first task every worker waits until all have begun
    /// one (a state, not a delay): nobody can have run out of its own stretch and taken another's
    /// yet, so each first task is the front of the worker's stretch, on every host. Then the
    /// tasks a worker runs are its stretch's front in order and other stretches' backs, so with
    /// one helper the helper's tasks are one unbroken range.
    @Test("the worker pool hands each worker its own stretch of tasks first",
          .timeLimit(.minutes(10)), arguments: [1, 3])
    func workerPoolStretches(helpers: Int) {
        let pool = WorkerPool(helpers: helpers, spinNanoseconds: 1_000_000)
        defer { pool.shutdown() }
        let workers = helpers + 1
        #expect(pool.helperCount == helpers)
        let ranBy = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
        let firstTask = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        defer { ranBy.deallocate(); firstTask.deallocate() }
        var wrongFirst: [String] = [], broken: [Int] = []
        for tasks in workers...40 {
            ranBy.initialize(repeating: -1)
            firstTask.initialize(repeating: -1)
            let begun = Atomic<Int>(0)
            pool.run(tasks: tasks) { worker, task in
                if firstTask[worker] < 0 {
                    firstTask[worker] = task
                    begun.add(1, ordering: .sequentiallyConsistent)
                    while begun.load(ordering: .sequentiallyConsistent) < workers { sched_yield() }
                }
                ranBy[task] = worker
            }
            #expect(!ranBy[..<tasks].contains(-1), "\(tasks) tasks: one did not run")
            for w in 0..<workers where firstTask[w] != w * tasks / workers {
                wrongFirst.append("\(tasks) tasks: worker \(w) began with \(firstTask[w]), not \(w * tasks / workers)")
            }
            if helpers == 1 {
                let mine = (0..<tasks).filter { ranBy[$0] == 1 }
                if let lo = mine.first, let hi = mine.last, mine.count != hi - lo + 1 { broken.append(tasks) }
            }
        }
        #expect(wrongFirst.isEmpty, "\(wrongFirst.prefix(4))")
        #expect(broken.isEmpty, "the helper's tasks were not one range for task counts \(broken)")
    }
}
