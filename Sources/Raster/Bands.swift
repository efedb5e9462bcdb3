#if canImport(Glibc)
import Glibc
#endif

// Drawing on several cores: the canvas records its draw calls once (paths flattened and stroked,
// edges sorted into the horizontal bands they cross) and replays the whole list band by band, each
// band on whichever thread is free. Bands own disjoint rows, coverage is computed per row from the
// original edge endpoints, and each band runs the commands in their order, so the pixels are those
// of one thread drawing call by call, bit for bit.

/// The recorded draw calls of one frame and the threads that replay them.
final class BandRenderer: @unchecked Sendable {
    /// Rows per band: small enough that two threads stay evenly busy and a band's coverage cells
    /// stay in cache, large enough that the per-band cost of each command is noise.
    static let bandHeight = 64

    let threads: Int
    private enum Command {
        case clear(UInt32, IntRect)
        case fill(Int)
    }
    private struct Fill {
        let grid: IntRect
        let paint: PreparedPaint
        let rule: FillRule
        let blend: BlendMode
    }
    private var commands: [Command] = []
    private var fills: [Fill] = []
    /// Every fill's edges (pairs of points), fill after fill; fill f owns pairs edgeStarts[f] ..< edgeStarts[f + 1].
    private var edges: [Point] = []
    private var edgeStarts: [Int] = [0]
    /// Built before a replay: per fill and band, the pairs that reach the band, as indices into
    /// `edges`; fill f's list for band b is bandPairs[bandOffsets[f * bandCount + b] ..< the next offset].
    private var bandPairs: [Int32] = []
    private var bandOffsets: [Int] = []
    private var pairSpans: [UInt32] = []
    private var nextPair: [Int] = []
    private var bandCount = 0
    private var height = 0
    private let accumulators: [CoverageAccumulator]
    private let pool: WorkerPool

    static var processorsOnline: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    init(threads: Int) {
        pool = WorkerPool(helpers: threads - 1)
        self.threads = pool.helperCount + 1
        accumulators = (0..<self.threads).map { _ in CoverageAccumulator() }
    }

    /// Stops the helper threads; the renderer is unusable afterwards.
    func shutdown() { pool.shutdown() }

    var isEmpty: Bool { commands.isEmpty }

    private func prepare(height: Int) {
        guard height != self.height else { return }
        precondition(commands.isEmpty, "bands resized while commands are recorded")
        self.height = height
        bandCount = (height + Self.bandHeight - 1) / Self.bandHeight
    }

    func recordClear(_ value: UInt32, _ rect: IntRect, height: Int) {
        prepare(height: height)
        commands.append(.clear(value, rect))
    }

    /// Records a fill of `edges` (pairs of points) over `grid`.
    func recordFill(grid: IntRect, paint: PreparedPaint, rule: FillRule, blend: BlendMode,
                    edges: UnsafeBufferPointer<Point>, height: Int) {
        prepare(height: height)
        commands.append(.fill(fills.count))
        fills.append(Fill(grid: grid, paint: paint, rule: rule, blend: blend))
        self.edges.append(contentsOf: edges.prefix(edges.count & ~1))
        edgeStarts.append(self.edges.count / 2)
    }

    /// The bands pair `i` of fill `f` reaches, or nil when it adds nothing to any row (horizontal,
    /// not finite, outside the grid's rows). A row of margin on each side: an extra band drops the
    /// edge itself, a missing one would lose it.
    @inline(__always)
    private static func bands(of p0: Point, _ p1: Point, grid: IntRect, lastBand: Int) -> ClosedRange<Int>? {
        let lo = min(p0.y, p1.y), hi = max(p0.y, p1.y)
        let gy0 = Double(grid.y0), gy1 = Double(grid.y1)
        guard lo < hi, lo < gy1, hi > gy0, p0.isFinite, p1.isFinite else { return nil }
        let top = max(lo, gy0), bottom = min(hi, gy1)
        let b0 = max(0, Int(top) - 1) / bandHeight, b1 = min(lastBand, (Int(bottom) + 1) / bandHeight)
        return b0 <= b1 ? b0...b1 : nil
    }

    /// Sorts every fill's pairs into the bands they reach (a counting sort: count, place).
    private func sortIntoBands() {
        let bands = bandCount, lastBand = bands - 1, pairCount = edges.count / 2
        // Every array here keeps its capacity from frame to frame: fresh ones faulted in new pages.
        bandOffsets.removeAll(keepingCapacity: true)
        bandOffsets.append(contentsOf: repeatElement(0, count: fills.count * bands + 1))
        if pairSpans.count < pairCount { pairSpans = Array(repeating: 0, count: pairCount) }
        edges.withUnsafeBufferPointer { e in
            pairSpans.withUnsafeMutableBufferPointer { spans in
                bandOffsets.withUnsafeMutableBufferPointer { offsets in
                    for f in fills.indices {
                        let grid = fills[f].grid, row = f * bands
                        for i in edgeStarts[f]..<edgeStarts[f + 1] {
                            guard let r = Self.bands(of: e[2 * i], e[2 * i + 1], grid: grid, lastBand: lastBand) else {
                                spans[i] = 0
                                continue
                            }
                            // First band and one past the last, 16 bits each (at most 8192 rows: 128 bands).
                            spans[i] = UInt32(r.lowerBound) << 16 | UInt32(r.upperBound + 1)
                            for b in r { offsets[row + b + 1] += 1 }
                        }
                    }
                    for k in 1..<offsets.count { offsets[k] += offsets[k - 1] }
                }
                bandPairs.removeAll(keepingCapacity: true)
                bandPairs.append(contentsOf: repeatElement(0, count: bandOffsets[bandOffsets.count - 1]))
                nextPair.removeAll(keepingCapacity: true)
                nextPair.append(contentsOf: bandOffsets)
                bandPairs.withUnsafeMutableBufferPointer { pairs in
                    nextPair.withUnsafeMutableBufferPointer { next in
                        for f in fills.indices {
                            let row = f * bands
                            for i in edgeStarts[f]..<edgeStarts[f + 1] {
                                let span = spans[i]
                                var b = Int(span >> 16)
                                let end = Int(span & 0xFFFF)
                                while b < end {
                                    pairs[next[row + b]] = Int32(truncatingIfNeeded: i)
                                    next[row + b] += 1
                                    b += 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Draws every recorded command and then every deferred clear, band by band, and forgets them.
    func replay(height: Int, _ target: Canvas.BandTarget) {
        prepare(height: height)
        if !commands.isEmpty {
            sortIntoBands()
            pool.run(tasks: bandCount) { worker, band in
                self.replayBand(band, self.accumulators[worker], target)
            }
        }
        reset()
    }

    private func replayBand(_ b: Int, _ accumulator: CoverageAccumulator, _ target: Canvas.BandTarget) {
        let rows = (b * Self.bandHeight)..<min(height, (b + 1) * Self.bandHeight)
        for command in commands {
            switch command {
            case .clear(let value, let rect):
                Canvas.clearRows(rect, rows: rows, value, target.base, target.stride, target.runs, target.generation)
            case .fill(let f):
                let start = bandOffsets[f * bandCount + b], end = bandOffsets[f * bandCount + b + 1]
                let fill = fills[f]
                guard end > start, fill.grid.y0 < rows.upperBound, fill.grid.y1 > rows.lowerBound else { continue }
                accumulator.reset(to: fill.grid, rows: rows)
                edges.withUnsafeBufferPointer { e in
                    bandPairs.withUnsafeBufferPointer { pairs in
                        for k in start..<end {
                            let i = Int(pairs[k])
                            accumulator.addEdge(e[2 * i], e[2 * i + 1])
                        }
                    }
                }
                Canvas.composite(accumulator, fill.paint, fill.rule, fill.blend, target)
            }
        }
        Canvas.flushClears(rows: rows, target.base, target.stride, target.runs, target.generation)
    }

    /// Forgets what was recorded.
    func reset() {
        commands.removeAll(keepingCapacity: true)
        fills.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        edgeStarts.removeAll(keepingCapacity: true)
        edgeStarts.append(0)
    }
}

/// Helper threads that wait for work and run it beside the caller. The helpers block every signal,
/// so signals keep reaching the thread (or signalfd) that expects them.
final class WorkerPool: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var generation = 0
    private var busy = 0
    private var stopping = false
    private var job: ((Int, Int) -> Void)?
    private var nextTask = 0
    private var taskCount = 0
    private var threads: [pthread_t] = []

    var helperCount: Int { threads.count }

    private final class Start {
        let pool: WorkerPool
        let index: Int
        init(_ pool: WorkerPool, _ index: Int) { self.pool = pool; self.index = index }
    }

    init(helpers: Int) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
        pthread_cond_init(done, nil)
        guard helpers > 0 else { return }
        var all = sigset_t(), old = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &old)
        for i in 1...helpers {
            let start = Unmanaged.passRetained(Start(self, i)).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                start.pool.work(start.index)
                return nil
            }, start)
            if rc == 0 { threads.append(thread) } else { Unmanaged<Start>.fromOpaque(start).release() }
        }
        pthread_sigmask(SIG_SETMASK, &old, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex); pthread_cond_destroy(wake); pthread_cond_destroy(done)
        mutex.deallocate(); wake.deallocate(); done.deallocate()
    }

    /// Ends and joins the helpers (they hold the pool until then).
    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(mutex)
        for t in threads { pthread_join(t, nil) }
        threads = []
    }

    /// Runs `body(worker, task)` for tasks 0..<tasks, each once, on the caller (worker 0) and the
    /// helpers (1...), and returns when all are done.
    func run(tasks: Int, _ body: (Int, Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            pthread_mutex_lock(mutex)
            job = body
            nextTask = 0
            taskCount = tasks
            busy = threads.count
            generation += 1
            pthread_cond_broadcast(wake)
            pthread_mutex_unlock(mutex)
            drain(0, body)
            pthread_mutex_lock(mutex)
            while busy > 0 { pthread_cond_wait(done, mutex) }
            job = nil
            pthread_mutex_unlock(mutex)
        }
    }

    private func claim() -> Int? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard nextTask < taskCount else { return nil }
        nextTask += 1
        return nextTask - 1
    }

    private func drain(_ worker: Int, _ body: (Int, Int) -> Void) {
        while let task = claim() { body(worker, task) }
    }

    private func work(_ index: Int) {
        pthread_mutex_lock(mutex)
        var seen = 0
        while true {
            while generation == seen && !stopping { pthread_cond_wait(wake, mutex) }
            if stopping { break }
            seen = generation
            let body = job!
            pthread_mutex_unlock(mutex)
            drain(index, body)
            pthread_mutex_lock(mutex)
            busy -= 1
            if busy == 0 { pthread_cond_signal(done) }
        }
        pthread_mutex_unlock(mutex)
    }
}
