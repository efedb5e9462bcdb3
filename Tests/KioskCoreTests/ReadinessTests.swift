// Readiness and the watchdog driven alone: start, announcements and times in, READY=1 and
// watchdog pings out. Every expected value is worked out by hand from the rules in the comments,
// never read back from the code.
@testable import KioskCore
import Testing

@Suite struct ReadinessTests {
    @Test("before start: no deadline, no start time, not ready, and a timer does nothing")
    func unstarted() {
        var r = Readiness(watchdogInterval: 15)
        #expect(r.state == .unstarted)
        #expect(r.nextDeadline == nil && r.startedAt == nil && !r.isReady)
        #expect(r.timer(at: 1_000_000) == nil)
        #expect(r.state == .unstarted)
    }

    @Test("interval 15 s, started at 1000 s: the first ping is due at 1015 s, not before")
    func firstPing() {
        var r = Readiness(watchdogInterval: 15)
        r.start(at: 1000)
        #expect(r.state == .starting(since: 1000, watchdogDue: 1015))
        #expect(r.startedAt == 1000 && r.nextDeadline == 1015 && !r.isReady)
        #expect(r.timer(at: 1014.5) == nil)
        #expect(r.nextDeadline == 1015)
        // 1015 ≤ 1015: due; the next one 1015 + 15 = 1030 s. Pings go out before READY=1 too.
        #expect(r.timer(at: 1015) == .pingWatchdog)
        #expect(r.nextDeadline == 1030)
        #expect(!r.isReady)
    }

    @Test("a late wake-up pings once, and the next interval runs from it: woken at 1040 s, next at 1055 s")
    func latePing() {
        // Due at 1015 s, but the loop only looks at 1040 s (25 s late, more than an interval):
        // one ping, and 1040 + 15 = 1055 s, not 1030 or 1045 s.
        var r = Readiness(watchdogInterval: 15)
        r.start(at: 1000)
        #expect(r.timer(at: 1040) == .pingWatchdog)
        #expect(r.nextDeadline == 1055)
        #expect(r.timer(at: 1040) == nil)
    }

    @Test("READY=1 goes out once, with the first status; the watchdog and the start time carry on")
    func readyOnce() {
        var r = Readiness(watchdogInterval: 15)
        r.start(at: 1000)
        #expect(r.reached("showing the chart") == .notifyReady(status: "showing the chart"))
        #expect(r.isReady)
        #expect(r.state == .ready(since: 1000, watchdogDue: 1015))
        // Later states worth announcing (screen off, no output) are not announced again.
        #expect(r.reached("screen off (power)") == nil)
        #expect(r.reached("waiting for an output") == nil)
        #expect(r.startedAt == 1000)
        // The watchdog keeps its rhythm once ready: due 1015, then 1015 + 15 = 1030 s.
        #expect(r.timer(at: 1015) == .pingWatchdog)
        #expect(r.state == .ready(since: 1000, watchdogDue: 1030))
    }

    @Test("without a watchdog (none, zero, negative, infinite, NaN) there is no deadline and no ping")
    func noWatchdog() {
        for interval: Double? in [nil, 0, -15, .infinity, .nan] {
            var r = Readiness(watchdogInterval: interval)
            #expect(r.watchdogInterval == nil)
            r.start(at: 5)
            // Started: the start time is kept for the burn-in and idle clocks, but nothing wakes.
            #expect(r.startedAt == 5 && r.nextDeadline == nil)
            #expect(r.timer(at: 1e9) == nil)
            #expect(r.reached("no display; waiting for one") == .notifyReady(status: "no display; waiting for one"))
            #expect(r.nextDeadline == nil)
        }
    }

    @Test("READY=1 before start goes out; start then sets the start time and arms the watchdog")
    func readyBeforeStart() {
        // Interval 10 s. Ready first (no start time, nothing armed); start at 20 s: since 20 s,
        // first ping due 20 + 10 = 30 s; still ready, and not announced again.
        var r = Readiness(watchdogInterval: 10)
        #expect(r.reached("no display; waiting for one") == .notifyReady(status: "no display; waiting for one"))
        #expect(r.state == .ready(since: nil, watchdogDue: nil))
        #expect(r.startedAt == nil && r.nextDeadline == nil)
        r.start(at: 20)
        #expect(r.state == .ready(since: 20, watchdogDue: 30))
        #expect(r.reached("showing the chart") == nil)
    }

    @Test("a second start restarts the start time and the watchdog's interval, and keeps readiness")
    func secondStart() {
        // Interval 10 s: started at 0 s, pinged at 10 s (next 20 s); started again at 12 s: since
        // 12 s, next ping 12 + 10 = 22 s.
        var r = Readiness(watchdogInterval: 10)
        r.start(at: 0)
        #expect(r.timer(at: 10) == .pingWatchdog)
        #expect(r.nextDeadline == 20)
        r.start(at: 12)
        #expect(r.state == .starting(since: 12, watchdogDue: 22))
        _ = r.reached("showing the chart")
        r.start(at: 30)
        #expect(r.state == .ready(since: 30, watchdogDue: 40))
    }
}
