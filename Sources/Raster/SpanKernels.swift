import CRaster
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

/// Four pixels' coverage bytes, each in both 16-bit lanes of its pixel. Loaded as one vector and
/// widened lane by lane, which compiles to a load and two unpacks (built from four scalar bytes it
/// took twenty instructions).
@inline(__always)
private func coverage4(_ mask: UnsafePointer<UInt8>) -> Lanes {
    let v = SIMD4<UInt16>(truncatingIfNeeded: UnsafeRawPointer(mask).loadUnaligned(as: SIMD4<UInt8>.self))
    return Lanes(v[0], v[0], v[1], v[1], v[2], v[2], v[3], v[3])
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
        if src >> 24 == 255 {
            // Opaque: one rounding, as `blendOver` takes it.
            lerp(out, mask, count, src, constantDestination: constantDestination)
            return
        }
        let sa = Lanes(repeating: UInt16(src >> 24))
        run(out, mask, count, constantDestination, full: nil, four: { d, c in
            let ia = 255 &- div255(sa &* c)
            let rb = div255(srb &* c) &+ div255(lanes(d & low) &* ia)
            let ag = div255(sag &* c) &+ div255(lanes((d &>> 8) & low) &* ia)
            return pixels(rb) | (pixels(ag) &<< 8)
        }, one: { d, c in blendOver(d, src, coverage: c) })
    }

    /// out[i] = lerpPixel(dst[i], src, mask[i]), with the destination as in `over`.
    @inline(__always)
    static func lerp(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int, _ src: UInt32,
                     constantDestination: UInt32?) {
        let low = Pixels(repeating: 0x00FF_00FF)
        let srb = lanes(Pixels(repeating: src & 0x00FF_00FF)), sag = lanes(Pixels(repeating: (src >> 8) & 0x00FF_00FF))
        run(out, mask, count, constantDestination, full: src, four: { d, c in
            let ic = 255 &- c
            let rb = div255(srb &* c &+ lanes(d & low) &* ic)
            let ag = div255(sag &* c &+ lanes((d &>> 8) & low) &* ic)
            return pixels(rb) | (pixels(ag) &<< 8)
        }, one: { d, c in lerpPixel(d, src, c) })
    }

    /// The loop both kernels share: four pixels at a time through `four` (destination pixels and
    /// their coverage in both lanes of each pixel), the rest one by one through `one`, which must
    /// compute the same. Four pixels of coverage 0 keep their destination and, when `full` is
    /// given, four of coverage 255 become `full`, without the arithmetic (the outside and the
    /// inside of a shape next to its edge cells). Always inlined, so each kernel gets its own loop
    /// with no call inside.
    @inline(__always)
    private static func run(_ out: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, _ count: Int,
                            _ constantDestination: UInt32?, full: UInt32?, four: (Pixels, Lanes) -> Pixels,
                            one: (UInt32, UInt32) -> UInt32) {
        var i = 0
        // With no `full`, 0 stands for "never": a zero mask is taken first.
        let allFull = full != nil ? UInt32.max : 0, fullPixels = Pixels(repeating: full ?? 0)
        if let constantDestination {
            let d = Pixels(repeating: constantDestination)
            while i &+ 4 <= count {
                let m = UnsafeRawPointer(mask + i).loadUnaligned(as: UInt32.self)
                store4(out + i, m == 0 ? d : m == allFull ? fullPixels : four(d, coverage4(mask + i)))
                i &+= 4
            }
        } else {
            while i &+ 4 <= count {
                let m = UnsafeRawPointer(mask + i).loadUnaligned(as: UInt32.self)
                if m == 0 {
                    // The destination stays.
                } else if m == allFull {
                    store4(out + i, fullPixels)
                } else {
                    store4(out + i, four(load4(out + i), coverage4(mask + i)))
                }
                i &+= 4
            }
        }
        while i < count {
            out[i] = one(constantDestination ?? out[i], UInt32(mask[i]))
            i &+= 1
        }
    }

    /// Spans at least this long are written with streaming stores. Only a frame wider than 2,048
    /// pixels has them (9 MB and more: 4K is 33 MB, more than this host's 32 MB L3 and far more
    /// than a kiosk SoC's caches), so a line that would be read in only to be overwritten, and
    /// evicted before the frame is shown, is not read at all (a C loop filling a 4K frame: 0.55x
    /// the time on one core; two cores 1.5x as fast as one instead of 1.2x). 1080p fills stay in
    /// the cache for the copy to the screen that follows.
    static let streamingFillPixels = 2048

    /// out[0 ..< count] = value, sixty-four pixels a store group (the wide spans inside a shape and
    /// the backdrop's deferred clear: a third of a frame's pixel writes), then sixteen, four, one.
    @inline(__always)
    static func fill(_ out: UnsafeMutablePointer<UInt32>, _ count: Int, _ value: UInt32) {
        if count >= streamingFillPixels { tb_fill_streaming(out, count, value); return }
        let v = Pixels(repeating: value)
        var i = 0
        while i &+ 64 <= count {
            let p = out + i
            store4(p, v); store4(p + 4, v); store4(p + 8, v); store4(p + 12, v)
            store4(p + 16, v); store4(p + 20, v); store4(p + 24, v); store4(p + 28, v)
            store4(p + 32, v); store4(p + 36, v); store4(p + 40, v); store4(p + 44, v)
            store4(p + 48, v); store4(p + 52, v); store4(p + 56, v); store4(p + 60, v)
            i &+= 64
        }
        while i &+ 16 <= count {
            store4(out + i, v); store4(out + i + 4, v); store4(out + i + 8, v); store4(out + i + 12, v)
            i &+= 16
        }
        while i &+ 4 <= count {
            store4(out + i, v)
            i &+= 4
        }
        // The last one to three pixels: one store of four that ends at the span's end, over pixels
        // just written (the deferred clear's pieces are often a block's odd remainder).
        if i < count {
            if count >= 4 {
                store4(out + (count &- 4), v)
            } else {
                while i < count { out[i] = value; i &+= 1 }
            }
        }
    }
}

/// `out[i] = lerpPixel(a[i], b[i], t)` for `count` pixels (bit for bit), vectorised: the tape's
/// sub-pixel crawl blends each column with its right neighbour over the whole band every frame.
public func lerpPixels(into out: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>,
                       count: Int, t: UInt32) {
    guard count > 0 else { return }
    tb_lerp_bytes(UnsafeMutableRawPointer(out).assumingMemoryBound(to: UInt8.self),
                  UnsafeRawPointer(a).assumingMemoryBound(to: UInt8.self),
                  UnsafeRawPointer(b).assumingMemoryBound(to: UInt8.self), count * 4, UInt16(min(255, t)))
}
