import Display
import DisplayModel
import Raster
import Testing
@testable import Text

#if canImport(Glibc)
import Glibc
#endif

@Suite("SCENE.md §5 text")
struct SceneTextTests {
    @Test("anchors match scene h") func anchorsMatchSceneH() {
        let items = SceneText.items(width: 1920, height: 1080)
        #expect(items.map(\.text) == ["189.50", "189.00", "188.50", "188.00", "10AM", "12PM", "2PM", "4PM", "1D",
                                      "$189.43"])
        #expect(items.map(\.text).joined().count == SceneText.glyphCount)
        #expect(items[0].x == 1750 && items[0].y == 108)
        let second: Double = 100.0 + 880.0 / 3.0 + 8.0
        #expect(items[1].y == second)
        #expect(items[3].y == 988)
        #expect(items[4...7].map(\.x) == [80, 520, 960, 1400])
        #expect(items[4...7].allSatisfy { $0.y == 1050 && $0.pixelSize == 24 })
        #expect(items[8].x == 80 && items[8].y == 40)
        #expect(items[9].x == 140 && items[9].y == 124 && items[9].pixelSize == 64)
        let uhd = SceneText.items(width: 3840, height: 2160)
        #expect(uhd[9].x == 280 && uhd[9].y == 248 && uhd[9].pixelSize == 128)
    }

    @Test("deja vu has no kern pairs in the scene strings") func dejaVuHasNoKernPairsInTheSceneStrings() throws {
        // So leaving kerning off (as cairo's show_text does) loses nothing here.
        let face = try TestFonts.regular()
        for item in SceneText.items(width: 1920, height: 1080) {
            let kerned = try Font(face: face, pixelSize: 24).measure(item.text).width
            let plain = try Font(face: face, pixelSize: 24, kerning: false).measure(item.text).width
            #expect(kerned == plain, "\(item.text)")
        }
    }

    @Test("cached scene draw renders nothing and repeats the pixels") func cachedSceneDrawRendersNothingAndRepeatsThePixels() throws {
        let scene = try SceneText()
        var first = canvas(1920, 1080), second = canvas(1920, 1080)
        let damage = scene.draw(into: &first)
        let cold = scene.renderer.cache.rasterizations
        // One FreeType render per distinct (character, size): whole-pixel positioning has one phase.
        var distinct = Set<String>()
        for item in SceneText.items(width: 1920, height: 1080) {
            for c in item.text { distinct.insert("\(c)@\(item.pixelSize)") }
        }
        #expect(distinct.count == 19)
        #expect(cold == distinct.count)
        #expect(scene.draw(into: &second) == damage)
        #expect(scene.renderer.cache.rasterizations == cold)
        #expect(first.pixels == second.pixels)
        #expect(damage.intersection(IntRect(x0: 80, y0: 0, x1: 1920, y1: 1080)) == damage)
    }

    /// The reference PNG is cairo's static n=260 frame plus the text, and cairo's static n=260 frame
    /// is also in the reference folder; so drawing our text over cairo's own frame isolates the text.
    /// With whole-pixel origins (cairo 1.16's) the masks land exactly where cairo's do: 61 dB, off by at
    /// most one level (our opaque blend rounds once, pixman twice). Quarter-pixel origins would give
    /// about 23 dB, which is why `SceneText` defaults to `.wholePixel`.
    @Test("matches cairo reference inside the text boxes") func matchesCairoReferenceInsideTheTextBoxes() throws {
        guard let reference = referenceDirectory() else {
            Issue.record("shared/bench/reference not found above \(#filePath)")
            return
        }
        var frame = try PNG.read(reference + "/cairo_static_n260_1920x1080.png")
        let golden = try PNG.read(reference + "/cairo_text_1920x1080.png")
        let scene = try SceneText()
        scene.draw(into: &frame)
        let path = "/tmp/tb-text-scene-1920x1080.png"
        try PNG.write(frame, to: path)

        let boxes = SceneText.items(width: 1920, height: 1080).map { item in
            scene.renderer.inkBounds(of: item.text,
                                     font: Font(face: scene.face, clampingPixelSize: item.pixelSize,
                                                kerning: false, positioning: scene.positioning),
                                     x: item.x, y: item.y)
        }
        var squared = 0.0, samples = 0, worst = 0
        for box in boxes {
            for y in box.y0..<box.y1 {
                for x in box.x0..<box.x1 {
                    for shift in [0, 8, 16] as [UInt32] {
                        let e = Int(frame[x, y] >> shift & 0xFF) - Int(golden[x, y] >> shift & 0xFF)
                        squared += Double(e * e)
                        worst = max(worst, abs(e))
                        samples += 1
                    }
                }
            }
        }
        let psnr = squared == 0 ? Double.infinity : 10 * log10(255.0 * 255 / (squared / Double(samples)))
        #expect(samples > 20_000)
        #expect(psnr >= 35, "PSNR \(psnr) dB over the text boxes, max channel error \(worst); see \(path)")
        #expect(worst <= 2, "same glyph masks and places as cairo: only blend rounding may differ")

        // Outside the text boxes our frame is cairo's frame, so it must equal the reference exactly:
        // this proves the boxes cover all of cairo's text too.
        var outside = 0
        for y in 0..<1080 {
            for x in 0..<1920 where frame[x, y] != golden[x, y] && !boxes.contains(where: { $0.contains(x: x, y: y) }) {
                outside += 1
            }
        }
        #expect(outside == 0)
    }

    /// Walks up from this file to the folder holding `shared/bench/reference` (in CI the repository
    /// is cloned beside `shared/`).
    private func referenceDirectory() -> String? {
        var dir = String(#filePath)
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            let candidate = dir + "/shared/bench/reference"
            if access(candidate + "/cairo_text_1920x1080.png", R_OK) == 0 { return candidate }
        }
        return nil
    }
}
