import Raster
import Testing

@Suite("Clip, damage and bad geometry")
struct RobustnessTests {
    /// Draws a busy scene; nothing may change outside `clip`.
    private func drawBusyScene(on canvas: Canvas) {
        var star = Path()
        for i in 0..<11 {
            let p = Point(Double((i * 37) % 200) - 20, Double((i * 53) % 160) - 20)
            if i == 0 { star.move(to: p) } else { star.line(to: p) }
        }
        star.close()
        canvas.fill(star, paint: .solid(Color(rgb: 0xFF0000)))
        canvas.stroke(star, style: StrokeStyle(width: 9, cap: .square, join: .miter, dashes: [7, 3]),
                      paint: .solid(Color(rgb: 0x00FF00)))
        var circle = Path()
        circle.addCircle(center: Point(80, 60), radius: 70)
        canvas.fill(circle, paint: .linearGradient(LinearGradient(
            start: Point(0, 0), end: Point(160, 120),
            stops: [(0, Color(argb: 0x80FF_FFFF)), (1, Color(argb: 0x4000_00FF))])))
    }

    @Test("nothing is written outside the clip rectangle (canary border)",
          arguments: [IntRect(x0: 20, y0: 15, x1: 140, y1: 100), IntRect(x0: 0, y0: 0, x1: 1, y1: 1),
                      IntRect(x0: 159, y0: 0, x1: 160, y1: 120), IntRect(x0: 50, y0: 50, x1: 50, y1: 90)])
    func clipCanary(clip: IntRect) {
        let canary: UInt32 = 0xFF12_3456
        let canvas = Canvas(buffer: PixelBuffer(width: 160, height: 120, fill: canary))
        canvas.clip = clip
        drawBusyScene(on: canvas)
        for y in 0..<120 {
            for x in 0..<160 where !clip.contains(x: x, y: y) {
                #expect(canvas.buffer[x, y] == canary, "pixel \(x),\(y) outside \(clip)")
            }
        }
    }

    @Test("redrawing damage rectangles gives the pixels of a full redraw (within one level)")
    func damageRedrawMatchesFullRedraw() {
        let full = Canvas(width: 160, height: 120)
        drawBusyScene(on: full)
        let patched = Canvas(width: 160, height: 120)
        patched.clear(Color(rgb: 0x777777))
        // Tiles of odd sizes, so clip edges fall everywhere.
        var y = 0
        while y < 120 {
            var x = 0
            while x < 160 {
                patched.clip = IntRect(x: x, y: y, width: 23, height: 17)
                patched.clear(Color(rgb: 0x000000))
                drawBusyScene(on: patched)
                x += 23
            }
            y += 17
        }
        var maxDiff = 0
        for i in 0..<full.buffer.pixels.count {
            let a = full.buffer.pixels[i], b = patched.buffer.pixels[i]
            for s in [0, 8, 16] as [UInt32] {
                maxDiff = max(maxDiff, abs(Int((a >> s) & 0xFF) - Int((b >> s) & 0xFF)))
            }
        }
        #expect(maxDiff <= 1)
    }

    @Test("bad geometry draws nothing or only its finite part, never traps or hangs")
    func badGeometry() {
        let canvas = Canvas(buffer: PixelBuffer(width: 64, height: 64, fill: 0xFF00_0000))
        let paint = Paint.solid(Color(rgb: 0xFFFFFF))
        var nan = Path()
        nan.move(to: Point(.nan, 3)); nan.line(to: Point(10, 10)); nan.line(to: Point(20, .infinity))
        #expect(canvas.fill(nan, paint: paint) == .partial)
        #expect(canvas.stroke(nan, style: StrokeStyle(width: 2), paint: paint) == .partial)

        var huge = Path()
        huge.move(to: Point(-1e30, -1e30)); huge.line(to: Point(1e30, 5)); huge.line(to: Point(5, 1e30))
        huge.cubic(to: Point(3, 3), control1: Point(1e30, -1e30), control2: Point(-1e30, 1e30))
        huge.close()
        _ = canvas.fill(huge, paint: paint)
        _ = canvas.stroke(huge, style: StrokeStyle(width: 3, join: .round), paint: paint)

        var line = Path()
        line.move(to: Point(5, 5)); line.line(to: Point(50, 50))
        #expect(canvas.stroke(line, style: StrokeStyle(width: -1), paint: paint) == .rejected)
        #expect(canvas.stroke(line, style: StrokeStyle(width: .nan), paint: paint) == .rejected)
        #expect(canvas.stroke(line, style: StrokeStyle(width: 0), paint: paint) == .empty)
        #expect(canvas.stroke(line, style: StrokeStyle(width: 1, dashes: [0, 0]), paint: paint) == .rejected)
        #expect(canvas.stroke(line, style: StrokeStyle(width: 1, dashes: [1e-12, 1e-12]), paint: paint) == .rejected)
        #expect(canvas.stroke(line, style: StrokeStyle(width: 1, dashes: [-1, 2]), paint: paint) == .rejected)
        #expect(canvas.fill(Path(), paint: paint) == .empty)

        var point = Path()
        point.move(to: Point(30, 30)); point.line(to: Point(30, 30))
        #expect(canvas.stroke(point, style: StrokeStyle(width: 4, cap: .butt), paint: paint) == .empty)
        let dot = Canvas(buffer: PixelBuffer(width: 64, height: 64, fill: 0xFF00_0000))
        dot.stroke(point, style: StrokeStyle(width: 4, cap: .round), paint: paint)
        #expect(dot.buffer[30, 30] & 0xFF == 255)  // a zero-length round-capped line is a dot
    }

    @Test("rotating by quarter turns maps the corners of the picture onto the rotated target")
    func quarterTurnRotation() {
        let t = Transform.rotation(quarterTurns: 1, width: 200, height: 100)
        #expect(t.apply(Point(0, 0)) == Point(100, 0))
        #expect(t.apply(Point(200, 100)) == Point(0, 200))
        let half = Transform.rotation(quarterTurns: 2, width: 200, height: 100)
        #expect(half.apply(Point(0, 0)) == Point(200, 100))
        let three = Transform.rotation(quarterTurns: 3, width: 200, height: 100)
        #expect(three.apply(Point(0, 0)) == Point(0, 200))
        #expect(Transform.rotation(quarterTurns: 4, width: 1, height: 1) == .identity)
    }
}

@Suite("Rotated scanout copy")
struct RotationCopyTests {
    @Test("rotating the pixels agrees with Transform.rotation on pixel centres", arguments: [0, 1, 2, 3])
    func agreesWithTransform(turns: Int) {
        var source = PixelBuffer(width: 7, height: 4)
        for y in 0..<4 { for x in 0..<7 { source[x, y] = UInt32(y * 7 + x) } }
        var target = turns % 2 == 0 ? PixelBuffer(width: 7, height: 4) : PixelBuffer(width: 4, height: 7)
        #expect(source.rotate(quarterTurns: turns, into: &target))
        let t = Transform.rotation(quarterTurns: turns, width: 7, height: 4)
        for y in 0..<4 {
            for x in 0..<7 {
                let p = t.apply(Point(Double(x) + 0.5, Double(y) + 0.5))
                #expect(target[Int(p.x), Int(p.y)] == source[x, y])
            }
        }
        var wrong = PixelBuffer(width: 5, height: 5)
        #expect(!source.rotate(quarterTurns: turns, into: &wrong))
    }

    @Test("turning only the damage keeps the turned copy equal to a whole turn, and says where it wrote",
          arguments: [0, 1, 2, 3])
    func damageOnly(turns: Int) {
        var source = PixelBuffer(width: 9, height: 5)
        for y in 0..<5 { for x in 0..<9 { source[x, y] = UInt32(y * 9 + x) } }
        var kept = turns % 2 == 0 ? PixelBuffer(width: 9, height: 5) : PixelBuffer(width: 5, height: 9)
        #expect(source.rotate(quarterTurns: turns, into: &kept))
        // Frames that change a rectangle each (one reaching past the edge), turned by their damage.
        for (i, r) in [IntRect(x0: 2, y0: 1, x1: 5, y1: 3), IntRect(x0: 0, y0: 0, x1: 1, y1: 5),
                       IntRect(x0: 7, y0: 3, x1: 12, y1: 9), IntRect(x0: 4, y0: 4, x1: 4, y1: 5)].enumerated() {
            for y in max(0, r.y0)..<min(5, r.y1) { for x in max(0, r.x0)..<min(9, r.x1) { source[x, y] = 0xFF00_0000 | UInt32(100 * (i + 1) + x + y) } }
            let written = source.rotate(quarterTurns: turns, rect: r, into: &kept)
            #expect(written == source.rotated(r, quarterTurns: turns) || (written.isEmpty && r.intersection(source.bounds).isEmpty))
            #expect(written.width * written.height == r.intersection(source.bounds).width * r.intersection(source.bounds).height)
            var whole = kept
            #expect(source.rotate(quarterTurns: turns, into: &whole))
            #expect(kept.pixels == whole.pixels, "frame \(i), turns \(turns)")
        }
        var wrong = PixelBuffer(width: 5, height: 5)
        #expect(source.rotate(quarterTurns: turns, rect: source.bounds, into: &wrong).isEmpty)
    }
}

@Suite("Burn-in shift copy")
struct ShiftCopyTests {
    @Test("a shifted copy moves every pixel by the offset and fills the uncovered edge",
          arguments: [(0, 0), (2, -1), (-3, 2), (7, 0), (-8, 1), (0, -4), (3, 9)])
    func shiftedCopy(offset: (Int, Int)) {
        var source = PixelBuffer(width: 6, height: 5)
        for y in 0..<5 { for x in 0..<6 { source[x, y] = UInt32(y * 6 + x + 1) } }
        var target = PixelBuffer(width: 6, height: 5)
        target.copy(from: source, offsetX: offset.0, offsetY: offset.1, fill: 0xDEAD)
        for y in 0..<5 {
            for x in 0..<6 {
                let sx = x - offset.0, sy = y - offset.1
                let expected = sx >= 0 && sx < 6 && sy >= 0 && sy < 5 ? source[sx, sy] : 0xDEAD
                #expect(target[x, y] == expected, "pixel \(x),\(y)")
            }
        }
    }

    /// Expected by hand: pixel (x, y) of the rectangle lands at (x + dx, y + dy) when both are
    /// inside the two buffers; nothing else in the target changes.
    @Test("a rectangle copied with an offset lands moved, clipped to both buffers, and says where",
          arguments: [(IntRect(x0: 1, y0: 1, x1: 4, y1: 3), 2, 1), (IntRect(x0: 0, y0: 0, x1: 6, y1: 5), -2, 3),
                      (IntRect(x0: 4, y0: 2, x1: 9, y1: 9), 3, 0), (IntRect(x0: 0, y0: 0, x1: 2, y1: 2), 9, 0)])
    func movedRectangle(rect: IntRect, dx: Int, dy: Int) {
        var source = PixelBuffer(width: 6, height: 5)
        for y in 0..<5 { for x in 0..<6 { source[x, y] = UInt32(y * 6 + x + 1) } }
        var target = PixelBuffer(width: 7, height: 6)
        for y in 0..<6 { for x in 0..<7 { target[x, y] = 0xBEEF } }
        let landed = target.copy(rect, from: source, dx: dx, dy: dy)
        var written: [(Int, Int)] = []
        for y in 0..<6 {
            for x in 0..<7 {
                let sx = x - dx, sy = y - dy
                let inside = sx >= max(0, rect.x0) && sx < min(6, rect.x1) && sy >= max(0, rect.y0) && sy < min(5, rect.y1)
                #expect(target[x, y] == (inside ? source[sx, sy] : 0xBEEF), "pixel \(x),\(y)")
                if inside { written.append((x, y)) }
            }
        }
        #expect(written.count == max(0, landed.width) * max(0, landed.height))
        #expect(written.allSatisfy { landed.x0 <= $0.0 && $0.0 < landed.x1 && landed.y0 <= $0.1 && $0.1 < landed.y1 })
    }
}

/// Quarter turns are copied in 32 x 32 tiles (a 4K frame turned row by row took 42 ms, 21 ms tiled):
/// several tiles and ragged edges, whole and by a damage rectangle that crosses tile borders, against
/// where `Transform.rotation` maps each pixel centre.
@Suite struct TiledRotationTests {
    @Test("a 77 x 45 buffer turned by 1 and 3 quarters, whole and by a damage rectangle, lands where the transform says",
          arguments: [1, 3])
    func tiled(turns: Int) {
        var source = PixelBuffer(width: 77, height: 45)
        for y in 0..<45 { for x in 0..<77 { source[x, y] = UInt32(y * 1000 + x) } }
        var target = PixelBuffer(width: 45, height: 77)
        #expect(source.rotate(quarterTurns: turns, into: &target))
        let t = Transform.rotation(quarterTurns: turns, width: 77, height: 45)
        func check(_ label: String) {
            for y in 0..<45 {
                for x in 0..<77 {
                    let p = t.apply(Point(Double(x) + 0.5, Double(y) + 0.5))
                    if target[Int(p.x), Int(p.y)] != source[x, y] { Issue.record("\(label): (\(x), \(y))"); return }
                }
            }
        }
        check("whole")
        let r = IntRect(x0: 20, y0: 10, x1: 70, y1: 41)
        for y in r.y0..<r.y1 { for x in r.x0..<r.x1 { source[x, y] = 0xFF00_0000 | UInt32(x * 3 + y) } }
        source.rotate(quarterTurns: turns, rect: r, into: &target)
        check("damage")
    }
}
