// What the canvas knows about its rows between draw calls and across frames: where a clear is still
// pending, and which pixels already hold the clear's colour. A chart frame clears to the backdrop
// and then paints the area and the line over most of it; knowing this, paint over a pending clear
// is blended once against the colour and written once, and the clear writes only the pixels that
// neither the paint nor the previous frame left holding it. At 4K, n = 260, a frame rewrote
// 4.1 M of its 5.5 M backdrop pixels with the colour they already held while one interval per row
// was remembered; with a block's bit per 64 pixels, 0.4 M.

extension Canvas {
    /// Per row, a run of pixels that hold (or, when `pending`, are about to hold) one colour since a
    /// `clear`; valid while its generation matches. Clears are deferred: paint landing on a pending
    /// run is computed once against the run's colour and written once, and only what no paint
    /// covered gets the clear colour at the end. The chart's translucent area over the backdrop
    /// then costs one write per pixel instead of a write, a read and another write.
    ///
    /// `clean` has a bit for each of the row's 64 blocks (`BandTarget.blockShift`), set while all
    /// of the block's pixels hold `color`, pending or not. It is true of memory while the run has
    /// the canvas's generation: every write of pixels goes through `composite` (which clears the
    /// bits of what it paints) or `writeClear` (which sets the bits of the blocks it fills whole);
    /// anything else bumps the generation, and a clear of another colour or generation starts the
    /// row with none set. One word in the run itself: the span loop has the run in hand already.
    struct UniformRun {
        var x0: Int32 = 0, x1: Int32 = 0
        var color: UInt32 = 0
        var generation: UInt32 = 0
        var pending = false
        var clean: UInt64 = 0

        /// Narrows the run to [a, b).
        @inline(__always)
        mutating func narrow(to a: Int, _ b: Int) {
            x0 = Int32(a); x1 = Int32(max(a, b))
        }
    }

    /// The pixels and the rows' state, as raw pointers valid for one draw call or one band replay.
    /// A band touches only its own rows, and each row's state is its own.
    struct BandTarget: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt32>
        let stride: Int
        let runs: UnsafeMutablePointer<UniformRun>
        let generation: UInt32
        /// log2 of a block's width in pixels: the narrowest power of two, at least 16 (a cache
        /// line), with which 64 blocks span the row. 32 at 1080p, 64 at 4K: 16-pixel blocks would
        /// skip 6 % more of the 4K backdrop but cost a loop over words per span.
        let blockShift: Int

        static func blockShift(width: Int) -> Int {
            let perBlock = (width + 63) / 64
            return perBlock <= 16 ? 4 : Int.bitWidth - (perBlock - 1).leadingZeroBitCount
        }

        /// The rows `rows` of a clear of `r`: deferred, keeping what the row knows to hold the colour.
        func clearRows(_ r: IntRect, rows: Range<Int>, _ value: UInt32) {
            for y in max(r.y0, rows.lowerBound)..<max(max(r.y0, rows.lowerBound), min(r.y1, rows.upperBound)) {
                var old = runs[y]
                let current = old.generation == generation
                // A pending run this clear does not cover must be written before it is forgotten.
                if current && old.pending && old.x1 > old.x0 && (Int(old.x0) < r.x0 || Int(old.x1) > r.x1) {
                    writeClear(&old, y: y, Int(old.x0), Int(old.x1))
                }
                runs[y] = UniformRun(x0: Int32(r.x0), x1: Int32(r.x1), color: value, generation: generation, pending: true,
                                     clean: current && old.color == value ? old.clean : 0)
            }
        }

        /// Writes the deferred clears of rows `rows`.
        func flushClears(rows: Range<Int>) {
            for y in rows where runs[y].pending && runs[y].generation == generation {
                var r = runs[y]
                writeClear(&r, y: y, Int(r.x0), Int(r.x1))
                r.pending = false
                runs[y] = r
            }
        }

        /// Writes `run`'s colour over [a, b) of row `y`, skipping the blocks that already hold it,
        /// and marks the blocks it fills whole.
        @inline(__always)
        func writeClear(_ run: inout UniformRun, y: Int, _ a: Int, _ b: Int) {
            let row = base + y &* stride
            var x = a
            while x < b {
                let block = x &>> blockShift
                let ahead = run.clean &>> UInt64(block)
                if ahead & 1 != 0 {
                    let toWrite = ~run.clean &>> UInt64(block)
                    if toWrite == 0 { return }
                    x = (block &+ toWrite.trailingZeroBitCount) &<< blockShift
                    continue
                }
                // One fill for the whole stretch of blocks to write, so a long one stays one
                // streaming fill.
                let end = ahead == 0 ? b : min(b, (block &+ ahead.trailingZeroBitCount) &<< blockShift)
                SpanKernels.fill(row + x, end &- x, run.color)
                // The blocks filled whole: from the first that starts at or after x to the last
                // that ends at or before end.
                let first = (x &+ (1 &<< blockShift) &- 1) &>> blockShift, afterLast = end &>> blockShift
                if afterLast > first { run.clean |= blocks(first, afterLast &- 1) }
                x = end
            }
        }

        /// Paint was written over [a, b) of `run`'s row (b > a): its blocks no longer hold the run's colour.
        @inline(__always)
        func dirty(_ run: inout UniformRun, _ a: Int, _ b: Int) {
            run.clean &= ~blocks(a &>> blockShift, (b &- 1) &>> blockShift)
        }

        /// The bits of blocks first...last (first <= last <= 63).
        @inline(__always)
        private func blocks(_ first: Int, _ last: Int) -> UInt64 {
            // 2 << 63 wraps to 0, which still leaves bits first...63.
            (2 &<< UInt64(last)) &- (1 &<< UInt64(first))
        }
    }
}
