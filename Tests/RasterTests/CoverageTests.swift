import Feed
import Raster
import Testing

/// Coverage of white paint over black, per pixel, in 0...1.
private func coverage(_ canvas: Canvas, _ x: Int, _ y: Int) -> Double {
    Double(canvas.buffer[x, y] & 0xFF) / 255
}

private func blackCanvas(_ w: Int, _ h: Int) -> Canvas {
    Canvas(buffer: PixelBuffer(width: w, height: h, fill: 0xFF00_0000))
}

private let white = Paint.solid(Color(rgb: 0xFFFFFF))

@Suite("Exact-area coverage")
struct CoverageTests {
    @Test("a rectangle at fractional coordinates covers each pixel by its exact area",
          arguments: [(10.25, 20.5, 3.5, 2.25), (0.1, 0.9, 7.3, 4.45), (5.0, 5.0, 0.5, 0.5), (2.75, 3.125, 9.0, 1.0)])
    func fractionalRectangle(rect: (Double, Double, Double, Double)) {
        let (rx, ry, rw, rh) = rect
        let canvas = blackCanvas(32, 32)
        canvas.fillRect(x: rx, y: ry, width: rw, height: rh, paint: white)
        for y in 0..<32 {
            for x in 0..<32 {
                let ox = max(0, min(Double(x + 1), rx + rw) - max(Double(x), rx))
                let oy = max(0, min(Double(y + 1), ry + rh) - max(Double(y), ry))
                #expect(abs(coverage(canvas, x, y) - ox * oy) <= 1.0 / 255 + 1e-9, "pixel \(x),\(y)")
            }
        }
    }

    @Test("the coverage of a closed polygon sums to its area", arguments: [0.0, 0.3, 0.77])
    func polygonAreaIsPreserved(offset: Double) {
        // An irregular, non-convex polygon with steep, shallow and diagonal edges.
        let pts = [(10.3, 5.1), (80.7, 12.9), (60.2, 40.4), (95.5, 70.8), (30.1, 90.6), (5.4, 50.2), (40.0, 45.5)]
            .map { Point($0.0 + offset, $0.1 + offset) }
        var path = Path()
        path.move(to: pts[0])
        for p in pts.dropFirst() { path.line(to: p) }
        path.close()
        var area = 0.0
        for i in 0..<pts.count {
            let p = pts[i], q = pts[(i + 1) % pts.count]
            area += p.x * q.y - q.x * p.y
        }
        area = abs(area) / 2
        let canvas = blackCanvas(110, 110)
        #expect(canvas.fill(path, paint: white) == .drawn)
        var sum = 0.0
        for y in 0..<110 { for x in 0..<110 { sum += coverage(canvas, x, y) } }
        #expect(abs(sum - area) / area < 1e-3, "sum \(sum) vs area \(area)")
    }

    /// The exact area of a convex polygon inside the pixel square at (x, y), by clipping the polygon
    /// to the square's four sides (Sutherland–Hodgman) and taking the shoelace area.
    private static func exactArea(_ polygon: [(Double, Double)], _ x: Int, _ y: Int) -> Double {
        var poly = polygon
        let sides: [((Double, Double)) -> Double] = [
            { $0.0 - Double(x) }, { Double(x + 1) - $0.0 }, { $0.1 - Double(y) }, { Double(y + 1) - $0.1 },
        ]
        for inside in sides {
            var out: [(Double, Double)] = []
            for i in poly.indices {
                let p = poly[i], q = poly[(i + 1) % poly.count]
                let a = inside(p), b = inside(q)
                if a >= 0 { out.append(p) }
                if (a >= 0) != (b >= 0) {
                    let t = a / (a - b)
                    out.append((p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t))
                }
            }
            poly = out
            if poly.isEmpty { return 0 }
        }
        var area = 0.0
        for i in poly.indices {
            let p = poly[i], q = poly[(i + 1) % poly.count]
            area += p.0 * q.1 - q.0 * p.1
        }
        return abs(area) / 2
    }

    @Test("shallow and diagonal edges: every pixel's coverage is its exact area (within a level)")
    func shallowEdgesCoverExactArea() {
        // Thin triangles whose long edges cross one, two and many cell borders in each row
        // (slopes from 0.3 to 6 pixels across per row), at fractional positions, in both windings.
        var seed: UInt64 = 3
        func unit() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) * 0x1p-53
        }
        for round in 0..<24 {
            let slope = [0.3, 0.9, 1.4, 1.9, 2.6, 6.0][round % 6]
            let x0 = 3 + unit() * 5, y0 = 2 + unit() * 4, rows = 6 + unit() * 10
            var triangle = [(x0, y0), (x0 + rows * slope, y0 + rows), (x0 + 2.5 + unit() * 3, y0 + rows * 0.8)]
            if round % 2 == 1 { triangle.reverse() }
            var path = Path()
            path.move(to: Point(triangle[0].0, triangle[0].1))
            for p in triangle.dropFirst() { path.line(to: Point(p.0, p.1)) }
            path.close()
            let canvas = blackCanvas(90, 24)
            canvas.fill(path, paint: white)
            for y in 0..<24 {
                for x in 0..<90 {
                    let exact = Self.exactArea(triangle, x, y)
                    #expect(abs(coverage(canvas, x, y) - exact) <= 1.0 / 255 + 1e-6,
                            "round \(round) pixel \(x),\(y): \(coverage(canvas, x, y)) vs \(exact)")
                }
            }
        }
    }

    @Test("a one-pixel hairline on a pixel centre fills exactly one column")
    func hairlineOnPixelCenter() {
        let canvas = blackCanvas(20, 20)
        var path = Path()
        path.move(to: Point(10.5, 2)); path.line(to: Point(10.5, 18))
        canvas.stroke(path, style: StrokeStyle(width: 1), paint: white)
        for y in 0..<20 {
            for x in 0..<20 {
                let expected = x == 10 && y >= 2 && y < 18 ? 1.0 : 0.0
                #expect(coverage(canvas, x, y) == expected, "pixel \(x),\(y)")
            }
        }
    }

    @Test("non-zero fills overlaps once, even-odd leaves them empty")
    func fillRules() {
        var path = Path()
        path.addRect(x: 2, y: 2, width: 10, height: 10)
        path.addRect(x: 6, y: 6, width: 10, height: 10)
        let nonZero = blackCanvas(20, 20), evenOdd = blackCanvas(20, 20)
        nonZero.fill(path, paint: white, rule: .nonZero)
        evenOdd.fill(path, paint: white, rule: .evenOdd)
        #expect(coverage(nonZero, 8, 8) == 1)
        #expect(coverage(evenOdd, 8, 8) == 0)
        #expect(coverage(evenOdd, 3, 3) == 1)
        #expect(coverage(evenOdd, 14, 14) == 1)
    }

    @Test("overlapping parts of one stroke are painted once")
    func strokeOverlapPaintedOnce() {
        let canvas = blackCanvas(60, 60)
        // A path that crosses itself and doubles back over its own segment.
        var path = Path()
        path.move(to: Point(5, 30)); path.line(to: Point(55, 30)); path.line(to: Point(30, 5))
        path.line(to: Point(30, 55)); path.line(to: Point(30, 20))
        canvas.stroke(path, style: StrokeStyle(width: 6, cap: .round, join: .round),
                      paint: .solid(Color(red: 255, green: 255, blue: 255, alpha: 128)))
        // Single coverage at 50 % gives 128; a double blend would give 192.
        #expect(canvas.buffer[30, 30] & 0xFF == 128)
        #expect(canvas.buffer[30, 40] & 0xFF == 128)
        #expect(canvas.buffer[15, 30] & 0xFF == 128)
    }

    @Test("a vertical linear gradient runs from its first stop to its last and pads beyond")
    func verticalGradient() {
        let canvas = blackCanvas(8, 110)
        let g = LinearGradient(start: Point(0, 5), end: Point(0, 105),
                               stops: [(0, Color(rgb: 0xFFFFFF)), (1, Color(rgb: 0x000000))])
        canvas.fillRect(x: 0, y: 0, width: 8, height: 110, paint: .linearGradient(g))
        #expect(canvas.buffer[3, 0] & 0xFF == 255)  // padded before the start
        #expect(canvas.buffer[3, 109] & 0xFF == 0)  // padded after the end
        let middle = Int(canvas.buffer[3, 54] & 0xFF)
        #expect(abs(middle - 128) <= 2)
        for y in 1..<110 { #expect(canvas.buffer[3, y] & 0xFF <= canvas.buffer[3, y - 1] & 0xFF) }
    }

    @Test("source-copy replaces, source-over blends")
    func blendModes() {
        let canvas = Canvas(buffer: PixelBuffer(width: 4, height: 4, fill: 0xFF20_4060))
        let half = Paint.solid(Color(red: 255, green: 0, blue: 0, alpha: 128))
        canvas.fillRect(x: 0, y: 0, width: 2, height: 4, paint: half, blend: .sourceOver)
        canvas.fillRect(x: 2, y: 0, width: 2, height: 4, paint: half, blend: .sourceCopy)
        let over = canvas.buffer[0, 0], copy = canvas.buffer[3, 0]
        #expect(over >> 24 == 255)
        #expect(abs(Int((over >> 16) & 0xFF) - (128 + 0x20 * 127 / 255)) <= 1)
        #expect(copy == Color(red: 255, green: 0, blue: 0, alpha: 128).premultiplied)
    }
}

@Suite("Uniform-row shortcut")
struct UniformRowTests {
    @Test("a pixel changed through `buffer` after a clear is blended as it is, never as the old background")
    func writesThroughBufferAreSeen() {
        let canvas = Canvas(width: 40, height: 10)
        canvas.clear(Color(rgb: 0x101010))
        canvas.buffer[20, 5] = 0xFFFF_0000
        let translucent = Paint.solid(Color(red: 0, green: 0, blue: 255, alpha: 128))
        canvas.fillRect(x: 0, y: 0, width: 40, height: 10, paint: translucent)
        let reference = Canvas(width: 40, height: 10)
        reference.clear(Color(rgb: 0x101010))
        var pixels = reference.buffer
        pixels[20, 5] = 0xFFFF_0000
        let fresh = Canvas(buffer: pixels)  // knows nothing: blends pixel by pixel
        fresh.fillRect(x: 0, y: 0, width: 40, height: 10, paint: translucent)
        #expect(canvas.buffer.pixels == fresh.buffer.pixels)
        #expect(canvas.buffer[20, 5] != canvas.buffer[19, 5])
    }

    @Test("overlapping translucent fills after a clear equal the pixel-by-pixel result")
    func overlappingFills() {
        let a = Canvas(width: 64, height: 32)
        a.clear(Color(rgb: 0x0D1117))
        let b = Canvas(buffer: a.buffer)
        let p1 = Paint.solid(Color(argb: 0x6000_C805)), p2 = Paint.solid(Color(argb: 0x80FF_5000))
        for c in [a, b] {
            c.fillRect(x: 3.5, y: 2.25, width: 40, height: 20, paint: p1)
            c.fillRect(x: 20.75, y: 10, width: 40, height: 20.5, paint: p2)
        }
        #expect(a.buffer.pixels == b.buffer.pixels)
    }
}

@Suite("Skipping pixels that already hold the clear colour")
struct RepeatedClearTests {
    @Test("frame after frame, a canvas that skips unchanged backdrop equals one drawn from scratch")
    func animationFrames() {
        let reused = Canvas(width: 120, height: 80)
        let background = Color(rgb: 0x0D1117)
        for frame in 0..<12 {
            let x = Double(frame * 9 % 90), y = Double(frame * 7 % 50)
            func draw(_ c: Canvas) {
                c.clip = c.buffer.bounds
                c.clear(background)
                c.fillRect(x: x + 0.3, y: y + 0.6, width: 25.5, height: 20.25, paint: .solid(Color(argb: 0x8000_C805)))
                var line = Path()
                line.move(to: Point(0, y)); line.line(to: Point(119, 79 - y))
                c.stroke(line, style: StrokeStyle(width: 2.5, cap: .round), paint: .solid(Color(rgb: 0xFF5000)))
                if frame % 3 == 0 {
                    // A partial redraw too, as scrubbing does.
                    c.clip = IntRect(x0: 40, y0: 0, x1: 70, y1: 80)
                    c.clear(background)
                    c.fillRect(x: 45, y: 10, width: 10, height: 60, paint: .solid(Color(rgb: 0xFFFFFF)))
                    c.clip = c.buffer.bounds
                }
            }
            draw(reused)
            let fresh = Canvas(width: 120, height: 80)
            draw(fresh)
            #expect(reused.buffer.pixels == fresh.buffer.pixels, "frame \(frame)")
        }
    }
}

/// Frames of random shapes over random clears, drawn on one canvas that remembers which blocks
/// of each row hold the backdrop, must equal the same frames drawn on a canvas that starts each
/// frame from the same pixels knowing nothing about them (it writes every pixel it should).
@Suite("Clean backdrop blocks")
struct CleanBlockTests {
    /// One frame's draw calls, chosen by `r` (the same choices for both canvases).
    static func drawFrame(_ c: Canvas, _ r: inout SplitMix64) {
        let w = Double(c.width), h = Double(c.height)
        let backdrops = [Color(rgb: 0x0D1117), Color(rgb: 0x0D1117), Color(rgb: 0x202020)]
        c.clip = c.bounds
        if r.int(0..<4) == 0 {
            // A partial redraw, as a scrub's.
            let x0 = r.int(0..<c.width), y0 = r.int(0..<c.height)
            c.clip = IntRect(x0: x0, y0: y0, x1: min(c.width, x0 + r.int(1..<c.width)), y1: min(c.height, y0 + r.int(1..<c.height)))
        }
        c.clear(backdrops[r.int(0..<backdrops.count)])
        if r.int(0..<5) == 0 { c.clear(backdrops[r.int(0..<backdrops.count)], rect: IntRect(x0: r.int(0..<c.width), y0: 0, x1: c.width, y1: r.int(1..<c.height + 1))) }
        for _ in 0..<r.int(1..<7) {
            let paint: Paint = switch r.int(0..<4) {
            case 0: .solid(Color(argb: 0x4000_C805))
            case 1: .solid(Color(rgb: 0xFF5000))
            case 2: .linearGradient(LinearGradient(start: Point(0, 0), end: Point(0, h),
                                                   stops: [(0, Color(argb: 0x8000_C805)), (1, Color(argb: 0x0000_C805))]))
            default: .linearGradient(LinearGradient(start: Point(0, 0), end: Point(w, 0),
                                                    stops: [(0, Color(rgb: 0x2040FF)), (1, Color(argb: 0x80FF_FFFF))]))
            }
            let blend: BlendMode = r.int(0..<5) == 0 ? .sourceCopy : .sourceOver
            switch r.int(0..<4) {
            case 0:
                c.fillRect(x: r.double(-10, w), y: r.double(-10, h), width: r.double(0.5, w / 2), height: r.double(0.5, h / 2),
                           paint: paint, blend: blend)
            case 1:
                // An area under a zigzag, as the chart's.
                var area = Path()
                let top = r.double(0, h), bottom = r.double(top, h + 5)
                area.move(to: Point(r.double(-5, w / 3), bottom))
                for i in 0..<r.int(2..<30) { area.line(to: Point(Double(i) * w / 20 + r.double(-3, 3), top + r.double(0, bottom - top))) }
                area.line(to: Point(r.double(w / 2, w + 5), bottom)); area.close()
                c.fill(area, paint: paint, rule: r.int(0..<2) == 0 ? .nonZero : .evenOdd, blend: blend)
            case 2:
                var line = Path()
                line.move(to: Point(r.double(-5, w), r.double(-5, h)))
                for _ in 0..<r.int(1..<12) { line.line(to: Point(r.double(-5, w + 5), r.double(-5, h + 5))) }
                c.stroke(line, style: StrokeStyle(width: r.double(0.5, 8), cap: .round, join: .round), paint: paint, blend: blend)
            default:
                // Whole-pixel dashes or a hairline: the rectangles' path.
                var line = Path()
                let y = Double(r.int(0..<c.height)) + 0.5
                line.move(to: Point(Double(r.int(0..<c.width / 2)), y)); line.line(to: Point(Double(r.int(c.width / 2..<c.width)), y))
                c.stroke(line, style: StrokeStyle(width: 1, dashes: r.int(0..<2) == 0 ? [] : [Double(r.int(1..<40)), Double(r.int(1..<40))]),
                         paint: paint, blend: blend)
            }
        }
    }

    @Test("random frames equal those of a canvas that knows nothing of its rows",
          arguments: [(77, 1), (333, 1), (1100, 1), (1100, 2), (4097, 2)])
    func randomFrames(width: Int, threads: Int) {
        let reused = Canvas(width: width, height: 48)
        reused.renderThreads = threads
        var choices = SplitMix64(seed: UInt64(width * 31 + threads))
        for frame in 0..<40 {
            let before = reused.buffer
            let fresh = Canvas(buffer: before)
            var again = choices
            Self.drawFrame(reused, &choices)
            Self.drawFrame(fresh, &again)
            if frame % 9 == 4 { reused.buffer[width / 2, 20] = 0xFF12_3456; fresh.buffer[width / 2, 20] = 0xFF12_3456 }
            let differing = zip(reused.buffer.pixels, fresh.buffer.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "width \(width), threads \(threads), frame \(frame)")
            if differing > 0 { return }
        }
    }
}

extension SplitMix64 {
    fileprivate mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    fileprivate mutating func double(_ lo: Double, _ hi: Double) -> Double { lo + unit() * (hi - lo) }
}

@Suite("Edges left of a clipped redraw")
struct LeftOfClipTests {
    /// A zigzag area, a star that crosses itself and a ring (even-odd), with ends at fractional rows.
    private static func draw(_ c: Canvas, rule: FillRule) {
        var area = Path()
        area.move(to: Point(3.3, 70.6))
        for i in 0..<14 { area.line(to: Point(5.2 + Double(i) * 8.1, i % 2 == 0 ? 12.35 : 40.8 + Double(i))) }
        area.line(to: Point(116.7, 75.25)); area.close()
        c.fill(area, paint: .solid(Color(argb: 0xC000_C805)), rule: rule)
        var star = Path()
        // A pentagram (every second corner of a pentagon): its middle is wound twice.
        star.move(to: Point(60.000, 4.500))
        star.line(to: Point(89.566, 69.082))
        star.line(to: Point(12.162, 29.168))
        star.line(to: Point(107.838, 29.168))
        star.line(to: Point(30.434, 69.082))
        star.close()
        c.fill(star, paint: .solid(Color(argb: 0x80FF_5000)), rule: rule)
        var ring = Path()
        ring.addCircle(center: Point(30.4, 50.6), radius: 25.3)
        ring.addCircle(center: Point(30.4, 50.6), radius: 12.1)
        c.fill(ring, paint: .solid(Color(rgb: 0x2040FF)), rule: rule)
    }

    @Test("inside the clip, shapes reaching far left of it give the pixels of a full draw (at most one level apart)",
          arguments: [FillRule.nonZero, .evenOdd])
    func clippedEqualsFull(rule: FillRule) {
        let full = Canvas(buffer: PixelBuffer(width: 120, height: 80, fill: 0xFF0D_1117))
        Self.draw(full, rule: rule)
        for clip in [IntRect(x0: 70, y0: 0, x1: 90, y1: 80), IntRect(x0: 100, y0: 13, x1: 120, y1: 61)] {
            let clipped = Canvas(buffer: PixelBuffer(width: 120, height: 80, fill: 0xFF0D_1117))
            clipped.clip = clip
            Self.draw(clipped, rule: rule)
            var worst: UInt32 = 0
            for y in clip.y0..<clip.y1 {
                for x in clip.x0..<clip.x1 {
                    let a = clipped.buffer[x, y], b = full.buffer[x, y]
                    for shift: UInt32 in [0, 8, 16] {
                        let d = Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)
                        worst = max(worst, UInt32(abs(d)))
                    }
                }
            }
            #expect(worst <= 1, "clip \(clip): \(worst) levels apart")
        }
    }
}
