import Display
import Feed
import Kiosk
import Raster
import TestSupport
import Testing

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
    static func writeInstruments(count: Int) throws -> [String] {
        let dir = TestPaths.temporary("watchlist-\(count)")
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
            let f = fopen(path, "w")
            #expect(f != nil)
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
        let out = TestPaths.temporary("\(name).png")
        defer { unlink(out) }
        let data = paths.flatMap { ["--data", $0] }
        #expect(Tickerboard.main(["render", "--scene", "watchlist", "--size", size, "--range", "6M"] + data + ["--output", out]) == 0)
        let frame = try PNG.read(out)
        let result = ImageComparison.check(frame, againstGolden: TestPaths.golden("\(name).png"),
                                           minimumPSNR: 40, maxFractionOver: 0.002)
        #expect(result.passed, "\(result.report)")
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
