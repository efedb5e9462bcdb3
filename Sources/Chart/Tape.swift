/// The ticker tape's geometry and motion, pure: where each item of the crawl is at a moment,
/// how a changed price flashes, and how one crawl continues across several screens. Time comes
/// in as a number, so the crawl is exactly uniform whatever the frame rate and tests need no clock.

/// Where the tape goes on the screen (`[tape] position`).
public enum TapePosition: String, Sendable, Equatable, CaseIterable {
    /// No tape.
    case off
    /// The tape alone, large, across the middle of the screen.
    case full
    /// A band under the chart or the watchlist (the chart is laid out in what is left above).
    case bottom
    /// A band over the chart or the watchlist.
    case top
}

/// One instrument on the tape: `NAME  price  ▲ +1.23  (+0.45 %)`.
public struct TapeItem: Equatable, Sendable {
    public enum Direction: Sendable, Equatable { case up, down, flat }
    public var name: String
    public var price: String
    /// The change with its arrow and percentage, as the chart's header words it.
    public var change: String
    public var direction: Direction
    /// Said after the change, dimmed with the item ("closed", "stale"); nil while live.
    public var note: String?
    /// The 1D line (values oldest first), drawn small after the change; empty for none.
    public var sparkline: [Double]

    public init(name: String, price: String, change: String, direction: Direction, note: String? = nil,
                sparkline: [Double] = []) {
        self.name = name
        self.price = price
        self.change = change
        self.direction = direction
        self.note = note
        self.sparkline = sparkline
    }

    /// Dimmed: the price is not live (the market is closed or the data is old).
    public var isDimmed: Bool { note != nil }
}

/// The crawl: items laid end to end in cells of whole pixels, repeating with period `period`,
/// moving right to left at `speed` px/s. The content coordinate at the band's left edge at time
/// `t` is `speed × t − x0` (mod `period`): with `x0` = the band's width the first item enters from
/// the right at t = 0. Whole-pixel cells make the period whole, so the strip repeats seamlessly and
/// an item's pixels are the same in every copy.
public struct TapeMotion: Equatable, Sendable {
    /// Each item's cell: its measured width plus the gap after it, rounded up to whole pixels.
    public let cells: [Int]
    /// Where each cell starts in the strip.
    public let starts: [Int]
    /// The strip's length: it repeats after this many pixels. At least 1.
    public let period: Int
    public var speed: Double
    public var x0: Double

    /// `widths` are the items' measured widths (px), `gap` the space after each. A strip shorter
    /// than the band simply repeats in it (the gap keeps the copies apart), so the band is always full.
    public init(widths: [Double], gap: Double, speed: Double, x0: Double = 0) {
        var cells: [Int] = [], starts: [Int] = [], x = 0
        for w in widths {
            let cell = max(1, Int((max(0, w.isFinite ? w : 0) + max(0, gap.isFinite ? gap : 0)).rounded(.up)))
            starts.append(x)
            cells.append(cell)
            x += cell
        }
        self.cells = cells
        self.starts = starts
        period = max(1, x)
        self.speed = speed.isFinite ? speed : 0
        self.x0 = x0.isFinite ? x0 : 0
    }

    /// The strip coordinate under the band's left edge at `time` (seconds), in 0..<period.
    public func scroll(at time: Double) -> Double {
        let p = Double(period)
        let raw = speed * (time.isFinite ? time : 0) - x0
        var s = raw.truncatingRemainder(dividingBy: p)
        if s < 0 { s += p }
        return s >= p ? 0 : s
    }

    /// Every copy of an item that shows in a band `width` px wide at `time`, left to right: the
    /// item's index and the band x of its cell's left edge (fractional). `offset` is where this band
    /// sits in a longer strip (see `TapeSpan`).
    public func placements(at time: Double, width: Int, offset: Int = 0) -> [(index: Int, x: Double)] {
        guard !cells.isEmpty, width > 0 else { return [] }
        let s = scroll(at: time) + Double(offset)
        let p = Double(period)
        // The copy of the strip that starts at or before the band's left edge.
        var copyStart = -(s.truncatingRemainder(dividingBy: p))
        if copyStart > 0 { copyStart -= p }
        var out: [(index: Int, x: Double)] = []
        while copyStart < Double(width) {
            for i in cells.indices {
                let x = copyStart + Double(starts[i])
                if x + Double(cells[i]) > 0 && x < Double(width) { out.append((i, x)) }
            }
            copyStart += p
        }
        return out
    }

    /// The item whose cell is under band column `x` at `time`, and how far into the cell.
    public func item(atX x: Double, time: Double, offset: Int = 0) -> (index: Int, into: Double)? {
        guard !cells.isEmpty, x.isFinite else { return nil }
        let p = Double(period)
        var c = (scroll(at: time) + Double(offset) + x).truncatingRemainder(dividingBy: p)
        if c < 0 { c += p }
        for i in cells.indices.reversed() where Double(starts[i]) <= c { return (i, c - Double(starts[i])) }
        return nil
    }
}

/// A changed price's flash: full at the change, eased out to nothing over `duration` seconds.
public struct TapeFlash: Equatable, Sendable {
    public static let duration = 1.0

    /// The highlight's strength, 1...0, at `now` for a change at `changedAt` (nil: never changed).
    /// Before the change and from `duration` on it is 0; in between a cosine ease (no jump at the end).
    public static func level(changedAt: Double?, now: Double, duration: Double = Self.duration) -> Double {
        guard let changedAt, changedAt.isFinite, now.isFinite, duration > 0 else { return 0 }
        let u = (now - changedAt) / duration
        guard u >= 0, u < 1 else { return 0 }
        return 0.5 * (1 + cosPi(u))
    }

    /// Whether a flash is still under way (frames are due until it has faded).
    public static func isFlashing(changedAt: Double?, now: Double, duration: Double = Self.duration) -> Bool {
        guard let changedAt, changedAt.isFinite, now.isFinite else { return false }
        return now >= changedAt && now - changedAt < duration
    }

    /// cos(πu) for u in 0...1 without Foundation: a polynomial good to 1e-6 (a highlight's alpha).
    static func cosPi(_ u: Double) -> Double {
        // cos(πu) = −sin(π(u − ½)); the sine's Taylor series to x⁹ on |x| ≤ π/2.
        let x = Double.pi * (u - 0.5)
        let x2 = x * x
        let sine = x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))))
        return -sine
    }
}

/// One tape across several outputs (`[tape] span = all`): the outputs, in the order given, are one
/// long strip from left to right. The crawl moves right to left, so an item leaving output N's
/// left edge enters output N−1's right edge at the same instant; each output draws the strip at
/// its own offset (the widths of the outputs left of it).
public enum TapeSpan {
    /// Each output's offset into the long strip.
    public static func offsets(widths: [Int]) -> [Int] {
        var out: [Int] = [], x = 0
        for w in widths {
            out.append(x)
            x += max(0, w)
        }
        return out
    }

    /// The x0 that makes the first item enter from the right edge of the last output at t = 0.
    public static func entryX0(widths: [Int]) -> Double {
        Double(widths.reduce(0) { $0 + max(0, $1) })
    }
}
