import Chart
import Raster
import Testing
import Text

/// The tape's pure motion: positions over time, the seamless wrap, the flash's timing, and one
/// crawl continuing across two screens of different widths.
@Suite("Tape motion")
struct TapeTests {
    @Test("cells are whole pixels; positions move left by speed × t")
    func positionsOverTime() {
        let m = TapeMotion(widths: [300.4, 251, 99.9], gap: 40, speed: 120, x0: 0)
        #expect(m.cells == [341, 291, 140])
        #expect(m.starts == [0, 341, 632])
        #expect(m.period == 772)
        for t in [0.0, 0.5, 1.0 / 60, 2.25] {
            let p = m.placements(at: t, width: 1920)
            // Item 1 of the first copy on screen is always 341 px right of item 0 of that copy.
            let zero = p.first { $0.index == 0 }!
            let one = p.first { $0.index == 1 && $0.x > zero.x }!
            #expect(abs(one.x - zero.x - 341) < 1e-9)
            // The copy of item 0 is where x = −speed·t puts it, modulo the period.
            var expected = (-120 * t).truncatingRemainder(dividingBy: 772)
            if expected <= -772 + 1e-9 { expected += 772 }
            let copies = p.filter { $0.index == 0 }.map(\.x)
            #expect(copies.contains { abs(($0 - expected).truncatingRemainder(dividingBy: 772)) < 1e-9 }, "t \(t): \(copies) \(expected)")
        }
        // One frame at 60 Hz moves everything by exactly speed/60.
        let a = m.placements(at: 1.0, width: 1920), b = m.placements(at: 1.0 + 1.0 / 60, width: 1920)
        let a0 = a.first { $0.index == 2 }!.x, b0 = b.filter { $0.index == 2 }.map(\.x).min { abs($0 - (a0 - 2)) < abs($1 - (a0 - 2)) }!
        #expect(abs((a0 - b0) - 2) < 1e-9)
    }

    @Test("x0 = the band's width: the first item enters from the right edge at t = 0")
    func entersFromTheRight() {
        let m = TapeMotion(widths: [500, 500, 500, 500], gap: 20, speed: 100, x0: 1920)
        // The band is full from the start (the strip's end is on it), and a copy of item 0 is just coming in.
        #expect(m.placements(at: 0.001, width: 1920).contains { $0.index == 0 && abs($0.x - 1919.9) < 1e-9 })
        #expect(m.item(atX: 1919.5, time: 0)!.index == 3, "the strip's end, just before the first item comes again")
        #expect(m.item(atX: 1919.5, time: 0.01)!.index == 0, "one pixel in: item 0")
        #expect(m.placements(at: 1, width: 1920).contains { $0.index == 0 && abs($0.x - 1820) < 1e-9 })
    }

    @Test("the wrap is seamless: the same picture one period of time later, no jump at the seam")
    func wrapAround() {
        let m = TapeMotion(widths: [400, 600], gap: 50, speed: 130, x0: 0)
        let periodTime = Double(m.period) / m.speed
        for t in stride(from: 0.0, through: 3 * periodTime, by: 0.37) {
            let now = m.placements(at: t, width: 1280), later = m.placements(at: t + periodTime, width: 1280)
            #expect(now.count == later.count)
            for (a, b) in zip(now, later) {
                #expect(a.index == b.index && abs(a.x - b.x) < 1e-6, "t \(t)")
            }
            // Across the wrap of `scroll` every item still moves by speed·dt.
            let dt = 1.0 / 60
            let before = m.item(atX: 640, time: t)!, after = m.item(atX: 640 - 130 * dt, time: t + dt)!
            #expect(before.index == after.index && abs(before.into - after.into) < 1e-6)
        }
        // Days of crawling keep sub-pixel precision.
        let day = 86_400.0 * 3
        let s0 = m.scroll(at: day), s1 = m.scroll(at: day + 1.0 / 60)
        var step = s1 - s0
        if step < 0 { step += Double(m.period) }
        #expect(abs(step - 130.0 / 60) < 1e-6)
    }

    @Test("a strip shorter than the band repeats so the band is always full")
    func shortStripFillsTheBand() {
        let m = TapeMotion(widths: [200], gap: 100, speed: 90, x0: 0)
        for t in stride(from: 0.0, to: 10, by: 0.29) {
            let p = m.placements(at: t, width: 1920)
            #expect(p.count >= 1920 / 300, "t \(t): \(p.count) copies")
            // Copies tile the band: each starts where the previous cell ends, from left of 0 to past the right edge.
            #expect(p.first!.x <= 0 && p.last!.x + 300 >= 1920)
            for (a, b) in zip(p, p.dropFirst()) { #expect(abs(b.x - a.x - 300) < 1e-9) }
        }
    }

    @Test("the flash is full at the change, eases out and is gone after a second")
    func flashTiming() {
        #expect(TapeFlash.level(changedAt: nil, now: 5) == 0)
        #expect(TapeFlash.level(changedAt: 10, now: 9.99) == 0, "not before the change")
        #expect(abs(TapeFlash.level(changedAt: 10, now: 10) - 1) < 1e-6)
        #expect(abs(TapeFlash.level(changedAt: 10, now: 10.5) - 0.5) < 1e-6)
        #expect(TapeFlash.level(changedAt: 10, now: 11) == 0)
        #expect(TapeFlash.level(changedAt: 10, now: 10.99) < 0.001, "no jump at the end")
        var previous = 1.1
        for k in 0...60 {
            let level = TapeFlash.level(changedAt: 10, now: 10 + Double(k) / 60)
            #expect(level < previous && level >= 0, "monotone at frame \(k)")
            previous = level
        }
        // Eased: slow at both ends, fastest in the middle.
        let first = 1 - TapeFlash.level(changedAt: 0, now: 1.0 / 60)
        let middle = TapeFlash.level(changedAt: 0, now: 0.5) - TapeFlash.level(changedAt: 0, now: 0.5 + 1.0 / 60)
        #expect(first < middle / 10)
        #expect(TapeFlash.isFlashing(changedAt: 10, now: 10.9) && !TapeFlash.isFlashing(changedAt: 10, now: 11))
    }

    @Test("span: two outputs of different widths are one strip; an item leaving the right one's left edge enters the left one's right edge")
    func spanContinuity() {
        let widths = [1280, 1920]
        let offsets = TapeSpan.offsets(widths: widths)
        #expect(offsets == [0, 1280])
        let m = TapeMotion(widths: [700, 450, 900], gap: 60, speed: 150, x0: TapeSpan.entryX0(widths: widths))
        // The first item enters at the right edge of the last output at t = 0.
        #expect(m.item(atX: 1919.9, time: 0.001, offset: 1280)!.index == 0)
        for t in stride(from: 0.0, to: 30, by: 0.113) {
            // The pixel just left of output 2 is the pixel at output 1's right edge.
            let leaving = m.item(atX: -0.25, time: t, offset: offsets[1])!
            let entering = m.item(atX: Double(widths[0]) - 0.25, time: t, offset: offsets[0])!
            #expect(leaving.index == entering.index && abs(leaving.into - entering.into) < 1e-9, "t \(t)")
            // Placements agree too: a copy straddling the seam is listed by both outputs at the matching x.
            let left = m.placements(at: t, width: widths[0], offset: offsets[0])
            let right = m.placements(at: t, width: widths[1], offset: offsets[1])
            if let last = left.last, last.x + Double(m.cells[last.index]) > Double(widths[0]) {
                #expect(right.contains { $0.index == last.index && abs($0.x - (last.x - Double(widths[0]))) < 1e-9 }, "t \(t)")
            }
        }
    }

    static func items(price: String = "$101.25") -> [TapeItem] {
        [TapeItem(name: "ALFA", price: price, change: "▲ +1.25  (+1.25%)", direction: .up),
         TapeItem(name: "BRAVO", price: "$7.10", change: "▼ −0.10  (−1.39%)", direction: .down, note: "closed")]
    }

    @Test("the band is the damage: the first frame paints the screen, later ones only the band's rows of type")
    func damageIsTheBand() throws {
        let fonts = try FontSet.load()
        for position in [TapePosition.full, .bottom, .top] {
            let tape = TapeRenderer(position: position, width: 640, height: 360, fonts: fonts, speed: 100)
            tape.setItems(Self.items(), now: 0)
            let canvas = Canvas(width: 640, height: 360)
            let first = tape.draw(at: 0, on: canvas)
            #expect(first == (position == .full ? canvas.bounds : tape.band), "\(position)")
            let before = canvas.buffer
            let later = tape.draw(at: 0.5, on: canvas)
            #expect(later.x0 == 0 && later.x1 == 640 && later.y0 >= tape.band.y0 && later.y1 <= tape.band.y1, "\(position): \(later)")
            #expect(later.height < tape.band.height, "the rows above and below the type are left alone")
            let after = canvas.buffer
            var changedOutside = 0, changedInside = 0
            for y in 0..<360 {
                for x in 0..<640 where before[x, y] != after[x, y] {
                    if (later.y0..<later.y1).contains(y) { changedInside += 1 } else { changedOutside += 1 }
                }
            }
            #expect(changedOutside == 0 && changedInside > 100, "\(position): \(changedInside) in, \(changedOutside) out")
        }
    }

    @Test("a changed price flashes: its item looks different for a second, then as before")
    func flashOnScreen() throws {
        let fonts = try FontSet.load()
        func frame(changed: Bool, at t: Double) -> PixelBuffer {
            let tape = TapeRenderer(position: .bottom, width: 640, height: 360, fonts: fonts, speed: 100)
            tape.setMotion(speed: 100, x0: 0)
            tape.setItems(Self.items(), now: 0)
            if changed { tape.setItems(Self.items(price: "$101.25"), now: 5); tape.setItems(Self.items(price: "$101.30"), now: 10) }
            else { tape.setItems(Self.items(price: "$101.30"), now: 0) }
            #expect(tape.isFlashing(at: t) == (changed && t >= 10 && t < 11))
            let canvas = Canvas(width: 640, height: 360)
            tape.draw(at: t, on: canvas)
            return canvas.buffer
        }
        // The same crawl position (x0 = 0, t a whole number of periods apart is not needed: equal t).
        #expect(frame(changed: true, at: 10.3).pixels != frame(changed: false, at: 10.3).pixels, "lit while it fades")
        #expect(frame(changed: true, at: 11.2).pixels == frame(changed: false, at: 11.2).pixels, "gone after a second")
    }

    /// Found by `render-config-check.py`'s dimmed wall: the rows above and below the type kept the
    /// band's full-level colour (the band was cleared before the level reached the canvas), a
    /// bright rim around a dimmed band.
    @Test("dimmed, the whole band is dimmed: the rows above and below the type too", arguments: [TapePosition.bottom, .top, .full])
    func dimmedBand(position: TapePosition) throws {
        let fonts = try FontSet.load()
        func band(brightness: Double) -> (PixelBuffer, TapeRenderer) {
            let tape = TapeRenderer(position: position, width: 640, height: 360, fonts: fonts, speed: 100)
            tape.setItems(Self.items(), now: 0)
            let canvas = Canvas(width: 640, height: 360)
            tape.draw(at: 0, on: canvas)
            // A level that changes after the first frame (a fade), as in the daemon.
            tape.brightness = brightness
            tape.draw(at: 0.5, on: canvas)
            return (canvas.buffer, tape)
        }
        let (full, tape) = band(brightness: 1)
        let (dimmed, _) = band(brightness: 0.3)
        func channels(_ p: UInt32) -> [UInt32] { [p >> 16 & 0xFF, p >> 8 & 0xFF, p & 0xFF] }
        var rim = 0, notDarker = 0
        for y in tape.band.y0..<tape.band.y1 where !tape.inkRows.contains(y - tape.band.y0) {
            for x in tape.band.x0..<tape.band.x1 {
                rim += 1
                if !zip(channels(dimmed[x, y]), channels(full[x, y])).allSatisfy({ $0 < $1 }) { notDarker += 1 }
            }
        }
        #expect(rim > 0 && notDarker == 0, "\(position): \(notDarker) of \(rim) pixels above and below the type not dimmed")
    }

    @Test("a 4K LED-board tape keeps its item images within the budget as it crawls")
    func imageBudget() throws {
        let fonts = try FontSet.load()
        let tape = TapeRenderer(position: .full, width: 3840, height: 2160, fonts: fonts, speed: 2000)
        let items = (0..<12).map { TapeItem(name: "ITEM\($0)", price: "$1,234.56", change: "▲ +12.34  (+1.01%)", direction: .up) }
        tape.setItems(items, now: 0)
        let canvas = Canvas(width: 3840, height: 2160)
        let period = Double(tape.motion.period) / 2000
        var peak = 0
        for k in 0...40 {
            tape.draw(at: period * Double(k) / 40, on: canvas)
            peak = max(peak, tape.cachedImageBytes)
        }
        // The visible items and the next may exceed the budget on their own; never much more.
        let oneItem = tape.band.height * (tape.motion.cells.max() ?? 0) * 4
        #expect(peak <= TapeRenderer.imageBudget + 4 * oneItem, "peak \(peak) bytes")
        #expect(peak > 0)
    }
}

/// Issue 52 item 9: at 480x320 the scale alone gave the tape band 8 px type, under the screen's
/// 13 px least size (a 9.5 px cap height). By hand: 30 px x scale 0.25 = 7.5 -> 13; the band
/// keeps its proportion, 13 x 64 / 30 = 27.7 -> 28 px. From 800x480 up nothing changes
/// (scale 0.4167: 12.5 -> 13 px type, 26.7 -> 27 px band; 1080p 30 and 64).
@Suite struct TapeMinimumSizeTests {
    @Test("the band's type is never under 13 px; the band grows with it")
    func smallPanels() {
        #expect(TapeLayout.textSize(position: .bottom, width: 480, height: 320) == 13)
        #expect(TapeLayout.bandHeight(position: .bottom, width: 480, height: 320) == 28)
        #expect(TapeLayout.textSize(position: .bottom, width: 800, height: 480) == 13)
        #expect(TapeLayout.bandHeight(position: .bottom, width: 800, height: 480) == 27)
        #expect(TapeLayout.textSize(position: .top, width: 1920, height: 1080) == 30)
        #expect(TapeLayout.bandHeight(position: .top, width: 1920, height: 1080) == 64)
        #expect(TapeLayout.textSize(position: .full, width: 480, height: 320) >= 13)
        // The stale mark's type (0.7 of the item's) is held at 13 px too: drawn at 480x320 it is as
        // tall as the words beside it (measured on the band's pixels in TapeTests' band render).
    }
}
