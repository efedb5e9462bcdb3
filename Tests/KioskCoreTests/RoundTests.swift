// The round driven alone: times, touches, control requests and a glance at the screen in, ranges,
// bars, instruments and the overview out. The tests carry out its actions as the core would, by
// hand; every expected value is worked out from the rules in the comments, never read back from
// running the code.
import Chart
@testable import KioskCore
import Testing

private func settings(cycle: Double = 10, instrument: Double = 30, touchPause: Double = 30,
                      overview: WatchlistMode = .off, ranges: [ChartRange] = [.oneDay, .fiveDays]) -> Round.Settings {
    Round.Settings(cycleSeconds: cycle, instrumentSeconds: instrument, touchPauseSeconds: touchPause, overview: overview,
                   ranges: ranges)
}

/// The screen as the core would describe it: `range` nil for no chart (no display yet).
private func screen(_ range: ChartRange?, bars: Bool = false, ranges: [ChartRange] = [.oneDay, .fiveDays],
                    instruments: Int = 1, overview: Bool = false, scrubbing: Bool = false,
                    placeholder: Bool = false) -> Round.Screen {
    Round.Screen(instruments: instruments, hasOverview: overview,
                 chart: range.map { Round.ChartView(range: $0, ranges: ranges, showsBars: bars, scrubbing: scrubbing,
                                                    placeholder: placeholder) })
}

private func chart(since: Double, _ shown: Set<Round.Stop>, overviewDue: Double? = nil) -> Round.Scene {
    .chart(Round.Progress(since: since, shown: shown), overviewDue: overviewDue)
}

@Suite struct RoundTests {
    @Test("one instrument, 1D 5D 1M every 10 s: 5D, 1M, the bars, then 1D again and a new round; it never moves on")
    func oneInstrument() {
        var r = Round(settings: settings(ranges: [.oneDay, .fiveDays, .oneMonth]))
        let three: [ChartRange] = [.oneDay, .fiveDays, .oneMonth]
        r.arm(at: 0, showing: .oneDay)
        #expect(r.cycleDue == 10 && r.state == .cycling(chart(since: 0, [.range(.oneDay)])))
        // Not due before 10 s: nothing, and the step stays armed.
        #expect(r.timer(at: 9.5, screen: screen(.oneDay, ranges: three)).isEmpty)
        #expect(r.cycleDue == 10)
        #expect(r.timer(at: 10, screen: screen(.oneDay, ranges: three)) == [.select(.fiveDays)])
        #expect(r.cycleDue == 20)
        #expect(r.timer(at: 20, screen: screen(.fiveDays, ranges: three)) == [.select(.oneMonth)])
        // 1M is the last range: the bars follow.
        #expect(r.timer(at: 30, screen: screen(.oneMonth, ranges: three)) == [.showBars])
        #expect(r.scene == chart(since: 0, [.range(.oneDay), .range(.fiveDays), .range(.oneMonth), .bars]))
        // The round is done and 40 s ≥ 30 s have passed, but one instrument has nowhere to go (and no
        // overview): from the bars back to 1D, and the round starts counting again with 1D alone.
        #expect(r.timer(at: 40, screen: screen(.oneMonth, bars: true, ranges: three)) == [.select(.oneDay)])
        #expect(r.scene == chart(since: 0, [.range(.oneDay)]) && r.instrument == 0)
    }

    @Test("three instruments: the next one draws in once the round is done and 30 s are up, on the range it can draw")
    func nextInstrument() {
        var r = Round(settings: settings())
        r.arm(at: 0, showing: .oneDay)
        #expect(r.timer(at: 10, screen: screen(.oneDay, instruments: 3)) == [.select(.fiveDays)])
        #expect(r.timer(at: 20, screen: screen(.fiveDays, instruments: 3)) == [.showBars])
        // 1D, 5D and the bars shown, 30 − 0 ≥ 30 s: instrument 1 from the first range, 1D.
        #expect(r.timer(at: 30, screen: screen(.fiveDays, bars: true, instruments: 3)) == [.step(.oneDay)])
        #expect(r.instrument == 1 && r.scene == chart(since: 30, []))
        // It has no intraday bars, so its chart gave way to 5D: that is what its round has shown.
        r.shown(.fiveDays)
        #expect(r.scene == chart(since: 30, [.range(.fiveDays)]))
    }

    @Test("a round done before instrument-interval (45 s) starts again; the instrument moves at 60 s")
    func roundBeforeInterval() {
        var r = Round(settings: settings(instrument: 45))
        r.arm(at: 0, showing: .oneDay)
        _ = r.timer(at: 10, screen: screen(.oneDay, instruments: 2))
        _ = r.timer(at: 20, screen: screen(.fiveDays, instruments: 2))
        // At 30 s the round is done but 30 < 45 s: from the bars to 1D, a new round of 1D alone.
        #expect(r.timer(at: 30, screen: screen(.fiveDays, bars: true, instruments: 2)) == [.select(.oneDay)])
        #expect(r.scene == chart(since: 0, [.range(.oneDay)]))
        #expect(r.timer(at: 40, screen: screen(.oneDay, instruments: 2)) == [.select(.fiveDays)])
        #expect(r.timer(at: 50, screen: screen(.fiveDays, instruments: 2)) == [.showBars])
        // 60 ≥ 45 s and the round is done again: instrument 1 of 2.
        #expect(r.timer(at: 60, screen: screen(.fiveDays, bars: true, instruments: 2)) == [.step(.oneDay)])
        #expect(r.instrument == 1)
    }

    @Test("a touch at 12 s holds the show for 30 s: the step due at 20 s waits until 42 s")
    func touchHolds() {
        var r = Round(settings: settings())
        r.arm(at: 0, showing: .oneDay)
        _ = r.timer(at: 10, screen: screen(.oneDay))
        r.touched(at: 12)
        // 20 − 12 = 8 s < 30 s: nothing, and the step moves to the pause's end, 12 + 30 = 42 s.
        #expect(r.timer(at: 20, screen: screen(.fiveDays)).isEmpty)
        #expect(r.cycleDue == 42 && r.nextDeadline == 42)
        // 42 − 12 = 30 s, not less than the pause: the show goes on from 5D to the bars.
        #expect(r.timer(at: 42, screen: screen(.fiveDays)) == [.showBars])
        #expect(r.cycleDue == 52)
    }

    @Test("a finger on the chart, a placeholder of the only instrument, or no chart: no step, the next one armed")
    func nothingToStep() {
        var r = Round(settings: settings())
        r.arm(at: 0, showing: .oneDay)
        #expect(r.timer(at: 10, screen: screen(.oneDay, scrubbing: true)).isEmpty)
        #expect(r.cycleDue == 20)
        #expect(r.timer(at: 20, screen: screen(.oneDay, placeholder: true)).isEmpty)
        #expect(r.cycleDue == 30)
        #expect(r.timer(at: 30, screen: screen(nil)).isEmpty)
        #expect(r.cycleDue == 40)
        #expect(r.scene == chart(since: 0, [.range(.oneDay)]))
    }

    @Test("a placeholder among two instruments steps its ranges but shows no bars: from 5D back to 1D")
    func placeholderNoBars() {
        var r = Round(settings: settings(instrument: 100))
        r.arm(at: 0, showing: .fiveDays)
        // 5D is the last range; a placeholder has no bars to show, so (1 + 1) mod 2 = 0: 1D.
        #expect(r.timer(at: 10, screen: screen(.fiveDays, instruments: 2, placeholder: true)) == [.select(.oneDay)])
        #expect(r.scene == chart(since: 0, [.range(.fiveDays), .range(.oneDay)]))
    }

    @Test("ctl pause holds the show with the step still armed; resume goes on from where it stood")
    func pauseResume() {
        var r = Round(settings: settings())
        r.arm(at: 0, showing: .oneDay)
        r.pause()
        #expect(r.isPaused && !r.yieldsToAlert(at: 5))
        #expect(r.timer(at: 10, screen: screen(.oneDay)).isEmpty)
        #expect(r.cycleDue == 20)
        #expect(r.state == .paused(chart(since: 0, [.range(.oneDay)])))
        // Resumed at 13 s: the step armed for 20 s stands.
        r.resume(at: 13)
        #expect(!r.isPaused && r.cycleDue == 20)
        #expect(r.timer(at: 20, screen: screen(.oneDay)) == [.select(.fiveDays)])
    }

    @Test("no cycle-interval: ctl resume makes one step at once, the pause key none")
    func resumeWithoutInterval() {
        var r = Round(settings: settings(cycle: 0))
        r.arm(at: 0, showing: .oneDay)
        #expect(r.cycleDue == nil && r.nextDeadline == nil)
        // The key holds and releases, arming nothing.
        let held = r.togglePause()
        #expect(held && r.isPaused)
        let heldAgain = r.togglePause()
        #expect(!heldAgain && !r.isPaused && r.cycleDue == nil)
        r.pause()
        r.resume(at: 5)
        #expect(r.cycleDue == 5)
        // The step at 5 s, and with a 0 interval none after it.
        #expect(r.timer(at: 5, screen: screen(.oneDay)) == [.select(.fiveDays)])
        #expect(r.cycleDue == nil)
    }

    @Test("watchlist = cycle: after the last instrument the overview for 20 s, then the first instrument again")
    func overviewInTheRound() {
        // One range: its round is done as soon as it has been shown (no bars with fewer than two).
        var r = Round(settings: settings(instrument: 20, overview: .cycle, ranges: [.oneMonth]))
        let one: [ChartRange] = [.oneMonth]
        r.arm(at: 0, showing: .oneMonth)
        // 10 − 0 < 20 s: 1M again (a new round of it).
        #expect(r.timer(at: 10, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)) == [.select(.oneMonth)])
        // 20 s: instrument 0 is not the last (0 ≠ 2 − 1): instrument 1.
        #expect(r.timer(at: 20, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)) == [.step(.oneMonth)])
        r.shown(.oneMonth)
        #expect(r.timer(at: 30, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)) == [.select(.oneMonth)])
        // 40 − 20 = 20 s on instrument 1, the last: the overview.
        #expect(r.timer(at: 40, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)) == [.showOverview])
        #expect(r.showsOverview && r.scene == .overview(since: 40) && r.instrument == 1)
        // 50 − 40 < 20 s: it stays; 60 − 40 = 20 s: instrument 0 on the first range, counted shown.
        #expect(r.timer(at: 50, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)).isEmpty)
        #expect(r.timer(at: 60, screen: screen(.oneMonth, ranges: one, instruments: 2, overview: true)) == [.open(.oneMonth)])
        #expect(r.instrument == 0 && r.scene == chart(since: 60, [.range(.oneMonth)]))
    }

    @Test("watchlist = cycle without an overview to show (no display for it): instrument 1 of 2 goes back to 0")
    func overviewUnavailable() {
        var r = Round(settings: settings(instrument: 20, overview: .cycle, ranges: [.oneMonth]))
        r.arm(at: 0, showing: .oneMonth)
        _ = r.open(instrument: 1, of: 2, range: .oneMonth, at: 0)
        // (1 + 1) mod 2 = 0.
        #expect(r.timer(at: 20, screen: screen(.oneMonth, ranges: [.oneMonth], instruments: 2)) == [.step(.oneMonth)])
        #expect(r.instrument == 0 && !r.showsOverview)
    }

    @Test("watchlist = only: a tapped tile's chart stays until 30 s after the last touch, then the overview")
    func overviewOnly() {
        var r = Round(settings: settings(overview: .only))
        r.enterOverview(at: 0)
        r.arm(at: 0, showing: nil)
        // The overview's own time is not the chart's: arming leaves it, and only sets the step.
        #expect(r.scene == .overview(since: 0) && r.cycleDue == 10)
        r.touched(at: 100)
        // Tile 5 of 3 instruments: 5 mod 3 = 2. Back to the overview at 100 + 30 = 130 s.
        #expect(r.open(instrument: 5, of: 3, range: .fiveDays, at: 100) == .open(.fiveDays))
        #expect(r.instrument == 2 && r.scene == chart(since: 100, [.range(.fiveDays)], overviewDue: 130))
        // A scrub at 120 s: 120 + 30 = 150 s > 130 s, so the return waits until 150 s.
        r.touched(at: 120)
        #expect(r.timer(at: 130, screen: screen(.fiveDays, instruments: 3, overview: true)).isEmpty)
        #expect(r.overviewDue == 150)
        // At 150 s the pause is over (150 is not after 150): the overview, since 150 s.
        #expect(r.timer(at: 150, screen: screen(.fiveDays, instruments: 3, overview: true)) == [.showOverview])
        #expect(r.scene == .overview(since: 150) && r.overviewDue == nil)
    }

    @Test("watchlist = only: the chart a tap opened is not cycled while it waits for the overview")
    func onlyHoldsTheChart() {
        var r = Round(settings: settings(overview: .only))
        r.arm(at: 0, showing: .oneDay)
        // No touch: the overview is due back 30 s after the opening, at 37 s; the step at 10 s finds
        // the chart untouched and does nothing, armed again for 20 s.
        #expect(r.open(instrument: 1, of: 2, range: .oneDay, at: 7) == .open(.oneDay))
        #expect(r.timer(at: 10, screen: screen(.oneDay, instruments: 2, overview: true)).isEmpty)
        #expect(r.cycleDue == 20 && r.scene == chart(since: 7, [.range(.oneDay)], overviewDue: 37))
    }

    @Test("watchlist = only with no overview to show: the return is dropped, the chart stays")
    func overviewOnlyWithout() {
        var r = Round(settings: settings(cycle: 0, overview: .only))
        // No touch yet: the return is due a touch pause from the opening, 7 + 30 = 37 s.
        _ = r.open(instrument: 0, of: 1, range: .oneDay, at: 7)
        #expect(r.overviewDue == 37 && r.nextDeadline == 37)
        #expect(r.timer(at: 37, screen: screen(.oneDay)).isEmpty)
        #expect(r.scene == chart(since: 7, [.range(.oneDay)]) && r.nextDeadline == nil)
    }

    @Test("an alert may take the screen unless the show is held or the screen was touched less than 30 s ago")
    func alerts() {
        var r = Round(settings: settings())
        #expect(r.yieldsToAlert(at: 0))
        r.touched(at: 100)
        // 100 + 30 = 130: still touched at 129.9 s, free at 130 s.
        #expect(!r.yieldsToAlert(at: 129.9) && r.yieldsToAlert(at: 130))
        r.pause()
        #expect(!r.yieldsToAlert(at: 1000))
    }

    @Test("ctl next: the next instrument (3 wraps to 0), or from the overview the first; the step interval restarts")
    func controlNext() {
        var r = Round(settings: settings(overview: .cycle))
        r.arm(at: 0, showing: .oneDay)
        _ = r.open(instrument: 2, of: 3, range: .oneDay, at: 0)
        // (2 + 1) mod 3 = 0; the step is armed at 4 + 10 = 14 s.
        #expect(r.next(at: 4, of: 3, first: .fiveDays) == .step(.oneDay))
        #expect(r.instrument == 0 && r.cycleDue == 14 && r.scene == chart(since: 4, []))
        r.enterOverview(at: 5)
        #expect(r.next(at: 6, of: 3, first: .fiveDays) == .open(.fiveDays))
        #expect(r.instrument == 0 && r.cycleDue == 16 && r.scene == chart(since: 6, [.range(.fiveDays)]))
    }

    @Test("a held show stays held through the overview and back; a range counts only on a chart")
    func heldThroughScenes() {
        var r = Round(settings: settings(overview: .cycle))
        r.pause()
        r.enterOverview(at: 3)
        #expect(r.state == .paused(.overview(since: 3)))
        r.shown(.fiveDays)
        #expect(r.state == .paused(.overview(since: 3)))
        // The overview turned off: the chart it leaves starts afresh (a reload arms it next).
        r.leaveOverview(at: 8)
        #expect(r.state == .paused(chart(since: 8, [])))
        r.leaveOverview(at: 9)
        #expect(r.state == .paused(chart(since: 8, [])))
    }

    @Test("a reload keeps where the show stands and takes the new intervals")
    func reload() {
        var r = Round(settings: settings())
        r.arm(at: 0, showing: .oneDay)
        r.reloaded(instrument: 4)
        r.configure(settings(cycle: 5))
        // The armed step (10 s) stands until the reload arms again: then 20 + 5 = 25 s.
        #expect(r.instrument == 4 && r.cycleDue == 10)
        r.arm(at: 20, showing: .fiveDays)
        #expect(r.cycleDue == 25 && r.scene == chart(since: 20, [.range(.fiveDays)]))
    }
}
