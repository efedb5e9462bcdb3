import Chart
import Display
import Feed
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
    }
}

extension PartialRedrawTests {
    /// Every frame of morphs through every range and back (1D's sessions, colour changes between
    /// rising and falling ranges, a morph turned round half way, new data sliding in, a finger
    /// after a morph), drawn over the frame before, against the same state painted whole by a
    /// fresh renderer: a pixel the line's damage left out would keep its old colour here. The
    /// reference is the full redraw, not the damage's own reasoning.
    static func morphsMatchFullRedraws(width: Int, height: Int, step: Double, ranges: [ChartRange]) throws -> (worst: Int, frames: Int) {
        let fonts = try FontSet.load()
        func make() -> ScreenModel {
            let m = ScreenModel(instrument: .sample(), width: width, height: height, fonts: fonts, range: ranges[0])
            m.labelFade = 0.3
            return m
        }
        let m = make(), reference = make()
        let r = SceneRenderer(), rr = SceneRenderer()
        _ = r.render(m, at: 0)
        _ = rr.render(reference, at: 0)
        var t = 0.0, worst = 0, frames = 0
        func frame(_ note: String) {
            let partial = r.render(m, at: t).buffer
            rr.invalidate()
            let full = rr.render(reference, at: t).buffer
            // A stroke redrawn in a strip is built from the segments that can reach it (the
            // canvas's clipped stroke), and where pieces of ink overlap their coverage can round
            // the other way: a pixel of the line a unit off, never more, never an old frame's pixel.
            let same = partial.pixels.withUnsafeBytes { a in full.pixels.withUnsafeBytes { b in a.elementsEqual(b) } }
            var differing: [String] = [], worstChannel = 0
            for y in same ? 0..<0 : 0..<height {
                for x in 0..<width where partial[x, y] != full[x, y] {
                    let p = partial[x, y], q = full[x, y]
                    for shift in [0, 8, 16, 24] as [UInt32] {
                        worstChannel = max(worstChannel, abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF)))
                    }
                    differing.append("(\(x),\(y)) \(String(p, radix: 16)) against \(String(q, radix: 16))")
                }
            }
            #expect(worstChannel <= 1 && differing.count <= 8,
                    "\(note) t \(t): \(differing.prefix(12)) redrawing \(r.lastRedrawnRegions)")
            worst = max(worst, r.lastRedrawnRegions.reduce(0) { $0 + $1.width * $1.height })
            frames += 1
        }
        func both(_ change: (ScreenModel) -> Void) { change(m); change(reference) }
        for (i, range) in (ranges.dropFirst() + ranges.reversed().dropFirst()).enumerated() {
            t += 1
            both { $0.select(range, at: t) }
            let end = t + 1.3
            while t < end {
                frame("to \(range)")
                t += step
                // Half way through the fourth morph, back where it came from.
                if i == 3, abs(t - (end - 0.7)) < step / 2 { both { $0.select(ranges[0], at: t) } }
            }
        }
        // New data: the daily file loses its last rows (a rewrite), and the line slides to it.
        var market = m.instrument.market
        if let d = market.daily { market.daily = PriceSeries(name: d.name, interval: d.interval, bars: Array(d.bars.dropLast(7))) }
        t += 1
        let changed = market
        both { $0.replaceMarket(changed, at: t) }
        for _ in 0..<Int(1.3 / step) { frame("new data"); t += step }
        // A finger right after: the partial redraw of a scrub starts from a morph's last frame.
        for x in stride(from: Double(width) * 0.2, through: Double(width) * 0.8, by: Double(width) * 0.15) {
            both { _ = $0.scrub(atX: x) }
            frame("scrub at \(x)")
            t += step
        }
        return (worst, frames)
    }

    @Test("every frame of a morph redraws a band around the two lines and gives the pixels of a full redraw (960x540, all ranges)")
    func morphDamage() throws {
        let (worst, frames) = try Self.morphsMatchFullRedraws(width: 960, height: 540, step: 1.0 / 30,
                                                              ranges: [.oneMonth, .oneDay, .fiveDays, .sixMonths, .yearToDate, .oneYear, .fiveYears])
        #expect(frames > 300)
        // The labels' boxes and a band around the old and new line, not the screen (which every
        // morph frame redrew before).
        #expect(worst < 960 * 540, "worst frame redrew \(worst) px")
    }

    @Test("a new reason in the empty plot's placeholder is painted (the chart itself did not change)")
    func placeholderChange() throws {
        let fonts = try FontSet.load()
        func make(_ words: String) -> ScreenModel {
            var instrument = Instrument.sample()
            instrument.market = MarketData(daily: nil, intraday: nil, timeZone: instrument.market.timeZone)
            let m = ScreenModel(instrument: instrument, width: 800, height: 480, fonts: fonts, range: .oneMonth)
            m.placeholder = words
            return m
        }
        let m = make("waiting for data: DAX.csv"), r = SceneRenderer()
        _ = r.render(m, at: 0)
        m.placeholder = "waiting for data: DAX.csv · yahoo: ^GDAXI not found"
        let partial = r.render(m, at: 1).buffer
        let full = SceneRenderer().render(make("waiting for data: DAX.csv · yahoo: ^GDAXI not found"), at: 1).buffer
        #expect(ImageComparison.compare(partial, full).maxDifference == 0)
    }

    @Test("a 1080p morph redraws less than the screen, with a full redraw's pixels")
    func morphDamage1080p() throws {
        let (worst, frames) = try Self.morphsMatchFullRedraws(width: 1920, height: 1080, step: 1.0 / 30, ranges: [.oneDay, .oneYear])
        #expect(frames > 100)
        #expect(worst < 1920 * 1080, "worst frame redrew \(worst) px")
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
