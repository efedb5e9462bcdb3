import Raster
import Testing
@testable import Text

@Suite("Compositing kernel")
struct CompositingTests {
    /// Every coverage value, every row length 0…17 (all tail lengths, runs of empty and full words),
    /// against the scalar formula; and within one level of Raster's blend.
    @Test(arguments: [0xFFE6_EDF3, 0xFF00_C805, 0xFFFF_FFFF, 0xFF00_0000] as [UInt32])
    func fourPixelStepsMatchTheScalarBlend(source: UInt32) {
        var seed: UInt32 = 7
        func next() -> UInt32 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return seed
        }
        let lanes = OpaqueSourceLanes(source)
        for count in 0...17 {
            for round in 0..<64 {
                var coverage = (0..<count).map { i in UInt8(truncatingIfNeeded: (round * 17 + i * 31) % 256) }
                if round % 4 == 1 { coverage = coverage.map { $0 < 128 ? 0 : 255 } }  // whole-word runs
                let before = (0..<count).map { _ in 0xFF00_0000 | next() & 0x00FF_FFFF }
                var after = before
                after.withUnsafeMutableBufferPointer { d in
                    coverage.withUnsafeBufferPointer { c in
                        if count > 0 {
                            compositeOpaqueRow(d.baseAddress!, coverage: c.baseAddress!, count: count, source: source,
                                               lanes: lanes)
                        }
                    }
                }
                for i in 0..<count {
                    let c = UInt32(coverage[i])
                    let expected = c == 0 ? before[i] : blendOpaque(before[i], source, coverage: c)
                    #expect(after[i] == expected, "count \(count) pixel \(i) coverage \(c)")
                    var raster = PixelBuffer(width: 1, height: 1, fill: before[i])
                    raster.blend(mask: CoverageMask(width: 1, height: 1, coverage: [coverage[i]]), atX: 0, y: 0,
                                 color: Color(argb: source))
                    for shift in [0, 8, 16, 24] as [UInt32] {
                        let a = Int(after[i] >> shift & 0xFF), b = Int(raster[0, 0] >> shift & 0xFF)
                        #expect(abs(a - b) <= 1)
                    }
                }
            }
        }
    }

    @Test func translucentColoursBlendLikeRaster() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 30)
        let renderer = TextRenderer()
        let color = Color(rgb: 0x00C805).withOpacity(0.5)
        var buffer = canvas()
        renderer.draw("Wg", font: font, color: color, x: 10, y: 60, into: &buffer)
        // The same masks through Raster's own blend give the same pixels.
        var reference = canvas()
        for g in font.layout("Wg").glyphs {
            let quarters = Int(((10 + g.x) * 4 + 0.5).rounded(.down))
            let cached = renderer.cache.glyph(g.glyph, font: font, phase: quarters & 3)
            reference.blend(mask: cached.mask, atX: quarters >> 2 + cached.left, y: 60 - cached.top, color: color)
        }
        #expect(buffer.pixels == reference.pixels)
        #expect(difference(buffer, canvas()).count > 200)
    }
}
