// The status file's schedule driven alone: times and looks in, writes and deadlines out. Every
// expected value is worked out by hand from the rules in the comments, never read back from the
// code. Times are sums of powers of two, so the arithmetic is exact.
@testable import KioskCore
import Testing
import StatusModel

@Suite struct StatusScheduleTests {
    /// A status saying `price`, at wall time `time` (which the comparison leaves out).
    static func status(_ price: Double, time: Double = 1_796_000_000) -> KioskStatus {
        var s = KioskStatus()
        s.price = price
        s.time = time
        return s
    }

    /// What the schedule remembers of `status(price)`: its time left out.
    static func said(_ price: Double) -> KioskStatus {
        var s = status(price)
        s.time = 0
        return s
    }

    /// Looks at `t` and counts the statuses built for it in `builds`.
    static func look(_ schedule: inout StatusSchedule, at t: Double, _ status: KioskStatus, framePending: Bool = false,
                     builds: inout Int) -> StatusSchedule.Action {
        schedule.look(at: t, framePending: framePending) {
            builds += 1
            return status
        }
    }

    @Test("the first look writes whatever it finds; the minute's rewrite is due 60 intervals later")
    func firstLookWrites() {
        // Interval 2 s, first look at 10 s: written at once, rewrite due at 10 + 60 × 2 = 130 s.
        var s = StatusSchedule(interval: 2)
        #expect(s.nextDeadline == nil)
        var builds = 0
        #expect(Self.look(&s, at: 10, Self.status(1), builds: &builds) == .write(Self.status(1)))
        #expect(builds == 1)
        #expect(s.nextDeadline == 130)
        #expect(s.state == .written(at: 10, said: Self.said(1), windowEnd: .quiet, refresh: .due(130)))
    }

    @Test("interval 2 s: a change at 0.5 s after a write at 0 s builds nothing and waits until 2.0 s")
    func changeInsideTheWindowWaitsForItsEnd() {
        var s = StatusSchedule(interval: 2)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        // 0.5 − 0 < 2: inside the window, so the status is not even built; its end (0 + 2) is a deadline.
        #expect(Self.look(&s, at: 0.5, Self.status(2), builds: &builds) == .wait(until: 2))
        #expect(builds == 1)
        #expect(s.nextDeadline == 2)
        // A second event in the same window changes nothing: still one look at 2 s.
        #expect(Self.look(&s, at: 1.5, Self.status(3), builds: &builds) == .wait(until: 2))
        #expect(builds == 1)
        // At 2 s (2 − 0 = 2, not < 2) the window is over: built, different, written; next rewrite 2 + 120.
        #expect(Self.look(&s, at: 2, Self.status(3), builds: &builds) == .write(Self.status(3)))
        #expect(builds == 2)
        #expect(s.nextDeadline == 122)
    }

    @Test("a quiet window is no deadline: after a write at 0 s the only one is the rewrite at 120 s")
    func quietWindowSetsNoDeadline() {
        // Interval 2 s and no event inside the window: nothing to compare at 2 s.
        var s = StatusSchedule(interval: 2)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        #expect(s.nextDeadline == 120)
    }

    @Test("outside the window an unchanged status writes nothing, and a later wall time alone is no change")
    func unchangedWritesNothing() {
        // Interval 1 s: written at 0 s; at 5 s the same price, its time 5 s later: compared (built
        // once more), equal once the time is left out, so it waits for the rewrite at 0 + 60 = 60 s.
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1, time: 100), builds: &builds)
        #expect(Self.look(&s, at: 5, Self.status(1, time: 105), builds: &builds) == .wait(until: 60))
        #expect(builds == 2)
        #expect(s.nextDeadline == 60)
    }

    @Test("the minute's rewrite: interval 1 s, written at 0 s, the unchanged file is written again at 60 s")
    func minuteRewrite() {
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        // 59.5 s: before the rewrite, unchanged, nothing.
        #expect(Self.look(&s, at: 59.5, Self.status(1), builds: &builds) == .wait(until: 60))
        // 60 s: the rewrite is due (60 ≤ 60), so unchanged is written; the next one at 60 + 60 = 120 s.
        #expect(Self.look(&s, at: 60, Self.status(1), builds: &builds) == .write(Self.status(1)))
        #expect(s.nextDeadline == 120)
    }

    @Test("a frame whose report is pending holds the write; its windows and minutes still pass")
    func framePendingHoldsTheWrite() {
        // Interval 1 s: written at 0 s. A change at 0.5 s waits for the window's end at 1 s.
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        #expect(Self.look(&s, at: 0.5, Self.status(2), builds: &builds) == .wait(until: 1))
        // At 1 s a frame is out: nothing built; the window's end is spent (1 ≤ 1), the rewrite at 60 s is left.
        #expect(Self.look(&s, at: 1, Self.status(2), framePending: true, builds: &builds) == .wait(until: 60))
        #expect(builds == 1)
        // Its report at 1.25 s: outside the window (1.25 − 0 ≥ 1), changed, written; next rewrite 61.25 s.
        #expect(Self.look(&s, at: 1.25, Self.status(2), builds: &builds) == .write(Self.status(2)))
        #expect(s.nextDeadline == 61.25)
    }

    @Test("a frame pending over the minute's mark: the rewrite is wanted, no deadline left, written after the report")
    func framePendingOverTheMinute() {
        // Interval 1 s, written at 0 s, rewrite due at 60 s. At 60.5 s a frame is out: the rewrite
        // is wanted (60 ≤ 60.5) and no deadline remains (the report is an event of its own).
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        #expect(Self.look(&s, at: 60.5, Self.status(1), framePending: true, builds: &builds) == .wait(until: nil))
        #expect(s.nextDeadline == nil)
        // The report at 60.75 s: unchanged but wanted, so written; the next rewrite 60.75 + 60 = 120.75 s.
        #expect(Self.look(&s, at: 60.75, Self.status(1), builds: &builds) == .write(Self.status(1)))
        #expect(s.nextDeadline == 120.75)
    }

    @Test("a wall-clock step writes the unchanged file at the next look outside the window")
    func clockStepWrites() {
        // Interval 1 s, written at 0 s; the clock steps at 10 s: the look at 10 s writes the same
        // price (with its new time); the next rewrite 10 + 60 = 70 s.
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1, time: 100), builds: &builds)
        s.clockStepped()
        #expect(Self.look(&s, at: 10, Self.status(1, time: 5_000), builds: &builds) == .write(Self.status(1, time: 5_000)))
        #expect(s.nextDeadline == 70)
    }

    @Test("a wall-clock step inside the window waits for its end; the minute's deadline stands meanwhile")
    func clockStepInsideTheWindow() {
        // Interval 1 s, written at 0 s (rewrite due 60 s). The step at 0.5 s: a frame is out, so
        // nothing is built and the window is not armed; the rewrite's 60 s stays a deadline.
        var s = StatusSchedule(interval: 1)
        var builds = 0
        _ = Self.look(&s, at: 0, Self.status(1), builds: &builds)
        s.clockStepped()
        #expect(Self.look(&s, at: 0.5, Self.status(1), framePending: true, builds: &builds) == .wait(until: 60))
        #expect(s.state == .written(at: 0, said: Self.said(1), windowEnd: .quiet, refresh: .wanted(due: 60)))
        // The report at 0.75 s: inside the window (0.75 < 1), so the window's end at 1 s is the look.
        #expect(Self.look(&s, at: 0.75, Self.status(1), builds: &builds) == .wait(until: 1))
        #expect(builds == 1)
        // At 1 s: unchanged, but wanted since the step: written; next rewrite 1 + 60 = 61 s.
        #expect(Self.look(&s, at: 1, Self.status(1), builds: &builds) == .write(Self.status(1)))
        #expect(s.nextDeadline == 61)
    }

    @Test("before the first write a clock step changes nothing: the first look writes anyway, once")
    func clockStepBeforeTheFirstWrite() {
        var s = StatusSchedule(interval: 1)
        s.clockStepped()
        #expect(s.state == .unwritten)
        var builds = 0
        #expect(Self.look(&s, at: 3, Self.status(1), builds: &builds) == .write(Self.status(1)))
        // Written at 3 s: the same status at 4 s (outside the 1 s window) is no write.
        #expect(Self.look(&s, at: 4, Self.status(1), builds: &builds) == .wait(until: 63))
    }

    @Test("an interval of zero or less is a millisecond, not a write on every frame")
    func intervalFloor() {
        // max(0.001, 0) and max(0.001, −5) are both 0.001.
        #expect(StatusSchedule(interval: 0).interval == 0.001)
        #expect(StatusSchedule(interval: -5).interval == 0.001)
        #expect(StatusSchedule(interval: 0.25).interval == 0.25)
    }
}
