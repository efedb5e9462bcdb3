// Software dimming (`SceneRenderer.brightness`, `render --brightness`): colours scaled in linear light
// as they are drawn. Headless: the frame's mean linear-light luminance at 20 % against the full
// frame's, and the area gradient under the line checked for new banding (skipped codes, steps).
import Chart
import Feed
import Raster
import Testing
import Text

@Suite("Software dimming")
struct DimmingTests {
    static func frame(brightness: Double, width: Int = 960, height: Int = 540) throws -> (PixelBuffer, PlotRect) {
        let model = ScreenModel(instrument: Instrument.sample(), width: width, height: height, fonts: try FontSet.load())
        let renderer = SceneRenderer()
        renderer.brightness = brightness
        var t = 0.0
        while model.isAnimating(at: t) && t < 60 { t += 0.5 }
        return (renderer.render(model, at: t).buffer, model.screen.layout.plot)
    }

    static func linear(_ byte: UInt32) -> Double { Dimming.decode(Double(byte & 0xFF) / 255) }

    static func meanLuminance(_ b: PixelBuffer) -> Double {
        var sum = 0.0
        for y in 0..<b.height {
            for x in 0..<b.width {
                let p = b[x, y]
                sum += 0.2126 * linear(p >> 16) + 0.7152 * linear(p >> 8) + 0.0722 * linear(p)
            }
        }
        return sum / Double(b.width * b.height)
    }

    @Test("at 20 % the frame's mean linear-light luminance is 0.2 × the full frame's")
    func luminance() throws {
        let full = try Self.meanLuminance(Self.frame(brightness: 1).0)
        let dim = try Self.meanLuminance(Self.frame(brightness: 0.2).0)
        let ratio = dim / full
        print("dimming: mean linear luminance full \(full), at 20 % \(dim), ratio \(ratio)")
        // The 8-bit rounding of the near-black background (the sRGB curve's linear toe) is most of the error.
        #expect(abs(ratio - 0.2) < 0.02, "ratio \(ratio)")
        let half = try Self.meanLuminance(Self.frame(brightness: 0.5).0) / full
        #expect(abs(half - 0.5) < 0.03, "ratio \(half)")
    }

    /// The green channel of one column through the area fill, from below the line to the plot's bottom.
    static func gradientColumn(_ b: PixelBuffer, _ plot: PlotRect) -> [Int] {
        let x = Int(plot.right) - 12
        // Start well below the line: the first row under it whose neighbour above is not brighter
        // than the line's own pixels (the anti-aliased stroke) — 40 px below the top of the fill.
        var top = Int(plot.top)
        while top < Int(plot.bottom), (b[x, top] >> 8 & 0xFF) < 40 { top += 1 }
        return (top + 40..<Int(plot.bottom) - 2).map { Int(b[x, $0] >> 8 & 0xFF) }
    }

    @Test("the area gradient at 20 % has no new banding: monotone, one code a step, every code between its ends")
    func gradientBanding() throws {
        let (fullFrame, plot) = try Self.frame(brightness: 1)
        let (dimFrame, _) = try Self.frame(brightness: 0.2)
        var full = Self.gradientColumn(fullFrame, plot)
        var dim = Self.gradientColumn(dimFrame, plot)
        #expect(full.count > 100 && dim.count == full.count)
        // The dashed baseline crosses the column: leave out its row (far brighter than the one above).
        let keep = full.indices.filter { i in !(i > 0 && full[i] > full[i - 1] + 5) }
        full = keep.map { full[$0] }
        dim = keep.map { dim[$0] }
        #expect(keep.count == full.count && keep.count >= Self.gradientColumn(fullFrame, plot).count - 1)
        func steps(_ c: [Int]) -> [Int] { zip(c, c.dropFirst()).map { $1 - $0 } }
        print("dimming: gradient column full \(full.first ?? 0)...\(full.last ?? 0) (\(Set(full).count) codes), "
              + "at 20 % \(dim.first ?? 0)...\(dim.last ?? 0) (\(Set(dim).count) codes), \(full.count) rows")
        // Fading downwards one code at a step at most; the full frame's own LUT ripples (one code back
        // up, rarely) may show, but no more of them at 20 %.
        #expect(steps(full).allSatisfy { abs($0) <= 1 })
        #expect(steps(dim).allSatisfy { abs($0) <= 1 }, "\(dim)")
        #expect(steps(dim).filter { $0 > 0 }.count <= steps(full).filter { $0 > 0 }.count)
        // Every code between the ends is used: a dimmed gradient is a shorter ramp, not a coarser one.
        #expect(Set(dim).count == dim.max()! - dim.min()! + 1)
        #expect(Set(full).count == full.max()! - full.min()! + 1)
        #expect(dim.max()! - dim.min()! >= 10, "the dimmed gradient still fades")
    }

    @Test("the level reaches every colour drawn: text, line, background")
    func everyColour() throws {
        let (full, _) = try Self.frame(brightness: 1)
        let (dim, _) = try Self.frame(brightness: 0.2)
        var brighter = 0
        for i in 0..<full.pixels.count where (dim.pixels[i] & 0xFF_FFFF) != 0 {
            let f = full.pixels[i], d = dim.pixels[i]
            for shift in [16, 8, 0] as [UInt32] where (d >> shift & 0xFF) > (f >> shift & 0xFF) { brighter += 1 }
        }
        #expect(brighter == 0)
        // The brightest pixel of the full frame (the price's text) is dimmed to about 20 % in linear light.
        let maxFull = full.pixels.map { Self.linear($0 >> 8) }.max()!
        let maxDim = dim.pixels.map { Self.linear($0 >> 8) }.max()!
        #expect(abs(maxDim / maxFull - 0.2) < 0.02)
    }
}
