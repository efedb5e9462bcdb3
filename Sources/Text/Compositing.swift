import Raster

/// Source-over of a solid premultiplied colour through a glyph mask, clipped to `rect` (already inside
/// the buffer). The mask's top-left corner is at (`x`, `y`).
///
/// Written here instead of calling `PixelBuffer.blend(mask:…)` because a label is many small masks:
/// this takes the buffer's pointer once per line, not once per glyph, and unhinted glyphs are mostly
/// grey edges, so the blend itself must be fast. For an opaque colour (every label so far) the blend
/// rounds once, `div255(s·c + d·(255−c))`, where Raster's (and pixman's) round the source and the
/// destination terms separately: it is the more exact result, differs from theirs by at most one
/// level on some edge pixels, and saves a third of the arithmetic. Translucent colours use the
/// general scalar `blendOver`.
@inline(__always)
func composite(_ mask: CoverageMask, x: Int, y: Int, in rect: IntRect, into pixels: UnsafeMutablePointer<UInt32>,
               stride: Int, source: UInt32) {
    let width = mask.width
    mask.coverage.withUnsafeBufferPointer { m in
        let base = m.baseAddress!
        if source >> 24 == 255 {
            let lanes = OpaqueSourceLanes(source)
            for py in rect.y0..<rect.y1 {
                compositeOpaqueRow(pixels + py * stride + rect.x0, coverage: base + (py - y) * width + (rect.x0 - x),
                                   count: rect.width, source: source, lanes: lanes)
            }
        } else {
            for py in rect.y0..<rect.y1 {
                let destination = pixels + py * stride
                let coverage = base + (py - y) * width - x
                for px in rect.x0..<rect.x1 {
                    let c = UInt32(coverage[px])
                    if c != 0 { destination[px] = blendOver(destination[px], source, coverage: c) }
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
/// lane conversion is needed. Runs of four empty or four full coverage bytes, common inside and
/// around glyphs, skip the arithmetic. Same results, bit for bit, as the scalar `blendOpaque`.
@inline(__always)
func compositeOpaqueRow(_ destination: UnsafeMutablePointer<UInt32>, coverage: UnsafePointer<UInt8>, count: Int,
                        source: UInt32, lanes: OpaqueSourceLanes) {
    let low: SIMD4<UInt32> = SIMD4(repeating: 0x00FF_00FF)
    var i = 0
    while i + 4 <= count {
        let word = UnsafeRawPointer(coverage + i).loadUnaligned(as: UInt32.self)
        if word == 0 {
            i += 4
            continue
        }
        if word == .max {
            destination[i] = source; destination[i + 1] = source
            destination[i + 2] = source; destination[i + 3] = source
            i += 4
            continue
        }
        // Coverage of pixel k in both 16-bit halves of lane k; written as lane picks from one 4-byte
        // vector load, which LLVM turns into movd + two unpacks.
        let b = UnsafeRawPointer(coverage + i).loadUnaligned(as: SIMD4<UInt8>.self)
        let c = SIMD8<UInt16>(UInt16(b[0]), UInt16(b[0]), UInt16(b[1]), UInt16(b[1]),
                              UInt16(b[2]), UInt16(b[2]), UInt16(b[3]), UInt16(b[3]))
        let inverse = SIMD8<UInt16>(repeating: 255) &- c
        let raw = UnsafeMutableRawPointer(destination + i)
        let d = raw.loadUnaligned(as: SIMD4<UInt32>.self)
        let dRedBlue = unsafeBitCast(d & low, to: SIMD8<UInt16>.self)
        let dAlphaGreen = unsafeBitCast(d &>> 8 & low, to: SIMD8<UInt16>.self)
        let redBlue = div255(lanes.redBlue &* c &+ dRedBlue &* inverse)
        let alphaGreen = div255(lanes.alphaGreen &* c &+ dAlphaGreen &* inverse)
        let out = unsafeBitCast(redBlue, to: SIMD4<UInt32>.self) | unsafeBitCast(alphaGreen, to: SIMD4<UInt32>.self) &<< 8
        raw.storeBytes(of: out, as: SIMD4<UInt32>.self)
        i += 4
    }
    while i < count {
        let c = UInt32(coverage[i])
        if c == 255 {
            destination[i] = source
        } else if c != 0 {
            destination[i] = blendOpaque(destination[i], source, coverage: c)
        }
        i += 1
    }
}

/// The scalar twin of the four-pixel step: `div255(s·c + d·(255−c))` per channel, two channels per
/// multiply (each 16-bit half stays ≤ 255·255, so nothing carries between channels).
@inline(__always)
func blendOpaque(_ dst: UInt32, _ src: UInt32, coverage c: UInt32) -> UInt32 {
    lerpPixel(dst, src, c)
}
