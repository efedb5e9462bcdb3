import Raster
import Testing
@testable import Text

@Suite("Glyph cache: no FreeType on redraw, LRU bounds")
struct GlyphCacheTests {
    @Test("second draw makes no free type call") func secondDrawMakesNoFreeTypeCall() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 24, tabularDigits: true)
        let renderer = TextRenderer()
        var first = canvas(), second = canvas()
        renderer.draw("$189.43 +1.23%", font: font, color: white, x: 10.6, y: 50, into: &first)
        let cold = renderer.cache.rasterizations
        #expect(cold >= 10)  // distinct glyph/phase pairs in the string
        renderer.draw("$189.43 +1.23%", font: font, color: white, x: 10.6, y: 50, into: &second)
        #expect(renderer.cache.rasterizations == cold)
        #expect(second.pixels == first.pixels)
        #expect(renderer.cache.hits >= 14)
        // Layout and measuring never render.
        _ = font.measure("$189.43 +1.23%")
        _ = font.layout("$189.43 +1.23%")
        #expect(renderer.cache.rasterizations == cold)
    }

    @Test("bounds hold under many sizes") func boundsHoldUnderManySizes() throws {
        let face = try TestFonts.regular()
        let cache = GlyphCache(maxBytes: 64 * 1024, maxEntries: 200)
        let renderer = TextRenderer(cache: cache)
        var buffer = canvas(800, 300)
        for size in stride(from: 6.0, through: 140.0, by: 2.0) {
            let font = try Font(face: face, pixelSize: size)
            renderer.draw("0123456789 AVWX", font: font, color: white, x: 3.3, y: 200, into: &buffer)
            #expect(cache.byteCount <= 64 * 1024)
            #expect(cache.count <= 200)
        }
        #expect(cache.evictions > 0)
        #expect(cache.count > 0)
        // Shrinking the budget evicts at once.
        cache.maxEntries = 10
        #expect(cache.count <= 10)
        cache.maxBytes = 1
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("least recently used is evicted first") func leastRecentlyUsedIsEvictedFirst() throws {
        let face = try TestFonts.regular()
        let font = try Font(face: face, pixelSize: 16, positioning: .wholePixel)
        let cache = GlyphCache(maxEntries: 3)
        let renderer = TextRenderer(cache: cache)
        var buffer = canvas()
        renderer.draw("a", font: font, color: white, x: 0, y: 20, into: &buffer)
        renderer.draw("b", font: font, color: white, x: 0, y: 20, into: &buffer)
        renderer.draw("c", font: font, color: white, x: 0, y: 20, into: &buffer)
        renderer.draw("a", font: font, color: white, x: 0, y: 20, into: &buffer)  // a is now the newest
        #expect(cache.rasterizations == 3)
        renderer.draw("d", font: font, color: white, x: 0, y: 20, into: &buffer)  // evicts b, the oldest
        #expect(cache.rasterizations == 4)
        renderer.draw("a", font: font, color: white, x: 0, y: 20, into: &buffer)
        renderer.draw("c", font: font, color: white, x: 0, y: 20, into: &buffer)
        #expect(cache.rasterizations == 4)
        renderer.draw("b", font: font, color: white, x: 0, y: 20, into: &buffer)
        #expect(cache.rasterizations == 5)
        #expect(cache.count == 3)
    }

    @Test("a mask bigger than the budget is drawn but not kept") func aMaskBiggerThanTheBudgetIsDrawnButNotKept() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 200)
        let cache = GlyphCache(maxBytes: 1000)
        let renderer = TextRenderer(cache: cache)
        var buffer = canvas(300, 300)
        renderer.draw("M", font: font, color: white, x: 10, y: 250, into: &buffer)
        #expect(difference(buffer, canvas(300, 300)).count > 5000)
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("faces never share masks") func facesNeverShareMasks() throws {
        let regular = try Font(face: TestFonts.regular(), pixelSize: 30)
        let bold = try Font(face: FontFace(path: TestFonts.boldPath), pixelSize: 30)
        let renderer = TextRenderer()
        var a = canvas(), b = canvas()
        renderer.draw("H", font: regular, color: white, x: 10, y: 50, into: &a)
        renderer.draw("H", font: bold, color: white, x: 10, y: 50, into: &b)
        #expect(renderer.cache.rasterizations == 2)
        #expect(a.pixels != b.pixels)
    }
}
