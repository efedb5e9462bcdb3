import Chart
import Commands
import Display
import DisplayModel
import Feed
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// `render --scene watchlist` with several `--data` files, against golden images that were
/// looked at: 1, 4 and 12 instruments in landscape, 6 in portrait.
@Suite("Watchlist on screen")
struct WatchlistGoldenTests {
    static let symbols = ["ALFA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT", "GOLF", "HOTEL", "INDIA", "JULIETT",
                          "KILO", "LIMA"]

    /// Twelve different daily series from the sample market, the same on every machine: each is
    /// the sample's prices shifted along its dates, scaled, and every other one mirrored (falling).
    /// The files are named by symbol (the tile shows the file's name) in a fresh directory.
    /// `tag` keeps the directories of tests running side by side apart.
    static func writeInstruments(count: Int, tag: String = "") throws -> [String] {
        let dir = TestPaths.temporary("watchlist-\(count)\(tag)")
        mkdir(dir, 0o700)
        let bars = SampleMarket.daily().bars
        var paths: [String] = []
        for i in 0..<count {
            let shift = 9 * i, scale = [1.0, 3.2, 0.4, 12.5, 1.7, 0.08][i % 6]
            let values = bars.map(\.close)
            let mirror = (values.max() ?? 0) + (values.min() ?? 0)
            var csv = "Date,Open,High,Low,Close,Adj Close,Volume\n"
            for j in 0..<(bars.count - shift) {
                let raw = i % 2 == 1 ? mirror - values[j] : values[j]
                let v = raw * scale
                let d = CivilDate(unixTime: bars[j + shift].time)
                func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
                csv += "\(d.year)-\(two(d.month))-\(two(d.day)),\(v),\(v),\(v),\(v),\(v),1000\n"
            }
            let path = dir + "/\(symbols[i]).csv"
            guard let f = fopen(path, "w") else { Issue.record("cannot write \(path)"); continue }
            fputs(csv, f)
            fclose(f)
            paths.append(path)
        }
        return paths
    }

    @Test("render --scene watchlist matches the golden image", arguments: [
        ("watchlist-1-landscape", 1, "960x540"), ("watchlist-4-landscape", 4, "960x540"),
        ("watchlist-12-landscape", 12, "960x540"), ("watchlist-6-portrait", 6, "540x960"),
    ])
    func golden(name: String, count: Int, size: String) throws {
        let paths = try Self.writeInstruments(count: count)
        defer { for p in paths { unlink(p) }; rmdir(TestPaths.temporary("watchlist-\(count)")) }
        let data = paths.flatMap { ["--data", $0] }
        let frame = try renderedFrame(["render", "--scene", "watchlist", "--size", size, "--range", "6M"] + data, tag: name)
        let result = ImageComparison.checkScreen(frame, golden: "\(name).png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("the market marks (shape and word), a stale tile and a waiting one match the golden image")
    func marksGolden() throws {
        let paths = try Self.writeInstruments(count: 6, tag: "-marks")
        defer { for p in paths { unlink(p) }; rmdir(TestPaths.temporary("watchlist-6-marks")) }
        let zone = SampleMarket.timeZone
        let states: [MarketStatus.State?] = [.open, .preMarket, .afterHours, .closed, .lunchBreak, nil]
        var entries: [WatchlistEntry] = []
        for (i, path) in paths.enumerated() {
            let one = try Instrument.load(csv: path, timeZone: zone, warn: { _ in })
            entries.append(WatchlistEntry(instrument: one, isStale: i == 4, placeholder: i == 5 ? "waiting for data: FOXTROT.csv" : nil,
                                          market: states[i]))
        }
        let board = WatchlistScene(entries: entries, width: 960, height: 540, fonts: try FontSet.load(), range: .sixMonths)
        #expect(board.tileContents.map(\.mark?.word) == ["Open", "Pre", "After", "Closed", "Lunch", nil])
        let result = ImageComparison.checkScreen(SceneRenderer().render(board).buffer, golden: "watchlist-marks.png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("render --scene watchlist --now gives each tile the market mark of that moment")
    func renderNow() throws {
        let paths = try Self.writeInstruments(count: 1, tag: "-now")
        defer { for p in paths { unlink(p) }; rmdir(TestPaths.temporary("watchlist-1-now")) }
        let plain = TestPaths.temporary("wl-plain.png"), marked = TestPaths.temporary("wl-now.png")
        defer { unlink(plain); unlink(marked) }
        let base = ["render", "--scene", "watchlist", "--size", "480x270", "--data", paths[0]]
        #expect(Tickerboard.main(base + ["--output", plain]) == 0)
        #expect(Tickerboard.main(base + ["--now", "2026-11-30T10:00", "--output", marked]) == 0)
        #expect(try PNG.read(plain).pixels != PNG.read(marked).pixels)
        #expect(Tickerboard.main(base + ["--now", "yesterday", "--output", marked]) != 0)
    }

    @Test("several --data files are a usage error outside the watchlist, and so are more than twelve")
    func dataCount() throws {
        let paths = try Self.writeInstruments(count: 2)
        defer { for p in paths { unlink(p) }; rmdir(TestPaths.temporary("watchlist-2")) }
        #expect(Tickerboard.main(["render", "--values", "--data", paths[0], "--data", paths[1]]) != 0)
        let thirteen = Array(repeating: ["--data", paths[0]], count: 13).flatMap { $0 }
        #expect(Tickerboard.main(["render", "--scene", "watchlist", "--output", "/dev/null"] + thirteen) != 0)
        #expect(Tickerboard.main(["render", "--scene", "watchlist", "--output", "/dev/null", "--data", "/nonexistent.csv"]) != 0)
    }
}
