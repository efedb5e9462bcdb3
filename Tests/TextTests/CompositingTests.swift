import Raster
import Testing
@testable import Text

@Suite("Compositing kernel")
struct CompositingTests {
    /// Every coverage value, every row length 0…17 (all tail lengths, runs of empty and full words),
    /// against the scalar formula and Raster's blend.
    @Test("four pixel steps match the scalar blend", arguments: [0xFFE6_EDF3, 0xFF00_C805, 0xFFFF_FFFF, 0xFF00_0000] as [UInt32])
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
                let pairs = CachedGlyph(mask: CoverageMask(width: count, height: 1, coverage: coverage), left: 0, top: 0)
                    .pairs
                after.withUnsafeMutableBufferPointer { d in
                    coverage.withUnsafeBufferPointer { c in
                        pairs.withUnsafeBufferPointer { p in
                            if count > 0 {
                                compositeOpaqueRow(d.baseAddress!, coverage: c.baseAddress!, pairs: p.baseAddress!,
                                                   count: count, source: source, lanes: lanes)
                            }
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
                    #expect(after[i] == raster[0, 0], "Raster's blend of an opaque colour rounds once too")
                }
            }
        }
    }

    @Test("translucent colours blend like raster") func translucentColoursBlendLikeRaster() throws {
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

    /// Every inked pixel lies inside its row's extent, the extent inside the mask, and its width is a
    /// multiple of four unless it takes the whole row.
    @Test("ink extents hold every inked pixel") func inkExtentsHoldEveryInkedPixel() throws {
        let renderer = TextRenderer()
        for size in [7.0, 13, 24, 64] as [Double] {
            let font = try Font(face: TestFonts.regular(), pixelSize: size)
            for g in font.layout("$189.43 Wgil|,.-1").glyphs {
                for phase in 0..<4 {
                    let cached = renderer.cache.glyph(g.glyph, font: font, phase: phase)
                    let mask = cached.mask
                    #expect(cached.ink.count == mask.height && cached.pairs.count == mask.coverage.count)
                    for y in 0..<mask.height {
                        let start = Int(cached.ink[y] & 0xFFFF), end = Int(cached.ink[y] >> 16)
                        #expect(start <= end && end <= mask.width)
                        if end > start { #expect((end - start) % 4 == 0 || (start == 0 && end == mask.width)) }
                        for x in 0..<mask.width where mask.coverage[y * mask.width + x] != 0 {
                            #expect(x >= start && x < end, "size \(size) glyph \(g.glyph) row \(y) column \(x)")
                        }
                    }
                }
            }
        }
    }

    /// Opaque text drawn through the ink extents, clipped on every side and hanging off the buffer,
    /// equals every mask pixel blended one by one inside the clip, and nothing outside it changes.
    @Test("clipped opaque text matches pixel by pixel") func clippedOpaqueTextMatchesPixelByPixel() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 31)
        let color = Color(rgb: 0xE6EDF3)
        let source = color.premultiplied
        let clips: [IntRect?] = [nil, IntRect(x0: 13, y0: 20, x1: 61, y1: 47), IntRect(x0: 0, y0: 0, x1: 38, y1: 120),
                                 IntRect(x0: 29, y0: 33, x1: 30, y1: 90)]
        var drawn = 0
        for (x, y) in [(10.0, 60.0), (-7.0, 15.0), (290.0, 118.0), (3.3, 40.0)] {
            for clip in clips {
                let renderer = TextRenderer()
                var buffer = canvas()
                renderer.draw("Wg$8,l", font: font, color: color, x: x, y: y, into: &buffer, clip: clip)
                var reference = canvas()
                let area = (clip ?? reference.bounds).intersection(reference.bounds)
                let row = Int((y + 0.5).rounded(.down))
                for g in font.layout("Wg$8,l").glyphs {
                    let quarters = Int(((x + g.x) * 4 + 0.5).rounded(.down))
                    let cached = renderer.cache.glyph(g.glyph, font: font, phase: quarters & 3)
                    let x0 = quarters >> 2 + cached.left, y0 = row - cached.top
                    for my in 0..<cached.mask.height {
                        for mx in 0..<cached.mask.width {
                            let px = x0 + mx, py = y0 + my
                            let c = UInt32(cached.mask.coverage[my * cached.mask.width + mx])
                            guard c != 0, px >= area.x0, px < area.x1, py >= area.y0, py < area.y1 else { continue }
                            reference[px, py] = c == 255 ? source : blendOpaque(reference[px, py], source, coverage: c)
                        }
                    }
                }
                #expect(buffer.pixels == reference.pixels, "at (\(x), \(y)) clip \(String(describing: clip))")
                drawn += difference(buffer, canvas()).count
            }
        }
        #expect(drawn > 2000)
    }
}
