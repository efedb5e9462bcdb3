import LinuxIO
import Testing

@testable import Display
@testable import DisplayModel

// The pacing decisions with a manual clock: times are plain nanoseconds handed in by the test.

@Suite struct VblankSequenceTrackerTests {
    @Test("counts gaps but not pauses") func countsGapsButNotPauses() {
        var t = VblankSequenceTracker()
        #expect(t.record(100) == 0)  // the first flip has nothing to compare with
        #expect(t.record(101) == 0)
        #expect(t.record(104) == 2)
        #expect(t.record(110, counting: false) == 0)  // idle before: a pause
        #expect(t.record(112) == 1)
        #expect(t.missed == 3)
        t.reset()
        #expect(t.record(500) == 0)
        #expect(t.missed == 3)
    }
}

@Suite struct FramePacerTests {
    let period: UInt64 = 16_666_666

    @Test("vblank: a frame completes at its flip event, stamped by the driver; skipped vblanks are counted")
    func vblankEvents() {
        var p = FramePacer(refreshHz: 60)
        #expect(p.presented(at: 1_000, flipEvent: true) == .none)
        #expect(!p.canPresent)
        let (first, c1) = p.flipEvent(sequence: 10, nanos: 5_000, now: 6_000)
        #expect(first == .init(vblankNanos: 5_000, sequence: 10))
        #expect(c1 == .none)
        #expect(p.canPresent)
        _ = p.presented(at: 7_000, flipEvent: true)
        let (second, _) = p.flipEvent(sequence: 13, nanos: 9_000, now: 9_500)
        #expect(second?.sequence == 13)
        #expect(p.missedVblanks == 2)
        #expect(p.completed == 2)
        // An event nobody waits for (after a reset) is ignored.
        #expect(p.flipEvent(sequence: 14, nanos: 10_000, now: 10_000).0 == nil)
    }

    @Test("timer: a frame without a flip event completes at the next tick; an idle period stops the timer")
    func timerTicks() {
        var p = FramePacer(refreshHz: 60, source: .timer, timerReason: "test")
        #expect(p.presented(at: 0, flipEvent: false) == .arm(firstNanos: period, periodNanos: period))
        #expect(!p.canPresent)
        let (done, c) = p.timerExpired(1)
        #expect(done == .init(vblankNanos: period, sequence: 1))
        #expect(c == .none)  // stays armed: the next frame usually follows at once
        #expect(p.presented(at: period + 5_000_000, flipEvent: false) == .none)
        // Rendering took longer than a period: two ticks at once, one of them missed.
        let (late, _) = p.timerExpired(2)
        #expect(late == .init(vblankNanos: 3 * period, sequence: 3))
        #expect(p.missedVblanks == 1)
        // A whole period with nothing to show: disarm; the next present re-anchors at its own time.
        #expect(p.timerExpired(1) == (nil, .disarm))
        #expect(p.presented(at: 100 * period, flipEvent: false) == .arm(firstNanos: 101 * period, periodNanos: period))
        #expect(p.timerExpired(1).0 == .init(vblankNanos: 101 * period, sequence: 5))
    }

    @Test("timer with flip events: the frame completes when both the tick and the event have come, in either order")
    func timerAndEvents() {
        var p = FramePacer(refreshHz: 60, source: .timer)
        _ = p.presented(at: 0, flipEvent: true)
        // The event first (bochs flips at once): still waiting for the tick.
        #expect(p.flipEvent(sequence: 0, nanos: 1_000, now: 1_000).0 == nil)
        #expect(!p.canPresent)
        #expect(p.timerExpired(1).0 == .init(vblankNanos: period, sequence: 1))
        // The tick first (a slow flip): the event completes it, stamped with the later time.
        _ = p.presented(at: period + 1, flipEvent: true)
        #expect(p.timerExpired(1).0 == nil)
        #expect(p.flipEvent(sequence: 0, nanos: 2 * period + 500, now: 2 * period + 600).0
                == .init(vblankNanos: 2 * period + 500, sequence: 2))
    }

    @Test("a flip event whose sequence does not advance hands pacing to the timer")
    func noVblankCounter() {
        var p = FramePacer(refreshHz: 50)
        _ = p.presented(at: 0, flipEvent: true)
        let (done, command) = p.flipEvent(sequence: 0, nanos: 100, now: 200)
        #expect(done == nil)
        #expect(command == .arm(firstNanos: 200 + 20_000_000, periodNanos: 20_000_000))
        #expect(p.source == .timer)
        #expect(p.timerReason == "flip events carry no vblank sequence")
        #expect(p.timerExpired(1).0 == .init(vblankNanos: 20_000_200, sequence: 1))
        // Asking for the timer again changes nothing (and is not logged twice).
        let changed = p.useTimer(reason: "again")
        #expect(!changed)
        #expect(p.timerReason == "flip events carry no vblank sequence")
    }

    @Test("a repeated sequence is no vblank either")
    func repeatedSequence() {
        var p = FramePacer(refreshHz: 60)
        _ = p.presented(at: 0, flipEvent: true)
        #expect(p.flipEvent(sequence: 7, nanos: 10, now: 10).0?.sequence == 7)
        _ = p.presented(at: 20, flipEvent: true)
        #expect(p.flipEvent(sequence: 7, nanos: 30, now: 30).0 == nil)
        #expect(p.source == .timer)
    }

    @Test("reset forgets what is in flight and stops an armed timer; a failed timer leaves nothing waiting")
    func resetAndFailure() {
        var p = FramePacer(refreshHz: 60, source: .timer)
        _ = p.presented(at: 0, flipEvent: true)
        #expect(p.reset() == .disarm)
        #expect(p.canPresent)
        #expect(p.reset() == .none)
        _ = p.presented(at: 0, flipEvent: false)
        p.timerFailed()
        #expect(p.canPresent)
        // A new mode: the next arming runs at its rate.
        p.setRefresh(hz: 75)
        #expect(p.presented(at: 0, flipEvent: false) == .arm(firstNanos: 13_333_333, periodNanos: 13_333_333))
    }

    @Test("starts on the timer when forced or without vblank") func startsOnTheTimerWhenForcedOrWithoutVblank() {
        #expect(FramePacer.timerReason(forced: true, vblankCounterWorks: true) == "timer pacing requested")
        #expect(FramePacer.timerReason(forced: false, vblankCounterWorks: false) == "driver has no vblank counter")
        #expect(FramePacer.timerReason(forced: false, vblankCounterWorks: true) == nil)
    }
}


@Suite struct VSyncProbeTests {
    @Test("FBIO_WAITFORVSYNC probe: the median period decides; one long stall does not, an ioctl that returns at once does")
    func median() {
        let p = 1.0 / 60
        #expect(VSyncProbe.periodsMatch([p, p, p, p, p], refreshHz: 60))
        #expect(VSyncProbe.periodsMatch([p, 0.4, p * 1.1, p * 0.95, 0.2], refreshHz: 60))
        #expect(!VSyncProbe.periodsMatch([0.0001, 0.0001, 0.0002, p, 0.0001], refreshHz: 60))
        #expect(!VSyncProbe.periodsMatch([0.1, 0.09, 0.11, p, p], refreshHz: 60))
        #expect(!VSyncProbe.periodsMatch([], refreshHz: 60))
        #expect(!VSyncProbe.periodsMatch([p], refreshHz: 0))
    }
}
