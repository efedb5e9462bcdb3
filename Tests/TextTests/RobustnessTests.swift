import Raster
import Testing
@testable import Text

#if canImport(Glibc)
import Glibc
#endif

@Suite("Bad input: invalid UTF-8, missing glyphs, absurd sizes")
struct RobustnessTests {
    @Test("invalid UTF 8 becomes the replacement glyph") func invalidUTF8BecomesTheReplacementGlyph() throws {
        let face = try TestFonts.regular()
        let font = try Font(face: face, pixelSize: 24)
        // 0xFF never occurs in UTF-8; 0xC3 0x28 is a broken two-byte sequence; then a lone continuation.
        let text = String(decoding: [0x31, 0xFF, 0x32, 0xC3, 0x28, 0x80, 0x33] as [UInt8], as: UTF8.self)
        let replacement = face.glyphInfo(for: "\u{FFFD}").index
        #expect(replacement != 0 && replacement != FontFace.missingGlyph)
        let glyphs = font.layout(text).glyphs.map(\.glyph)
        #expect(glyphs.filter { $0 == replacement }.count == 3)
        var buffer = canvas()
        let damage = TextRenderer().draw(text, font: font, color: white, x: 10, y: 50, into: &buffer)
        #expect(!damage.isEmpty)
        #expect(difference(buffer, canvas()).count > 100)
    }

    @Test("missing glyphs draw our box") func missingGlyphsDrawOurBox() throws {
        let face = try TestFonts.regular()
        let font = try Font(face: face, pixelSize: 40)
        let line = font.layout("\u{4E00}")  // CJK: not in DejaVu Sans
        #expect(line.glyphs.map(\.glyph) == [FontFace.missingGlyph])
        #expect(abs(line.metrics.width - 0.6 * 40) < 0.01)
        let renderer = TextRenderer()
        var buffer = canvas()
        let damage = renderer.draw("a\u{4E00}b", font: font, color: white, x: 10, y: 60, into: &buffer)
        #expect(renderer.cache.rasterizations == 2)  // a and b; the box is ours
        // The box's outline is solid white at its edge and hollow in the middle.
        let box = renderer.inkBounds(of: "\u{4E00}", font: font, x: 10 + font.measure("a").width, y: 60)
        #expect(box.width >= 15 && box.height >= 25)
        #expect(buffer[box.x0, box.y0 + box.height / 2] == 0xFFFF_FFFF)
        #expect(buffer[box.x0 + box.width / 2, box.y0 + box.height / 2] == 0xFF0D_1117)
        #expect(damage.x1 > box.x1)
    }

    @Test("look alikes stand in and controls vanish") func lookAlikesStandInAndControlsVanish() throws {
        let face = try TestFonts.regular()
        let font = try Font(face: face, pixelSize: 20)
        // Every DejaVu face has U+2212, so the substitution table is checked directly.
        #expect(FontFace.substitute(for: 0x2212) == 0x2D)
        #expect(FontFace.substitute(for: 0x202F) == 0x20)
        #expect(FontFace.substitute(for: 0x4E00) == nil)
        #expect(font.layout("\u{2212}").glyphs[0].glyph != face.glyphInfo(for: "-").index)
        var format = PriceFormat.usDollar
        #expect(format.usingMinusSign(supportedBy: face).minusSign == "\u{2212}")
        format.minusSign = "\u{4E00}"  // a "minus" the font lacks
        #expect(format.usingMinusSign(supportedBy: face).minusSign == "-")
        // Control characters draw nothing and advance nothing.
        #expect(font.measure("1\u{7}\u{1B}2\n").width == font.measure("12").width)
    }

    @Test("absurd pixel sizes are refused or clamped quickly") func absurdPixelSizesAreRefusedOrClampedQuickly() throws {
        let face = try TestFonts.regular()
        for size in [0, -5, 10_000, .infinity, .nan, 1e300] as [Double] {
            #expect(throws: TextError.self) { try Font(face: face, pixelSize: size) }
        }
        do {
            _ = try Font(face: face, pixelSize: 0)
        } catch {
            #expect(error.description.contains("0.0"))
        }
        #expect(Font(face: face, clampingPixelSize: 10_000).pixelSize == 1000)
        #expect(Font(face: face, clampingPixelSize: 0).pixelSize == 1.0 / 64)
        #expect(Font(face: face, clampingPixelSize: .nan).pixelSize == 1.0 / 64)
        #expect(Font(face: face, clampingPixelSize: -3).pixelSize == 1.0 / 64)

        // Drawing at the clamped extremes finishes quickly and does not trap.
        let clock = ContinuousClock()
        let start = clock.now
        let renderer = TextRenderer()
        var buffer = canvas(400, 400)
        renderer.draw("W", font: Font(face: face, clampingPixelSize: 10_000), color: white, x: 0, y: 390, into: &buffer)
        renderer.draw("W", font: Font(face: face, clampingPixelSize: 0), color: white, x: 0, y: 390, into: &buffer)
        #expect(clock.now - start < .seconds(3))
        #expect(difference(buffer, canvas(400, 400)).count > 10_000)
    }
}
