import CDRM
import Glibc
import Raster
import Testing

@testable import Display
@testable import DisplayModel
import LinuxIO

@Suite struct ModeRequestTests {
    @Test("parses", arguments: [
        ("1920x1080", ModeRequest(width: 1920, height: 1080)),
        ("1024x768@60", ModeRequest(width: 1024, height: 768, refreshHz: 60)),
        ("1280x800@74.99", ModeRequest(width: 1280, height: 800, refreshHz: 74.99)),
    ])
    func parses(text: String, expected: ModeRequest) {
        #expect(ModeRequest(text) == expected)
        #expect(ModeRequest(text)?.description == text)
    }

    @Test("rejects", arguments: ["", "1920", "x1080", "0x10", "1920x1080@", "1920x1080@-5", "axb"])
    func rejects(text: String) {
        #expect(ModeRequest(text) == nil)
    }
}

@Suite struct DisplayErrorTests {
    @Test("names device call and errno") func namesDeviceCallAndErrno() {
        let e = DisplayError(.accessDenied, device: "/dev/dri/card0", operation: "drmModeSetCrtc", errno: .permissionDenied,
                             detail: "Virtual-1 1280x800@75")
        #expect(e.description == "/dev/dri/card0: drmModeSetCrtc failed: Permission denied (errno 13) (Virtual-1 1280x800@75)")
    }

    @Test("missing card is no display") func missingCardIsNoDisplay() {
        do {
            _ = try KMSDisplay(options: .init(devicePath: "/nonexistent/dri/card7"))
            Issue.record("opened a missing card")
        } catch {
            #expect(error.kind == .noDisplay)
            #expect(error.description.hasPrefix("/nonexistent/dri/card7: open failed: No such file"))
        }
    }

    /// /dev/null opens but is no framebuffer: the error names the ioctl.
    @Test("not AF ramebuffer") func notAFramebuffer() {
        do {
            _ = try FBDevDisplay(path: "/dev/null")
            Issue.record("/dev/null accepted as a framebuffer")
        } catch {
            #expect(error.operation == "FBIOGET_FSCREENINFO")
            #expect(error.errno == .notATerminal)
        }
    }
}

@Suite struct DRMModeTests {
    /// CEA 1920x1080@60: 148.5 MHz over 2200x1125; and the NTSC-style 59.94 variant, whose
    /// vrefresh field still says 60.
    @Test("refresh from timings") func refreshFromTimings() {
        var info = drmModeModeInfo()
        info.clock = 148_500
        info.hdisplay = 1920
        info.htotal = 2200
        info.vdisplay = 1080
        info.vtotal = 1125
        info.vrefresh = 60
        #expect(abs(DRMMode(info: info).refreshHz - 60) < 0.001)
        info.clock = 148_352
        #expect(abs(DRMMode(info: info).refreshHz - 59.94) < 0.01)
        info.flags = UInt32(DRM_MODE_FLAG_INTERLACE)
        #expect(abs(DRMMode(info: info).refreshHz - 119.88) < 0.02)
        info.clock = 0
        #expect(DRMMode(info: info).refreshHz == 60)
    }
}

@Suite struct OutputsReportTests {
    @Test("report ends with newline and matches exit code") func reportEndsWithNewlineAndMatchesExitCode() {
        let report = OutputsReport.make()
        #expect(report.text.hasSuffix("\n"))
        if report.exitCode == 1 {
            #expect(report.text == "no display: no /dev/dri/card* and no /dev/fb* devices\n")
        }
    }
}

/// The damage bookkeeping behind every scanout copy: pure, so each decision is checked here.
@Suite struct ScanoutDamageTests {
    static let screen = IntRect(x0: 0, y0: 0, x1: 100, y1: 50)

    @Test("a region clips, drops what another contains, and merges overlaps that cost nothing")
    func regionNormalises() {
        var r = DamageRegion(bounds: Self.screen)
        r.add(IntRect(x0: -10, y0: -10, x1: 10, y1: 10))
        #expect(r.rects == [IntRect(x0: 0, y0: 0, x1: 10, y1: 10)])
        r.add(IntRect(x0: 2, y0: 2, x1: 5, y1: 5))
        #expect(r.rects.count == 1)
        // Disjoint and far apart: two rectangles, not their bounding box.
        r.add(IntRect(x0: 80, y0: 40, x1: 90, y1: 50))
        #expect(r.rects.count == 2)
        #expect(r.area == 200)
        // Two columns a scrub indicator leaves, overlapping by most of their width: one.
        var c = DamageRegion(bounds: Self.screen)
        c.add(IntRect(x0: 40, y0: 0, x1: 52, y1: 50))
        c.add(IntRect(x0: 43, y0: 0, x1: 55, y1: 50))
        #expect(c.rects == [IntRect(x0: 40, y0: 0, x1: 55, y1: 50)])
        r.add(IntRect(x0: 200, y0: 0, x1: 300, y1: 10))
        #expect(r.rects.count == 2)
    }

    @Test("past its limit a region merges the cheapest pair, and still covers everything")
    func regionLimit() {
        var r = DamageRegion(bounds: Self.screen, limit: 4)
        let dots = (0..<10).map { IntRect(x0: $0 * 10, y0: ($0 % 2) * 40, x1: $0 * 10 + 2, y1: ($0 % 2) * 40 + 2) }
        for d in dots { r.add(d) }
        #expect(r.rects.count <= 4)
        for d in dots {
            #expect(r.rects.contains { $0.x0 <= d.x0 && $0.y0 <= d.y0 && $0.x1 >= d.x1 && $0.y1 >= d.y1 })
        }
    }

    @Test("double buffering: the back buffer gets its own frame's damage and the one it missed")
    func bufferAge() {
        var d = ScanoutDamage(bufferCount: 2, bounds: Self.screen)
        // New buffers hold nothing: the first frame into each is whole.
        #expect(d.write([IntRect(x0: 0, y0: 0, x1: 1, y1: 1)], into: 0).rects == [Self.screen])
        #expect(d.write([], into: 1).rects == [Self.screen])
        let a = IntRect(x0: 10, y0: 10, x1: 20, y1: 20), b = IntRect(x0: 60, y0: 30, x1: 70, y1: 40)
        #expect(d.write([a], into: 0).rects == [a])
        // Buffer 1 missed frame a: it gets a and b.
        #expect(Set(d.write([b], into: 1).rects) == [a, b])
        #expect(d.missing(in: 0).rects == [b])
        // Nothing new: the back buffer still owes b, the front owes nothing.
        #expect(d.write([], into: 0).rects == [b])
        #expect(d.missing(in: 1).isEmpty)
        #expect(d.write([], into: 1).isEmpty)
    }

    @Test("frames shown nowhere and a modeset are remembered")
    func invalidation() {
        var d = ScanoutDamage(bufferCount: 2, bounds: Self.screen)
        _ = d.write([], into: 0)
        _ = d.write([], into: 1)
        let a = IntRect(x0: 1, y0: 1, x1: 5, y1: 5)
        d.note([a])
        #expect(d.missing(in: 0).rects == [a] && d.missing(in: 1).rects == [a])
        d.invalidateAll()
        #expect(d.write([], into: 1).rects == [Self.screen])
    }

    @Test("the copy writes exactly the rectangles, at the margin's offset, and counts their bytes")
    func copyToScanout() {
        var frame = PixelBuffer(width: 8, height: 4, fill: 0xFF00_0000)
        for i in frame.pixels.indices { frame.pixels[i] = UInt32(i) }
        let pitch = (8 + 2) * 4
        var memory = [UInt32](repeating: 0xDEAD_BEEF, count: 10 * 6)
        let region = DamageRegion([IntRect(x0: 2, y0: 1, x1: 4, y1: 3)], bounds: frame.bounds)
        let bytes = memory.withUnsafeMutableBytes { frame.copy(region, to: $0.baseAddress!, pitch: pitch, originX: 1, originY: 1) }
        #expect(bytes == 2 * 2 * 4)
        for y in 0..<6 {
            for x in 0..<10 {
                let inside = (2...3).contains(y) && (3...4).contains(x)
                #expect(memory[y * 10 + x] == (inside ? UInt32((y - 1) * 8 + (x - 1)) : 0xDEAD_BEEF))
            }
        }
    }
}

/// The display's one copy turns and moves the picture (CopyPlacement): expected pixels come from
/// the turn's definition, source (x, y) at (H-1-y, x) after a clockwise quarter turn, written out
/// by hand for a 3x2 picture, and from the previous two-step way (a moved copy, then a turned one;
/// Raster's own functions, tested on their own) for many random sizes, rectangles and offsets.
@Suite struct CopyPlacementTests {
    @Test("a 3x2 picture moved right by one and turned a quarter clockwise, by hand")
    func byHand() {
        // a b c        the picture moved right by one (F = fill):  F a b      turned clockwise:  F F
        // d e f                                                    F d e                         d a
        //                                                                                        e b
        var frame = PixelBuffer(width: 3, height: 2, fill: 0)
        frame.pixels = [0xA, 0xB, 0xC, 0xD, 0xE, 0xF]
        var memory = [UInt32](repeating: 0x1234, count: 2 * 3)
        let placement = CopyPlacement(quarterTurns: 1, dx: 1, dy: 0, fill: 0xF0)
        let bytes = memory.withUnsafeMutableBytes {
            frame.copy(.full(frame.bounds), placement: placement, to: $0.baseAddress!, pitch: 2 * 4)
        }
        #expect(memory == [0xF0, 0xF0, 0xD, 0xA, 0xE, 0xB])
        #expect(bytes == 6 * 4)
        #expect(placement.placedSize(width: 3, height: 2) == (2, 3))
        // Only the top-left pixel `a` changed: it lands at (1, 1) and nothing else is written.
        memory = [UInt32](repeating: 0x1234, count: 2 * 3)
        let one = DamageRegion([IntRect(x0: 0, y0: 0, x1: 1, y1: 1)], bounds: frame.bounds)
        _ = memory.withUnsafeMutableBytes { frame.copy(one, placement: placement, to: $0.baseAddress!, pitch: 2 * 4) }
        #expect(memory == [0x1234, 0x1234, 0x1234, 0xA, 0x1234, 0x1234])
        #expect(placement.placed(IntRect(x0: 0, y0: 0, x1: 1, y1: 1), width: 3, height: 2) == IntRect(x0: 1, y0: 1, x1: 2, y1: 2))
        // A safe area of one pixel on each side (`[display] safe-area`): a 5x4 picture, the frame
        // in its middle, the margins the fill.
        let safe = CopyPlacement(fill: 0xF0, marginX: 1, marginY: 1)
        var screen = [UInt32](repeating: 0x1234, count: 5 * 4)
        _ = screen.withUnsafeMutableBytes { frame.copy(.full(frame.bounds), placement: safe, to: $0.baseAddress!, pitch: 5 * 4) }
        #expect(screen == [0xF0, 0xF0, 0xF0, 0xF0, 0xF0,
                           0xF0, 0xA, 0xB, 0xC, 0xF0,
                           0xF0, 0xD, 0xE, 0xF, 0xF0,
                           0xF0, 0xF0, 0xF0, 0xF0, 0xF0])
        #expect(safe.placedSize(width: 3, height: 2) == (5, 4))
        #expect(safe.placed(IntRect(x0: 2, y0: 1, x1: 3, y1: 2), width: 3, height: 2) == IntRect(x0: 3, y0: 2, x1: 4, y1: 3))
    }

    @Test("equal to placing in the margins, moving, then turning, for random sizes, margins, offsets, turns and damage")
    func equalToTwoSteps() {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<400 {
            let w = Int.random(in: 1...41, using: &rng), h = Int.random(in: 1...41, using: &rng)
            let turns = trial % 4, dx = Int.random(in: -5...5, using: &rng), dy = Int.random(in: -5...5, using: &rng)
            // A safe area's margins on half the trials (`[display] safe-area`).
            let mx = trial % 8 < 4 ? 0 : Int.random(in: 0...4, using: &rng), my = trial % 8 < 4 ? 0 : Int.random(in: 0...4, using: &rng)
            var frame = PixelBuffer(width: w, height: h, stride: w + Int.random(in: 0...3, using: &rng), fill: 0)
            for i in frame.pixels.indices { frame.pixels[i] = UInt32.random(in: 0...UInt32.max, using: &rng) }
            let placement = CopyPlacement(quarterTurns: turns, dx: dx, dy: dy, fill: 0xFF12_3456, marginX: mx, marginY: my)
            // The picture by hand: the frame's pixel where it lands, the fill elsewhere.
            var moved = PixelBuffer(width: w + 2 * mx, height: h + 2 * my, fill: 0)
            for y in 0..<moved.height {
                for x in 0..<moved.width {
                    let fx = x - mx - dx, fy = y - my - dy
                    moved.pixels[y * moved.stride + x] = fx >= 0 && fx < w && fy >= 0 && fy < h ? frame.pixels[fy * frame.stride + fx] : 0xFF12_3456
                }
            }
            let size = placement.placedSize(width: w, height: h)
            var expected = PixelBuffer(width: size.width, height: size.height, fill: 0)
            moved.rotate(quarterTurns: turns, into: &expected)
            // The whole frame (margins painted), then on a stale copy a random rectangle again.
            let pad = Int.random(in: 0...2, using: &rng), pitch = (size.width + pad) * 4
            var memory = [UInt32](repeating: 0xDEAD_BEEF, count: (size.width + pad) * size.height)
            _ = memory.withUnsafeMutableBytes { frame.copy(.full(frame.bounds), placement: placement, to: $0.baseAddress!, pitch: pitch) }
            for y in 0..<size.height {
                #expect(Array(memory[(y * (size.width + pad))..<(y * (size.width + pad) + size.width)])
                        == Array(expected.pixels[(y * expected.stride)..<(y * expected.stride + size.width)]), "trial \(trial) row \(y)")
            }
            let x0 = Int.random(in: 0..<w, using: &rng), y0 = Int.random(in: 0..<h, using: &rng)
            let rect = IntRect(x0: x0, y0: y0, x1: Int.random(in: (x0 + 1)...w, using: &rng), y1: Int.random(in: (y0 + 1)...h, using: &rng))
            let landed = placement.placed(rect, width: w, height: h)
            var stale = [UInt32](repeating: 0x5555, count: memory.count)
            _ = stale.withUnsafeMutableBytes { frame.copy(DamageRegion([rect], bounds: frame.bounds), placement: placement, to: $0.baseAddress!, pitch: pitch) }
            #expect(placement.placedSize(width: w, height: h) == (turns % 2 == 1 ? (h + 2 * my, w + 2 * mx) : (w + 2 * mx, h + 2 * my)))
            for y in 0..<size.height {
                for x in 0..<size.width {
                    // The whole frame paints the strips a shift uncovers as well.
                    let inside = rect == frame.bounds || (x >= landed.x0 && x < landed.x1 && y >= landed.y0 && y < landed.y1)
                    let want = inside ? expected.pixels[y * expected.stride + x] : 0x5555
                    if stale[y * (size.width + pad) + x] != want {
                        Issue.record("trial \(trial): \(w)x\(h) turns \(turns) offset \(dx),\(dy) margins \(mx),\(my) rect \(rect): (\(x), \(y))")
                        return
                    }
                }
            }
        }
    }
}

/// A frame handed over in parts (a scene's canvas and a tape band's, side by side) is copied as the
/// same frame in one buffer is: the one-buffer copy is the reference, checked by hand and against
/// the two-step way above.
@Suite struct PictureTests {
    @Test("parts placed, turned and moved as one buffer would be, for random splits, strides, placements and damage")
    func partsEqualOneBuffer() {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<300 {
            let w = Int.random(in: 2...37, using: &rng), h = Int.random(in: 2...37, using: &rng)
            var whole = PixelBuffer(width: w, height: h, fill: 0)
            for i in whole.pixels.indices { whole.pixels[i] = UInt32.random(in: 0...UInt32.max, using: &rng) }
            // Split across the rows (a band at the top or the foot) or the columns, each part with a stride of its own.
            let across = trial % 3 != 0
            let cut = across ? Int.random(in: 1..<h, using: &rng) : Int.random(in: 1..<w, using: &rng)
            func part(_ r: IntRect) -> Picture.Part {
                var p = PixelBuffer(width: r.width, height: r.height, stride: r.width + Int.random(in: 0...3, using: &rng), fill: 0)
                for y in 0..<r.height { for x in 0..<r.width { p[x, y] = whole[r.x0 + x, r.y0 + y] } }
                return Picture.Part(p, x: r.x0, y: r.y0)
            }
            let rects = across ? [IntRect(x0: 0, y0: 0, x1: w, y1: cut), IntRect(x0: 0, y0: cut, x1: w, y1: h)]
                               : [IntRect(x0: 0, y0: 0, x1: cut, y1: h), IntRect(x0: cut, y0: 0, x1: w, y1: h)]
            let picture = Picture(width: w, height: h, parts: (trial % 2 == 0 ? rects : rects.reversed()).map(part))
            let placement = CopyPlacement(quarterTurns: trial % 4, dx: Int.random(in: -4...4, using: &rng), dy: Int.random(in: -4...4, using: &rng),
                                          fill: 0xFF65_4321, marginX: trial % 5 == 0 ? 2 : 0, marginY: trial % 7 == 0 ? 1 : 0)
            let size = placement.placedSize(width: w, height: h)
            let x0 = Int.random(in: 0..<w, using: &rng), y0 = Int.random(in: 0..<h, using: &rng)
            let rect = IntRect(x0: x0, y0: y0, x1: Int.random(in: (x0 + 1)...w, using: &rng), y1: Int.random(in: (y0 + 1)...h, using: &rng))
            for region in [DamageRegion.full(whole.bounds), DamageRegion([rect], bounds: whole.bounds)] {
                var expected = [UInt32](repeating: 0x7777, count: size.width * size.height)
                var got = expected
                let a = expected.withUnsafeMutableBytes { whole.copy(region, placement: placement, to: $0.baseAddress!, pitch: size.width * 4) }
                let b = got.withUnsafeMutableBytes { picture.copy(region, placement: placement, to: $0.baseAddress!, pitch: size.width * 4) }
                #expect(got == expected, "trial \(trial): \(w)x\(h) cut \(across ? "rows" : "columns") at \(cut), \(placement), \(region.rects)")
                #expect(a == b)
            }
            if trial % 4 == 0 {
                // A 16 bpp panel upright: dithered by where each pixel lands on the screen.
                var expected = [UInt16](repeating: 0x1111, count: w * h), got = expected
                _ = expected.withUnsafeMutableBytes { whole.copyRGB565(.full(whole.bounds), to: $0.baseAddress!, pitch: w * 2) }
                _ = got.withUnsafeMutableBytes { picture.copyRGB565(.full(whole.bounds), to: $0.baseAddress!, pitch: w * 2) }
                #expect(got == expected, "trial \(trial): RGB565")
            }
            #expect(picture.flattened().pixels.count == w * h)
            let flat = picture.flattened()
            #expect((0..<h).allSatisfy { y in (0..<w).allSatisfy { x in flat[x, y] == whole[x, y] } }, "trial \(trial): flattened")
        }
    }
}

/// The backends as one registry: every list of names and every check derives from `Choice`.
@Suite struct BackendRegistryTests {
    @Test("names come from the cases") func namesComeFromTheCases() {
        #expect(DisplayBackends.Choice.names() == "auto, kms, fbdev or headless")
        #expect(DisplayBackends.Choice.names(DisplayBackends.Choice.configurable) == "auto, kms or fbdev")
        #expect(DisplayBackends.Choice.configurable.allSatisfy { $0.isPhysical })
        #expect(!DisplayBackends.Choice.headless.isPhysical)
    }

    @Test("headless opens through the same door as the others, at the mode asked for, and captures its picture")
    func headlessOpensLikeTheOthers() throws {
        let d = try DisplayBackends.open(.headless, mode: ModeRequest(width: 320, height: 200, refreshHz: 30))
        defer { d.shutdown() }
        #expect(d.width == 320 && d.height == 200 && d.refreshHz == 30)
        #expect(!d.needsVirtualTerminal)
        try d.present(PixelBuffer(width: 320, height: 200, fill: 0xFF11_2233), damage: IntRect(x0: 0, y0: 0, x1: 320, y1: 200))
        let path = "/tmp/tickerboard-capture-\(getpid()).png"
        defer { unlink(path) }
        try d.capture(to: path)
        #expect(Glibc.access(path, R_OK) == 0)
        let plain = try DisplayBackends.open(.headless)
        defer { plain.shutdown() }
        #expect(plain.width == 1920 && plain.height == 1080)
    }
}
