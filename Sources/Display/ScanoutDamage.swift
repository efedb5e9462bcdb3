import Raster

// Damage bookkeeping for scanout buffers, with no I/O: which rectangles each buffer still lacks
// compared with the newest frame. The backends ask it what to copy and copy exactly that, so the
// decisions are testable without a device.

/// A short list of rectangles inside `bounds` covering some damage. Rectangles that overlap
/// enough to cost no more as one are merged; past `limit` the cheapest pair is merged, so the list
/// (and an FB_DAMAGE_CLIPS blob made of it) stays small whatever the caller adds.
public struct DamageRegion: Equatable, Sendable {
    public let bounds: IntRect
    public private(set) var rects: [IntRect] = []
    public let limit: Int

    public init(bounds: IntRect, limit: Int = 16) {
        self.bounds = bounds
        self.limit = max(1, limit)
    }

    public init(_ rects: [IntRect], bounds: IntRect, limit: Int = 16) {
        self.init(bounds: bounds, limit: limit)
        for r in rects { add(r) }
    }

    /// All of `bounds`.
    public static func full(_ bounds: IntRect) -> DamageRegion { DamageRegion([bounds], bounds: bounds) }

    public var isEmpty: Bool { rects.isEmpty }
    /// Pixels in the rectangles (what copying them writes; overlaps counted twice).
    public var area: Int { rects.reduce(0) { $0 + $1.width * $1.height } }
    /// One rectangle around everything.
    public var extent: IntRect { rects.reduce(IntRect(x0: 0, y0: 0, x1: 0, y1: 0)) { $0.isEmpty ? $1 : $0.union($1) } }

    public mutating func add(_ rect: IntRect) {
        var r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        if rects.contains(where: { Self.contains($0, r) }) { return }
        // Absorb every rectangle whose union with r costs no more than copying both.
        var merged = true
        while merged {
            merged = false
            for (i, e) in rects.enumerated() where Self.contains(r, e) || Self.area(e.union(r)) <= Self.area(e) + Self.area(r) {
                r = r.union(e)
                rects.remove(at: i)
                merged = true
                break
            }
        }
        rects.append(r)
        while rects.count > limit { mergeCheapestPair() }
    }

    public mutating func add(_ other: DamageRegion) {
        for r in other.rects { add(r) }
    }

    public mutating func add(_ list: [IntRect]) {
        for r in list { add(r) }
    }

    public mutating func removeAll() { rects.removeAll() }

    private mutating func mergeCheapestPair() {
        var best = (i: 0, j: 1, cost: Int.max)
        for i in rects.indices {
            for j in rects.indices where j > i {
                let cost = Self.area(rects[i].union(rects[j])) - Self.area(rects[i]) - Self.area(rects[j])
                if cost < best.cost { best = (i, j, cost) }
            }
        }
        let u = rects[best.i].union(rects[best.j])
        rects.remove(at: best.j)
        rects.remove(at: best.i)
        add(u)
    }

    static func area(_ r: IntRect) -> Int { r.width * r.height }
    static func contains(_ a: IntRect, _ b: IntRect) -> Bool {
        a.x0 <= b.x0 && a.y0 <= b.y0 && a.x1 >= b.x1 && a.y1 >= b.y1
    }
}

/// What each of `bufferCount` scanout buffers lacks compared with the newest frame. A frame's
/// damage goes to every buffer; the buffer written for that frame is brought up to date (it gets
/// its own backlog plus the new damage) and starts owing nothing. With two buffers the back buffer
/// so receives the damage of every frame since it was last written — buffer age, as a region.
public struct ScanoutDamage: Equatable, Sendable {
    public let bounds: IntRect
    private var missing: [DamageRegion]

    /// Every buffer starts out lacking everything (new buffers hold nothing of the picture).
    public init(bufferCount: Int, bounds: IntRect) {
        self.bounds = bounds
        missing = Array(repeating: .full(bounds), count: max(1, bufferCount))
    }

    public var bufferCount: Int { missing.count }

    /// What `buffer` lacks now.
    public func missing(in buffer: Int) -> DamageRegion { missing[buffer] }

    /// A frame with `damage` is to be shown from `buffer`: returns what to copy into it, and
    /// remembers that every other buffer now lacks `damage` too.
    public mutating func write(_ damage: [IntRect], into buffer: Int) -> DamageRegion {
        let frame = DamageRegion(damage, bounds: bounds)
        for i in missing.indices { missing[i].add(frame) }
        let copy = missing[buffer]
        missing[buffer].removeAll()
        return copy
    }

    /// A frame was made but shown nowhere (the output is away): every buffer lacks its damage.
    public mutating func note(_ damage: [IntRect]) {
        let frame = DamageRegion(damage, bounds: bounds)
        for i in missing.indices { missing[i].add(frame) }
    }

    /// Every buffer lacks everything again (a modeset cleared one, the output came back).
    public mutating func invalidateAll() {
        for i in missing.indices { missing[i] = .full(bounds) }
    }

    /// Fewer or more buffers from now on (single-buffered after running out of video memory).
    public mutating func resize(bufferCount: Int) {
        missing = Array(repeating: .full(bounds), count: max(1, bufferCount))
    }
}

/// How a display places a frame in its own buffer as it copies it, for what the scanout cannot
/// do: the frame set `marginX`/`marginY` in from the edges of a picture that much larger (a TV's
/// safe area: the margins show `fill`, the background), moved by (`dx`, `dy`) (a burn-in step by
/// copy; the strips it uncovers show `fill`), then turned clockwise by `quarterTurns` (a panel on
/// its side whose plane cannot turn). The display does all of it in its one copy into scanout
/// memory, so there is no picture in between: a turn and a shift each cost a whole second copy of
/// the frame before.
public struct CopyPlacement: Equatable, Sendable {
    /// 0...3 clockwise quarter turns.
    public let quarterTurns: Int
    public let dx: Int
    public let dy: Int
    public let fill: UInt32
    /// The frame's distance from the picture's left and right, top and bottom edges (before the turn).
    public let marginX: Int
    public let marginY: Int

    public init(quarterTurns: Int = 0, dx: Int = 0, dy: Int = 0, fill: UInt32 = 0xFF00_0000, marginX: Int = 0, marginY: Int = 0) {
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.dx = dx
        self.dy = dy
        self.fill = fill
        self.marginX = max(0, marginX)
        self.marginY = max(0, marginY)
    }

    public static let identity = CopyPlacement()
    public var isIdentity: Bool { quarterTurns == 0 && dx == 0 && dy == 0 && marginX == 0 && marginY == 0 }
    /// Some of the picture is not the frame's: strips to paint `fill` when the frame is copied whole.
    public var leavesStrips: Bool { dx != 0 || dy != 0 || marginX != 0 || marginY != 0 }

    /// The picture's size (before the turn) around a frame of `width` x `height`.
    func pictureSize(width: Int, height: Int) -> (width: Int, height: Int) { (width + 2 * marginX, height + 2 * marginY) }

    /// The destination's size for a frame of `width` x `height`.
    public func placedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let p = pictureSize(width: width, height: height)
        return quarterTurns % 2 == 1 ? (p.height, p.width) : (p.width, p.height)
    }

    /// Where the pixels of `rect` (frame coordinates) land in the destination, clipped.
    public func placed(_ rect: IntRect, width: Int, height: Int) -> IntRect {
        let p = pictureSize(width: width, height: height)
        let ox = marginX + dx, oy = marginY + dy
        let moved = IntRect(x0: rect.x0 + ox, y0: rect.y0 + oy, x1: rect.x1 + ox, y1: rect.y1 + oy)
            .intersection(IntRect(x0: 0, y0: 0, x1: p.width, y1: p.height))
        return Self.turned(moved, quarterTurns: quarterTurns, width: p.width, height: p.height)
    }

    /// `r` (inside a `width` x `height` picture) after the picture turns clockwise: source (x, y)
    /// goes to (H-1-y, x) for one turn.
    static func turned(_ r: IntRect, quarterTurns: Int, width w: Int, height h: Int) -> IntRect {
        guard !r.isEmpty else { return IntRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        switch quarterTurns {
        case 1: return IntRect(x0: h - r.y1, y0: r.x0, x1: h - r.y0, y1: r.x1)
        case 2: return IntRect(x0: w - r.x1, y0: h - r.y1, x1: w - r.x0, y1: h - r.y0)
        case 3: return IntRect(x0: r.y0, y0: w - r.x1, x1: r.y1, y1: w - r.x0)
        default: return r
        }
    }

    /// The strips of the picture around a frame of `width` x `height` that the frame does not
    /// cover: its margins and what a shift uncovers (picture coordinates, before the turn).
    func uncovered(width: Int, height: Int) -> [IntRect] {
        let (w, h) = pictureSize(width: width, height: height)
        let covered = IntRect(x0: marginX + dx, y0: marginY + dy, x1: marginX + dx + width, y1: marginY + dy + height)
            .intersection(IntRect(x0: 0, y0: 0, x1: w, y1: h))
        let top = IntRect(x0: 0, y0: 0, x1: w, y1: max(0, covered.y0))
        let bottom = IntRect(x0: 0, y0: max(top.y1, covered.y1), x1: w, y1: h)
        let y0 = top.y1, y1 = max(y0, bottom.y0)
        let left = IntRect(x0: 0, y0: y0, x1: max(0, min(w, covered.x0)), y1: y1)
        let right = IntRect(x0: max(left.x1, covered.x1), y0: y0, x1: w, y1: y1)
        // An empty `covered` (a frame moved wholly out) leaves the picture to `top`.
        return covered.isEmpty ? [IntRect(x0: 0, y0: 0, x1: w, y1: h)] : [top, bottom, left, right].filter { !$0.isEmpty }
    }
}

extension PixelBuffer {
    /// The buffer as the whole frame: ``Picture/copy(_:placement:to:pitch:originX:originY:)``.
    @discardableResult
    public func copy(_ region: DamageRegion, placement: CopyPlacement = .identity, to destination: UnsafeMutableRawPointer,
              pitch: Int, originX: Int = 0, originY: Int = 0) -> Int {
        Picture(self).copy(region, placement: placement, to: destination, pitch: pitch, originX: originX, originY: originY)
    }
}

extension PixelBuffer {
    /// A 4x4 Bayer matrix (0..15): the threshold added before a channel loses its low bits, so a
    /// gradient (the chart's area fill) breaks into a fine pattern instead of bands.
    static let bayer4: [UInt32] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]

    /// One opaque XRGB8888 pixel as RGB565, dithered by its position (x, y).
    @inline(__always)
    static func rgb565(_ p: UInt32, x: Int, y: Int) -> UInt16 {
        let d = bayer4[(y & 3) << 2 | (x & 3)]
        // Red and blue lose 3 bits (steps of 8), green 2 (steps of 4): thresholds of d/2 and d/4.
        let r = min(255, (p >> 16 & 0xFF) + d / 2), g = min(255, (p >> 8 & 0xFF) + d / 4), b = min(255, (p & 0xFF) + d / 2)
        return UInt16(truncatingIfNeeded: (r >> 3) << 11 | (g >> 2) << 5 | b >> 3)
    }

    /// The buffer as the whole frame: ``Picture/copyRGB565(_:to:pitch:)``.
    @discardableResult
    func copyRGB565(_ region: DamageRegion, to destination: UnsafeMutableRawPointer, pitch: Int) -> Int {
        Picture(self).copyRGB565(region, to: destination, pitch: pitch)
    }
}
