@testable import Chart
import Raster
import Testing
import Text

/// The banner along the foot of the screen (`ctl message`, an alert's words).
@Suite struct BannerTests {
    @Test("a banner's words are fitted to its band once per text and size, not on every frame")
    func fittedOnce() throws {
        // A message re-measured a scalar at a time on every frame took a crawling tape from 42 to
        // 10 frames a second (issue 54): the fit is kept while text and band stay.
        let fonts = try FontSet.load()
        let banner = Banner(text: String(repeating: "Markets close early today. ", count: 12), face: fonts.bold)
        let canvas = Canvas(width: 800, height: 480)
        let text = TextRenderer()
        var fit: Banner.Fit?
        banner.draw(on: canvas, regions: [canvas.bounds], palette: .standard, text: text, fit: &fit)
        let first = try #require(fit)
        #expect(first.shown.hasSuffix("…") && first.shown.count < banner.text.count, "\(first.shown)")
        // The same words on the same band: what was fitted is used as it is (a stand-in shows it).
        fit?.shown = "STAND-IN"
        banner.draw(on: canvas, regions: [canvas.bounds], palette: .standard, text: text, fit: &fit)
        #expect(fit?.shown == "STAND-IN")
        // Another band (a larger screen) is fitted again.
        let wide = Canvas(width: 1920, height: 1080)
        banner.draw(on: wide, regions: [wide.bounds], palette: .standard, text: text, fit: &fit)
        #expect(fit?.shown != "STAND-IN" && fit?.width != first.width)
    }
}
