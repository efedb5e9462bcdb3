import Chart
import Feed
import Kiosk
@testable import KioskCore
import LinuxIO
import TestSupport
import Testing
import Text

/// Issue 52 item 3, the countdown: a de-DE wall on Xetra with `[chart] countdown = on`, on Tuesday
/// 8 December 2026 at 16:48 CET (15:48 UTC, Unix 1796744880 by Python's datetime). Xetra's
/// continuous trading ends at 17:30 (the exchange-calendars oracle, see check-countdown.py): 42
/// minutes, in German "Geöffnet · schließt in 42 Min."; at 07:50 the open at 09:00 is 70 minutes
/// away: "öffnet in 1 Std. 10 Min.". The frame drawn through the daemon's core (what `render
/// --config` runs), golden looked at.
@Suite("The market countdown on screen")
struct CountdownGoldenTests {
    static func config() throws -> String {
        let fixture = TestPaths.repositoryRoot + "/Tests/E2E/fixtures/daemon/TBE2E.csv"
        guard case .success(let csv) = readTextFile(fixture) else { throw CancellationError() }
        return try NumbersOnTheWallTests.setUp("countdown", files: ["A.csv": csv]) { dir in
            "[data]\ndirectory = \(dir)\nstale-after = 36500d\n[instrument A]\nname = Aktie A\ndaily = A.csv\nexchange = XETR\n"
                + "time-zone = Europe/Berlin\ncurrency = EUR\n[chart]\nlocale = de-DE\ncountdown = on\n"
        }
    }

    @Test("closes in 42 min and opens in 1 h 10 min, in German, and the frame", arguments: [("countdown-de-DE-800x480.png", 800, 480),
                                                                                           ("countdown-de-DE-1920x1080.png", 1920, 1080)])
    func golden(name: String, width: Int, height: Int) throws {
        let path = try Self.config()
        var request = StillFrame.Request(configPath: path, now: 1_796_744_880)
        request.show = ShowRequest(range: .oneMonth)
        request.size = (width, height)
        let result = try #require(StillFrame.render(request, fonts: try FontSet.load()))
        #expect(result.status.note?.hasPrefix("Geöffnet · schließt in 42 Min.") == true, "\(result.status.note ?? "nil")")
        // 07:50 CET the same day (06:50 UTC).
        var morning = StillFrame.Request(configPath: path, now: 1_796_744_880 - (8 * 3600 + 58 * 60))
        morning.size = (width, height)
        let early = try #require(StillFrame.render(morning, fonts: try FontSet.load()))
        #expect(early.status.note?.contains("öffnet in 1 Std. 10 Min.") == true, "\(early.status.note ?? "nil")")
        let check = ImageComparison.checkScreen(result.picture, golden: name)
        #expect(check.passed, "\(check.report)")
    }

    @Test("durations: whole minutes rounded up, never 0; hours past 60 minutes (by hand)")
    func durations() {
        #expect(Phrases.english.duration(seconds: 1) == "1 min")
        #expect(Phrases.english.duration(seconds: 2520) == "42 min")
        #expect(Phrases.english.duration(seconds: 2521) == "43 min")
        #expect(Phrases.english.duration(seconds: 3600) == "1 h 0 min")
        #expect(Phrases.english.duration(seconds: 7830) == "2 h 11 min")
        #expect(Phrases.german.duration(seconds: 4200) == "1 Std. 10 Min.")
        // The line changes when the rounded-up minute does: 42 min 0 s left -> at 41 min 0 s left.
        #expect(MarketStatus.nextCountdownChange(to: 10_000, now: 10_000 - 2520) == 10_000 - 2460)
        #expect(MarketStatus.nextCountdownChange(to: 10_000, now: 10_000 - 2521) == 10_000 - 2520)
    }
}
