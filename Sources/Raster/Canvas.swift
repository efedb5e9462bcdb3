/// What a draw call did, so a caller can tell bad geometry from an ordinary picture.
public enum DrawResult: Equatable, Sendable {
    /// Everything asked for was drawn (possibly nothing visible, if it lay outside the clip).
    case drawn
    /// Nothing to draw: an empty path, a zero-area shape, a fully transparent paint.
    case empty
    /// Some coordinates were not finite; only the finite parts were drawn.
    case partial
    /// The request made no sense (a negative or non-finite width, an unusable dash pattern); nothing drawn.
    case rejected
}

/// A pixel buffer with drawing state: the target of all chart painting.
/// It owns reusable scratch memory, so drawing allocates nothing once warm.
public final class Canvas {
    private var storage: PixelBuffer

    /// The pixels. Reading them first writes any clear still pending; writing through this property
    /// (text, masks, direct edits) is fine too: the canvas then forgets what it knew about its rows,
    /// so nothing stale is ever reused.
    public var buffer: PixelBuffer {
        get {
            finish()
            return storage
        }
        _modify {
            finish()
            uniformGeneration &+= 1
            yield &storage
        }
        set {
            discardRecording()
            uniformGeneration &+= 1
            storage = newValue
            if renderThreads == 1 && Canvas.bandsOnOneThread(newValue) != (renderer != nil) {
                makeRenderer(threads: 1)
            } else {
                chooseBands()
            }
        }
    }

    /// Whether axis-aligned strokes on whole pixels take their shortcut (`strokeWholePixels`); off,
    /// they go through the stroker and the edge walk like any stroke (what the tests compare with).
    var wholePixelStrokes = true

    /// The canvas's pixel rectangle (reading it draws nothing, unlike `buffer`).
    public var bounds: IntRect { storage.bounds }

    /// Threads that draw: 1 draws on the caller's thread as each call is made. More record the draw
    /// calls (each path flattened and stroked once) and replay them at `finish()` (or the next read
    /// of `buffer`) in horizontal bands shared out among the threads: the same pixels, bit for bit.
    public var renderThreads: Int {
        get { renderer?.threads ?? 1 }
        set {
            let n = max(1, min(newValue, 16))
            guard n != renderThreads else { return }
            finish()
            makeRenderer(threads: n)
        }
    }

    /// Replaces the renderer with what `n` threads on this canvas's size call for (none for one
    /// thread on a small canvas), and chooses whether the next draw calls use it.
    private func makeRenderer(threads n: Int) {
        bands = nil
        renderer?.shutdown()
        renderer = n > 1 || Canvas.bandsOnOneThread(storage) ? BandRenderer(threads: n) : nil
        chooseBands()
    }

    /// Large redraws are drawn in bands even on one thread: a band's coverage cells and pixels stay
    /// in cache while the whole frame is drawn band by band, although recording and sorting the
    /// edges costs more instructions (1080p n = 260: 8.85 against 8.50 M). Measured at 1080p in
    /// rounds interleaved with cairo (the bench's protocol), per-frame medians: n = 5,000 0.91x,
    /// n = 260 0.88x, morph 1.00x; back to back without another process between, 1.00-1.04x: the
    /// bands win when the cache is shared. At 4K a frame takes about 0.7x. A small clip (a
    /// scrub's damage) is drawn at once (4K scrub: 1.84 -> 1.58 M instructions a frame), so the
    /// choice follows the clip.
    static let oneThreadBandArea = 1_000_000
    static func bandsOnOneThread(_ buffer: PixelBuffer) -> Bool { buffer.width * buffer.height > oneThreadBandArea }

    /// Records for the bands or draws at once, as the clip asks. Only between frames (nothing
    /// recorded, no clear pending): a clip narrowed inside a frame (a session's columns of the line)
    /// keeps the frame's choice, so the deferred clears stay deferred.
    private func chooseBands() {
        guard !choiceHeld, let renderer, !hasPendingClears, bands?.isEmpty ?? true else { return }
        let area = clip.intersection(storage.bounds)
        bands = renderer.threads > 1 || area.width * area.height > bandClipArea ? renderer : nil
    }

    /// Set by `holdDrawingChoice(for:)` until `releaseDrawingChoice()`.
    private var choiceHeld = false

    /// Draws what comes as one clip of `area` would be drawn, in bands or at once, whatever clips
    /// come next and however often text drawn into `buffer` finishes what was recorded, until
    /// `releaseDrawingChoice()`: a frame painted as many small rectangles (a partial redraw) is
    /// drawn as the whole of them, not as each rectangle asks. Sets the clip to `area`.
    public func holdDrawingChoice(for area: IntRect) {
        choiceHeld = false
        clip = area
        choiceHeld = true
    }

    /// Clips choose again (at the next frame, as before the hold).
    public func releaseDrawingChoice() {
        choiceHeld = false
    }

    /// The clip area above which one thread draws in bands (the tests raise it to compare): a
    /// morph's band around its line (a third of a 1080p screen) too, whose grid drawn at once
    /// would be as large as the band and grow with every larger one (fresh pages each time).
    var bandClipArea = Canvas.oneThreadBandArea / 4
    /// Whether draw calls are being recorded for the bands now.
    var recordsInBands: Bool { bands != nil }

    /// What `renderThreads` "auto" means here: the processors online, at most four (beyond that
    /// the bands' shared recording dominates).
    public static var automaticThreadCount: Int { min(4, BandRenderer.processorsOnline) }

    /// Draws whatever was recorded and writes every deferred clear.
    public func finish() {
        if let bands, !bands.isEmpty {
            replay(bands)
        } else if hasPendingClears {
            flushPendingClears()
        } else {
            return  // nothing was pending: the clip's choice stands (reads of `buffer` come here)
        }
        chooseBands()
    }

    /// The band renderer, kept while the canvas is large or has helper threads.
    private var renderer: BandRenderer?
    /// The renderer while draw calls are recorded for bands; nil while they draw at once.
    private var bands: BandRenderer?

    private var uniformRuns: [UniformRun] = []
    private var uniformGeneration: UInt32 = 1
    private var hasPendingClears = false

    /// Writes every deferred clear.
    private func flushPendingClears() {
        guard hasPendingClears else { return }
        hasPendingClears = false
        let height = storage.height
        withTarget { $0.flushClears(rows: 0..<height) }
    }

    /// Runs `body` with the pixels and the rows' clear runs as raw pointers (the runs sized to the
    /// rows first). `body` must not touch `buffer`.
    private func withTarget<R>(_ body: (BandTarget) -> R) -> R {
        if uniformRuns.count != storage.height { uniformRuns = Array(repeating: UniformRun(), count: storage.height) }
        let stride = storage.stride, generation = uniformGeneration, shift = BandTarget.blockShift(width: storage.width)
        return storage.pixels.withUnsafeMutableBufferPointer { pixels in
            uniformRuns.withUnsafeMutableBufferPointer { runs in
                body(BandTarget(base: pixels.baseAddress!, stride: stride, runs: runs.baseAddress!, generation: generation,
                                blockShift: shift))
            }
        }
    }

    /// Replays the recorded draw calls band by band on the renderer's threads, then the deferred clears.
    private func replay(_ bands: BandRenderer) {
        let height = storage.height
        withTarget { bands.replay(height: height, $0) }
        hasPendingClears = false
    }

    /// Drops what was recorded without drawing it (the pixels are being replaced).
    private func discardRecording() { bands?.reset() }

    /// Nothing is ever written outside this rectangle (clipped to the buffer).
    public var clip: IntRect { didSet { chooseBands() } }
    /// Applied to every path before it is flattened, stroked and filled.
    public var transform: Transform = .identity
    /// Flattening tolerance in device pixels.
    public var tolerance: Double = 0.1

    private let accumulator = CoverageAccumulator()
    private var tableCache = PreparedPaint.TableCache()
    /// The edges (pairs of points) of the draw call being made, from `edgeBase` on. With bands
    /// this is the recorder's list, lent for the call: the fills before it stay in front, and
    /// a recorded fill's edges are never copied (at 4K, 5,000 points, 1.6 MB a frame were).
    private var edges: [Point] = []
    private var edgeBase = 0

    /// Starts a draw call's edges: with bands, after the fills already recorded.
    private func beginEdges() {
        if let bands {
            swap(&edges, &bands.edges)
            edgeBase = edges.count
        } else {
            edges.removeAll(keepingCapacity: true)
            edgeBase = 0
        }
    }

    /// Ends a draw call: what was not recorded is dropped and the list goes back to the recorder.
    private func endEdges() {
        guard let bands else { return }
        edges.removeSubrange(bands.recordedPointCount...)
        swap(&edges, &bands.edges)
        edgeBase = 0
    }
    private var strokeBuffers = StrokerBuffers()
    private var dashes = Dashes()

    public init(buffer: PixelBuffer) {
        self.storage = buffer
        self.clip = buffer.bounds
        makeRenderer(threads: 1)
    }

    deinit { renderer?.shutdown() }

    public convenience init(width: Int, height: Int) {
        self.init(buffer: PixelBuffer(width: width, height: height))
    }

    public var width: Int { storage.width }
    public var height: Int { storage.height }

    /// Software dimming of every colour drawn from now on (nil: full level).
    public var dimming: Dimming? {
        get { storage.dimming }
        set { storage.dimming = newValue }
    }

    /// Fills the clip rectangle (or `rect` inside it) with `color`, replacing what was there.
    public func clear(_ color: Color, rect: IntRect? = nil) {
        let r = (rect ?? clip).intersection(clip).intersection(storage.bounds)
        guard !r.isEmpty else { return }
        let value = (dimming?.apply(color) ?? color).premultiplied
        hasPendingClears = true
        if let bands {
            bands.recordClear(value, r, height: storage.height)
            return
        }
        withTarget { $0.clearRows(r, rows: r.y0..<r.y1, value) }
    }

    /// Fills `path` (closing open subpaths) with `paint`.
    @discardableResult
    public func fill(_ path: Path, paint: Paint, rule: FillRule = .nonZero, blend: BlendMode = .sourceOver) -> DrawResult {
        let (lines, sawNonFinite) = path.flattened(transform: transform, tolerance: tolerance)
        beginEdges()
        defer { endEdges() }
        for line in lines where line.points.count >= 2 {
            let pts = line.points
            for i in 1..<pts.count { edges.append(pts[i - 1]); edges.append(pts[i]) }
            edges.append(pts[pts.count - 1]); edges.append(pts[0])
        }
        if edges.count == edgeBase { return sawNonFinite ? .partial : .empty }
        rasterize(paint: paint, rule: rule, blend: blend)
        return sawNonFinite ? .partial : .drawn
    }

    /// Strokes `path` with `style` and `paint`; overlapping parts of the stroke are painted once.
    @discardableResult
    public func stroke(_ path: Path, style: StrokeStyle, paint: Paint, blend: BlendMode = .sourceOver) -> DrawResult {
        let scale = transform.lengthScale
        let width = style.width * scale
        guard width.isFinite, width > 0 else { return style.width == 0 ? .empty : .rejected }
        let (lines, sawNonFinite) = path.flattened(transform: transform, tolerance: tolerance)
        // A clipped redraw strokes only what reaches the clip; dashes that do not are not even
        // built (a scrub redraws 1 % of a baseline of 352 dashes). Both paths below take them.
        let visible = strokeReach(style, width: width)
        if !style.dashes.isEmpty {
            guard dashed(lines, pattern: style.dashes.map { $0 * scale }, offset: style.dashOffset * scale,
                         visible: visible, into: &dashes) else { return .rejected }
        }
        if wholePixelStrokes, !sawNonFinite, style.cap != .round,
           let result = strokeWholePixels(lines, style: style, width: width, visible: visible, paint: paint, blend: blend) {
            return result
        }
        beginEdges()
        defer { endEdges() }
        // The arrays change hands without a second reference, so appending never copies them. The
        // stroker appends its edges after the ones already there.
        var buffers = StrokerBuffers()
        swap(&buffers, &strokeBuffers)
        swap(&buffers.edges, &edges)
        var stroker = Stroker(halfWidth: width / 2, cap: style.cap, join: style.join, miterLimit: style.miterLimit,
                              tolerance: tolerance, buffers: buffers)
        buffers = StrokerBuffers()   // the stroker's reference is the only one before it appends (not `consume`: 6.0 rejects it here)
        stroker.visible = visible
        if let bands, bands.threads > 1 { stroker.runTasks = bands.runTasks }
        if style.dashes.isEmpty {
            for line in lines where !line.points.isEmpty { stroker.stroke(line) }
        } else {
            for k in 0..<dashes.count where dashes.starts[k + 1] > dashes.starts[k] {
                stroker.stroke(dashes[k], isClosed: false)
            }
        }
        swap(&edges, &stroker.edges)
        let bounds = stroker.bounds
        strokeBuffers = stroker.takeBuffers()
        if edges.count == edgeBase { return sawNonFinite ? .partial : .empty }
        rasterize(paint: paint, rule: .nonZero, blend: blend, bounds: bounds)
        return sawNonFinite ? .partial : .drawn
    }

    /// What a clipped redraw strokes: what comes this close to the clip (device pixels); nil when
    /// the clip is the whole buffer. The farthest any part of a segment's stroke gets from it is a
    /// miter tip, or a square cap's corner.
    private func strokeReach(_ style: StrokeStyle, width: Double) -> (x0: Double, y0: Double, x1: Double, y1: Double)? {
        let area = clip.intersection(storage.bounds)
        guard area != storage.bounds else { return nil }
        let miterLimit = style.miterLimit.isFinite ? max(1, style.miterLimit) : 4
        let reach = width / 2 * max(style.join == .miter ? miterLimit : 1, 1.5) + 1
        return (Double(area.x0) - reach, Double(area.y0) - reach, Double(area.x1) + reach, Double(area.y1) + reach)
    }

    /// A one-segment stroke (or its dashes) that is a set of axis-aligned rectangles on whole
    /// pixels: composited as spans of full coverage, without the stroker, the edge walk and the
    /// cells (see `WholePixelRects`), at once or, with bands, recorded for each band to composite
    /// its rows of them. Nil when the stroke is not one (the general path draws it); otherwise what
    /// `stroke` returns for it, decided as the general path decides. The dashes, if the style has
    /// any, are already in `dashes`.
    private func strokeWholePixels(_ lines: [Polyline], style: StrokeStyle, width: Double,
                                   visible: (x0: Double, y0: Double, x1: Double, y1: Double)?,
                                   paint: Paint, blend: BlendMode) -> DrawResult? {
        guard lines.count == 1, lines[0].points.count == 2, !lines[0].isClosed else { return nil }
        var pieces: [(Point, Point)] = []
        if !style.dashes.isEmpty {
            for k in 0..<dashes.count where dashes.starts[k + 1] > dashes.starts[k] {
                let d = dashes[k]
                guard d.count == 2 else { return nil }
                pieces.append((d[d.startIndex], d[d.startIndex + 1]))
            }
        } else {
            pieces.append((lines[0].points[0], lines[0].points[1]))
        }
        // As the stroker's one-segment path: pieces that miss the clip are dropped, a point is not
        // a segment (square ends make it a square there).
        if pieces.contains(where: { $0.0.distance(to: $0.1) <= 1e-9 }) { return nil }
        if let v = visible { pieces.removeAll { !segment($0.0, $0.1, reaches: v) } }
        if pieces.isEmpty { return .empty }
        let area = clip.intersection(storage.bounds)
        guard let rects = WholePixelRects(pieces: pieces, halfWidth: width / 2, squareEnds: style.cap == .square,
                                          area: area) else { return nil }
        let b = rects.bounds
        let grid = Canvas.grid(minX: Double(b.x0), minY: Double(b.y0), maxX: Double(b.x1), maxY: Double(b.y1), in: area)
        guard !rects.isEmpty, !grid.isEmpty else { return .drawn }
        let prepared = PreparedPaint(dimming.map { $0.apply(paint) } ?? paint, transform: .identity, cache: &tableCache)
        if let bands {
            bands.recordRects(rects.rects, grid: grid, paint: prepared, blend: blend, height: storage.height)
            return .drawn
        }
        accumulator.reset(to: grid)
        accumulator.setWholePixelRects(rects.rects)
        withTarget { Canvas.composite(accumulator, prepared, .nonZero, blend, $0) }
        return .drawn
    }

    /// Fills an axis-aligned rectangle in device pixels (anti-aliased at fractional edges).
    @discardableResult
    public func fillRect(x: Double, y: Double, width: Double, height: Double, paint: Paint,
                         blend: BlendMode = .sourceOver) -> DrawResult {
        var p = Path()
        p.addRect(x: x, y: y, width: width, height: height)
        return fill(p, paint: paint, blend: blend)
    }

    /// The coverage grid for a shape with this bounding box: the clip horizontally from the
    /// shape's left edge (edges left of it still count through the running sum; one column more on
    /// the right for its last cells) and the shape's rows vertically.
    /// (Always inlined: `rasterize` then calls the edge walk out of line as before; with this a
    /// call of its own, the compiler inlined the walk there instead, 0.17 M instructions a frame worse.)
    @inline(__always)
    static func grid(minX: Double, minY: Double, maxX: Double, maxY: Double, in area: IntRect) -> IntRect {
        func clampToInt(_ v: Double, _ lo: Int, _ hi: Int) -> Int {
            if !(v > Double(lo)) { return lo }
            if v >= Double(hi) { return hi }
            return Int(v)
        }
        return IntRect(x0: clampToInt(minX.rounded(.down), area.x0, area.x1),
                       y0: clampToInt(minY.rounded(.down), area.y0, area.y1),
                       x1: clampToInt(maxX.rounded(.up) + 1, area.x0, area.x1),
                       y1: clampToInt(maxY.rounded(.up), area.y0, area.y1))
    }

    /// Rasterizes `edges` (pairs of points in device space) and composites the coverage, or
    /// records them for the bands.
    /// `bounds`, when given, is the bounding box of the edges' points (the stroker gathers it).
    private func rasterize(paint: Paint, rule: FillRule, blend: BlendMode,
                           bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        if let bounds {
            (minX, minY, maxX, maxY) = bounds
        } else {
            for p in edges[edgeBase...] {
                minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        let area = clip.intersection(storage.bounds)
        guard !area.isEmpty, minX <= maxX, minY <= maxY else { return }
        let grid = Canvas.grid(minX: minX, minY: minY, maxX: maxX, maxY: maxY, in: area)
        guard !grid.isEmpty else { return }
        let prepared = PreparedPaint(dimming.map { $0.apply(paint) } ?? paint, transform: .identity, cache: &tableCache)
        if let bands {
            bands.recordFill(grid: grid, paint: prepared, rule: rule, blend: blend, pointCount: edges.count, height: storage.height)
            return
        }
        accumulator.reset(to: grid)
        edges.withUnsafeBufferPointer { accumulator.addEdges($0) }
        withTarget { Canvas.composite(accumulator, prepared, rule, blend, $0) }
    }

    /// Sweeps `accumulator` and composites its coverage with `prepared` into the target, keeping
    /// the rows' clear runs up to date. Touches only the rows the accumulator holds.
    static func composite(_ accumulator: CoverageAccumulator, _ prepared: PreparedPaint, _ rule: FillRule,
                          _ blend: BlendMode, _ target: BandTarget) {
        // Copies of the span loop, each with the paint's kind and the fill rule fixed: their tests
        // leave the loop (the rule's test ran twice per chunk of cells: 0.2 M instructions a frame).
        switch (prepared.isConstantAlongRows, rule) {
        case (true, .nonZero): composite(accumulator, prepared, .nonZero, blend, target, constantAlongRows: true)
        case (true, .evenOdd): composite(accumulator, prepared, .evenOdd, blend, target, constantAlongRows: true)
        case (false, .nonZero): composite(accumulator, prepared, .nonZero, blend, target, constantAlongRows: false)
        case (false, .evenOdd): composite(accumulator, prepared, .evenOdd, blend, target, constantAlongRows: false)
        }
    }

    @inline(__always)
    private static func composite(_ accumulator: CoverageAccumulator, _ prepared: PreparedPaint, _ rule: FillRule,
                                  _ blend: BlendMode, _ target: BandTarget, constantAlongRows: Bool) {
        let base = target.base, stride = target.stride, runs = target.runs, generation = target.generation
        // The row being painted: its run, kept here while its spans arrive and stored when the
        // row changes, and the stretch of its paint not yet taken from the run's clean blocks
        // (adjacent spans are one stretch). Until then only pixels outside the run, which no
        // clear writes, are marked clean without holding the colour.
        var rowY = Int.min
        var run = UniformRun()
        var live = false
        var paintedX0 = 0, paintedX1 = 0
        var rowColor: UInt32 = 0
        accumulator.sweep(rule: rule) { y, x0, x1, coverage, mask in
            if y != rowY {
                if live {
                    if paintedX1 > paintedX0 { target.dirty(&run, paintedX0, paintedX1) }
                    runs[rowY] = run
                }
                rowY = y
                run = runs[y]
                live = run.generation == generation
                paintedX0 = x0; paintedX1 = x0
                if constantAlongRows { rowColor = prepared.color(x: x0, y: y) }
            }
            let row = base + y &* stride
            let valid = live && x0 < Int(run.x1) && x1 > Int(run.x0)
            let contained = valid && Int(run.x0) <= x0 && x1 <= Int(run.x1)
            if valid && run.pending && !(contained && constantAlongRows) {
                // Paint that needs the real pixels: write the deferred clear first.
                target.writeClear(&run, y: y, Int(run.x0), Int(run.x1))
                run.pending = false
            }
            if let mask {
                if contained && constantAlongRows {
                    Canvas.compositeMask(row + x0, mask, x1 &- x0, over: run.color, rowColor, blend)
                } else if constantAlongRows {
                    Canvas.compositeMask(row + x0, mask, x1 &- x0, rowColor, blend)
                } else {
                    for x in x0..<x1 {
                        Canvas.composite(row, x, x + 1, prepared.color(x: x, y: y), UInt32(mask[x - x0]), blend)
                    }
                }
            } else if contained && constantAlongRows {
                // One blend for the whole span against the run's colour, then a write-only fill.
                let value: UInt32
                switch blend {
                case .sourceOver: value = blendOver(run.color, rowColor, coverage: coverage)
                case .sourceCopy: value = coverage == 255 ? rowColor : lerpPixel(run.color, rowColor, coverage)
                }
                SpanKernels.fill(row + x0, x1 &- x0, value)
            } else if constantAlongRows {
                Canvas.composite(row, x0, x1, rowColor, coverage, blend)
            } else {
                for x in x0..<x1 { Canvas.composite(row, x, x + 1, prepared.color(x: x, y: y), coverage, blend) }
            }
            guard live else { return }
            // What was written no longer holds the run's colour. Spans arrive left to right,
            // so the side to the right is kept while there is one (writing the left one now if
            // the clear is still pending): the row's later spans then still land on the run.
            if valid {
                let left = x0 &- Int(run.x0), right = Int(run.x1) &- x1
                if right <= 0 {
                    run.narrow(to: Int(run.x0), max(Int(run.x0), x0))
                } else {
                    if run.pending && left > 0 { target.writeClear(&run, y: y, Int(run.x0), x0) }
                    run.narrow(to: min(Int(run.x1), x1), Int(run.x1))
                }
            }
            if x0 >= paintedX0 && x0 <= paintedX1 {
                paintedX1 = max(paintedX1, x1)
            } else {
                if paintedX1 > paintedX0 { target.dirty(&run, paintedX0, paintedX1) }
                paintedX0 = x0; paintedX1 = x1
            }
        }
        if live {
            if paintedX1 > paintedX0 { target.dirty(&run, paintedX0, paintedX1) }
            runs[rowY] = run
        }
    }

    /// Per-pixel coverage over pixels that all hold `destination` (a pending clear's colour):
    /// written without reading them.
    @inline(__always)
    private static func compositeMask(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int,
                                      over destination: UInt32, _ src: UInt32, _ blend: BlendMode) {
        switch blend {
        case .sourceOver: SpanKernels.over(out, mask, count, src, constantDestination: destination)
        case .sourceCopy: SpanKernels.lerp(out, mask, count, src, constantDestination: destination)
        }
    }

    /// Per-pixel coverage over the pixels in place.
    @inline(__always)
    private static func compositeMask(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int,
                                      _ src: UInt32, _ blend: BlendMode) {
        switch blend {
        case .sourceOver: SpanKernels.over(out, mask, count, src, constantDestination: nil)
        case .sourceCopy: SpanKernels.lerp(out, mask, count, src, constantDestination: nil)
        }
    }

    @inline(__always)
    private static func composite(_ row: UnsafeMutablePointer<UInt32>, _ x0: Int, _ x1: Int, _ src: UInt32,
                                  _ coverage: UInt32, _ blend: BlendMode) {
        switch blend {
        case .sourceOver:
            if src >> 24 == 255 && coverage == 255 {
                SpanKernels.fill(row + x0, x1 &- x0, src)
            } else if src != 0 {
                // Translucent paint mostly lands on a uniform background (a gradient over the chart's
                // backdrop): remembering the last destination skips the arithmetic on repeats.
                var lastDestination = ~row[x0]
                var lastResult: UInt32 = 0
                for x in x0..<x1 {
                    let d = row[x]
                    if d != lastDestination {
                        lastDestination = d
                        lastResult = blendOver(d, src, coverage: coverage)
                    }
                    row[x] = lastResult
                }
            }
        case .sourceCopy:
            if coverage == 255 {
                SpanKernels.fill(row + x0, x1 - x0, src)
            } else {
                for x in x0..<x1 { row[x] = lerpPixel(row[x], src, coverage) }
            }
        }
    }
}

/// `dst` moved towards `src` by `t`/255, per channel: source-copy with coverage, and source-over
/// of an opaque colour (the glyph compositor's case).
@inlinable @inline(__always)
public func lerpPixel(_ dst: UInt32, _ src: UInt32, _ t: UInt32) -> UInt32 {
    let it = 255 &- t
    var rb = (src & 0x00FF_00FF) &* t &+ (dst & 0x00FF_00FF) &* it &+ 0x0080_0080
    rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    var ag = ((src >> 8) & 0x00FF_00FF) &* t &+ ((dst >> 8) & 0x00FF_00FF) &* it &+ 0x0080_0080
    ag = ((ag &+ ((ag >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    return rb | (ag << 8)
}
