/// `floor` and `ceil` for the grid's non-negative coordinates without a libm call: the baseline
/// x86-64 target has no rounding instruction, and these run once per row of every edge.
@inline(__always)
func floorOfNonNegative(_ v: Double) -> Int { Int(v) }

@inline(__always)
func ceilOfNonNegative(_ v: Double) -> Int {
    let t = Int(v)
    return Double(t) < v ? t + 1 : t
}

/// Which points count as inside a path.
public enum FillRule: Sendable {
    case nonZero
    case evenOdd
}

/// Exact-area scanline coverage: every edge deposits, into the cells of the rows it crosses, the
/// signed area it adds to each pixel; a running sum along a row then gives each pixel's coverage.
/// Cells are Float, visited through a bitmap of touched cells, and cleared as they are read, so the
/// cost follows the edges, not the bounding box, and nothing is allocated per frame once warm.
final class CoverageAccumulator {
    /// The grid: device pixels [originX, originX + width) x [originY, originY + height).
    private(set) var originX = 0, originY = 0, width = 0, height = 0
    /// Cells per row: width + 2, so an edge at the right border can still write its two cells.
    private var rowCells = 0
    private var rowWords = 0
    // Raw storage owned by this object: Swift arrays in a class would pay a dynamic exclusivity
    // check on every access, which was a third of the stroke time at 5,000 points.
    private var cells = UnsafeMutablePointer<Float>.allocate(capacity: 0)
    private var cellCapacity = 0
    private var touched = UnsafeMutablePointer<UInt64>.allocate(capacity: 0)
    private var wordCapacity = 0
    /// Rows holding any touched cell, so the sweep skips untouched rows quickly.
    private var rowTouched = UnsafeMutablePointer<Bool>.allocate(capacity: 0)
    private var rowCapacity = 0
    /// Grid rows [windowLo, windowHi) are accumulated; storage row 0 is grid row windowLo.
    private(set) var windowLo = 0, windowHi = 0
    private(set) var minRow = Int.max, maxRow = Int.min

    deinit {
        cells.deallocate()
        touched.deallocate()
        rowTouched.deallocate()
        maskRow.deallocate()
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
        rowCells = width + 2
        rowWords = (rowCells + 63) >> 6
        let cellCount = rowCells * windowRows, wordCount = rowWords * windowRows
        // Invariant: every cell and word is zero between uses (the sweep clears what it reads).
        if cellCapacity < cellCount {
            cells.deallocate()
            cells = .allocate(capacity: cellCount)
            cells.initialize(repeating: 0, count: cellCount)
            cellCapacity = cellCount
        }
        if wordCapacity < wordCount {
            touched.deallocate()
            touched = .allocate(capacity: wordCount)
            touched.initialize(repeating: 0, count: wordCount)
            wordCapacity = wordCount
        }
        if rowCapacity < windowRows {
            rowTouched.deallocate()
            rowTouched = .allocate(capacity: windowRows)
            rowTouched.initialize(repeating: false, count: windowRows)
            rowCapacity = windowRows
        }
        minRow = Int.max; maxRow = Int.min
    }

    /// Adds edges given as consecutive pairs of points.
    func addEdges(_ points: UnsafeBufferPointer<Point>) {
        var i = 0
        while i + 1 < points.count {
            addEdge(points[i], points[i + 1])
            i += 2
        }
    }

    /// Adds the edge from `p0` to `p1` (device pixels). Edges outside the grid still count to the
    /// left (they shift the running sum) and are dropped elsewhere.
    @inline(__always)
    func addEdge(_ p0: Point, _ p1: Point) {
        guard windowHi > windowLo, width > 0 else { return }
        // Grid-relative coordinates. Each row's crossing is computed from these original endpoints,
        // never from clipped ones, so a clipped redraw yields the same coverage as a full one.
        let x0 = p0.x - Double(originX), y0 = p0.y - Double(originY)
        let x1 = p1.x - Double(originX), y1 = p1.y - Double(originY)
        guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, y0 != y1 else { return }
        let sign: Double = y1 > y0 ? 1 : -1
        let (ta, tb) = y0 < y1 ? ((x0, y0), (x1, y1)) : ((x1, y1), (x0, y0))
        let yTop = max(ta.1, Double(windowLo)), yBottom = min(tb.1, Double(windowHi))
        guard yTop < yBottom else { return }
        let w = Double(width)
        if max(ta.0, tb.0) >= w + 1 && min(ta.0, tb.0) >= w + 1 { return }  // wholly right of the grid
        let dxdy = (tb.0 - ta.0) / (tb.1 - ta.1)
        let firstRow = floorOfNonNegative(yTop), lastRow = ceilOfNonNegative(yBottom) - 1
        if firstRow < minRow { minRow = firstRow }
        if lastRow > maxRow { maxRow = lastRow }
        let lo = windowLo, cellBase = cells - lo * rowCells, bitBase = touched - lo * rowWords, rows = rowTouched - lo
        let rowCells = self.rowCells, rowWords = self.rowWords
        // A row's bottom crossing is the next row's top one (the same expression of the same value).
        var xa = ta.0 + (max(yTop, Double(firstRow)) - ta.1) * dxdy
        for row in firstRow...lastRow {
            let rowTop = max(yTop, Double(row)), rowBottom = min(yBottom, Double(row + 1))
            let h = rowBottom - rowTop
            let xb = ta.0 + (rowBottom - ta.1) * dxdy
            if h > 0 {
                rows[row] = true
                Self.accumulateRow(cellBase + row * rowCells, bitBase + row * rowWords, xa, xb, sign * h, w)
            }
            xa = xb
        }
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

    @inline(__always)
    private static func deposit(_ rowCells: UnsafeMutablePointer<Float>, _ rowBits: UnsafeMutablePointer<UInt64>,
                         _ cell: Int, _ value: Float) {
        rowCells[cell] += value
        rowBits[cell >> 6] |= 1 &<< UInt64(cell & 63)
    }

    /// Gaps of constant coverage up to this many pixels between touched cells join the mask span
    /// around them: a blend per pixel is cheaper than another span (the inside of a thin stroke).
    static let mergeGap = 8

    /// Scratch row of coverage values for mask spans (width + 2 entries).
    private var maskRow = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    private var maskCapacity = 0

    /// Walks every touched row in order and leaves the grid cleared. Per row, it hands `sink` spans
    /// in increasing x: either one coverage (0...255) for all of [x0, x1) (`mask` nil), or one
    /// coverage per pixel in `mask[0 ..< x1 - x0]` (may hold zeros). Device coordinates.
    @inline(__always)
    func sweep(rule: FillRule,
               _ sink: (_ y: Int, _ x0: Int, _ x1: Int, _ coverage: UInt32, _ mask: UnsafePointer<UInt8>?) -> Void) {
        guard minRow <= maxRow else { return }
        let width = self.width, rowCells = self.rowCells, rowWords = self.rowWords
        let ox = originX, oy = originY
        if maskCapacity < rowCells {
            maskRow.deallocate()
            maskRow = .allocate(capacity: rowCells)
            maskCapacity = rowCells
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
            // v * 255 + 0.5 lies in [0.5, 255.5]: the signed conversion is one instruction where
            // the unsigned one is a dozen on baseline x86-64.
            return UInt32(truncatingIfNeeded: Int32(v * 255 + 0.5))
        }
        let mask = maskRow
        let mergeGap = Self.mergeGap
        let lo = windowLo, cellBase = cells - lo * rowCells, bitBase = touched - lo * rowWords, rows = rowTouched - lo
        for row in minRow...maxRow where rows[row] {
            rows[row] = false
            let rc = cellBase + row * rowCells
            let rb = bitBase + row * rowWords
            var sum: Float = 0
            var x = 0  // first pixel not yet emitted
            var maskStart = -1  // first pixel of the mask span being built, if any
            let y = row + oy
            for word in 0..<rowWords {
                var bits = rb[word]
                if bits == 0 { continue }
                rb[word] = 0
                while bits != 0 {
                    let cell = word << 6 + bits.trailingZeroBitCount
                    bits &= bits &- 1
                    if cell >= width {
                        rc[cell] = 0
                        continue
                    }
                    if cell > x {
                        let c = quantise(sum)
                        if maskStart >= 0 && cell - x <= mergeGap {
                            (mask + (x - maskStart)).update(repeating: UInt8(truncatingIfNeeded: c), count: cell - x)
                        } else {
                            if maskStart >= 0 {
                                sink(y, maskStart + ox, x + ox, 0, UnsafePointer(mask))
                            }
                            if c != 0 { sink(y, x + ox, cell + ox, c, nil) }
                            maskStart = cell
                        }
                    } else if maskStart < 0 {
                        maskStart = cell
                    }
                    sum += rc[cell]
                    rc[cell] = 0
                    mask[cell - maskStart] = UInt8(truncatingIfNeeded: quantise(sum))
                    x = cell + 1
                }
            }
            if maskStart >= 0 { sink(y, maskStart + ox, x + ox, 0, UnsafePointer(mask)) }
            if x < width {
                let c = quantise(sum)
                if c != 0 { sink(y, x + ox, width + ox, c, nil) }
            }
        }
        minRow = Int.max; maxRow = Int.min
    }
}
