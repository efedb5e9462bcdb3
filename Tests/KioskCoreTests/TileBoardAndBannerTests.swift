// The tiles' board and the banner driven alone: moves, words and times in, orders, revisions,
// deadlines and repaints out. Expected values are worked out by hand from the rules in the
// comments (MoverOrder's minute, the flash's "same name, other price"), never read back.
@testable import KioskCore
import Chart
import Testing

@Suite struct TileBoardTests {
    static func item(_ name: String, _ price: String) -> TapeItem {
        TapeItem(name: name, price: price, change: "+0.00", direction: .flat)
    }

    @Test func wordsAreWorkedOutOnlyWhenTheDataChangedAndEachChangeIsARevision() {
        var board = TileBoard()
        #expect(board.state == .stale)
        // First words: revision 1, no flash (nothing was lit before).
        var w = board.tapeWords(at: 1, fresh: [Self.item("A", "10")])
        #expect(w.items == [Self.item("A", "10")] && w.revision == 1)
        #expect(board.state == .current && board.tapePriceChangedAt == nil)
        // Current: what the core passes is not asked for (nil) and the words stay.
        w = board.tapeWords(at: 2, fresh: nil)
        #expect(w.revision == 1 && w.items.count == 1)
        // The data changed to the same words: no new revision.
        board.dataChanged()
        w = board.tapeWords(at: 3, fresh: [Self.item("A", "10")])
        #expect(w.revision == 1 && board.state == .current)
        // Same name in the same place at another price: revision 2, lit at the frame's time 4.
        board.dataChanged()
        w = board.tapeWords(at: 4, fresh: [Self.item("A", "11")])
        #expect(w.revision == 2 && board.tapePriceChangedAt == 4)
        // Another instrument in that place: a new revision, not a flash (the time stays 4).
        board.dataChanged()
        w = board.tapeWords(at: 5, fresh: [Self.item("B", "12")])
        #expect(w.revision == 3 && board.tapePriceChangedAt == 4)
    }

    @Test func aStandingOrderWaitsItsMinuteAndTheBoardWakesForIt() {
        var board = TileBoard()
        // Moves +1, +3, -2 by move: 1 (+3), 0 (+1), 2 (-2).
        let r1 = board.order(.tiles, sort: .move, moves: [1, 3, -2], now: 100)
        #expect(r1 == [1, 0, 2])
        #expect(board.moversDue == nil)
        board.placeTiles([1, 0, 2])
        #expect(board.tile(at: 0) == 1 && board.position(ofTile: 2) == 2 && board.tile(at: 7) == 7)
        // 30 s later instrument 2 leads: the order stands until 100 + 60 = 160, when the board wakes.
        let r2 = board.order(.tiles, sort: .move, moves: [1, 3, 5], now: 130)
        #expect(r2 == [1, 0, 2])
        #expect(board.moversDue == 160)
        let r3 = board.moversTimer(at: 159)
        #expect(!r3)
        _ = board.tapeWords(at: 159, fresh: [])
        let r4 = board.moversTimer(at: 160)
        #expect(r4)
        // The look makes the tape's words stale and clears the wake-up.
        #expect(board.moversDue == nil && board.state == .stale)
        let r5 = board.order(.tiles, sort: .move, moves: [1, 3, 5], now: 160)
        #expect(r5 == [2, 1, 0])
        // The tape's order is its own: by the size of the move, |-2| before +1.
        let r6 = board.order(.tape, sort: .absMove, moves: [1, nil, -2], now: 160)
        #expect(r6 == [2, 0, 1])
    }

    @Test func aTilesFirstPriceFallsAtOnceAnotherWaitsTheMinute() {
        var board = TileBoard()
        _ = board.order(.tiles, sort: .move, moves: [1, nil], now: 10)
        // Instrument 1 had no move: its first one places it now.
        board.tileMoved(1, move: 2, now: 20)
        #expect(board.moversDue == 20)
        _ = board.moversTimer(at: 20)
        // Instrument 0's move changes: the standing order's minute (10 + 60) decides.
        board.tileMoved(0, move: 4, now: 30)
        #expect(board.moversDue == 70)
    }

    @Test func theTilesLookAtTheClockOnceAMinuteOrWhenAMarketChanges() {
        var board = TileBoard()
        #expect(board.tilesDue(wall: 0))
        board.tilesLooked(at: 1000, nextChange: 1030)
        #expect(!board.tilesDue(wall: 1029))
        #expect(board.tilesDue(wall: 1030))   // the market changes at 1030
        board.tilesLooked(at: 1030, nextChange: nil)
        #expect(!board.tilesDue(wall: 1089) && board.tilesDue(wall: 1090))
        // Laid out, not looked at: the time they looked stays 1030.
        board.tilesLooked(at: nil, nextChange: nil)
        #expect(!board.tilesDue(wall: 1089))
        board.clockStepped()
        #expect(board.tilesDue(wall: 1031))
    }
}

@Suite struct BannerTests {
    @Test func aMessageGoesOverAnAlertAndTheAlertComesBackWhenItsTimeIsUp() {
        var banner = Banner()
        #expect(banner.text == nil && banner.deadline == nil)
        let r7 = banner.alert("⚠ DAX low")
        #expect(r7)
        #expect(banner.text == "⚠ DAX low" && banner.message == nil)
        let r8 = banner.alert("⚠ DAX low")
        #expect(!r8)          // the same words: no repaint
        banner.post("Back at 3", until: 60)
        #expect(banner.text == "Back at 3" && banner.message == "Back at 3" && banner.deadline == 60)
        // The alert ends under the message: a change (the picture repaints), the message stays on top.
        let r9 = banner.alert(nil)
        #expect(r9)
        #expect(banner.text == "Back at 3")
        let r10 = banner.alert("⚠ DAX high")
        #expect(r10)
        let r11 = banner.timer(at: 59.9)
        #expect(!r11)
        let r12 = banner.timer(at: 60)
        #expect(r12)
        #expect(banner.text == "⚠ DAX high" && banner.message == nil && banner.deadline == nil)
        let r13 = banner.clearMessage()
        #expect(!r13)               // nothing to clear: no repaint
    }

    @Test func aTouchscreenMovesTheBandOnlyWhenOneIsShown() {
        var banner = Banner()
        let r14 = banner.touchScreen(true)
        #expect(!r14)            // no band: nothing moves
        #expect(banner.aboveSelector)
        let r15 = banner.touchScreen(true)
        #expect(!r15)            // no change
        banner.post("Hello", until: 10)
        let r16 = banner.touchScreen(false)
        #expect(r16)
        #expect(!banner.aboveSelector)
        let r17 = banner.clearMessage()
        #expect(r17 && banner.state == .none)
    }
}

@Suite struct WakingTouchTests {
    @Test func theContactThatWokeTheScreenIsSwallowedUntilTheNextBegins() {
        var gate = WakingTouch()
        let free = gate.admit(.tap(x: 1, y: 1), woke: false)
        #expect(free)
        // The first event of a contact wakes the screen: it and the rest of the contact do nothing.
        let waking = gate.admit(.scrubBegan(x: 5, y: 5), woke: true)
        let moved = gate.admit(.scrubMoved(x: 6, y: 5), woke: false)
        let ended = gate.admit(.scrubEnded, woke: false)
        let released = gate.admit(.tap(x: 6, y: 5), woke: false)
        #expect(!waking && !moved && !ended && !released && gate.state == .swallowing)
        // The next contact acts from its first event on.
        let next = gate.admit(.scrubBegan(x: 9, y: 9), woke: false)
        let then = gate.admit(.scrubMoved(x: 10, y: 9), woke: false)
        #expect(next && then && gate.state == .open)
    }
}

@Suite struct HeaderNoteTests {
    @Test func theNoteAndTheClockWakeThePowerCheckAtTheEarlierOfTheirChanges() {
        var h = HeaderNote()
        #expect(h.marketNote == nil && !h.isStale && h.due == nil)
        // A note that changes at wall 1,000,060 seen at wall 1,000,000, core 500: 60 s + 1 later.
        var note = MarketNote(calendar: nil, zone: .utc, now: 1_000_000, fetch: nil, newest: nil, staleness: nil)
        note.nextChange = 1_000_060
        h.shown(note, stale: true, mono: 500, wall: 1_000_000)
        #expect(h.due == 561 && h.isStale && h.marketNote == note)
        // The header's clock turns its minute 20 s from now: earlier, it wins (no +1: the minute
        // is shown from its first second).
        h.clock(nextChange: 1_000_020, mono: 500, wall: 1_000_000)
        #expect(h.due == 520 && h.clockNextChange == 1_000_020)
        // A change less than a second away waits a second.
        h.clock(nextChange: 1_000_000, mono: 510, wall: 1_000_000)
        #expect(h.due == 511)
        // The power check looked and sleeps till 600; the clock not set: no note, not stale.
        h.looked(wakeAt: 600)
        h.clockNotSet()
        #expect(h.due == 600 && h.marketNote == nil && !h.isStale && h.state == .clockNotSet)
    }
}

@Suite struct RangeChoiceTests {
    @Test func aRangeTheDataCannotDrawGivesWayToTheNextAndComesBackWithTheData() {
        var c = RangeChoice()
        let configured: [ChartRange] = [.oneDay, .fiveDays, .oneMonth, .oneYear]
        // Daily bars only: 1D and 5D cannot be drawn; 1D gives way to the next drawable after it, 1M.
        let daily: [ChartRange] = [.oneMonth, .oneYear]
        let first = c.choose(asked: nil, current: nil, first: .oneDay, configured: configured, drawable: daily)
        #expect(first == .oneMonth && c.state == .gaveWay(wanted: .oneDay, to: .oneMonth) && c.shown == daily)
        // The minute bars come: back to 1D, as nothing else was chosen.
        let back = c.choose(asked: nil, current: .oneMonth, first: .oneDay, configured: configured, drawable: configured)
        #expect(back == .oneDay && c.state == .asked && c.shown == configured)
        // Given way again, then someone picks 1Y: the data coming back does not take it away.
        _ = c.choose(asked: .fiveDays, current: .oneDay, first: .oneDay, configured: configured, drawable: daily)
        #expect(c.state == .gaveWay(wanted: .fiveDays, to: .oneMonth))
        let kept = c.choose(asked: nil, current: .oneYear, first: .oneDay, configured: configured, drawable: configured)
        #expect(kept == .oneYear && c.state == .asked)
        // Nothing after the wanted one can be drawn: the first that can; none at all: the wanted one.
        let wrap = c.choose(asked: .oneYear, current: nil, first: .oneDay, configured: configured, drawable: [.fiveDays])
        #expect(wrap == .fiveDays)
        let none = c.choose(asked: .oneYear, current: nil, first: .oneDay, configured: configured, drawable: [])
        #expect(none == .oneYear && c.state == .gaveWay(wanted: .oneYear, to: .oneYear))
    }
}
