@testable import Commands
import DisplayModel
import Feed
import InputModel
@testable import Kiosk
@testable import KioskCore
import LinuxIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Instants below were computed independently (Python's zoneinfo), not with ExchangeTimeZone.
private let newYork = try! ExchangeTimeZone(identifier: "America/New_York")
private let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin")

private func schedule(_ text: String) -> PowerSchedule {
    let (config, issues) = Config.parse("[power]\nschedule = \(text)", file: "t.conf")
    precondition(issues.isEmpty, "\(issues)")
    return config.schedule
}

@Suite("Appliance: screen power")
struct ApplianceScreenPowerTests {
    let office = schedule("Mon-Fri 07:00-22:00")

    @Test("weekday evening: on until 22:00, then off over a weekend that springs forward (New York, March)")
    func newYorkSpringForward() {
        let power = ScreenPower(schedule: office, timeZone: newYork)
        let friday2100: Double = 1_709_949_600  // Fri 2024-03-08 21:00 EST
        let d = power.decide(at: friday2100, lastActivity: 0)
        #expect(d.isOn && d.reason == .schedule)
        #expect(d.nextChange == 1_709_953_200)  // 22:00 EST
        let off = power.decide(at: 1_709_953_200, lastActivity: 0)
        #expect(!off.isOn && off.reason == .schedule)
        // Monday 07:00 is EDT now: 11:00 UTC, one hour earlier in UTC than the week before.
        #expect(off.nextChange == 1_710_154_800)
        #expect(power.nextScheduleChange(after: 1_710_003_600) == 1_710_154_800)
        #expect(!power.isScheduledOn(at: 1_710_154_799) && power.isScheduledOn(at: 1_710_154_800))
    }

    @Test("New York, November: Monday 07:00 EST after the fall-back weekend")
    func newYorkFallBack() {
        let power = ScreenPower(schedule: office, timeZone: newYork)
        let d = power.decide(at: 1_730_512_800, lastActivity: 0)  // Fri 2024-11-01 22:00 EDT
        #expect(!d.isOn)
        #expect(d.nextChange == 1_730_721_600)  // Mon 2024-11-04 07:00 EST = 12:00 UTC
    }

    @Test("Berlin, both changes: 06:00 local is 04:00 UTC in summer time and 05:00 UTC in winter time")
    func berlinTransitions() {
        let power = ScreenPower(schedule: schedule("Mon-Sun 06:00-23:00"), timeZone: berlin)
        #expect(power.decide(at: 1_711_836_000, lastActivity: 0).nextChange == 1_711_857_600)  // 31 Mar
        #expect(power.decide(at: 1_729_976_400, lastActivity: 0).nextChange == 1_730_005_200)  // 27 Oct
        #expect(power.decide(at: 1_729_976_400 - 1, lastActivity: 0).isOn)
        #expect(!power.decide(at: 1_729_976_400, lastActivity: 0).isOn)
    }

    @Test("a boundary inside the spring-forward gap takes effect when the gap ends")
    func boundaryInGap() {
        // 02:30 does not exist in Berlin on 31 March 2024: clocks go from 02:00 CET to 03:00 CEST.
        let power = ScreenPower(schedule: schedule("Sun 02:30-05:00"), timeZone: berlin)
        #expect(power.nextScheduleChange(after: 1_711_836_000) == 1_711_846_800)  // 01:00 UTC
        #expect(power.scheduleChanges(from: 1_711_836_000, through: 1_711_836_000 + 86_400)
                == [1_711_846_800, 1_711_854_000] as [Int64])  // on at 03:00 CEST, off at 05:00 CEST
    }

    @Test("inside the repeated hour the wall clock repeats, and so does the schedule")
    func repeatedHour() {
        // New York, 3 Nov 2024: 01:00-02:00 happens twice (EDT, then EST).
        let power = ScreenPower(schedule: schedule("Sun 01:30-03:00"), timeZone: newYork)
        let saturdayNoon: Int64 = 1_730_563_200
        #expect(power.scheduleChanges(from: saturdayNoon, through: saturdayNoon + 86_400)
                == [1_730_611_800, 1_730_613_600, 1_730_615_400, 1_730_620_800])
    }

    @Test("a schedule past midnight stays on across the day change and the weekday is the one it started on")
    func pastMidnight() {
        let power = ScreenPower(schedule: schedule("Fri 18:00-02:00"), timeZone: newYork)
        let friday2100: Double = 1_709_949_600
        let d = power.decide(at: friday2100, lastActivity: 0)
        #expect(d.isOn)
        #expect(d.nextChange == friday2100 + 5 * 3600)  // Sat 02:00 EST
        // Saturday evening is not on (only Friday was named).
        #expect(!power.isScheduledOn(at: Int64(friday2100) + 24 * 3600))
        #expect(power.nextScheduleChange(after: Int64(friday2100) + 5 * 3600) == Int64(friday2100) + 7 * 86_400 - 4 * 3600)  // Fri 18:00 EDT
    }

    @Test("always on without idle timeout: on, and nothing to wake up for")
    func alwaysOn() {
        let d = ScreenPower(schedule: .always, timeZone: .utc).decide(at: 1e9, lastActivity: 0)
        #expect(d == ScreenPower.Decision(isOn: true, reason: .schedule, nextChange: nil))
    }

    @Test("idle timeout: blank after the timeout, a touch wakes, the timer is the exact instant")
    func idle() {
        let power = ScreenPower(schedule: .always, timeZone: .utc, blankAfterIdleSeconds: 600)
        #expect(power.decide(at: 1200, lastActivity: 1000) == .init(isOn: true, reason: .schedule, nextChange: 1600))
        #expect(power.decide(at: 1600, lastActivity: 1000) == .init(isOn: false, reason: .idle, nextChange: nil))
        #expect(power.decide(at: 1700, lastActivity: 1700) == .init(isOn: true, reason: .schedule, nextChange: 2300))
    }

    @Test("idle timeout with a schedule: each on-period lights the screen at its start, then idles out")
    func idleWithSchedule() {
        let power = ScreenPower(schedule: office, timeZone: newYork, blankAfterIdleSeconds: 600)
        let mondayMorning: Double = 1_710_154_800  // Mon 2024-03-11 07:00 EDT
        let lastTouch = mondayMorning - 10 * 3600  // Sunday evening
        let early = power.decide(at: mondayMorning + 300, lastActivity: lastTouch)
        #expect(early == .init(isOn: true, reason: .schedule, nextChange: mondayMorning + 600))
        let idle = power.decide(at: mondayMorning + 900, lastActivity: lastTouch)
        #expect(!idle.isOn && idle.reason == .idle)
        #expect(idle.nextChange == mondayMorning + 86_400)  // Tuesday 07:00: no wakeup at 22:00 (off stays off)
    }

    @Test("outside the schedule a touch lights the screen for a while")
    func touchOutsideSchedule() {
        let saturdayNoon: Double = 1_710_003_600
        let withIdle = ScreenPower(schedule: office, timeZone: newYork, blankAfterIdleSeconds: 300)
        #expect(withIdle.decide(at: saturdayNoon + 10, lastActivity: saturdayNoon)
                == .init(isOn: true, reason: .touched, nextChange: saturdayNoon + 300))
        let noIdle = ScreenPower(schedule: office, timeZone: newYork)
        #expect(noIdle.decide(at: saturdayNoon + 10, lastActivity: saturdayNoon).nextChange == saturdayNoon + 120)
        let later = noIdle.decide(at: saturdayNoon + 120, lastActivity: saturdayNoon)
        #expect(!later.isOn && later.nextChange == 1_710_154_800)
    }

    @Test("never on: off, nothing scheduled, a touch still wakes")
    func neverOn() {
        var never = PowerSchedule()
        never.onMinutes = Array(repeating: [], count: 7)
        let power = ScreenPower(schedule: never, timeZone: .utc)
        #expect(power.decide(at: 10_000, lastActivity: 0) == .init(isOn: false, reason: .schedule, nextChange: nil))
        #expect(power.decide(at: 10_000, lastActivity: 9_990).isOn)
    }

    @Test("the system zone comes from $TZ or /etc/localtime")
    func systemZone() {
        setenv("TZ", "Europe/Berlin", 1)
        #expect(ScreenPower.systemTimeZone().identifier == "Europe/Berlin")
        unsetenv("TZ")
        let zone = ScreenPower.systemTimeZone(localtimePath: "/usr/share/zoneinfo/America/New_York")
        #expect(zone.utcOffset(atUnixTime: 1_709_949_600) == -5 * 3600)
        #expect(ScreenPower.systemTimeZone(localtimePath: "/nonexistent").identifier == "UTC")
    }
}

@Suite("Appliance: burn-in shift")
struct ApplianceBurnInTests {
    @Test("the orbit visits every offset within ±shift, one pixel per step, and closes", arguments: [1, 2, 3, 8])
    func orbit(shift: Int) {
        let b = BurnInShift(shift: shift, periodSeconds: 180)
        let side = 2 * shift + 1
        #expect(b.cycleLength == 2 * (side * side - 1))
        var seen = Set<BurnInShift.Offset>()
        for i in 0...b.cycleLength {
            let a = b.offset(step: i), c = b.offset(step: i + 1)
            #expect(abs(a.dx) <= shift && abs(a.dy) <= shift)
            #expect(abs(a.dx - c.dx) + abs(a.dy - c.dy) == 1, "step \(i): \(a) -> \(c)")
            seen.insert(a)
        }
        #expect(seen.count == side * side)
        #expect(b.offset(step: 0) == .zero && b.offset(step: b.cycleLength) == .zero)
    }

    @Test("it changes only at multiples of the period and says when")
    func timing() {
        let b = BurnInShift(shift: 2, periodSeconds: 180)
        #expect(b.offset(at: 0) == .zero)
        #expect(b.offset(at: 179.9) == .zero)
        #expect(b.offset(at: 180) == .init(dx: 1, dy: 0))
        #expect(b.nextChange(after: 100) == 180)
        #expect(b.nextChange(after: 180) == 360)
        // A wall-clock-sized time works and stays within bounds.
        let t = 1_780_000_000.5
        let o = b.offset(at: t)
        #expect(abs(o.dx) <= 2 && abs(o.dy) <= 2)
        let n = b.nextChange(after: t)!
        #expect(n > t && n - t <= 180)
        let before = b.offset(at: n - 0.001), after = b.offset(at: n)
        #expect(abs(before.dx - after.dx) + abs(before.dy - after.dy) == 1)
    }

    @Test("shift 0 is off: no offset and no timer")
    func off() {
        let b = BurnInShift(shift: 0, periodSeconds: 180)
        #expect(b.offset(at: 12_345) == .zero)
        #expect(b.nextChange(after: 0) == nil)
        #expect(BurnInShift(config: Config()).shift == 2)
    }
}

@Suite("Appliance: staleness")
struct ApplianceStalenessTests {
    @Test("a daily bar ages from the end of its day in the exchange's zone")
    func daily() {
        let friday = CivilDate(year: 2024, month: 3, day: 8)!.unixTimeAtMidnightUTC
        let mondayNoon: Int64 = 1_710_172_800  // Mon 2024-03-11 12:00 EDT
        let fresh = Staleness(newestBarTime: friday, interval: .daily, now: mondayNoon, staleAfterSeconds: 3 * 86_400,
                              timeZone: newYork)
        #expect(fresh == Staleness(isStale: false, text: "updated 8 Mar 2024"))
        // Friday ended at Sat 00:00 EST (05:00 UTC); three days later is Tue 05:00 UTC.
        let saturday = newYork.startOfDay(CivilDate(year: 2024, month: 3, day: 9)!)
        #expect(!Staleness(newestBarTime: friday, interval: .daily, now: saturday + 3 * 86_400,
                           staleAfterSeconds: 3 * 86_400, timeZone: newYork).isStale)
        #expect(Staleness(newestBarTime: friday, interval: .daily, now: saturday + 3 * 86_400 + 1,
                          staleAfterSeconds: 3 * 86_400, timeZone: newYork).isStale)
    }

    @Test("an intraday bar shows its local time and zone")
    func intraday() {
        let bar: Int64 = 1_709_931_540  // 2024-03-08 15:59 EST
        let s = Staleness(newestBarTime: bar, interval: .intraday(seconds: 60), now: bar + 3600,
                          staleAfterSeconds: 1800, timeZone: newYork)
        #expect(s == Staleness(isStale: true, text: "updated 8 Mar 15:59 EST"))
        #expect(!Staleness(newestBarTime: bar, interval: .intraday(seconds: 60), now: bar + 1800,
                           staleAfterSeconds: 1800, timeZone: newYork).isStale)
    }
}

// MARK: - Live data

/// A CSV of `rows` daily bars from 2024-01-01, closes 100, 101, ...
private func dailyCSV(rows: Int, start: Int = 0) -> String {
    var text = "Date,Open,High,Low,Close,Adj Close,Volume\n"
    let first = CivilDate(year: 2024, month: 1, day: 1)!
    for i in start..<(start + rows) {
        let p = 100 + Double(i)
        text += "\(first.adding(days: i)),\(p),\(p + 1),\(p - 1),\(p),\(p),1000\n"
    }
    return text
}

private func write(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0)
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

private func appendText(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    precondition(fd >= 0)
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// A temporary data directory, a LiveData on it with a manual clock, and what it reported.
private final class LiveFixture {
    let directory: String
    let path: String
    var now: UInt64 = 1_000_000_000
    var updates: [LiveData.Update] = []
    var logs: [String] = []
    var live: LiveData!

    init(rows: Int = 20) throws {
        var template = Array("/tmp/tb-live-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        directory = String(cString: dir!)
        path = directory + "/AAA.csv"
        write(path, dailyCSV(rows: rows))
        live = try LiveData(sources: [LiveData.Source(instrumentID: "AAA", slot: .daily, path: path)],
                            debounce: .milliseconds(300), maxDelay: .seconds(2), confirmShrinkAfter: .seconds(60),
                            clock: { [unowned self] in now }, log: { [unowned self] in logs.append($0) },
                            onUpdate: { [unowned self] in updates.append($0) })
    }

    deinit {
        for name in ["AAA.csv", ".AAA.csv.tmp", "other.csv"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    /// Waits (up to a second) for the kernel to report the change, then handles it.
    func settle() {
        var p = pollfd(fd: live.pollDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, 1000)
        // Inotify events of one write arrive together; give a rename's second half a moment.
        usleep(20_000)
        live.handleReadable()
    }

    func advance(milliseconds: UInt64) {
        now += milliseconds * 1_000_000
        live.flushDue()
    }
}

@Suite("Appliance: live data", .serialized)
struct ApplianceLiveDataTests {
    @Test("start-up load sets the baseline; an append shows up after the debounce, not before")
    func appendRows() throws {
        let f = try LiveFixture()
        #expect(f.live.loadAll().map(\.series.count) == [20])
        appendText(f.path, "2024-01-21,200,201,199,200,200,1000\n")
        f.settle()
        #expect(f.updates.isEmpty, "debounced: nothing before 300 ms of quiet")
        f.advance(milliseconds: 299)
        #expect(f.updates.isEmpty)
        f.advance(milliseconds: 1)
        #expect(f.updates.count == 1)
        #expect(f.updates.first?.instrumentID == "AAA" && f.updates.first?.slot == .daily)
        #expect(f.updates.first?.series.count == 21)
        #expect(f.updates.first?.series.last?.close == 200)
        #expect(f.live.nextDeadline == nil)
        #expect(f.logs.isEmpty, "\(f.logs)")
    }

    /// A data file that is a link into another directory, and a data directory reached through a
    /// link that a deploy re-points (`data -> release-N`), were not re-read until SIGHUP.
    @Test("a linked data file and a re-pointed data-directory link are followed")
    func symbolicLinksAreFollowed() throws {
        var template = Array("/tmp/tb-links-XXXXXX".utf8CString)
        let root = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        defer {
            for p in ["/data", "/data.new", "/rel1/A.csv", "/rel2/A.csv", "/other/B.csv", "/other/.B.tmp", "/rel1/B.csv"] { unlink(root + p) }
            for d in ["/rel1", "/rel2", "/other"] { rmdir(root + d) }
            rmdir(root)
        }
        for d in ["/rel1", "/rel2", "/other"] { mkdir(root + d, 0o755) }
        write(root + "/rel1/A.csv", dailyCSV(rows: 20))
        write(root + "/other/B.csv", dailyCSV(rows: 20))
        #expect(symlink(root + "/other/B.csv", root + "/rel1/B.csv") == 0)
        #expect(symlink("rel1", root + "/data") == 0)
        var now: UInt64 = 1_000_000_000
        var updates: [LiveData.Update] = []
        let live = try LiveData(sources: [.init(instrumentID: "A", slot: .daily, path: root + "/data/A.csv"),
                                          .init(instrumentID: "B", slot: .daily, path: root + "/data/B.csv")],
                                clock: { now }, log: { _ in }, onUpdate: { updates.append($0) })
        _ = live.loadAll()
        func settle() {
            var p = pollfd(fd: live.pollDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 1000)
            usleep(20_000)
            live.handleReadable()
            now += 3_000_000_000
            live.flushDue()
        }
        // The linked file's target is replaced in its own directory.
        write(root + "/other/.B.tmp", dailyCSV(rows: 22))
        rename(root + "/other/.B.tmp", root + "/other/B.csv")
        settle()
        #expect(updates.map { "\($0.instrumentID) \($0.series.count)" } == ["B 22"])
        // A deploy re-points data -> rel2 (atomically: a new link renamed over the old).
        write(root + "/rel2/A.csv", dailyCSV(rows: 25))
        #expect(symlink("rel2", root + "/data.new") == 0)
        rename(root + "/data.new", root + "/data")
        settle()
        #expect(updates.contains { $0.instrumentID == "A" && $0.series.count == 25 })
        // And the new directory is the one watched now.
        write(root + "/rel2/A.csv", dailyCSV(rows: 26))
        settle()
        #expect(updates.last.map { "\($0.instrumentID) \($0.series.count)" } == "A 26")
    }

    @Test("an atomic replace (write a temporary file, rename it over) is seen through the directory watch")
    func atomicReplace() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        write(f.directory + "/.AAA.csv.tmp", dailyCSV(rows: 25))
        f.settle()
        f.advance(milliseconds: 1000)
        #expect(f.updates.isEmpty, "the temporary file is not a data file")
        rename(f.directory + "/.AAA.csv.tmp", f.path)
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [25])
        // A second replace works too: the watch is on the directory, not the replaced inode.
        write(f.directory + "/.AAA.csv.tmp", dailyCSV(rows: 26))
        rename(f.directory + "/.AAA.csv.tmp", f.path)
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [25, 26])
    }

    @Test("rewriting without pause still updates within maxDelay")
    func maxDelay() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        for i in 0..<8 {
            appendText(f.path, "2024-02-\(10 + i),1,1,1,1,1,1\n")
            f.settle()
            f.advance(milliseconds: 250)  // never 300 ms of quiet
        }
        #expect(f.updates.count >= 1, "2 s after the first event the file is parsed anyway")
    }

    @Test("garbage, an empty file and a deleted file keep the last good series; each problem is logged once")
    func garbage() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        let good = f.live.lastGood[f.path]
        for _ in 0..<3 {
            write(f.path, "<html>502 Bad Gateway</html>\n")
            f.settle()
            f.advance(milliseconds: 300)
        }
        #expect(f.updates.isEmpty)
        #expect(f.live.lastGood[f.path] == good)
        #expect(f.logs.count == 1, "\(f.logs)")
        #expect(f.logs.first?.hasSuffix("keeping the last good data") == true)

        write(f.path, "")
        f.settle()
        f.advance(milliseconds: 300)
        unlink(f.path)
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.isEmpty)
        #expect(f.logs.count == 3, "\(f.logs)")
        #expect(f.logs[1].contains("empty file") && f.logs[2].contains("no such file"))

        write(f.path, dailyCSV(rows: 21))
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [21])
        #expect(f.logs.last == "\(f.path): good again")
    }

    @Test("a file that lost more than half its rows is held back as half-written, then accepted if it stays")
    func halfWritten() throws {
        let f = try LiveFixture(rows: 40)
        _ = f.live.loadAll()
        write(f.path, dailyCSV(rows: 19))  // 19 < 40 / 2
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.isEmpty)
        #expect(f.logs == ["\(f.path): 19 rows, down from 40; looks half-written, keeping the last good data"])
        // The writer finishes: the full file replaces it before the re-check.
        write(f.path, dailyCSV(rows: 41))
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [41])

        // Exactly half is not "more than half lost".
        write(f.path, dailyCSV(rows: 21))
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [41, 21])

        // A deliberate trim: short, and still the same a minute later.
        write(f.path, dailyCSV(rows: 5))
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.count == 2)
        f.advance(milliseconds: 59_000)
        #expect(f.updates.count == 2)
        f.advance(milliseconds: 1_000)
        #expect(f.updates.map(\.series.count) == [41, 21, 5])
    }

    @Test("a truncated last row is skipped and reported once, the rest is shown")
    func truncatedRow() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        write(f.path, dailyCSV(rows: 21) + "2024-01-22,10")
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [21])
        #expect(f.logs.count == 1 && f.logs[0].contains("AAA.csv"), "\(f.logs)")
    }

    @Test("a row being appended (no line end yet) is not a price; once complete it is")
    func halfAppendedRow() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        // "2024-01-22,121.5,121.5,120,12" is a valid row of five fields, with 12 for 121.5 as its close.
        write(f.path, dailyCSV(rows: 21) + "2024-01-22,121.5,121.5,120,12")
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.map(\.series.count) == [21])
        #expect(f.updates.last?.series.last?.close != 12)
        #expect(f.logs.contains { $0.contains("no line end yet") }, "\(f.logs)")
        write(f.path, dailyCSV(rows: 21) + "2024-01-22,121.5,121.5,120,121.5,121.5,1000\n")
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.last?.series.count == 22)
        #expect(f.updates.last?.series.last?.close == 121.5)
    }

    @Test("touching a file without changing it reports nothing")
    func unchanged() throws {
        let f = try LiveFixture()
        _ = f.live.loadAll()
        write(f.path, dailyCSV(rows: 20))
        write(f.directory + "/other.csv", dailyCSV(rows: 3))
        f.settle()
        f.advance(milliseconds: 300)
        #expect(f.updates.isEmpty)
        #expect(f.live.nextDeadline == nil)
    }

    @Test("judge: the rules without a file system")
    func judge() throws {
        let (s10, r10) = try YahooCSV.parse(text: dailyCSV(rows: 10), source: "x.csv")
        let (s4, r4) = try YahooCSV.parse(text: dailyCSV(rows: 4), source: "x.csv")
        let (s5, r5) = try YahooCSV.parse(text: dailyCSV(rows: 5), source: "x.csv")
        #expect(DataSources.judge(.success((s10, r10)), lastGood: nil, path: "x.csv") == .accept(s10))
        #expect(DataSources.judge(.success((s10, r10)), lastGood: s10, path: "x.csv") == .unchanged)
        #expect(DataSources.judge(.success((s5, r5)), lastGood: s10, path: "x.csv") == .accept(s5))
        guard case .suspiciouslyShort(let short, _) = DataSources.judge(.success((s4, r4)), lastGood: s10, path: "x.csv")
        else { Issue.record("4 of 10 rows must be held back"); return }
        #expect(short == s4)
        #expect(DataSources.judge(.failure(.fileNotFound(path: "x.csv")), lastGood: s10, path: "x.csv")
                == .keep("x.csv: no such file; keeping the last good data"))
        #expect(DataSources.judge(.failure(.fileNotFound(path: "x.csv")), lastGood: nil, path: "x.csv")
                == .keep("x.csv: no such file"))
    }

    @Test("a missing data directory is logged, not fatal")
    func missingDirectory() throws {
        var logs: [String] = []
        let live = try LiveData(sources: [.init(instrumentID: "Z", slot: .daily, path: "/nonexistent-tb/Z.csv")],
                                log: { logs.append($0) }, onUpdate: { _ in })
        #expect(logs == ["cannot watch /nonexistent-tb: ENOENT: No such file or directory; its files will not update live"]
                || logs.count == 1)
        #expect(live.loadAll().isEmpty)
        #expect(logs.count == 2)
    }
}
