import Chart
import CoreDriver
import DisplayModel
import Feed
@testable import Kiosk
@testable import KioskCore
import Raster
import Testing
import Text

/// The ticker tape in the daemon (`[tape]`), through the pure core and its manual clock: frames at
/// every vblank while it crawls, the chart laid out above the band, new prices in the tape's words;
/// and the shell's composer, whose damage on a frame with an idle chart is the band alone.
@Suite("Tape in the core") struct KioskTapeTests {
    @Test("tape bottom: a frame every vblank with the tape in the plan; the chart is laid out above the band")
    func tapeFramesEveryVblank() throws {
        let config = Config.watchlist(["A", "B"]) { $0.tapePosition = .bottom; $0.cycleSeconds = 0; $0.instrumentCycleSeconds = 0 }
        let d = CoreFixtures.started(config)
        d.run(for: 5)
        let before = d.presents.count
        d.run(for: 10)
        // 10 Hz display (CoreDriver's): 10 s of crawl is 100 frames, the idle chart notwithstanding.
        let frames = d.presents[before...]
        #expect(frames.count >= 99 && frames.count <= 101, "\(frames.count) frames in 10 s at 10 Hz")
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(abs(b.value.time - a.value.time - 0.1) < 1e-9) }
        let tape = try #require(frames.last?.value.tape)
        #expect(tape.position == .bottom && tape.items.map(\.name) == ["A", "B"])
        #expect(frames.last?.value.settled == true, "the chart is settled; only the tape moves")
        // The still chart beside the band is not painted again (its labels were laid out anew on
        // every tape frame: a third of a 1080p tape frame's CPU, measured by `bench --mode daemon`).
        #expect(frames.dropFirst(5).allSatisfy { !$0.value.redraw }, "a tape frame beside a settled chart repaints the chart")
        let model = try #require(d.core.model)
        let band = TapeLayout.bandHeight(position: .bottom, width: 480, height: 270)
        #expect(model.screen.layout.width == 480 && model.screen.layout.height == 270 - band)
    }

    @Test("tape off: no tape in the plan, and a settled chart gets no frames")
    func tapeOffIsIdle() {
        let d = CoreFixtures.started(Config.watchlist(["A"]) { $0.cycleSeconds = 0; $0.instrumentCycleSeconds = 0 })
        d.run(for: 10)
        let before = d.presents.count
        d.run(for: 10)
        #expect(d.presents.count == before)
        #expect(d.presents.allSatisfy { $0.value.tape == nil })
        #expect(d.core.model?.screen.layout.height == 270)
    }

    @Test("a new price changes the tape's words and its revision (the shell flashes it)")
    func tapeFollowsTheData() throws {
        let d = CoreFixtures.started(Config.watchlist(["A", "B"]) { $0.tapePosition = .full; $0.cycleSeconds = 0 })
        d.run(for: 2)
        let first = try #require(d.presents.last?.value.tape)
        // B's last minute at another price: its day's price and change.
        var bars = CoreFixtures.intraday.bars
        bars[bars.count - 1].close *= 1.05
        d.send(.series(instrumentID: "B", slot: .intraday, series: PriceSeries(name: "B", interval: CoreFixtures.intraday.interval, bars: bars)))
        d.run(for: 1)
        let second = try #require(d.presents.last?.value.tape)
        #expect(second.revision > first.revision)
        #expect(second.items[0] == first.items[0] && second.items[1].price != first.items[1].price)
        // The shell lights the new price for a second: no frame is settled meanwhile (a preview
        // would catch it half lit), and the still chart is not painted again for it.
        let lit = try #require(d.presents.firstIndex { $0.value.tape?.revision == second.revision })
        let changedAt = d.presents[lit].value.time
        d.run(for: 2)
        for frame in d.presents[lit...] {
            #expect(frame.value.settled == (frame.value.time - changedAt >= TapeFlash.duration), "at \(frame.value.time - changedAt) s")
        }
        #expect(d.presents[(lit + 1)...].allSatisfy { !$0.value.redraw }, "the chart is painted again under a lit price")
    }

    @Test("the shell's composer: the first frame is the whole screen, then the band's rows alone while the chart is idle")
    func composerDamageIsTheBand() throws {
        let fonts = try FontSet.load()
        let band = TapeLayout.band(position: .bottom, width: 640, height: 360)
        let area = TapeLayout.contentArea(position: .bottom, width: 640, height: 360)
        let model = ScreenModel(instrument: .sample(), width: area.width, height: area.height, fonts: fonts)
        let renderer = SceneRenderer()
        let composer = TapeComposer(fonts: fonts)
        let items = [TapeItem(name: "A", price: "$1.00", change: "▲ +0.01  (+1.00%)", direction: .up)]
        let tape = FrameTape(position: .bottom, speed: 100, palette: .standard, items: items, revision: 1)
        var t = 30.0
        let scene = renderer.render(model, at: t)
        let first = composer.compose(tape, scene: scene, sceneDamage: renderer.lastRedrawnRegions, width: 640, height: 360,
                                     time: t, brightness: 1)
        #expect(first.damage == [first.frame.bounds])
        let before = first.frame.picture.flattened()
        // Two canvases, no screen-sized one: the band's own beside the scene's. The same frame drawn
        // the other way, the scene copied into a screen-sized canvas and the tape drawn there at
        // its place on the screen, is the reference.
        #expect(first.frame.parts.count == 2 && first.frame.parts.allSatisfy { $0.canvas.width * $0.canvas.height < 640 * 360 })
        let reference = Canvas(width: 640, height: 360)
        _ = reference.buffer.copy(scene.bounds, from: scene.buffer, dx: area.x0, dy: area.y0)
        let onScreen = TapeRenderer(position: .bottom, width: 640, height: 360, fonts: fonts, palette: .standard, speed: 100)
        onScreen.setItems(items, now: t)
        onScreen.draw(at: t, on: reference)
        #expect((0..<360).allSatisfy { y in (0..<640).allSatisfy { x in before[x, y] == reference.buffer[x, y] } })
        for _ in 0..<3 {
            t += 1.0 / 60
            let again = renderer.render(model, at: t)
            #expect(renderer.lastRedrawnRegions.isEmpty, "the settled chart redraws nothing")
            let next = composer.compose(tape, scene: again, sceneDamage: renderer.lastRedrawnRegions, width: 640, height: 360,
                                        time: t, brightness: 1)
            #expect(next.damage.count == 1 && next.damage[0].y0 >= band.y0 && next.damage[0].y1 <= band.y1, "\(next.damage)")
        }
        // The chart's pixels above the band are the same as on the first frame.
        let after = composer.compose(tape, scene: renderer.canvas, sceneDamage: [], width: 640, height: 360, time: t, brightness: 1)
        let shownAfter = after.frame.picture.flattened()
        var changedAbove = 0
        for y in 0..<band.y0 { for x in 0..<640 where before[x, y] != shownAfter[x, y] { changedAbove += 1 } }
        #expect(changedAbove == 0)
    }

    @Test("a tape spanning two screens of different widths is one strip: [left | right] equals one screen as wide as both")
    func spanAcrossTwoWidths() throws {
        let fonts = try FontSet.load()
        let items = (0..<8).map {
            TapeItem(name: "IT\($0)", price: "$\(100 + $0 * 37).25", change: $0 % 2 == 0 ? "▲ +1.25  (+1.01%)" : "▼ −0.75  (−0.61%)",
                     direction: $0 % 2 == 0 ? .up : .down)
        }
        let tape = FrameTape(position: .full, speed: 97, palette: .standard, items: items, revision: 1)
        let widths = [640, 800], height = 300
        let offsets = TapeSpan.offsets(widths: widths), x0 = TapeSpan.entryX0(widths: widths)
        let left = TapeComposer(fonts: fonts), right = TapeComposer(fonts: fonts), whole = TapeComposer(fonts: fonts)
        /// Pixels of the two screens side by side that differ from the one wide screen by more than rounding.
        func mismatches(at t: Double, rightOffset: Int) -> Int {
            let a = left.compose(tape, span: (offsets[0], x0), scene: nil, sceneDamage: [], width: widths[0], height: height,
                                 time: t, brightness: 1).frame.picture.flattened()
            let b = right.compose(tape, span: (rightOffset, x0), scene: nil, sceneDamage: [], width: widths[1], height: height,
                                  time: t, brightness: 1).frame.picture.flattened()
            let c = whole.compose(tape, span: (0, x0), scene: nil, sceneDamage: [], width: widths[0] + widths[1], height: height,
                                  time: t, brightness: 1).frame.picture.flattened()
            var bad = 0
            for y in 0..<height {
                for x in 0..<c.width {
                    let p = x < widths[0] ? a[x, y] : b[x - widths[0], y]
                    let q = c[x, y]
                    let close = (0..<4).allSatisfy { k in
                        abs(Int((p >> (8 * UInt32(k))) & 0xFF) - Int((q >> (8 * UInt32(k))) & 0xFF)) <= 2
                    }
                    if !close { bad += 1 }
                }
            }
            return bad
        }
        var inkSeen = false
        for t in [0.0, 3.7, 11.25, 20.1, 33.3] {
            #expect(mismatches(at: t, rightOffset: offsets[1]) == 0, "t = \(t)")
            // The seam is where the strip is: one pixel off shows (the check can fail).
            let off = mismatches(at: t, rightOffset: offsets[1] + 1)
            if off > 0 { inkSeen = true }
        }
        #expect(inkSeen, "a 1 px error at the seam was not caught at any of the times")
    }
}
