// Span kernels: a run of pixels blended with one source colour under per-pixel coverage, four
// pixels per SIMD4<UInt32> (one SSE2 register on baseline x86-64, one NEON register on ARM). The
// pixels are split into their red-blue and alpha-green halves as 16-bit lanes, exactly as the
// scalar `blendOver` and `lerpPixel` split them, so every lane computes what the scalar code
// computes and the result is the same bit for bit. Only bit casts between vector views, no
// element-wise conversions (those do not vectorise).

private typealias Pixels = SIMD4<UInt32>
private typealias Lanes = SIMD8<UInt16>

/// The rounded division by 255 of `blendOver`, per 16-bit lane: exact for every product of two bytes.
@inline(__always)
private func div255(_ x: Lanes) -> Lanes {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

@inline(__always)
private func lanes(_ p: Pixels) -> Lanes { unsafeBitCast(p, to: Lanes.self) }

@inline(__always)
private func pixels(_ l: Lanes) -> Pixels { unsafeBitCast(l, to: Pixels.self) }

/// Four pixels' coverage bytes, each in both 16-bit lanes of its pixel.
@inline(__always)
private func coverage4(_ mask: UnsafePointer<UInt8>) -> Lanes {
    let m = Pixels(UInt32(mask[0]), UInt32(mask[1]), UInt32(mask[2]), UInt32(mask[3]))
    return lanes(m | (m &<< 16))
}

@inline(__always)
private func load4(_ p: UnsafeMutablePointer<UInt32>) -> Pixels {
    UnsafeRawPointer(p).loadUnaligned(as: Pixels.self)
}

@inline(__always)
private func store4(_ p: UnsafeMutablePointer<UInt32>, _ v: Pixels) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Pixels.self)
}

enum SpanKernels {
    /// out[i] = blendOver(dst[i], src, mask[i]); with `constantDestination` nil the destination is
    /// `out` itself, otherwise every destination pixel is that value (and `out` is only written).
    @inline(__always)
    static func over(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int, _ src: UInt32,
                     constantDestination: UInt32?) {
        let low = Pixels(repeating: 0x00FF_00FF)
        let srb = lanes(Pixels(repeating: src & 0x00FF_00FF)), sag = lanes(Pixels(repeating: (src >> 8) & 0x00FF_00FF))
        let sa = Lanes(repeating: UInt16(src >> 24))
        @inline(__always) func blend(_ d: Pixels, _ c: Lanes) -> Pixels {
            let ia = 255 &- div255(sa &* c)
            let rb = div255(srb &* c) &+ div255(lanes(d & low) &* ia)
            let ag = div255(sag &* c) &+ div255(lanes((d &>> 8) & low) &* ia)
            return pixels(rb) | (pixels(ag) &<< 8)
        }
        var i = 0
        if let constantDestination {
            let d = Pixels(repeating: constantDestination)
            while i + 4 <= count {
                store4(out + i, blend(d, coverage4(mask + i)))
                i += 4
            }
        } else {
            while i + 4 <= count {
                store4(out + i, blend(load4(out + i), coverage4(mask + i)))
                i += 4
            }
        }
        while i < count {
            out[i] = blendOver(constantDestination ?? out[i], src, coverage: UInt32(mask[i]))
            i += 1
        }
    }

    /// out[i] = lerpPixel(dst[i], src, mask[i]), with the destination as in `over`.
    @inline(__always)
    static func lerp(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int, _ src: UInt32,
                     constantDestination: UInt32?) {
        let low = Pixels(repeating: 0x00FF_00FF)
        let srb = lanes(Pixels(repeating: src & 0x00FF_00FF)), sag = lanes(Pixels(repeating: (src >> 8) & 0x00FF_00FF))
        @inline(__always) func mix(_ d: Pixels, _ c: Lanes) -> Pixels {
            let ic = 255 &- c
            let rb = div255(srb &* c &+ lanes(d & low) &* ic)
            let ag = div255(sag &* c &+ lanes((d &>> 8) & low) &* ic)
            return pixels(rb) | (pixels(ag) &<< 8)
        }
        var i = 0
        if let constantDestination {
            let d = Pixels(repeating: constantDestination)
            while i + 4 <= count {
                store4(out + i, mix(d, coverage4(mask + i)))
                i += 4
            }
        } else {
            while i + 4 <= count {
                store4(out + i, mix(load4(out + i), coverage4(mask + i)))
                i += 4
            }
        }
        while i < count {
            out[i] = lerpPixel(constantDestination ?? out[i], src, UInt32(mask[i]))
            i += 1
        }
    }
}
