import Chart
@testable import Commands
import Display
import Feed
@testable import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// The ticker tape as `render --config` draws it: goldens of the tape alone and of the band under
/// the chart (looked at), and the crawl between two frames 1/60 s apart measured on the pixels: a
/// shift of exactly speed/60 px inside the band, nothing outside it changed.
@Suite("Tape on screen")
struct TapeGoldenTests {
    /// Four instruments from the sample market, at 2026-11-27 12:00 New York time: ALFA with its
    /// day's minutes (a sparkline, open), BRAVO falling, CHARLIE's data ten days old (stale) and
    /// DELTA on Tokyo's exchange, where it is Saturday (closed).
    static func writeConfig(_ tag: String, position: String, speed: Double = 100, extra: String = "") -> (dir: String, conf: String) {
        let dir = TestPaths.temporary("tape-\(tag)")
        mkdir(dir, 0o700)
        let bars = SampleMarket.daily().bars
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        func daily(_ name: String, scale: Double, mirror: Bool, dropLast: Int) {
            let values = bars.map(\.close)
            let m = (values.max() ?? 0) + (values.min() ?? 0)
            var csv = "Date,Open,High,Low,Close,Adj Close,Volume\n"
            for j in 0..<(bars.count - dropLast) {
                let v = (mirror ? m - values[j] : values[j]) * scale
                let d = CivilDate(unixTime: bars[j].time)
                csv += "\(d.year)-\(two(d.month))-\(two(d.day)),\(v),\(v),\(v),\(v),\(v),1000\n"
            }
            Self.writeFile(dir + "/\(name).csv", csv)
        }
        daily("ALFA", scale: 1, mirror: false, dropLast: 0)
        daily("BRAVO", scale: 3.2, mirror: true, dropLast: 0)
        daily("CHARLIE", scale: 0.4, mirror: false, dropLast: 10)
        daily("DELTA", scale: 12.5, mirror: true, dropLast: 0)
        // ALFA's last session, minute by minute (New York is five hours behind UTC in November).
        let zone = SampleMarket.timeZone
        let minutes = SampleMarket.intraday().bars.filter { zone.localDate(atUnixTime: $0.time) == SampleMarket.lastDate }
        var csv = "Datetime,Open,High,Low,Close\n"
        for bar in minutes {
            let t = zone.localDateTime(atUnixTime: bar.time)
            csv += "\(t.date.year)-\(two(t.date.month))-\(two(t.date.day)) \(two(t.hour)):\(two(t.minute)):00-05:00,"
                + "\(bar.close),\(bar.close),\(bar.close),\(bar.close)\n"
        }
        Self.writeFile(dir + "/ALFA-1m.csv", csv)
        var conf = "[data]\ndirectory = \(dir)\n[tape]\nposition = \(position)\nspeed = \(speed)\n"
        conf += "[instrument ALFA]\ndaily = ALFA.csv\nintraday = ALFA-1m.csv\nexchange = XNYS\n"
        conf += "[instrument BRAVO]\ndaily = BRAVO.csv\nexchange = XNYS\n"
        conf += "[instrument CHARLIE]\ndaily = CHARLIE.csv\nexchange = XNYS\n"
        conf += "[instrument DELTA]\ndaily = DELTA.csv\nexchange = XTKS\ncurrency = JPY\n" + extra
        Self.writeFile(dir + "/t.conf", conf)
        return (dir, dir + "/t.conf")
    }

    static func cleanUp(_ dir: String) {
        for f in ["ALFA.csv", "ALFA-1m.csv", "BRAVO.csv", "CHARLIE.csv", "DELTA.csv", "t.conf"] { unlink(dir + "/" + f) }
        rmdir(dir)
    }

    static let now = "2026-11-27T12:00"

    static func writeFile(_ path: String, _ text: String) {
        guard let f = fopen(path, "w") else { Issue.record("cannot write \(path)"); return }
        fputs(text, f)
        fclose(f)
    }

    static func frame(conf: String, scene: String, at: Double, size: String = "960x540", tag: String) throws -> PixelBuffer {
        try renderedFrame(["render", "--config", conf, "--scene", scene, "--now", now, "--size", size, "--at", "\(at)"], tag: tag)
    }

    @Test("the tape's words: prices, changes, the sparkline's day, stale and closed")
    func words() throws {
        let (dir, conf) = Self.writeConfig("words", position: "bottom")
        defer { Self.cleanUp(dir) }
        let fonts = try FontSet.load()
        var request = StillFrame.Request(configPath: conf, now: 0)
        request.now = Double(RenderCommand.parseNow(Self.now, zone: SampleMarket.timeZone)!)
        request.size = (960, 540)
        let still = try #require(StillFrame.render(request, fonts: fonts))
        let tape = try #require(still.tape)
        #expect(tape.position == .bottom && still.time == 0)
        #expect(tape.items.map(\.name) == ["ALFA", "BRAVO", "CHARLIE", "DELTA"])
        #expect(tape.items[0].sparkline.count > 8 && tape.items[0].note == nil)
        #expect(tape.items[2].note == "stale")
        #expect(tape.items[3].note == "closed" && tape.items[3].price.hasPrefix("¥"))
        #expect(tape.items[1].direction != .flat && tape.items[1].change.contains("%"))
        #expect(still.band == IntRect(x0: 0, y0: 540 - 32, x1: 960, y1: 540))
    }

    @Test("golden: the tape alone and the band under the chart", arguments: [
        ("tape-full-960x540", "full", "tape", 9.5), ("tape-bottom-960x540", "bottom", "line", 4.5),
    ])
    func golden(name: String, position: String, scene: String, at: Double) throws {
        let (dir, conf) = Self.writeConfig(name, position: position)
        defer { Self.cleanUp(dir) }
        let picture = try Self.frame(conf: conf, scene: scene, at: at, tag: name)
        let result = ImageComparison.checkScreen(picture, golden: "\(name).png")
        #expect(result.passed, "\(result.report)")
    }

    /// `render --config --at T` is the daemon's frame at T on its clock: the core runs up to T and the
    /// frame kept is planned for T itself (the tape's crawl is a function of it). A wall that cycles
    /// every 2 s still shows its settled first screen there (the run starts just early enough).
    @Test("render --config --output-section: each [output] section's screen as the daemon drives it")
    func outputSection() throws {
        // Issue 51: render --config drew the first section's screen only. A tape section is the tape
        // alone, as a single screen's `[tape] position = full` is; the first section is what render
        // draws without the option; a name the config lacks is refused.
        let sections = "[output first]\nscene = chart\n[output second]\nscene = tape\n"
        let (dir, conf) = Self.writeConfig("sections", position: "off", extra: sections)
        let (fullDir, full) = Self.writeConfig("sections-full", position: "full")
        defer { Self.cleanUp(dir); Self.cleanUp(fullDir) }
        let common = ["--now", Self.now, "--size", "960x540", "--at", "7.25"]
        let second = try renderedFrame(["render", "--config", conf, "--output-section", "second"] + common, tag: "section-second")
        let tapeAlone = try renderedFrame(["render", "--config", full, "--scene", "tape"] + common, tag: "section-tape-alone")
        #expect(second.pixels == tapeAlone.pixels)
        let first = try renderedFrame(["render", "--config", conf, "--output-section", "first"] + common, tag: "section-first")
        let plain = try renderedFrame(["render", "--config", conf] + common, tag: "section-plain")
        #expect(first.pixels == plain.pixels)
        // Not the same picture: the chart is not the tape alone.
        #expect(first.pixels != second.pixels)
        #expect(Tickerboard.main(["render", "--config", conf, "--output-section", "HDMI-A-9", "--output", TestPaths.temporary("x.png")]) != 0)
    }

    @Test("the frame at --at: planned for that moment, settled, on a cycling wall too", arguments: [0.0, 7.25, 86_400.5])
    func frameAtTheMoment(at: Double) throws {
        let (dir, conf) = Self.writeConfig("moment-\(at)", position: "bottom")
        let (cyclingDir, cycling) = Self.writeConfig("moment-cycling-\(at)", position: "bottom", extra: "[chart]\ncycle-interval = 2s\n")
        defer { Self.cleanUp(dir); Self.cleanUp(cyclingDir) }
        let fonts = try FontSet.load()
        func still(_ path: String, message: String? = nil) throws -> StillFrame.Result {
            var request = StillFrame.Request(configPath: path, now: Double(RenderCommand.parseNow(Self.now, zone: SampleMarket.timeZone)!))
            request.size = (960, 540)
            request.at = at
            request.message = message
            return try #require(StillFrame.render(request, fonts: fonts))
        }
        let plain = try still(conf), cycled = try still(cycling)
        #expect(plain.time == at && cycled.time == at)
        #expect(plain.status.animating == false && cycled.status.animating == false)
        #expect(cycled.picture.pixels == plain.picture.pixels, "the cycling wall's first screen at \(at)")
        // A banner (`ctl message`) changes the picture above the band, not the band.
        let banner = try still(conf, message: "Lobby")
        let band = try #require(banner.band)
        #expect(banner.status.message == "Lobby" && banner.time == at)
        var above = 0, inBand = 0
        for y in 0..<540 {
            for x in 0..<960 where banner.picture[x, y] != plain.picture[x, y] {
                if y >= band.y0 { inBand += 1 } else { above += 1 }
            }
        }
        #expect(above > 960 * 20 && inBand == 0, "\(above) pixels above the band changed, \(inBand) in it")
    }

    /// The sub-pixel shift of `b` against `a` along x inside `rows`, by the ink's centre of mass:
    /// between columns blank in both frames (no ink crosses them), the ink's weighted mean x moves
    /// by exactly the shift — a linear blend of neighbours keeps mass and moves its centre by the
    /// blend's fraction. (A least-squares fit of one frame to the other, interpolated, is biased by
    /// up to 0.09 px when one frame lies on whole pixels and the other between them: the two are
    /// blurred differently.) Returns the mass-weighted mean over the windows.
    static func measuredShift(_ a: PixelBuffer, _ b: PixelBuffer, rows: Range<Int>, background: UInt32) -> Double {
        func ink(_ p: UInt32) -> Double {
            var sum = 0.0
            for shift in [0, 8, 16] as [UInt32] { sum += abs(Double((p >> shift) & 0xFF) - Double((background >> shift) & 0xFF)) }
            return sum
        }
        let w = a.width
        var massA = [Double](repeating: 0, count: w), massB = massA
        for y in rows {
            for x in 0..<w {
                massA[x] += ink(a[x, y])
                massB[x] += ink(b[x, y])
            }
        }
        let blank = (0..<w).map { massA[$0] == 0 && massB[$0] == 0 }
        var total = 0.0, weighted = 0.0
        var x = 0
        // Windows from one run of at least four blank columns to the next.
        func blankRun(at x: Int) -> Bool { x + 4 <= w && (x..<(x + 4)).allSatisfy { blank[$0] } }
        while x < w && !blankRun(at: x) { x += 1 }
        while x < w {
            var start = x
            while start < w && blank[start] { start += 1 }
            var end = start
            while end < w && !blankRun(at: end) { end += 1 }
            guard end < w else { break }
            var ma = 0.0, mb = 0.0, ca = 0.0, cb = 0.0
            for c in start..<end {
                ma += massA[c]; ca += massA[c] * Double(c)
                mb += massB[c]; cb += massB[c] * Double(c)
            }
            if ma > 0, abs(ma - mb) < 0.01 * ma {
                weighted += (ca / ma - cb / mb) * ma
                total += ma
            }
            x = end
            start = x
        }
        return total > 0 ? weighted / total : .nan
    }

    @Test("a frame 1/60 s later: the band moved by speed/60 px, sub-pixel exact; nothing else changed",
          arguments: [("full", "tape", 100.0), ("bottom", "line", 130.0), ("full", "tape", 45.0)])
    func crawlShift(position: String, scene: String, speed: Double) throws {
        let tag = "shift-\(position)-\(Int(speed))"
        let (dir, conf) = Self.writeConfig(tag, position: position, speed: speed)
        defer { Self.cleanUp(dir) }
        let t = 7.25
        let a = try Self.frame(conf: conf, scene: scene, at: t, tag: tag + "-a")
        let b = try Self.frame(conf: conf, scene: scene, at: t + 1.0 / 60, tag: tag + "-b")
        let band = TapeLayout.band(position: TapePosition(rawValue: position)!, width: a.width, height: a.height)
        var outside = 0
        for y in 0..<a.height where !(band.y0..<band.y1).contains(y) {
            for x in 0..<a.width where a[x, y] != b[x, y] { outside += 1 }
        }
        #expect(outside == 0, "\(outside) pixels outside the band changed")
        // The band's background: the pixel at its left edge in a gap is not known, so its most common colour.
        var counts: [UInt32: Int] = [:]
        for x in 0..<a.width { counts[a[x, band.y0 + 1], default: 0] += 1 }
        let background = counts.max { $0.value < $1.value }!.key
        let shift = Self.measuredShift(a, b, rows: band.y0..<band.y1, background: background)
        let expected = speed / 60
        print("tape shift \(position) speed \(speed): measured \(shift) px, expected \(expected) px, error \(abs(shift - expected))")
        #expect(abs(shift - expected) < 0.05, "measured \(shift) px, expected \(expected)")
    }
}
