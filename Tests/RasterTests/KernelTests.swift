// The rasterizer's shortcuts against the plain computations they stand for: floor and ceil by the
// 2^52 trick, the SIMD coverage quantisation, the span kernels with their shortcuts for groups of
// four pixels at coverage 0 or 255, and a clipped redraw that builds only the dashes it can see.
@testable import Raster
import Testing

@Suite("Rasterizer kernels equal the plain arithmetic")
struct KernelTests {
    /// Integers, their neighbours one ulp away, halves (where rounding to nearest would differ from
    /// floor) and a spread of ordinary values up to beyond the largest canvas.
    static let gridValues: [Double] = {
        var v: [Double] = [0, 0.25, 0.5, 0.75, 1e-300, 0.49999999999999994]
        for k in [1.0, 2, 3, 7, 8, 255, 1919, 1920, 4095, 8192, 16_383] {
            v += [k, k.nextUp, k.nextDown, k + 0.5, k - 0.5, (k + 0.5).nextUp, (k + 0.5).nextDown]
        }
        var state: UInt64 = 7
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            v.append(Double(state >> 11) * 0x1p-53 * 9000)
        }
        return v
    }()

    @Test("floor and ceil of grid coordinates equal Double's rounding")
    func floorAndCeil() {
        for v in Self.gridValues {
            #expect(floorOfNonNegative(v) == Int(v.rounded(.down)), "floor \(v)")
            #expect(ceilOfNonNegative(v) == Int(v.rounded(.up)), "ceil \(v)")
        }
    }

    @Test("four coverages quantise in one register as one at a time would")
    func quantiseFour() {
        // Halves (the k + 0.5 values below) round to even.
        func reference(_ a: Float) -> UInt8 { UInt8((min(abs(a), 1) * 255).rounded(.toNearestOrEven)) }
        var values: [Float] = [0, -0, 1, -1, 2, -3.5, 1e9, -1e9, .greatestFiniteMagnitude, 0.5 / 255, 1.5 / 255]
        for k in 0...255 {
            let exact = Float(k) / 255, half = (Float(k) + 0.5) / 255
            values += [exact, exact.nextUp, exact.nextDown, half, half.nextUp, half.nextDown, -half]
        }
        while values.count % 4 != 0 { values.append(0.3) }
        for i in stride(from: 0, to: values.count, by: 4) {
            let q = CoverageAccumulator.quantiseNonZero(SIMD4(values[i], values[i + 1], values[i + 2], values[i + 3]))
            let bytes = withUnsafeBytes(of: q) { Array($0) }
            for k in 0..<4 { #expect(bytes[k] == reference(values[i + k]), "quantise \(values[i + k])") }
        }
    }

    /// Masks with groups of four at 0 and at 255, mixed groups and a ragged tail.
    static let masks: [[UInt8]] = [
        [0, 0, 0, 0, 255, 255, 255, 255, 0, 128, 255, 3, 255, 255, 255],
        [255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 1],
        Array((0..<37).map { UInt8(($0 * 71) % 256) }),
        [7, 0, 0],
    ]

    @Test("mask kernels equal the scalar blends, in place and over a constant destination",
          arguments: [0xFF00_C805 as UInt32, 0x4000_3201, 0x0000_0000, 0xFFFF_FFFF])
    func maskKernels(src: UInt32) {
        for mask in Self.masks {
            let destination = (0..<mask.count).map { UInt32(0xFF00_0000) | UInt32($0 &* 0x01_0307 & 0xFF_FFFF) }
            for constant in [nil, 0xFF0D_1117 as UInt32] {
                for copy in [false, true] {
                    var out = constant == nil ? destination : [UInt32](repeating: 0xDEAD_BEEF, count: mask.count)
                    out.withUnsafeMutableBufferPointer { o in
                        mask.withUnsafeBufferPointer { m in
                            if copy {
                                SpanKernels.lerp(o.baseAddress!, m.baseAddress!, mask.count, src, constantDestination: constant)
                            } else {
                                SpanKernels.over(o.baseAddress!, m.baseAddress!, mask.count, src, constantDestination: constant)
                            }
                        }
                    }
                    for i in mask.indices {
                        let d = constant ?? destination[i], c = UInt32(mask[i])
                        let expected = copy ? lerpPixel(d, src, c) : blendOver(d, src, coverage: c)
                        #expect(out[i] == expected, "pixel \(i) of \(mask) src \(src) constant \(String(describing: constant)) copy \(copy)")
                    }
                }
            }
        }
    }

    /// Long spans take the streaming stores (whole 64-byte lines between ordinary ends), so they
    /// are tried from every start within a line.
    @Test("a fill writes exactly its pixels",
          arguments: [0, 1, 3, 4, 15, 16, 17, 35, SpanKernels.streamingFillPixels - 1,
                      SpanKernels.streamingFillPixels, SpanKernels.streamingFillPixels + 17, 4099])
    func fill(count: Int) {
        let starts = count >= SpanKernels.streamingFillPixels - 1 ? Array(0..<16) : [1]
        for start in starts {
            let row = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count + 48)
            defer { row.deallocate() }
            row.initialize(repeating: 1)
            // The span begins `start` + 1 pixels past a 64-byte boundary.
            let base = Int(bitPattern: row.baseAddress!)
            let first = ((base + 63) & ~63 - base) / 4 + 1 + start
            SpanKernels.fill(row.baseAddress! + first, count, 0xFF12_3456)
            #expect(row[first - 1] == 1 && row[first + count] == 1, "start \(start)")
            #expect(row[first..<(first + count)].allSatisfy { $0 == 0xFF12_3456 }, "start \(start)")
        }
    }

    @Test("a clipped redraw of dashed strokes (only the dashes near the clip built) equals a full one inside it",
          arguments: [IntRect(x0: 40, y0: 0, x1: 52, y1: 120), IntRect(x0: 0, y0: 30, x1: 160, y1: 34),
                      IntRect(x0: 97, y0: 61, x1: 98, y1: 62)])
    func clippedDashes(clip: IntRect) {
        func draw(_ c: Canvas) {
            c.clear(Color(rgb: 0x0D1117))
            var zigzag = Path()
            zigzag.move(to: Point(3.3, 100))
            for i in 1...12 { zigzag.line(to: Point(3.3 + Double(i) * 12.7, i % 2 == 0 ? 100 : 12.5)) }
            c.stroke(zigzag, style: StrokeStyle(width: 2.5, cap: .round, join: .round, dashes: [7, 3.5, 0, 4], dashOffset: 2),
                     paint: .solid(Color(rgb: 0xA0A0A0)))
            var line = Path()
            line.move(to: Point(5, 32.5)); line.line(to: Point(155, 32.5))
            c.stroke(line, style: StrokeStyle(width: 1, dashes: [2, 3]), paint: .solid(Color(rgb: 0x8B949E)))
            c.finish()
        }
        let full = Canvas(width: 160, height: 120)
        draw(full)
        let clipped = Canvas(width: 160, height: 120)
        clipped.clip = clip
        draw(clipped)
        for y in clip.y0..<clip.y1 {
            for x in clip.x0..<clip.x1 {
                #expect(clipped.buffer[x, y] == full.buffer[x, y], "pixel \(x),\(y)")
            }
        }
    }

    /// An opaque source blends with one rounding: every channel is the nearest integer to
    /// (s·c + d·(255 − c)) / 255, for every coverage (pixman's two roundings miss it by one level in
    /// thousands of these cases).
    @Test("opaque source over rounds once") func opaqueSourceOverRoundsOnce() {
        var wrong = 0, first = ""
        for s in stride(from: UInt32(0), through: 255, by: 3) {
            for d in stride(from: UInt32(0), through: 255, by: 5) {
                // The channels differ (red s, green d, blue s ^ d) so a mix-up between them shows too.
                let src = 0xFF00_0000 | s << 16 | d << 8 | (s ^ d), dst = 0xFF00_0000 | d << 16 | s << 8 | (255 - d)
                for c in UInt32(0)...255 {
                    let out = blendOver(dst, src, coverage: c)
                    for shift in [0, 8, 16, 24] as [UInt32] {
                        let sc = Double(src >> shift & 0xFF), dc = Double(dst >> shift & 0xFF)
                        let exact = ((sc * Double(c) + dc * Double(255 - c)) / 255).rounded()
                        if Double(out >> shift & 0xFF) != exact {
                            if wrong == 0 { first = "c \(c) src \(src) dst \(dst) shift \(shift)" }
                            wrong += 1
                        }
                    }
                }
            }
        }
        #expect(wrong == 0, "\(wrong) channels off, first: \(first)")
    }

    /// The tape's blend of each column with its neighbour: every channel pair at every t is the
    /// nearest integer to (b t + a (255 - t)) / 255 (worked out here in integers, 255 being odd
    /// no value falls half way), and the pixel form equals `lerpPixel`, run lengths around the
    /// vector width included.
    @Test("lerpPixels rounds every channel as b t + a (255 - t) over 255 does")
    func lerpPixelsExact() {
        var wrong = 0
        for t in UInt32(0)...255 {
            // Channel pairs (a, b) in every lane: 256 x 256 pairs per t, 4 per pixel.
            var a = [UInt32](), b = [UInt32]()
            for hi in 0..<256 { for lo in Swift.stride(from: 0, to: 256, by: 4) {
                a.append(UInt32(hi) * 0x0101_0101)
                b.append(UInt32(lo) | UInt32(lo + 1) << 8 | UInt32(lo + 2) << 16 | UInt32(lo + 3) << 24)
            } }
            var out = [UInt32](repeating: 0, count: a.count)
            out.withUnsafeMutableBufferPointer { o in lerpPixels(into: o.baseAddress!, a, b, count: a.count, t: t) }
            for i in out.indices {
                for shift in [0, 8, 16, 24] as [UInt32] {
                    let x = (a[i] >> shift) & 0xFF, y = (b[i] >> shift) & 0xFF
                    let expected = (2 * (y * t + x * (255 - t)) + 255) / 510
                    if (out[i] >> shift) & 0xFF != expected { wrong += 1 }
                }
                if out[i] != lerpPixel(a[i], b[i], t) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
        // Lengths 0 to 40 from an odd start: nothing written past the run.
        let src = (0..<48).map { UInt32($0) &* 0x0103_0507 }
        for n in 0...40 {
            var out = [UInt32](repeating: 0xDEAD_BEEF, count: 48)
            out.withUnsafeMutableBufferPointer { o in
                src.withUnsafeBufferPointer { s in lerpPixels(into: o.baseAddress! + 1, s.baseAddress! + 1, s.baseAddress! + 2, count: n, t: 77) }
            }
            #expect(out[0] == 0xDEAD_BEEF && out[(n + 1)...].allSatisfy { $0 == 0xDEAD_BEEF })
            #expect((0..<n).allSatisfy { out[$0 + 1] == lerpPixel(src[$0 + 1], src[$0 + 2], 77) })
        }
    }
}
