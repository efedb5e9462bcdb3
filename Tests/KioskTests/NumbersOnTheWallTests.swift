import Chart
import Feed
@testable import Kiosk
@testable import KioskCore
import LinuxIO
import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// Issue 48: the numbers the wall shows for files people really have, through the daemon's own
/// core (`StillFrame`, what `render --config` runs). Each expectation is computed by hand in its
/// comment, never by running our code.
@Suite("Numbers on the wall")
struct NumbersOnTheWallTests {
    /// Writes `files` and a config into a fresh directory; returns the config's path.
    static func setUp(_ tag: String, files: [String: String], config: (String) -> String) throws -> String {
        let dir = TestPaths.temporary("numbers-\(tag)")
        mkdir(dir, 0o755)
        for (name, text) in files { try AtomicFile.write(Array(text.utf8), to: dir + "/" + name) }
        try AtomicFile.write(Array(config(dir).utf8), to: dir + "/t.conf")
        return dir + "/t.conf"
    }

    static func status(_ path: String, now: Int64, range: ChartRange) throws -> KioskStatus {
        var request = StillFrame.Request(configPath: path, now: Double(now))
        request.show = ShowRequest(range: range)
        request.size = (640, 360)
        return try #require(StillFrame.render(request, fonts: try FontSet.load())).status
    }

    /// The issue's repro: hourly bars 09:30-17:30 written without an offset, Berlin wall clock,
    /// 2 Aug (Fri) at 4700 + hour and 5 Aug (Mon) at 4600 + hour. By hand: the previous close is
    /// Friday's 17:30 bar, 4717; the last price Monday's 17:30 bar, 4617; change -100.00, -2.12 %
    /// (100 / 4717 = 2.1200 %); "as of 17:30 CEST". (Read as UTC they were 4715, -98, 19:30.)
    @Test("offset-less intraday times are the exchange's wall clock: Friday's 17:30 close is the baseline, as of 17:30 CEST")
    func offsetlessTimesAreExchangeTime() throws {
        var rows = "Datetime,Open,High,Low,Close,Adj Close,Volume\n"
        for (day, base) in [("2024-08-02", 4700), ("2024-08-05", 4600)] {
            for h in 9...17 { rows += "\(day) \(h < 10 ? "0" : "")\(h):30:00,\(base + h),\(base + h),\(base + h),\(base + h),\(base + h),0\n" }
        }
        let path = try Self.setUp("naive", files: ["naive.csv": rows]) { dir in
            "[data]\ndirectory = \(dir)\n[instrument SX5E]\nintraday = naive.csv\ntime-zone = Europe/Berlin\ncurrency = none\n"
        }
        // 2024-08-05 18:00 CEST = 16:00 UTC = 1722873600 (Python: datetime(2024,8,5,16,0,tzinfo=timezone.utc)).
        let s = try Self.status(path, now: 1_722_873_600, range: .oneDay)
        #expect(s.baseline == 4717)
        #expect(s.price == 4617)
        #expect(s.changeText?.contains("100.00") == true && s.changeText?.contains("2.12%") == true, "\(s.changeText ?? "nil")")
        #expect(s.note?.contains("17:30 CEST") == true, "\(s.note ?? "nil")")
        #expect(s.intradayTimesZone == "Europe/Berlin")
        #expect(s.keyValueLines(only: KioskStatus.pictureKeys).contains("intraday_times_zone=Europe/Berlin\n"))
        // check-config says which zone it assumed, at the intraday line.
        let (config, _) = Config.load(path: path)
        let said = DataCheck.findings(in: config, file: path).map(\.text)
        #expect(said.contains { $0.contains("t.conf:4: intraday:") && $0.contains("no UTC offset") && $0.contains("Europe/Berlin") }, "\(said)")
    }
}
