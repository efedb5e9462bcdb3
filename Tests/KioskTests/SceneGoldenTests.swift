import Chart
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing
import Text

/// Key frames of the product's motion, against golden PNGs that were looked at before acceptance.
@Suite("Scene key frames")
struct SceneGoldenTests {
    static func model(range: ChartRange = .oneMonth) throws -> ScreenModel {
        ScreenModel(instrument: .sample(), width: 960, height: 540, fonts: try FontSet.load(), range: range)
    }

    @Test("key frames match their golden images", arguments: [
        ("morph-1M-1Y-0.4s", 0.4), ("morph-1M-1Y-0.7s", 0.7), ("bars-0.5s", 0.5), ("bars-settled", 3.0), ("draw-1.0s", 1.0),
        ("scrub-6M", 0),
    ])
    func keyFrame(name: String, time: Double) throws {
        let m = try Self.model(range: name.hasPrefix("scrub") ? .sixMonths : .oneMonth)
        let r = SceneRenderer()
        if name.hasPrefix("morph") { m.select(.oneYear, at: 0) }
        if name.hasPrefix("bars") { m.show(.bars, at: 0) }
        if name.hasPrefix("draw") { m.show(.drawIn, at: 0) }
        if name.hasPrefix("scrub") { m.scrub(atX: 400) }
        let frame = r.render(m, at: time).buffer
        let result = ImageComparison.checkScreen(frame, golden: "scene-\(name).png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("a drawn-in line ends as the line scene, pixel for pixel, and then is the line scene")
    func drawInEndsAsTheLineScene() throws {
        let line = try SceneRenderer().render(Self.model(range: .oneMonth), at: 0).buffer
        let m = try Self.model(range: .oneMonth)
        let r = SceneRenderer()
        m.show(.drawIn, at: 0)
        // Mid-way the right of the plot has no line yet.
        let mid = r.render(m, at: 1.0).buffer
        let plot = m.screen.layout.plot
        let right = IntRect(x0: Int(plot.right) - 40, y0: Int(plot.top), x1: Int(plot.right), y1: Int(plot.bottom) + 2)
        #expect(ImageComparison.compare(mid, line, region: right).maxDifference > 0)   // no line there yet
        #expect(m.scene == .drawIn)
        let end = r.render(m, at: m.drawInTiming.duration).buffer
        #expect(ImageComparison.compare(end, line).maxDifference == 0)
        #expect(m.scene == .line)
        #expect(!m.isAnimating(at: m.drawInTiming.duration + 0.1))
    }

    @Test("a morph starts on the old range's frame and ends exactly on the new range's frame")
    func morphEndpoints() throws {
        let static1M = try SceneRenderer().render(Self.model(range: .oneMonth), at: 0).buffer
        let static1Y = try SceneRenderer().render(Self.model(range: .oneYear), at: 0).buffer
        let m = try Self.model(range: .oneMonth)
        let r = SceneRenderer()
        m.labelFade = 0  // compare the picture, not a label cross-fade in progress
        m.select(.oneYear, at: 10)
        let start = r.render(m, at: 10).buffer
        // The line and baseline start where 1M had them (labels already name the new range).
        let plot = m.screen.layout.plot
        let plotRect = IntRect(x0: Int(plot.left), y0: Int(plot.top), x1: Int(plot.right), y1: Int(plot.bottom))
        #expect(ImageComparison.compare(start, static1M, region: plotRect).maxDifference == 0)
        #expect(m.isAnimating(at: 10.5))
        #expect(!m.isAnimating(at: 11.3))
        let end = r.render(m, at: 11.3).buffer
        #expect(ImageComparison.compare(end, static1Y).maxDifference == 0)
    }

    @Test("vertices stay in x order through every frame of morphs between all ranges")
    func monotonicMorph() throws {
        let m = try Self.model(range: .oneDay)
        var t = 0.0
        for target in [ChartRange.oneYear, .fiveDays, .fiveYears, .oneMonth, .oneDay, .sixMonths] {
            m.select(target, at: t)
            for step in 0...12 {
                let view = m.presentationForTesting(at: t + Double(step) * 0.1)
                for i in 1..<view.positions.count {
                    #expect(view.positions[i].x >= view.positions[i - 1].x - 1e-9, "\(target) step \(step) vertex \(i)")
                }
            }
            t += 0.7  // retarget mid-flight on purpose
        }
    }
}

@Suite("Partial redraw while scrubbing")
struct PartialRedrawTests {
    @Test("scrubbing redraws a fraction of the screen and gives the pixels of a full redraw")
    func scrubDamage() throws {
        let fonts = try FontSet.load()
        let m = ScreenModel(instrument: .sample(), width: 960, height: 540, fonts: fonts, range: .sixMonths)
        let r = SceneRenderer()
        m.labelFade = 0
        _ = r.render(m, at: 0)
        var t = 1.0
        for x in stride(from: 100.0, through: 800.0, by: 37.0) {
            m.scrub(atX: x)
            let frame = r.render(m, at: t).buffer
            let redrawn = r.lastRedrawnRegions.reduce(0) { $0 + $1.width * $1.height }
            #expect(redrawn < 960 * 540 / 3, "redrew \(r.lastRedrawnRegions) at x \(x)")
            let fresh = ScreenModel(instrument: .sample(), width: 960, height: 540, fonts: fonts, range: .sixMonths)
            fresh.labelFade = 0
            fresh.scrub(atX: x)
            let reference = SceneRenderer().render(fresh, at: t).buffer
            #expect(ImageComparison.compare(frame, reference).maxDifference <= 1, "x \(x)")
            t += 1
        }
        m.endScrub()
        _ = r.render(m, at: t)
        m.select(.oneYear, at: t + 1)
        _ = r.render(m, at: t + 1.1)
        #expect(r.lastDamage == IntRect(x0: 0, y0: 0, x1: 960, y1: 540))  // a morph redraws everything
    }
}

extension PartialRedrawTests {
    /// Each frame of a 1080p scrub, cross-fade of the header included, against a full redraw of
    /// the same state; a label part left out of the damage would keep its old pixels here.
    @Test("a 1080p scrub redraws only the labels that change and the indicator's old and new places, with a full redraw's pixels")
    func tightScrubDamage() throws {
        let fonts = try FontSet.load()
        func make() -> ScreenModel {
            let m = ScreenModel(instrument: .sample(), width: 1920, height: 1080, fonts: fonts, range: .sixMonths)
            m.labelFade = 0.2
            return m
        }
        let m = make(), reference = make()
        let r = SceneRenderer(), rr = SceneRenderer()
        _ = r.render(m, at: 0)
        _ = rr.render(reference, at: 0)  // the fade starts from the same labels
        let screen = 1920 * 1080
        var t = 1.0, worst = 0, frames = 0
        // Steps a frame apart (each restarts the fade), then still frames while the fade ends.
        let moves = Array(stride(from: 200.0, through: 1700.0, by: 97.0)) + [1700, 1700, 1700, 1700, 1700, 1700]
        for x in moves {
            m.scrub(atX: x)
            reference.scrub(atX: x)
            let partial = r.render(m, at: t).buffer
            rr.invalidate()
            let full = rr.render(reference, at: t).buffer
            let same = partial.pixels.withUnsafeBytes { a in full.pixels.withUnsafeBytes { b in a.elementsEqual(b) } }
            #expect(same, "x \(x) t \(t): \(ImageComparison.compare(partial, full)) redrawing \(r.lastRedrawnRegions)")
            let redrawn = r.lastRedrawnRegions.reduce(0) { $0 + $1.width * $1.height }
            #expect(!r.lastRedrawnRegions.isEmpty || x == moves.last, "x \(x) t \(t)")
            worst = max(worst, redrawn)
            frames += 1
            t += x == moves.last ? 0.06 : 1.0 / 60
        }
        #expect(frames == moves.count)
        // The header's text boxes and the indicator's old and new hairline and dot (2.4 %), not
        // bands across the screen (the bands were 22 %).
        #expect(worst * 100 <= screen * 3, "worst frame redrew \(worst) px of \(screen)")
        #expect(r.lastRedrawnRegions.isEmpty, "the fade is over and nothing moves: \(r.lastRedrawnRegions)")
    }
}
