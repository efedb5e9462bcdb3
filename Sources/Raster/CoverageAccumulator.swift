/// `floor` and `ceil` for the grid's coordinates (0 <= v < 2^51) without a libm call or the range
/// checks of a conversion: adding 2^52 leaves v rounded to an integer in the low mantissa bits, one
/// off where that rounded the wrong way. The baseline x86-64 target has no rounding instruction,
/// and these run once per row of every edge.
@inline(__always)
func floorOfNonNegative(_ v: Double) -> Int {
    let magic: Double = 4_503_599_627_370_496
    let r = v + magic
    let n = Int(truncatingIfNeeded: r.bitPattern &- magic.bitPattern)
    return r - magic > v ? n &- 1 : n
}

@inline(__always)
func ceilOfNonNegative(_ v: Double) -> Int {
    let magic: Double = 4_503_599_627_370_496
    let r = v + magic
    let n = Int(truncatingIfNeeded: r.bitPattern &- magic.bitPattern)
    return r - magic < v ? n &+ 1 : n
}

/// Which points count as inside a path.
public enum FillRule: Sendable {
    case nonZero
    case evenOdd
}

/// Exact-area scanline coverage: every edge deposits, into the cells of the rows it crosses, the
/// signed area it adds to each pixel; a running sum along a row then gives each pixel's coverage.
/// Cells are Float, visited through a bitmap with one bit per chunk of four touched cells (a chunk is
/// read whole, without a branch per cell), and cleared as they are read, so the cost follows the
/// edges, not the bounding box, and nothing is allocated per frame once warm.
final class CoverageAccumulator {
    /// The grid: device pixels [originX, originX + width) x [originY, originY + height).
    private(set) var originX = 0, originY = 0, width = 0, height = 0
    /// Cells per row: width + 2 (so an edge at the right border can still write its two cells),
    /// rounded up to whole chunks.
    private var rowCells = 0
    /// Cells per bit of the touched bitmap.
    static let chunkShift = 2, chunk = 1 << chunkShift
    private var rowWords = 0
    // Raw storage owned by this object: Swift arrays in a class would pay a dynamic exclusivity
    // check on every access, which was a third of the stroke time at 5,000 points.
    private var cells = UnsafeMutablePointer<Float>.allocate(capacity: 0)
    private var cellCapacity = 0
    private var touched = UnsafeMutablePointer<UInt64>.allocate(capacity: 0)
    private var wordCapacity = 0
    /// Rows holding any touched cell, so the sweep skips untouched rows quickly.
    private var rowTouched = UnsafeMutablePointer<Bool>.allocate(capacity: 0)
    /// Per row, the change in the number of whole rows (signed) that edges wholly left of the grid
    /// add to cell 0 from this row on: such an edge (the left part of a filled shape in a clipped
    /// redraw) then costs two writes, not one per row. The sweep sums it down the rows.
    private var leftSteps = UnsafeMutablePointer<Int32>.allocate(capacity: 0)
    private var rowCapacity = 0
    /// Grid rows [windowLo, windowHi) are accumulated; storage row 0 is grid row windowLo.
    private(set) var windowLo = 0, windowHi = 0
    private(set) var minRow = Int.max, maxRow = Int.min

    deinit {
        cells.deallocate()
        touched.deallocate()
        rowTouched.deallocate()
        leftSteps.deallocate()
        maskRow.deallocate()
        rowSpans.deallocate()
    }

    /// Prepares an empty grid for the device rectangle `area` (already clipped to the target),
    /// accumulating only the device rows `rows` of it (a band; nil: all). Coordinates stay relative
    /// to the whole area, so a band's rows get exactly the coverage a whole-area pass gives them.
    func reset(to area: IntRect, rows: Range<Int>? = nil) {
        originX = area.x0; originY = area.y0
        width = area.width; height = area.height
        windowLo = max(0, (rows?.lowerBound ?? area.y0) - area.y0)
        windowHi = max(windowLo, min(height, (rows?.upperBound ?? area.y1) - area.y0))
        let windowRows = windowHi - windowLo
        rowCells = (width + 2 + Self.chunk - 1) & ~(Self.chunk - 1)
        rowWords = (rowCells + (64 << Self.chunkShift) - 1) >> (6 + Self.chunkShift)
        let cellCount = rowCells * windowRows, wordCount = rowWords * windowRows
        // Invariant: every cell and word is zero between uses (the sweep clears what it reads).
        // Grown by half again at least: a partial redraw's rectangles grow a little from frame to
        // frame, and each exact-size growth zeroed fresh pages (page faults every few frames).
        if cellCapacity < cellCount {
            let capacity = max(cellCount, cellCapacity + cellCapacity / 2)
            cells.deallocate()
            cells = .allocate(capacity: capacity)
            cells.initialize(repeating: 0, count: capacity)
            cellCapacity = capacity
        }
        if wordCapacity < wordCount {
            let capacity = max(wordCount, wordCapacity + wordCapacity / 2)
            touched.deallocate()
            touched = .allocate(capacity: capacity)
            touched.initialize(repeating: 0, count: capacity)
            wordCapacity = capacity
        }
        if rowCapacity < windowRows {
            rowTouched.deallocate()
            rowTouched = .allocate(capacity: windowRows)
            rowTouched.initialize(repeating: false, count: windowRows)
            leftSteps.deallocate()
            leftSteps = .allocate(capacity: windowRows + 1)
            leftSteps.initialize(repeating: 0, count: windowRows + 1)
            rowCapacity = windowRows
        }
        minRow = Int.max; maxRow = Int.min
        if !wholeRects.isEmpty { wholeRects.removeAll(keepingCapacity: true) }
        windowCells = cells - windowLo &* rowCells
        windowBits = touched - windowLo &* rowWords
        windowRowFlags = rowTouched - windowLo
    }

    /// The storage indexed by grid row (storage row 0 is grid row windowLo), set by `reset`: what
    /// each edge would otherwise compute again from the fields above. Nothing is read through them
    /// before the first `reset` (the window is empty until then).
    private var windowCells = UnsafeMutablePointer<Float>(bitPattern: MemoryLayout<Float>.alignment)!
    private var windowBits = UnsafeMutablePointer<UInt64>(bitPattern: MemoryLayout<UInt64>.alignment)!
    private var windowRowFlags = UnsafeMutablePointer<Bool>(bitPattern: 1)!

    /// Adds the edges given as consecutive pairs of points (device pixels). Edges outside the grid
    /// still count to the left (they shift the running sum) and are dropped elsewhere. One call
    /// takes many edges: the grid's fields and storage stay in registers across them, and an edge
    /// costs no call of its own (LLVM would not inline a per-edge function this size).
    func addEdges(_ points: UnsafeBufferPointer<Point>) {
        guard windowHi > windowLo, width > 0, let base = points.baseAddress else { return }
        let ox = Double(originX), oy = Double(originY), w = Double(width)
        let top = Double(windowLo), bottom = Double(windowHi)
        let lo = windowLo, cellBase = windowCells, bitBase = windowBits, rows = windowRowFlags
        let rowCells = self.rowCells, rowWords = self.rowWords
        var minRow = self.minRow, maxRow = self.maxRow
        defer { self.minRow = minRow; self.maxRow = maxRow }
        for e in 0..<(points.count / 2) {
            let p0 = base[2 &* e], p1 = base[2 &* e &+ 1]
            // Grid-relative coordinates. Each row's crossing is computed from these original endpoints,
            // never from clipped ones, so a clipped redraw yields the same coverage as a full one.
            let x0 = p0.x - ox, y0 = p0.y - oy
            let x1 = p1.x - ox, y1 = p1.y - oy
            guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, y0 != y1 else { continue }
            let sign: Double = y1 > y0 ? 1 : -1
            let (ta, tb) = y0 < y1 ? ((x0, y0), (x1, y1)) : ((x1, y1), (x0, y0))
            let yTop = max(ta.1, top), yBottom = min(tb.1, bottom)
            guard yTop < yBottom else { continue }
            if max(ta.0, tb.0) >= w + 1 && min(ta.0, tb.0) >= w + 1 { continue }  // wholly right of the grid
            let dxdy = (tb.0 - ta.0) / (tb.1 - ta.1)
            let firstRow = floorOfNonNegative(yTop), lastRow = ceilOfNonNegative(yBottom) &- 1
            if firstRow < minRow { minRow = firstRow }
            if lastRow > maxRow { maxRow = lastRow }
            @inline(__always) func piece(_ row: Int, _ xa: Double, _ xb: Double, _ h: Double) {
                rows[row] = true
                // Rows lie inside the window and cells inside a row: no overflow to check.
                let rc = cellBase + row &* rowCells, rb = bitBase + row &* rowWords
                // Most pieces (steep edges, inside the grid) stay within one cell: accumulateRow's
                // first case, without its clipping and its second conversion. (Both are finite.)
                let lo = xa < xb ? xa : xb, hi = xa < xb ? xb : xa
                if lo >= 0 && hi <= w {
                    let i0 = floorOfNonNegative(lo)
                    if hi <= Double(i0 &+ 1) {
                        let mid = (lo + hi) * 0.5 - Double(i0)
                        rc[i0] += Float(h * (1 - mid))
                        rc[i0 &+ 1] += Float(h * mid)
                        Self.markPair(rb, i0)
                        return
                    }
                }
                Self.accumulateRow(rc, rb, xa, xb, h, w)
            }
            if max(ta.0, tb.0) <= 0 {
                // Wholly left of the grid: each row gets the edge's height there in cell 0 (what
                // accumulateRow's first case deposits). The edge's whole rows are counted as one step
                // up and one back down, summed by the sweep; only the rows its ends lie in get a
                // deposit. Which rows are whole depends on the edge alone, not on the window, so a
                // band gets the values one pass over the whole grid gives.
                let wholeLo = ceilOfNonNegative(yTop), wholeHi = floorOfNonNegative(yBottom)
                if wholeLo < wholeHi {
                    let steps = leftSteps - lo, step = Int32(sign)
                    steps[wholeLo] &+= step
                    steps[wholeHi] &-= step
                }
                if yTop < Double(wholeLo) { piece(firstRow, -1, -1, sign * (min(yBottom, Double(wholeLo)) - yTop)) }
                if wholeHi >= wholeLo && Double(wholeHi) < yBottom { piece(wholeHi, -1, -1, sign * (yBottom - Double(wholeHi))) }
                continue
            }
            // Row by row from the top row's crossing (rowTop = yTop there); a row's bottom crossing is
            // the next row's top one. The rows between the first and the last are whole (height 1),
            // with the same values as min/max against yTop and yBottom would give.
            var xa = ta.0 + (yTop - ta.1) * dxdy
            let firstBottom = min(yBottom, Double(firstRow &+ 1))
            let xFirst = ta.0 + (firstBottom - ta.1) * dxdy
            if firstBottom - yTop > 0 { piece(firstRow, xa, xFirst, sign * (firstBottom - yTop)) }
            xa = xFirst
            guard lastRow > firstRow else { continue }
            var row = firstRow &+ 1
            if row < lastRow && min(ta.0, tb.0) >= 1e-6 && max(ta.0, tb.0) <= w - 1e-6 {
                // Whole rows of an edge inside the grid (rounding cannot carry a crossing out of it):
                // piece's tests and address arithmetic hoisted, the same values deposited.
                var rc = cellBase + row &* rowCells, rb = bitBase + row &* rowWords
                var yNext = Double(row &+ 1)
                let hOne = Float(sign)
                while row < lastRow {
                    let xb = ta.0 + (yNext - ta.1) * dxdy
                    rows[row] = true
                    let lo = xa < xb ? xa : xb, hi = xa < xb ? xb : xa
                    let i0 = floorOfNonNegative(lo)
                    if hi <= Double(i0 &+ 1) {
                        let mid = (lo + hi) * 0.5 - Double(i0)
                        rc[i0] += hOne * Float(1 - mid)
                        rc[i0 &+ 1] += hOne * Float(mid)
                        Self.markPair(rb, i0)
                    } else {
                        Self.accumulateRow(rc, rb, xa, xb, sign, w)
                    }
                    xa = xb
                    row &+= 1
                    yNext += 1
                    rc += rowCells
                    rb += rowWords
                }
            }
            while row < lastRow {
                let xb = ta.0 + (Double(row &+ 1) - ta.1) * dxdy
                piece(row, xa, xb, sign)
                xa = xb
                row &+= 1
            }
            let xLast = ta.0 + (yBottom - ta.1) * dxdy
            if yBottom - Double(lastRow) > 0 { piece(lastRow, xa, xLast, sign * (yBottom - Double(lastRow))) }
        }
    }

    /// Whole-pixel rectangles that stand for this fill's edges (see `setWholePixelRects`).
    private var wholeRects: [IntRect] = []

    /// Gives the fill as rectangles on whole pixels at full coverage instead of edges: disjoint,
    /// within the grid, sorted by rows then x, and those that share their first row share all of
    /// them (what `WholePixelRects` makes). The sweep hands each row of each on as one span of
    /// coverage 255, which is what their edges' cells would sum to, without cells (a scrub
    /// cursor's 962 rows each cost a mask span through the cells: a tenth of a scrub frame).
    func setWholePixelRects(_ rects: [IntRect]) {
        wholeRects.removeAll(keepingCapacity: true)
        wholeRects.append(contentsOf: rects)
    }

    /// Deposits one row's piece of an edge, from x = `xa` to `xb` with signed height `h`.
    @inline(__always)
    private static func accumulateRow(_ rowCells: UnsafeMutablePointer<Float>, _ rowBits: UnsafeMutablePointer<UInt64>,
                               _ xa: Double, _ xb: Double, _ h: Double, _ w: Double) {
        var lo = min(xa, xb), hi = max(xa, xb)
        var h = h
        // The part left of the grid covers everything to its right: fold it into a vertical at x = 0.
        if lo < 0 {
            if hi <= 0 {
                deposit(rowCells, rowBits, 0, Float(h))
                return
            }
            let leftShare = (0 - lo) / (hi - lo)
            deposit(rowCells, rowBits, 0, Float(h * leftShare))
            h *= 1 - leftShare
            lo = 0
        }
        // Right of the grid nothing is visible, but the row's sum must still return to zero:
        // fold that part into a vertical at x = width (a cell the sweep clears and never paints).
        if hi > w {
            if lo >= w {
                deposit(rowCells, rowBits, Int(w), Float(h))
                return
            }
            let rightShare = (hi - w) / (hi - lo)
            deposit(rowCells, rowBits, Int(w), Float(h * rightShare))
            h *= 1 - rightShare
            hi = w
        }
        let i0 = floorOfNonNegative(lo)
        let span = hi - lo
        let i1 = ceilOfNonNegative(hi)  // first cell wholly right of the edge
        if span < 1e-9 || i1 <= i0 + 1 {
            // Within one cell: the covered fraction is the distance from the mean x to the cell's right side.
            let mid = (lo + hi) * 0.5 - Double(i0)
            deposit(rowCells, rowBits, i0, Float(h * (1 - mid)))
            deposit(rowCells, rowBits, i0 + 1, Float(h * mid))
            return
        }
        // Across several cells: cov(c) = G(c+1) - G(c), with G the integral of the covered fraction
        // (quadratic inside [lo, hi], linear past it); each cell stores the change of coverage.
        let inv = 1 / span
        if i1 == i0 + 2 {
            // Across one cell border (most pieces that leave a cell: a fifth of all rows of edges
            // in a chart frame): the loop below unrolled, the same operations on the same values,
            // with G(i0) = 0 (i0 <= lo), i0 + 1 strictly inside (lo, hi) and i0 + 2 >= hi.
            let d = Double(i0 + 1) - lo
            let g1 = d * d * 0.5 * inv
            let g2 = span * 0.5 + (Double(i0 + 2) - hi)
            let cov1 = g2 - g1
            rowCells[i0] += Float(h * (g1 - 0))
            rowCells[i0 + 1] += Float(h * (cov1 - g1))
            rowCells[i0 + 2] += Float(h * (1 - cov1))
            markPair(rowBits, i0)
            markPair(rowBits, i0 + 1)
            return
        }
        func g(_ u: Double) -> Double {
            if u <= lo { return 0 }
            if u >= hi { return span * 0.5 + (u - hi) }
            let d = u - lo
            return d * d * 0.5 * inv
        }
        var previous = 0.0
        var gLeft = g(Double(i0))
        for c in i0..<i1 {
            let gRight = g(Double(c + 1))
            let cov = gRight - gLeft
            deposit(rowCells, rowBits, c, Float(h * (cov - previous)))
            previous = cov
            gLeft = gRight
        }
        deposit(rowCells, rowBits, i1, Float(h * (1 - previous)))
    }

    /// Marks the chunks of cells `i0` and `i0 + 1` with one write: the pair's bits side by side.
    /// When the first is a word's last chunk the second bit falls off the word; the sweep carries
    /// every word's top bit into the next word's first, which covers it.
    @inline(__always)
    private static func markPair(_ rowBits: UnsafeMutablePointer<UInt64>, _ i0: Int) {
        let c0 = i0 >> chunkShift, c1 = (i0 &+ 1) >> chunkShift
        rowBits[c0 >> 6] |= (1 | UInt64(truncatingIfNeeded: c1 &- c0) &<< 1) &<< UInt64(c0 & 63)
    }

    @inline(__always)
    private static func deposit(_ rowCells: UnsafeMutablePointer<Float>, _ rowBits: UnsafeMutablePointer<UInt64>,
                         _ cell: Int, _ value: Float) {
        rowCells[cell] += value
        rowBits[cell >> (6 + chunkShift)] |= 1 &<< UInt64((cell >> chunkShift) & 63)
    }

    /// Four non-zero coverages as bytes in memory order, as the scalar `quantise` makes them,
    /// in one SIMD register: min(|v|, 1) as the float select `v < 1 ? v : 1` (NaN gives 1, as in
    /// `quantise`; LLVM moves the select after the byte conversion, 5 instructions fewer a chunk than
    /// the bit-pattern compare it replaced), then v * 255 rounded by the 2^23 trick (as `quantise`
    /// explains).
    @inline(__always)
    static func quantiseNonZero(_ s: SIMD4<Float>) -> UInt32 {
        let v = unsafeBitCast(unsafeBitCast(s, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
        let one = SIMD4<Float>(repeating: 1)
        let y = one.replacing(with: v, where: v .< one) * 255
        let r = y + SIMD4<Float>(repeating: 8_388_608)
        let n = unsafeBitCast(r, to: SIMD4<Int32>.self) &- Int32(bitPattern: Float(8_388_608).bitPattern)
        return unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: n), to: UInt32.self)
    }

    /// Gaps of constant coverage up to this many pixels between touched cells join the mask span
    /// around them: a blend per pixel is cheaper than another span (the inside of a thin stroke).
    /// At most 16: the sweep writes a gap as two 8-byte stores. (Measured at n = 260, 1080p: 8 px
    /// 10.36 M instructions a frame, 12 px 10.23 M, 16 px 10.15 M, 32 px 10.25 M.)
    static let mergeGap = 16

    /// Scratch row of coverage values for mask spans, by column (width + 2 entries, and room for a
    /// gap's store).
    private var maskRow = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    private var maskCapacity = 0
    /// One row's spans, collected while its cells are summed and handed on after: from-to columns and
    /// the coverage, 0 for a mask span (a constant span's coverage is never 0).
    private var rowSpans = UnsafeMutablePointer<(x0: Int32, x1: Int32, coverage: UInt32)>.allocate(capacity: 0)

    /// Walks every touched row in order and leaves the grid cleared. Per row, it hands `sink` spans
    /// in increasing x: either one coverage (1...255) for all of [x0, x1) (`mask` nil), or one
    /// coverage per pixel in `mask[0 ..< x1 - x0]` (may hold zeros). Device coordinates.
    ///
    /// A row's spans are found first and handed on after, from one place: the loop over the cells
    /// stays small, and `sink` (the compositing with the clear-run bookkeeping, inlined) is called
    /// at two places, one per kind of span, instead of five, where LLVM had inlined it at four and
    /// called it at the fifth (the constant spans between mask spans, 2,550 calls a chart frame at
    /// ~160 instructions each).
    @inline(__always)
    func sweep(rule: FillRule,
               _ sink: (_ y: Int, _ x0: Int, _ x1: Int, _ coverage: UInt32, _ mask: UnsafePointer<UInt8>?) -> Void) {
        if !wholeRects.isEmpty {
            // Only the window's rows: a band composites the rows it owns.
            let top = originY + windowLo, bottom = originY + windowHi
            var g = 0
            while g < wholeRects.count {
                let first = wholeRects[g]
                var end = g + 1
                while end < wholeRects.count && wholeRects[end].y0 == first.y0 { end += 1 }
                // The group's rows in the window (none when it lies outside).
                let y0 = max(first.y0, top), y1 = max(min(first.y1, bottom), y0)
                for y in y0..<y1 {
                    for k in g..<end { sink(y, wholeRects[k].x0, wholeRects[k].x1, 255, nil) }
                }
                g = end
            }
            wholeRects.removeAll(keepingCapacity: true)
            return
        }
        guard minRow <= maxRow else { return }
        let width = self.width, rowCells = self.rowCells, rowWords = self.rowWords
        let ox = originX, oy = originY
        if maskCapacity < rowCells + Self.mergeGap {
            maskRow.deallocate()
            maskRow = .allocate(capacity: rowCells + Self.mergeGap)
            rowSpans.deallocate()
            // Each chunk of cells ends at most two spans (the mask span before a gap and the gap),
            // and the row's end two more.
            rowSpans = .allocate(capacity: 2 * (rowCells >> Self.chunkShift) + 4)
            maskCapacity = rowCells + Self.mergeGap
        }
        let evenOdd = rule == .evenOdd
        @inline(__always) func quantise(_ a: Float) -> UInt32 {
            var v = abs(a)
            if evenOdd {
                v = v.truncatingRemainder(dividingBy: 2)
                if v > 1 { v = 2 - v }
            } else {
                v = min(v, 1)
            }
            // v * 255 (in [0, 255]) to the nearest integer without the range checks of a
            // float-to-integer conversion: adding 2^23 leaves it rounded in the low mantissa bits.
            // Halves round to even (127.5 -> 128, 126.5 -> 126), which only exact ties notice.
            let magic: Float = 8_388_608
            return (v * 255 + magic).bitPattern &- magic.bitPattern
        }
        let mask = maskRow, spans = rowSpans
        let mergeGap = Self.mergeGap, chunkShift = Self.chunkShift
        let lo = windowLo, cellBase = cells - lo * rowCells, bitBase = touched - lo * rowWords, rows = rowTouched - lo
        let steps = leftSteps - lo
        var leftRows: Int32 = 0  // whole rows of edges left of the grid covering this row
        for row in minRow...maxRow {
            leftRows &+= steps[row]
            steps[row] = 0
            var count = 0  // spans found in this row
            @inline(__always) func add(_ x0: Int, _ x1: Int, _ coverage: UInt32) {
                spans[count] = (Int32(truncatingIfNeeded: x0), Int32(truncatingIfNeeded: x1), coverage)
                count &+= 1
            }
            if !rows[row] {
                // Only whole rows of edges left of the grid: one coverage across the row.
                if leftRows != 0 {
                    let c = quantise(Float(leftRows))
                    if c != 0 { add(0, width, c) }
                }
            } else {
                rows[row] = false
                let rc = cellBase + row &* rowCells
                let rb = bitBase + row &* rowWords
                if leftRows != 0 {
                    rc[0] += Float(leftRows)
                    rb[0] |= 1
                }
                var sum: Float = 0
                var x = 0  // first pixel not yet in a span (may pass the width inside the last chunk)
                var maskStart = -1  // first pixel of the mask span being built, if any
                var carry: UInt64 = 0
                for word in 0..<rowWords {
                    let raw = rb[word]
                    var bits = raw | carry
                    carry = raw >> 63
                    if bits == 0 { continue }
                    rb[word] = 0
                    while bits != 0 {
                        // Cells and pixels lie in the row: the index arithmetic below cannot overflow.
                        let cell = (word &<< 6 &+ bits.trailingZeroBitCount) &<< chunkShift
                        bits &= bits &- 1
                        let cells = rc + cell
                        if cell >= width {
                            // Right of the grid: nothing to paint, the cells only need clearing.
                            cells[0] = 0; cells[1] = 0; cells[2] = 0; cells[3] = 0
                            continue
                        }
                        if cell > x {
                            let c = quantise(sum)
                            if maskStart >= 0 && cell &- x <= mergeGap {
                                // The gap in two stores of eight bytes (the row has room past its end);
                                // what lands beyond the gap is rewritten or past the span.
                                let gap = UnsafeMutableRawPointer(mask + x), fill = UInt64(c) &* 0x0101_0101_0101_0101
                                gap.storeBytes(of: fill, as: UInt64.self)
                                gap.storeBytes(of: fill, toByteOffset: 8, as: UInt64.self)
                            } else {
                                if maskStart >= 0 { add(maskStart, x, 0) }
                                if c != 0 { add(x, cell, c) }
                                maskStart = cell
                            }
                        } else if maskStart < 0 {
                            maskStart = cell
                        }
                        // The running sum in cell order, as one cell at a time would add it.
                        let s0 = sum + cells[0], s1 = s0 + cells[1], s2 = s1 + cells[2], s3 = s2 + cells[3]
                        sum = s3
                        cells[0] = 0; cells[1] = 0; cells[2] = 0; cells[3] = 0
                        let q = evenOdd ? (quantise(s0) | quantise(s1) << 8 | quantise(s2) << 16 | quantise(s3) << 24).littleEndian
                                        : Self.quantiseNonZero(SIMD4(s0, s1, s2, s3))
                        UnsafeMutableRawPointer(mask + cell).storeBytes(of: q, as: UInt32.self)
                        x = cell &+ 4
                    }
                }
                if maskStart >= 0 { add(maskStart, min(x, width), 0) }
                if x < width {
                    let c = quantise(sum)
                    if c != 0 { add(x, width, c) }
                }
            }
            let y = row &+ oy
            for k in 0..<count {
                // Two calls, so each inlined copy knows which kind of span it draws.
                let span = spans[k], x0 = Int(span.x0)
                if span.coverage == 0 {
                    sink(y, x0 &+ ox, Int(span.x1) &+ ox, 0, UnsafePointer(mask + x0))
                } else {
                    sink(y, x0 &+ ox, Int(span.x1) &+ ox, span.coverage, nil)
                }
            }
        }
        steps[maxRow + 1] = 0  // an edge's step back down may lie one row past the last row
        minRow = Int.max; maxRow = Int.min
    }
}
