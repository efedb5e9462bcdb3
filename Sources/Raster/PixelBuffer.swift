// Raster: Tickerboard's pure-Swift 2D rasterizer. Pixel buffers in the scanout byte order, paths,
// a stroker, an exact-area anti-aliased scanline filler and span compositing. It knows nothing of
// displays, files or charts.

/// A rectangle of whole pixels; `x1`/`y1` are exclusive.
public struct IntRect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x0: Int, y0: Int, x1: Int, y1: Int

    public init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(x0: x, y0: y, x1: x + width, y1: y + height)
    }

    public var width: Int { max(0, x1 - x0) }
    public var height: Int { max(0, y1 - y0) }
    public var isEmpty: Bool { x1 <= x0 || y1 <= y0 }

    public func intersection(_ other: IntRect) -> IntRect {
        IntRect(x0: max(x0, other.x0), y0: max(y0, other.y0), x1: min(x1, other.x1), y1: min(y1, other.y1))
    }

    /// The smallest rectangle holding both; an empty side is ignored.
    public func union(_ other: IntRect) -> IntRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return IntRect(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
    }

    public func contains(x: Int, y: Int) -> Bool { x >= x0 && x < x1 && y >= y0 && y < y1 }

    public var description: String { "\(x0),\(y0)-\(x1),\(y1)" }
}

/// A straight (not premultiplied) sRGB colour, stored as `0xAARRGGBB`.
public struct Color: Equatable, Hashable, Sendable {
    public var argb: UInt32

    public init(argb: UInt32) { self.argb = argb }

    /// An opaque colour from `0xRRGGBB`.
    public init(rgb: UInt32) { self.argb = 0xFF00_0000 | (rgb & 0x00FF_FFFF) }

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        argb = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    public var alpha: UInt8 { UInt8(truncatingIfNeeded: argb >> 24) }
    public var red: UInt8 { UInt8(truncatingIfNeeded: argb >> 16) }
    public var green: UInt8 { UInt8(truncatingIfNeeded: argb >> 8) }
    public var blue: UInt8 { UInt8(truncatingIfNeeded: argb) }

    /// The same colour with its alpha multiplied by `opacity` (0...1).
    public func withOpacity(_ opacity: Double) -> Color {
        let o = opacity.isFinite ? min(1, max(0, opacity)) : 0
        let a = UInt32((Double(alpha) * o).rounded())
        return Color(argb: (argb & 0x00FF_FFFF) | a << 24)
    }

    /// Component-wise blend in straight sRGB; `t` = 0 gives `self`, 1 gives `other`.
    public func mixed(with other: Color, _ t: Double) -> Color {
        let t = t.isFinite ? min(1, max(0, t)) : 0
        func ch(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return Color(red: ch(red, other.red), green: ch(green, other.green), blue: ch(blue, other.blue),
                     alpha: ch(alpha, other.alpha))
    }

    /// The premultiplied pixel value in the buffer's `0xAARRGGBB` layout.
    @inlinable
    public var premultiplied: UInt32 {
        let a = argb >> 24
        if a == 255 { return argb }
        let r = div255((argb >> 16 & 0xFF) &* a)
        let g = div255((argb >> 8 & 0xFF) &* a)
        let b = div255((argb & 0xFF) &* a)
        return a << 24 | r << 16 | g << 8 | b
    }
}

/// Rounded division by 255, exact for every product of two bytes (0...65025).
@inlinable @inline(__always)
func div255(_ x: UInt32) -> UInt32 {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// Source-over of a premultiplied pixel `src` scaled by coverage `c` (0...255) onto `dst`.
/// Two channels per multiply (the 0x00FF00FF trick) keep it fast without SIMD. An opaque source
/// (the chart's line, its dot, every label) rounds once, `div255(s·c + d·(255−c))` (`lerpPixel`):
/// the exact result, and a third less arithmetic in the span kernels than rounding the source and
/// the destination terms separately as pixman does (which differs by one level on some edge pixels:
/// PSNR against cairo's reference frames moved by 0.00–0.07 dB). A translucent source keeps the
/// two roundings. Public so the glyph compositor blends with exactly the same rounding.
@inlinable @inline(__always)
public func blendOver(_ dst: UInt32, _ src: UInt32, coverage c: UInt32) -> UInt32 {
    if src >> 24 == 255 { return lerpPixel(dst, src, c) }
    // Scale the source by coverage, then the destination by the inverse of the scaled alpha.
    var srb = (src & 0x00FF_00FF) &* c &+ 0x0080_0080
    srb = ((srb &+ ((srb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    var sag = ((src >> 8) & 0x00FF_00FF) &* c &+ 0x0080_0080
    sag = ((sag &+ ((sag >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    let ia = 255 &- (sag >> 16)
    var drb = (dst & 0x00FF_00FF) &* ia &+ 0x0080_0080
    drb = ((drb &+ ((drb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    var dag = ((dst >> 8) & 0x00FF_00FF) &* ia &+ 0x0080_0080
    dag = ((dag &+ ((dag >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    return (srb &+ drb) | ((sag &+ dag) << 8)
}

/// Premultiplied 32-bit pixels with the byte order of DRM's `XRGB8888`/`ARGB8888` on little-endian
/// machines (B, G, R, A in memory; `0xAARRGGBB` as a `UInt32`). Rows are `stride` pixels apart.
public struct PixelBuffer: Sendable {
    public let width: Int
    public let height: Int
    public let stride: Int
    public var pixels: [UInt32]
    /// Software dimming of every colour drawn into the buffer (the canvas's paints and clears, and
    /// text): the level belongs to the picture, so every painter of it draws at the same level.
    public var dimming: Dimming?

    /// A buffer filled with `fill` (a premultiplied pixel value); sizes below 1 become 1.
    public init(width: Int, height: Int, stride: Int? = nil, fill: UInt32 = 0xFF00_0000) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.stride = max(self.width, stride ?? self.width)
        self.pixels = Array(repeating: fill, count: self.stride * self.height)
    }

    public var bounds: IntRect { IntRect(x0: 0, y0: 0, x1: width, y1: height) }

    public subscript(x: Int, y: Int) -> UInt32 {
        get { pixels[y * stride + x] }
        set { pixels[y * stride + x] = newValue }
    }

    /// Overwrites the pixels of `rect` (clipped to the buffer) with `color` (source copy).
    public mutating func fill(_ color: Color, in rect: IntRect? = nil) {
        let r = (rect ?? bounds).intersection(bounds)
        guard !r.isEmpty else { return }
        let value = color.premultiplied
        let stride = self.stride
        pixels.withUnsafeMutableBufferPointer { p in
            for y in r.y0..<r.y1 {
                let row = p.baseAddress! + y * stride
                (row + r.x0).update(repeating: value, count: r.width)
            }
        }
    }

    /// Copies `rect` of `source` to the same place in `self` (both clipped).
    public mutating func copy(_ rect: IntRect, from source: PixelBuffer) {
        copy(rect, from: source, dx: 0, dy: 0)
    }

    /// Copies `rect` of `source` into `self` moved by (`dx`, `dy`), clipped to both; returns where
    /// it landed (a scene's damage beside a tape band, a burn-in shift of what changed).
    @discardableResult
    public mutating func copy(_ rect: IntRect, from source: PixelBuffer, dx: Int, dy: Int) -> IntRect {
        let landed = IntRect(x0: rect.x0 + dx, y0: rect.y0 + dy, x1: rect.x1 + dx, y1: rect.y1 + dy)
            .intersection(bounds).intersection(IntRect(x0: dx, y0: dy, x1: source.width + dx, y1: source.height + dy))
        guard !landed.isEmpty else { return landed }
        let ds = stride, ss = source.stride
        pixels.withUnsafeMutableBufferPointer { d in
            source.pixels.withUnsafeBufferPointer { s in
                for y in landed.y0..<landed.y1 {
                    (d.baseAddress! + y * ds + landed.x0).update(from: s.baseAddress! + (y - dy) * ss + (landed.x0 - dx), count: landed.width)
                }
            }
        }
        return landed
    }

    /// Blends a one-byte-per-pixel coverage mask in `color` with its top-left corner at (`x`, `y`),
    /// writing only inside `clip` (and the buffer). Used for glyphs and other cached masks.
    public mutating func blend(mask: CoverageMask, atX x: Int, y: Int, color: Color, clip: IntRect? = nil) {
        let target = IntRect(x: x, y: y, width: mask.width, height: mask.height)
            .intersection(clip ?? bounds).intersection(bounds)
        guard !target.isEmpty else { return }
        let src = color.premultiplied
        let stride = self.stride, mw = mask.width
        pixels.withUnsafeMutableBufferPointer { d in
            mask.coverage.withUnsafeBufferPointer { m in
                for py in target.y0..<target.y1 {
                    let drow = d.baseAddress! + py * stride
                    let mrow = m.baseAddress! + (py - y) * mw - x
                    for px in target.x0..<target.x1 {
                        let c = UInt32(mrow[px])
                        if c == 0 { continue }
                        drow[px] = c == 255 && src >> 24 == 255 ? src : blendOver(drow[px], src, coverage: c)
                    }
                }
            }
        }
    }
}

/// A one-byte-per-pixel coverage mask (0 = empty, 255 = fully covered): a glyph, an icon.
public struct CoverageMask: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var coverage: [UInt8]

    public init(width: Int, height: Int, coverage: [UInt8]) {
        precondition(width >= 0 && height >= 0 && coverage.count == width * height, "mask size mismatch")
        self.width = width
        self.height = height
        self.coverage = coverage
    }

    public init(width: Int, height: Int) {
        self.init(width: max(0, width), height: max(0, height),
                  coverage: Array(repeating: 0, count: max(0, width) * max(0, height)))
    }
}

extension PixelBuffer {
    /// Where the pixels of `rect` land when this buffer is turned by `quarterTurns` clockwise
    /// quarter turns (source (x, y) goes to (H-1-y, x) for one turn), clipped to the buffer first.
    public func rotated(_ rect: IntRect, quarterTurns: Int) -> IntRect {
        let r = rect.intersection(bounds), w = width, h = height
        guard !r.isEmpty else { return IntRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: return IntRect(x0: h - r.y1, y0: r.x0, x1: h - r.y0, y1: r.x1)
        case 2: return IntRect(x0: w - r.x1, y0: h - r.y1, x1: w - r.x0, y1: h - r.y0)
        case 3: return IntRect(x0: r.y0, y0: w - r.x1, x1: r.y1, y1: w - r.x0)
        default: return r
        }
    }

    /// Turns only `rect` of this buffer into `target` (which holds this buffer turned, as
    /// `rotate(quarterTurns:into:)` made it, but for what changed inside `rect`); returns the
    /// target rectangle written, empty when the sizes do not fit. A scrub on a turned panel then
    /// copies its damage, not the frame.
    @discardableResult
    public func rotate(quarterTurns: Int, rect: IntRect, into target: inout PixelBuffer) -> IntRect {
        let turns = ((quarterTurns % 4) + 4) % 4
        let (tw, th) = turns % 2 == 0 ? (width, height) : (height, width)
        let out = rotated(rect, quarterTurns: turns)
        guard target.width == tw, target.height == th, !out.isEmpty else { return IntRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        let w = width, h = height, ss = stride, ts = target.stride
        pixels.withUnsafeBufferPointer { src in
            target.pixels.withUnsafeMutableBufferPointer { dst in
                let s = src.baseAddress!, d = dst.baseAddress!
                if turns % 2 == 1 {
                    // A quarter turn reads the source down its columns: one cache line per pixel
                    // when done row by row (a whole 4K frame took 42 ms). In tiles of 32 x 32 the
                    // lines a tile reads stay in cache while its 32 rows are written.
                    let tile = 32
                    for by in Swift.stride(from: out.y0, to: out.y1, by: tile) {
                        let yEnd = min(by + tile, out.y1)
                        for bx in Swift.stride(from: out.x0, to: out.x1, by: tile) {
                            let xEnd = min(bx + tile, out.x1)
                            for ty in by..<yEnd {
                                let row = d + ty * ts
                                if turns == 1 {
                                    for tx in bx..<xEnd { row[tx] = s[(h - 1 - tx) * ss + ty] }
                                } else {
                                    for tx in bx..<xEnd { row[tx] = s[tx * ss + (w - 1 - ty)] }
                                }
                            }
                        }
                    }
                    return
                }
                for ty in out.y0..<out.y1 {
                    let row = d + ty * ts
                    if turns == 2 {
                        let srow = s + (h - 1 - ty) * ss
                        for tx in out.x0..<out.x1 { row[tx] = srow[w - 1 - tx] }
                    } else {
                        (row + out.x0).update(from: s + ty * ss + out.x0, count: out.width)
                    }
                }
            }
        }
        return out
    }

    /// Copies `self` into `target` turned clockwise by `quarterTurns` × 90°, pixel for pixel, as
    /// `Transform.rotation(quarterTurns:width:height:)` maps pixel centres: for a display mounted on
    /// its side. `target` must have the rotated size; otherwise nothing is copied and false returned.
    @discardableResult
    public func rotate(quarterTurns: Int, into target: inout PixelBuffer) -> Bool {
        let turns = ((quarterTurns % 4) + 4) % 4
        let (tw, th) = turns % 2 == 0 ? (width, height) : (height, width)
        guard target.width == tw, target.height == th else { return false }
        rotate(quarterTurns: turns, rect: bounds, into: &target)
        return true
    }
}

extension PixelBuffer {
    /// Copies `source` (same size) shifted by (`dx`, `dy`) pixels, filling what it leaves uncovered
    /// with `fill`: the whole picture moved a few pixels to spare an OLED or plasma panel burn-in.
    public mutating func copy(from source: PixelBuffer, offsetX dx: Int, offsetY dy: Int, fill: UInt32) {
        guard source.width == width, source.height == height else { return }
        let w = width, h = height, ss = source.stride, ds = stride
        pixels.withUnsafeMutableBufferPointer { d in
            source.pixels.withUnsafeBufferPointer { s in
                for y in 0..<h {
                    let row = d.baseAddress! + y * ds
                    let sy = y - dy
                    guard sy >= 0, sy < h else { row.update(repeating: fill, count: w); continue }
                    // Columns [x0, x1) come from the source; an offset beyond the width leaves none.
                    let x0 = min(w, max(0, dx)), x1 = max(0, min(w, w + dx))
                    if x0 > 0 { row.update(repeating: fill, count: x0) }
                    if x1 < w { (row + max(x0, x1)).update(repeating: fill, count: w - max(x0, x1)) }
                    if x1 > x0 { (row + x0).update(from: s.baseAddress! + sy * ss + (x0 - dx), count: x1 - x0) }
                }
            }
        }
    }
}
