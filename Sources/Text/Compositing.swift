import Raster

/// Source-over of a solid premultiplied colour through a glyph's mask, clipped to `rect` (already
/// inside the buffer). The mask's top-left corner is at (`x`, `y`); each row is drawn only over its
/// ink (`CachedGlyph.ink`), so the empty margins FreeType leaves around a glyph cost nothing.
///
/// Written here instead of calling `PixelBuffer.blend(mask:…)` because a label is many small masks:
/// this takes the buffer's pointer once per line, not once per glyph, and unhinted glyphs are mostly
/// grey edges, so the blend itself must be fast. For an opaque colour (every label so far) the blend
/// rounds once, `div255(s·c + d·(255−c))`, as Raster's `blendOver` does for opaque sources.
/// Translucent colours use the general scalar `blendOver`.
@inline(__always)
func composite(_ glyph: CachedGlyph, x: Int, y: Int, in rect: IntRect, into pixels: UnsafeMutablePointer<UInt32>,
               stride: Int, source: UInt32) {
    let width = glyph.mask.width
    glyph.mask.coverage.withUnsafeBufferPointer { m in
        glyph.pairs.withUnsafeBufferPointer { p in
            glyph.ink.withUnsafeBufferPointer { ink in
                // Row pointers advance by a stride each row; the columns are relative to the mask's
                // left edge and clipped to the rectangle. (The buffer's row pointer stays at column 0:
                // the mask's left edge may lie left of the buffer, outside its memory.)
                var row = pixels + rect.y0 &* stride
                var coverage = m.baseAddress! + (rect.y0 &- y) &* width, pairs = p.baseAddress! + (rect.y0 &- y) &* width
                let left = rect.x0 &- x, right = rect.x1 &- x
                var extent = ink.baseAddress! + (rect.y0 &- y)
                let end = extent + rect.height
                if source >> 24 == 255 {
                    let lanes = OpaqueSourceLanes(source)
                    while extent < end {
                        let x0 = max(left, Int(extent.pointee & 0xFFFF)), x1 = min(right, Int(extent.pointee >> 16))
                        if x0 < x1 {
                            compositeOpaqueRow(row + (x &+ x0), coverage: coverage + x0, pairs: pairs + x0,
                                               count: x1 &- x0, source: source, lanes: lanes)
                        }
                        row += stride; coverage += width; pairs += width; extent += 1
                    }
                } else {
                    while extent < end {
                        let x0 = max(left, Int(extent.pointee & 0xFFFF)), x1 = min(right, Int(extent.pointee >> 16))
                        for i in x0..<max(x0, x1) {
                            let c = UInt32(coverage[i])
                            if c != 0 { row[x &+ i] = blendOver(row[x &+ i], source, coverage: c) }
                        }
                        row += stride; coverage += width; extent += 1
                    }
                }
            }
        }
    }
}

/// An opaque source colour split for the two-channels-per-lane blend: red/blue and alpha/green, each
/// as four 32-bit lanes holding two 8-bit channels in their 16-bit halves.
struct OpaqueSourceLanes {
    let redBlue: SIMD8<UInt16>
    let alphaGreen: SIMD8<UInt16>

    init(_ source: UInt32) {
        redBlue = unsafeBitCast(SIMD4<UInt32>(repeating: source & 0x00FF_00FF), to: SIMD8<UInt16>.self)
        alphaGreen = unsafeBitCast(SIMD4<UInt32>(repeating: source >> 8 & 0x00FF_00FF), to: SIMD8<UInt16>.self)
    }
}

/// Exact rounded division by 255 of every 16-bit lane (each at most 255·255).
@inline(__always)
private func div255(_ x: SIMD8<UInt16>) -> SIMD8<UInt16> {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// One row of an opaque source through coverage. With an opaque source the scaled source alpha is
/// exactly `c`, so source-over is `div255(s·c + d·(255−c))` per channel: no branch on the coverage
/// value. Four pixels go at a time: each pixel is a 32-bit lane, masked to two channels
/// (0x00FF00FF) and viewed as two 16-bit lanes, so every multiply is SSE2's 16-bit `pmullw` and no
/// lane conversion is needed; the coverage comes as `pairs` already in that shape (`c | c << 16`
/// per pixel, made once per glyph), since spreading four bytes into lanes here took a third of the
/// step (LLVM builds the vector from general registers). The byte `coverage` decides: runs of four
/// empty or four full pixels, common inside and around glyphs, skip the arithmetic. Same results,
/// bit for bit, as the scalar `blendOpaque`.
@inline(__always)
func compositeOpaqueRow(_ destination: UnsafeMutablePointer<UInt32>, coverage: UnsafePointer<UInt8>,
                        pairs: UnsafePointer<UInt32>, count: Int, source: UInt32, lanes: OpaqueSourceLanes) {
    let low: SIMD4<UInt32> = SIMD4(repeating: 0x00FF_00FF)
    var i = 0
    while i &+ 4 <= count {
        let word = UnsafeRawPointer(coverage + i).loadUnaligned(as: UInt32.self)
        if word == 0 {
            i &+= 4
            continue
        }
        if word == .max {
            destination[i] = source; destination[i &+ 1] = source
            destination[i &+ 2] = source; destination[i &+ 3] = source
            i &+= 4
            continue
        }
        let c = UnsafeRawPointer(pairs + i).loadUnaligned(as: SIMD8<UInt16>.self)
        let inverse = SIMD8<UInt16>(repeating: 255) &- c
        let raw = UnsafeMutableRawPointer(destination + i)
        let d = raw.loadUnaligned(as: SIMD4<UInt32>.self)
        let dRedBlue = unsafeBitCast(d & low, to: SIMD8<UInt16>.self)
        let dAlphaGreen = unsafeBitCast(d &>> 8 & low, to: SIMD8<UInt16>.self)
        let redBlue = div255(lanes.redBlue &* c &+ dRedBlue &* inverse)
        let alphaGreen = div255(lanes.alphaGreen &* c &+ dAlphaGreen &* inverse)
        let out = unsafeBitCast(redBlue, to: SIMD4<UInt32>.self) | unsafeBitCast(alphaGreen, to: SIMD4<UInt32>.self) &<< 8
        raw.storeBytes(of: out, as: SIMD4<UInt32>.self)
        i &+= 4
    }
    while i < count {
        let c = UInt32(coverage[i])
        if c == 255 {
            destination[i] = source
        } else if c != 0 {
            destination[i] = blendOpaque(destination[i], source, coverage: c)
        }
        i &+= 1
    }
}

/// The scalar twin of the four-pixel step: `div255(s·c + d·(255−c))` per channel, two channels per
/// multiply (each 16-bit half stays ≤ 255·255, so nothing carries between channels).
@inline(__always)
func blendOpaque(_ dst: UInt32, _ src: UInt32, coverage c: UInt32) -> UInt32 {
    lerpPixel(dst, src, c)
}
