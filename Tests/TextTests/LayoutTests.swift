import Raster
import Testing
@testable import Text

@Suite("Layout: metrics, kerning, tabular digits, alignment")
struct LayoutTests {
    @Test("metrics follow the font units") func metricsFollowTheFontUnits() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 24)
        let m = font.measure("189.50")
        // DejaVu Sans: every digit advances 1303 units, "." 651, 2048 units per em.
        #expect(abs(m.width - Double(5 * 1303 + 651) * 24 / 2048) < 1e-9)
        #expect(abs(m.ascent - 1901.0 * 24 / 2048) < 1e-9)
        #expect(abs(m.descent - 483.0 * 24 / 2048) < 1e-9)
        #expect(font.measure("").width == 0)
        // Twice the size, twice the width.
        #expect(abs(font.withPixelSize(48).measure("189.50").width - 2 * m.width) < 1e-9)
    }

    @Test("kerning pulls AV together") func kerningPullsAVTogether() throws {
        let face = try TestFonts.regular()
        let kerned = try Font(face: face, pixelSize: 100)
        let plain = try Font(face: face, pixelSize: 100, kerning: false)
        let separate = kerned.measure("A").width + kerned.measure("V").width
        #expect(abs(plain.measure("AV").width - separate) < 1e-9)
        // DejaVu Sans kerns A,V by -131 units: 6.4 px at 100 px.
        #expect(abs(kerned.measure("AV").width - (separate - 131.0 * 100 / 2048)) < 1e-9)
        #expect(kerned.layout("AV").glyphs[1].x < plain.layout("AV").glyphs[1].x)
        #expect(kerned.measure("To").width < plain.measure("To").width)
    }

    @Test("tabular digits share one width") func tabularDigitsShareOneWidth() throws {
        let face = try TestFonts.regular()
        // DejaVu's digits are all 1303 units wide; make "1" narrow like a proportional-figure font.
        face.overrideAdvanceForTesting(of: "1", to: 700)
        let proportional = try Font(face: face, pixelSize: 32)
        let tabular = try Font(face: face, pixelSize: 32, tabularDigits: true)
        #expect(proportional.measure("111.11").width < proportional.measure("888.88").width)
        #expect(tabular.measure("111.11").width == tabular.measure("888.88").width)
        let digits = (0...9).map { tabular.measure(String($0)).width }
        #expect(Set(digits).count == 1)
        #expect(abs(digits[0] - 1303.0 * 32 / 2048) < 1e-9)
        // The narrow digit is centred in its cell.
        let line = tabular.layout("81")
        #expect(abs(line.glyphs[1].x - (1303.0 + (1303.0 - 700.0) / 2) * 32 / 2048) < 1e-9)
    }

    @Test("right and centre alignment shift by the width") func rightAndCentreAlignmentShiftByTheWidth() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 24)
        let renderer = TextRenderer()
        let width = font.measure("$1,234.56").width
        var reference = canvas()
        renderer.draw("$1,234.56", font: font, color: white, x: 300 - width, y: 60, into: &reference)
        var right = canvas()
        renderer.draw("$1,234.56", font: font, color: white, x: 300, y: 60, alignment: .baselineRight, into: &right)
        #expect(right.pixels == reference.pixels)
        var centred = canvas()
        renderer.draw("$1,234.56", font: font, color: white, x: 300 - width / 2, y: 60, alignment: .baselineCenter,
                      into: &centred)
        #expect(centred.pixels == reference.pixels)
        var top = canvas()
        renderer.draw("$1,234.56", font: font, color: white, x: 300 - width, y: 60 - font.ascent,
                      alignment: .topLeft, into: &top)
        #expect(top.pixels == reference.pixels)
        #expect(difference(reference, canvas()).count > 100)
    }

    @Test("a laid out line draws like the string") func aLaidOutLineDrawsLikeTheString() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 20, tabularDigits: true)
        let renderer = TextRenderer()
        var a = canvas(), b = canvas()
        let da = renderer.draw("12:45 +1.23%", font: font, color: white, x: 10.3, y: 50, into: &a)
        let db = renderer.draw(font.layout("12:45 +1.23%"), color: white, x: 10.3, y: 50, into: &b)
        #expect(a.pixels == b.pixels)
        #expect(da == db)
        #expect(renderer.inkBounds(of: "12:45 +1.23%", font: font, x: 10.3, y: 50) == da)
    }

    @Test("drawing stays inside the clip and reports its damage") func drawingStaysInsideTheClipAndReportsItsDamage() throws {
        let font = try Font(face: TestFonts.regular(), pixelSize: 40)
        let renderer = TextRenderer()
        let clip = IntRect(x0: 30, y0: 20, x1: 90, y1: 50)
        var buffer = canvas()
        let damage = renderer.draw("Clipped text", font: font, color: white, x: 5, y: 60, into: &buffer, clip: clip)
        let changed = difference(buffer, canvas())
        #expect(changed.count > 50)
        #expect(changed.bounds.intersection(clip) == changed.bounds)
        #expect(damage.intersection(clip) == damage)
        #expect(damage.intersection(changed.bounds) == changed.bounds)
        // Entirely off the buffer or with absurd anchors: nothing drawn, nothing trapped.
        var untouched = canvas()
        #expect(renderer.draw("x", font: font, color: white, x: -1000, y: 60, into: &untouched).isEmpty)
        #expect(renderer.draw("x", font: font, color: white, x: .nan, y: 60, into: &untouched).isEmpty)
        #expect(renderer.draw("x", font: font, color: white, x: 1e300, y: -1e300, into: &untouched).isEmpty)
        #expect(untouched.pixels == canvas().pixels)
    }

    @Test("subpixel positions move the ink by quarter pixels") func subpixelPositionsMoveTheInkByQuarterPixels() throws {
        let face = try TestFonts.regular()
        let font = try Font(face: face, pixelSize: 24)
        let renderer = TextRenderer()
        var a = canvas(), b = canvas(), c = canvas()
        renderer.draw("l", font: font, color: white, x: 20, y: 50, into: &a)
        renderer.draw("l", font: font, color: white, x: 20.25, y: 50, into: &b)
        renderer.draw("l", font: font, color: white, x: 21, y: 50, into: &c)
        #expect(a.pixels != b.pixels)  // a quarter pixel is a different mask
        #expect(renderer.cache.rasterizations == 2)  // 20 and 21 share phase 0
        // Whole-pixel positioning snaps 20.25 back onto 20.
        let snapped = try Font(face: face, pixelSize: 24, positioning: .wholePixel)
        var d = canvas()
        renderer.draw("l", font: snapped, color: white, x: 20.25, y: 50, into: &d)
        #expect(d.pixels == a.pixels)
    }
}
