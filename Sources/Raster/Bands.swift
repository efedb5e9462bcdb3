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
    /// Per band, the edges (pairs of points) of every fill that reaches it, fill after fill.
    private var bandEdges: [[Point]] = []
    /// Where fill f's edges start in band b's list: `starts[f * bandCount + b]`.
    private var starts: [Int] = []
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
        if bandEdges.count < bandCount { bandEdges += Array(repeating: [], count: bandCount - bandEdges.count) }
    }

    func recordClear(_ value: UInt32, _ rect: IntRect, height: Int) {
        prepare(height: height)
        commands.append(.clear(value, rect))
    }

    /// Records a fill of `edges` (pairs of points) over `grid`, handing each edge to the bands whose
    /// rows it crosses.
    func recordFill(grid: IntRect, paint: PreparedPaint, rule: FillRule, blend: BlendMode,
                    edges: UnsafeBufferPointer<Point>, height: Int) {
        prepare(height: height)
        let f = fills.count
        fills.append(Fill(grid: grid, paint: paint, rule: rule, blend: blend))
        commands.append(.fill(f))
        for b in 0..<bandCount { starts.append(bandEdges[b].count) }
        let gy0 = Double(grid.y0), gy1 = Double(grid.y1)
        let h = Self.bandHeight, lastBand = bandCount - 1
        var i = 0
        while i + 1 < edges.count {
            let p0 = edges[i], p1 = edges[i + 1]
            i += 2
            let lo = min(p0.y, p1.y), hi = max(p0.y, p1.y)
            // Horizontal, non-finite and out-of-grid edges add nothing to any row.
            guard lo < hi, lo < gy1, hi > gy0, p0.isFinite, p1.isFinite else { continue }
            // A row of margin on each side: an extra band drops the edge itself.
            let top = max(lo, gy0), bottom = min(hi, gy1)
            let b0 = max(0, Int(top) - 1) / h, b1 = min(lastBand, (Int(bottom) + 1) / h)
            if b0 > b1 { continue }
            for b in b0...b1 {
                bandEdges[b].append(p0)
                bandEdges[b].append(p1)
            }
        }
    }

    /// Draws every recorded command and then every deferred clear, band by band, and forgets them.
    func replay(height: Int, _ target: Canvas.BandTarget) {
        prepare(height: height)
        if !commands.isEmpty {
            pool.run(tasks: bandCount) { worker, band in
                self.replayBand(band, self.accumulators[worker], target)
            }
        }
        reset()
    }

    private func replayBand(_ b: Int, _ accumulator: CoverageAccumulator, _ target: Canvas.BandTarget) {
        let rows = (b * Self.bandHeight)..<min(height, (b + 1) * Self.bandHeight)
        let edgeCount = bandEdges[b].count
        for command in commands {
            switch command {
            case .clear(let value, let rect):
                Canvas.clearRows(rect, rows: rows, value, target.base, target.stride, target.runs, target.generation)
            case .fill(let f):
                let start = starts[f * bandCount + b]
                let end = f + 1 < fills.count ? starts[(f + 1) * bandCount + b] : edgeCount
                let fill = fills[f]
                guard end > start, fill.grid.y0 < rows.upperBound, fill.grid.y1 > rows.lowerBound else { continue }
                accumulator.reset(to: fill.grid, rows: rows)
                bandEdges[b].withUnsafeBufferPointer {
                    accumulator.addEdges(UnsafeBufferPointer(rebasing: $0[start..<end]))
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
        starts.removeAll(keepingCapacity: true)
        for b in bandEdges.indices { bandEdges[b].removeAll(keepingCapacity: true) }
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
