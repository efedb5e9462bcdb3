#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// Drawing on several cores: the canvas records its draw calls once (paths flattened and stroked,
// edges sorted into the horizontal bands they cross) and replays the whole list band by band, each
// thread taking the bands of its own stretch first and helping with the others' once it is done
// (see `WorkerPool.run`). Bands own disjoint rows, coverage is computed per row from the
// original edge endpoints, and each band runs the commands in their order, so the pixels are those
// of one thread drawing call by call, bit for bit. The whole frame is replayed at once, each band
// drawing every command while its pixels and cells are in cache: handing the first fills to the
// helpers while the caller recorded the rest (two passes over each band) was slower (4K, two
// threads: 1.50x one thread's speed against 1.53x at 5,000 points, 1.62x against 1.77x at 260).

/// The recorded draw calls of one frame and the threads that replay them.
final class BandRenderer: @unchecked Sendable {
    /// Rows per band: small enough that two threads stay evenly busy and a band's coverage cells
    /// stay in cache, large enough that the per-band cost of each command is noise.
    static let bandShift = 6
    static let bandHeight = 1 << bandShift

    let threads: Int
    private let recording = Batch()
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

    /// Runs `body(task)` for tasks 0..<count on the caller and the helpers; returns when all are done.
    func runTasks(_ count: Int, _ body: (Int) -> Void) {
        pool.run(tasks: count) { _, task in body(task) }
    }

    /// Stops the helper threads; the renderer is unusable afterwards.
    func shutdown() { pool.shutdown() }

    var isEmpty: Bool { recording.commands.isEmpty }

    /// The recording's edges (pairs of points), fill after fill. The canvas borrows them for each
    /// draw call and appends the call's edges in place.
    var edges: [Point] {
        get { recording.edges }
        _modify { yield &recording.edges }
    }

    /// Points of `edges` that belong to recorded fills.
    var recordedPointCount: Int { 2 * recording.edgeStarts[recording.edgeStarts.count - 1] }

    private func prepare(height: Int) {
        guard height != self.height else { return }
        precondition(isEmpty, "bands resized while commands are recorded")
        self.height = height
        bandCount = (height + Self.bandHeight - 1) / Self.bandHeight
    }

    /// Before a command is recorded: the first of a frame tells the helpers that work is coming.
    private func prepareToRecord(height: Int) {
        prepare(height: height)
        if isEmpty { pool.expectWork() }
    }

    func recordClear(_ value: UInt32, _ rect: IntRect, height: Int) {
        prepareToRecord(height: height)
        recording.commands.append(.clear(value, rect))
    }

    /// Records a fill over `grid` of the edges from the last recorded fill's up to point `pointCount`
    /// of `edges` (which the canvas holds while it draws).
    func recordFill(grid: IntRect, paint: PreparedPaint, rule: FillRule, blend: BlendMode,
                    pointCount: Int, height: Int) {
        prepareToRecord(height: height)
        recording.commands.append(.fill(recording.fills.count))
        recording.fills.append(Batch.Fill(grid: grid, paint: paint, rule: rule, blend: blend))
        recording.edgeStarts.append(pointCount / 2)
    }

    /// Records whole-pixel rectangles over `grid` at full coverage (see `WholePixelRects`): each band
    /// composites the rows of them it owns, without edges.
    func recordRects(_ rects: [IntRect], grid: IntRect, paint: PreparedPaint, blend: BlendMode, height: Int) {
        prepareToRecord(height: height)
        recording.commands.append(.rects(recording.rectFills.count))
        recording.rectFills.append(Batch.RectFill(rects: rects, grid: grid, paint: paint, blend: blend))
    }

    /// Draws every recorded command and then every deferred clear, band by band, and forgets them.
    func replay(height: Int, _ target: Canvas.BandTarget) {
        prepare(height: height)
        let batch = recording
        if !batch.commands.isEmpty { batch.sortIntoBands(bandCount: bandCount) }
        let bands = bandCount, height = self.height, accumulators = self.accumulators
        pool.run(tasks: bands, moreFollows: false) { worker, band in
            let rows = Self.rows(ofBand: band, height: height)
            if !batch.commands.isEmpty {
                batch.replayBand(band, rows: rows, bandCount: bands, accumulators[worker], target)
            }
            target.flushClears(rows: rows)
        }
        batch.reset()
    }

    /// Forgets what was recorded.
    func reset() { recording.reset() }

    /// The rows band `band` of a `height`-row picture owns.
    private static func rows(ofBand band: Int, height: Int) -> Range<Int> {
        (band * bandHeight)..<min(height, (band + 1) * bandHeight)
    }
}

/// One batch of recorded draw calls: the commands, their edges, and their sort into bands.
final class Batch: @unchecked Sendable {
    enum Command {
        case clear(UInt32, IntRect)
        case fill(Int)
        case rects(Int)
    }
    struct Fill {
        let grid: IntRect
        let paint: PreparedPaint
        let rule: FillRule
        let blend: BlendMode
    }
    struct RectFill {
        let rects: [IntRect]
        let grid: IntRect
        let paint: PreparedPaint
        let blend: BlendMode
    }
    var commands: [Command] = []
    var fills: [Fill] = []
    var rectFills: [RectFill] = []
    /// Every fill's edges (pairs of points), fill after fill; fill f owns pairs edgeStarts[f] ..< edgeStarts[f + 1].
    var edges: [Point] = []
    var edgeStarts: [Int] = [0]
    /// Built before a replay: per fill and band, the runs of pairs that may reach the band, each
    /// given by its first pair's index into `edges` (a run is `runPairs` consecutive pairs of one
    /// fill, fewer at the fill's end); fill f's list for band b is
    /// bandRuns[bandOffsets[f * bandCount + b] ..< the next offset].
    private var bandRuns: [Int32] = []
    private var bandOffsets: [Int] = []
    private var runSpans: [UInt32] = []
    private var nextRun: [Int] = []

    /// Pairs per run: a run's pairs are neighbours along a path, so their rows lie close together
    /// and a band rarely gets a pair it drops.
    static let runPairs = 16

    /// Sorts every fill's runs of pairs into the bands they may reach (a counting sort: count,
    /// place). A run reaches the bands of its rows inside the fill's grid, with a row of margin on
    /// each side (an extra band drops the pair itself, a missing one would lose it); a run outside
    /// the grid's rows, or of horizontal or NaN pairs only, reaches none. Each band then adds the
    /// pairs of its runs in order, so it adds what it needs in the order one thread would. This is
    /// the serial part of a banded frame: sorting runs, not single pairs, costs a tenth.
    func sortIntoBands(bandCount: Int) {
        let bands = bandCount, lastBand = bands - 1, shift = BandRenderer.bandShift, runPairs = Self.runPairs
        let runCount = fills.indices.reduce(0) { $0 + (edgeStarts[$1 + 1] - edgeStarts[$1] + runPairs - 1) / runPairs }
        // Every array here keeps its capacity from frame to frame: fresh ones faulted in new pages.
        bandOffsets.removeAll(keepingCapacity: true)
        bandOffsets.append(contentsOf: repeatElement(0, count: fills.count * bands + 1))
        if runSpans.count < runCount { runSpans = Array(repeating: 0, count: runCount) }
        edges.withUnsafeBufferPointer { e in
            runSpans.withUnsafeMutableBufferPointer { spans in
                bandOffsets.withUnsafeMutableBufferPointer { offsets in
                    let points = e.baseAddress!, span = spans.baseAddress!
                    var run = 0
                    for f in fills.indices {
                        let grid = fills[f].grid
                        let gy0 = Double(grid.y0), gy1 = Double(grid.y1)
                        let counts = offsets.baseAddress! + (f * bands + 1)
                        var first = edgeStarts[f]
                        let end = edgeStarts[f + 1]
                        while first < end {
                            let last = min(first + runPairs, end)
                            // NaN fails every comparison, so it never becomes a bound.
                            var lo = Double.infinity, hi = -Double.infinity
                            for k in (2 &* first)..<(2 &* last) {
                                let y = points[k].y
                                if y < lo { lo = y }
                                if y > hi { hi = y }
                            }
                            first = last
                            defer { run &+= 1 }
                            guard lo < hi, lo < gy1, hi > gy0 else {
                                span[run] = 0
                                continue
                            }
                            // Inside [gy0, gy1] and so at least 0: the conversions cannot trap.
                            let top = floorOfNonNegative(lo > gy0 ? lo : gy0)
                            let bottom = floorOfNonNegative(hi < gy1 ? hi : gy1)
                            let b0 = (top > 0 ? top &- 1 : 0) &>> shift
                            let b1 = min(lastBand, (bottom &+ 1) &>> shift)
                            // First band and one past the last, 16 bits each (at most 8192 rows: 128 bands).
                            span[run] = UInt32(truncatingIfNeeded: b0) << 16 | UInt32(truncatingIfNeeded: b1 &+ 1)
                            var b = b0
                            while b <= b1 { counts[b] &+= 1; b &+= 1 }
                        }
                    }
                    for k in 1..<offsets.count { offsets[k] += offsets[k - 1] }
                }
                bandRuns.removeAll(keepingCapacity: true)
                bandRuns.append(contentsOf: repeatElement(0, count: bandOffsets[bandOffsets.count - 1]))
                nextRun.removeAll(keepingCapacity: true)
                nextRun.append(contentsOf: bandOffsets)
                bandRuns.withUnsafeMutableBufferPointer { runs in
                    nextRun.withUnsafeMutableBufferPointer { next in
                        let out = runs.baseAddress!, span = spans.baseAddress!
                        var run = 0
                        for f in fills.indices {
                            let cursor = next.baseAddress! + f * bands
                            var first = edgeStarts[f]
                            while first < edgeStarts[f + 1] {
                                let s = span[run]
                                var b = Int(s >> 16)
                                let end = Int(s & 0xFFFF)
                                while b < end {
                                    out[cursor[b]] = Int32(truncatingIfNeeded: first)
                                    cursor[b] &+= 1
                                    b &+= 1
                                }
                                first += runPairs
                                run &+= 1
                            }
                        }
                    }
                }
            }
        }
    }

    func replayBand(_ b: Int, rows: Range<Int>, bandCount: Int, _ accumulator: CoverageAccumulator,
                    _ target: Canvas.BandTarget) {
        for command in commands {
            switch command {
            case .clear(let value, let rect):
                target.clearRows(rect, rows: rows, value)
            case .fill(let f):
                let start = bandOffsets[f * bandCount + b], end = bandOffsets[f * bandCount + b + 1]
                let fill = fills[f]
                guard end > start, fill.grid.y0 < rows.upperBound, fill.grid.y1 > rows.lowerBound else { continue }
                accumulator.reset(to: fill.grid, rows: rows)
                let fillEnd = edgeStarts[f + 1]
                edges.withUnsafeBufferPointer { e in
                    bandRuns.withUnsafeBufferPointer { runs in
                        for k in start..<end {
                            let first = Int(runs[k])
                            let last = min(first + Self.runPairs, fillEnd)
                            accumulator.addEdges(UnsafeBufferPointer(rebasing: e[(2 * first)..<(2 * last)]))
                        }
                    }
                }
                Canvas.composite(accumulator, fill.paint, fill.rule, fill.blend, target)
            case .rects(let r):
                let fill = rectFills[r]
                guard fill.grid.y0 < rows.upperBound, fill.grid.y1 > rows.lowerBound else { continue }
                accumulator.reset(to: fill.grid, rows: rows)
                accumulator.setWholePixelRects(fill.rects)
                Canvas.composite(accumulator, fill.paint, .nonZero, fill.blend, target)
            }
        }
    }

    /// Forgets what was recorded, keeping the arrays' capacity.
    func reset() {
        commands.removeAll(keepingCapacity: true)
        fills.removeAll(keepingCapacity: true)
        rectFills.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        edgeStarts.removeAll(keepingCapacity: true)
        edgeStarts.append(0)
    }
}

/// Helper threads that wait for work and run it beside the caller. The helpers block every signal,
/// so signals keep reaching the thread (or signalfd) that expects them.
///
/// A frame hands work out once or twice within a millisecond (a long line's two sides, then the
/// bands). Waking a helper asleep on a futex took 33-44 us (median) and 55-70 us inside a frame on
/// the development host, and the waker paid 17-23 us for the system call. So the canvas says when
/// a frame begins (`expectWork`): the helpers wake while the caller records and watch for the job,
/// for at most `spinNanoseconds`, then sleep again. After a job that is not the frame's last they
/// watch for the next one the same way, and the caller watches for the last helper to finish
/// before it sleeps. Work handed to a watching helper costs no system call on either side; between
/// frames, and in a daemon that draws nothing, every helper sleeps.
final class WorkerPool: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Counts the jobs handed out; a helper runs each generation once.
    private let generation = Atomic<Int>(0)
    /// Helpers that have not finished the current job.
    private let busy = Atomic<Int>(0)
    /// Per worker, the tasks it has left: the next (low 32 bits) and one past the last (high 32
    /// bits). See `run`.
    private let shares: UnsafeMutablePointer<Atomic<UInt64>>
    private let shareCount: Int
    // A sleeper announces itself before its last look at the state it waits for, and the waker
    // publishes that state before it looks for sleepers (both sequentially consistent), so one of
    // the two always sees the other: no wake-up is lost and none is paid for while nobody sleeps.
    private let sleepingHelpers = Atomic<Int>(0)
    private let callerSleeping = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// Bumped by `expectWork`: a sleeping helper wakes and watches for the job.
    private let alerts = Atomic<Int>(0)
    // Written by the caller before it bumps `generation`, read by helpers after they see the bump.
    private var job: ((Int, Int) -> Void)?
    private var watchAfterJob = true
    private var threads: [pthread_t] = []
    /// How long a helper watches for the next job, and the caller for the last helper, in ns.
    /// None when there are more threads than cores: a watcher would take the time of a thread
    /// that has work.
    let spinNanoseconds: Int

    var helperCount: Int { threads.count }
    /// Helpers asleep on the condition variable now (the tests wait for it).
    var helpersAsleep: Int { sleepingHelpers.load(ordering: .relaxed) }

    private final class Start {
        let pool: WorkerPool
        let index: Int
        init(_ pool: WorkerPool, _ index: Int) { self.pool = pool; self.index = index }
    }

    init(helpers: Int, spinNanoseconds: Int = 1_000_000) {
        shareCount = max(0, helpers) + 1
        shares = .allocate(capacity: shareCount)
        for w in 0..<shareCount { (shares + w).initialize(to: Atomic(0)) }
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
        pthread_cond_init(done, nil)
        self.spinNanoseconds = helpers + 1 <= BandRenderer.processorsOnline ? spinNanoseconds : 0
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
        _ = shares.deinitialize(count: shareCount)
        shares.deallocate()
    }

    /// Ends and joins the helpers (they hold the pool until then).
    func shutdown() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        generation.add(1, ordering: .sequentiallyConsistent)
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(mutex)
        for t in threads { pthread_join(t, nil) }
        threads = []
    }

    /// Says that a job will come soon (a frame has begun): sleeping helpers wake now, while the
    /// caller records, and watch for it, so the job does not wait for their wake-up.
    func expectWork() {
        guard spinNanoseconds > 0, !threads.isEmpty else { return }
        alerts.add(1, ordering: .sequentiallyConsistent)
        wakeSleepingHelpers()
    }

    /// After what a sleeping helper waits for was published (sequentially consistent).
    private func wakeSleepingHelpers() {
        guard sleepingHelpers.load(ordering: .sequentiallyConsistent) > 0 else { return }
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body(worker, task)` for tasks 0..<tasks, each once, on the caller (worker 0) and the
    /// helpers (1...), and returns when all are done. `moreFollows` false (a frame's last job):
    /// the helpers sleep at once afterwards instead of watching for another job.
    ///
    /// Each worker owns an equal stretch of the tasks and takes them from its front; one that runs
    /// out takes the others' from their back. So a band is drawn on the same core frame after
    /// frame (only where the stretches meet does it move), and its pixels are still in that core's
    /// cache. Taken from one shared counter, each band went to whichever thread came first, and
    /// half of them had to be fetched from the other core's cache every frame.
    func run(tasks: Int, moreFollows: Bool = true, _ body: (Int, Int) -> Void) {
        precondition(tasks < 1 << 31)
        withoutActuallyEscaping(body) { body in
            job = body
            watchAfterJob = moreFollows
            let workers = threads.count + 1
            for w in 0..<workers {
                let first = UInt64(w * tasks / workers), end = UInt64((w + 1) * tasks / workers)
                shares[w].store(end << 32 | first, ordering: .relaxed)
            }
            busy.store(threads.count, ordering: .relaxed)
            generation.add(1, ordering: .sequentiallyConsistent)
            wakeSleepingHelpers()
            drain(0, body)
            if !watch({ busy.load(ordering: .acquiring) == 0 }) {
                pthread_mutex_lock(mutex)
                callerSleeping.store(true, ordering: .sequentiallyConsistent)
                while busy.load(ordering: .sequentiallyConsistent) > 0 { pthread_cond_wait(done, mutex) }
                callerSleeping.store(false, ordering: .relaxed)
                pthread_mutex_unlock(mutex)
            }
            job = nil
        }
    }

    private func drain(_ worker: Int, _ body: (Int, Int) -> Void) {
        while let task = take(from: worker, front: true) { body(worker, task) }
        let workers = threads.count + 1
        for k in 1..<max(1, workers) {
            let other = (worker + k) % workers
            while let task = take(from: other, front: false) { body(worker, task) }
        }
    }

    /// Takes the first (or last) task left in `worker`'s share; nil when none is.
    @inline(__always)
    private func take(from worker: Int, front: Bool) -> Int? {
        var share = shares[worker].load(ordering: .relaxed)
        while true {
            let next = share & 0xFFFF_FFFF, end = share >> 32
            guard next < end else { return nil }
            let taken = front ? end << 32 | (next + 1) : (end - 1) << 32 | next
            let (exchanged, original) = shares[worker].compareExchange(expected: share, desired: taken,
                                                                       ordering: .relaxed)
            if exchanged { return Int(front ? next : end - 1) }
            share = original
        }
    }

    /// Polls `ready` for up to `spinNanoseconds`; whether it became true.
    private func watch(_ ready: () -> Bool) -> Bool {
        if ready() { return true }
        guard spinNanoseconds > 0 else { return false }
        let deadline = Self.now() + spinNanoseconds
        var polls = 0
        while !ready() {
            polls &+= 1
            // The clock is read every 64 polls: it costs ~20 ns, a poll a few.
            if polls & 63 == 0, Self.now() > deadline { return false }
        }
        return true
    }

    private static func now() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1_000_000_000 + ts.tv_nsec
    }

    private func work(_ index: Int) {
        var seen = 0, seenAlerts = 0, watching = false
        while true {
            if !(watching && watch({ generation.load(ordering: .acquiring) != seen })) {
                pthread_mutex_lock(mutex)
                sleepingHelpers.add(1, ordering: .sequentiallyConsistent)
                while generation.load(ordering: .sequentiallyConsistent) == seen
                    && alerts.load(ordering: .sequentiallyConsistent) == seenAlerts {
                    pthread_cond_wait(wake, mutex)
                }
                sleepingHelpers.subtract(1, ordering: .relaxed)
                pthread_mutex_unlock(mutex)
            }
            seenAlerts = alerts.load(ordering: .relaxed)
            watching = true
            let current = generation.load(ordering: .acquiring)
            guard current != seen else { continue }  // an alert
            seen = current
            if stopping.load(ordering: .acquiring) { return }
            watching = watchAfterJob
            drain(index, job!)
            if busy.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
               callerSleeping.load(ordering: .sequentiallyConsistent) {
                pthread_mutex_lock(mutex)
                pthread_cond_signal(done)
                pthread_mutex_unlock(mutex)
            }
        }
    }
}
