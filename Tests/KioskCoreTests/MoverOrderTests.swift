import Chart
import CoreDriver
import Feed
@testable import KioskCore
import Testing

/// Movers first (`[chart] watchlist-sort`, `[tape] sort`, issue 52 item 4). The expected orders are
/// worked out by hand from the closes written here, never read back from the code.
@Suite struct MoverOrderTests {
    @Test("by move: biggest gain first, equal moves in config order, none last; by size: up or down")
    func sorts() {
        let moves: [Double?] = [1.5, -3.0, nil, 1.5, 4.0]
        #expect(MoverOrder.sorted(sort: .move, moves: moves) == [4, 0, 3, 1, 2])
        #expect(MoverOrder.sorted(sort: .absMove, moves: moves) == [4, 1, 0, 3, 2])
        #expect(MoverOrder.sorted(sort: .move, moves: [nil, nil]) == [0, 1])
    }

    @Test("an order stands a minute: moves inside it change nothing, the first look after it re-sorts")
    func standsAMinute() {
        var m = MoverOrder()
        #expect(m.order(sort: .move, moves: [1, 2, 3], now: 100) == [2, 1, 0])
        #expect(m.recheckDue(moves: [1, 2, 3]) == nil)
        // B overtakes C at 110: shown as before, looked at again at 160.
        #expect(m.order(sort: .move, moves: [1, 9, 3], now: 110) == [2, 1, 0])
        #expect(m.recheckDue(moves: [1, 9, 3]) == 160)
        #expect(m.order(sort: .move, moves: [1, 9, 3], now: 159.9) == [2, 1, 0])
        #expect(m.order(sort: .move, moves: [1, 9, 3], now: 160) == [1, 2, 0])
        // A list of another length is sorted at once; config order needs no decision.
        #expect(m.order(sort: .move, moves: [1, 9, 3, 20], now: 161) == [3, 1, 2, 0])
        #expect(m.order(sort: .config, moves: [1, 9, 3, 20], now: 162) == [0, 1, 2, 3])
        #expect(m.state == .undecided)
        // An instrument's first move (its data came) places it at once, without the minute's wait.
        #expect(m.order(sort: .move, moves: [nil, 2], now: 200) == [1, 0])
        #expect(m.fallsAtOnce(index: 0, move: 5) && !m.fallsAtOnce(index: 1, move: 7))
        #expect(m.order(sort: .move, moves: [5, 2], now: 201) == [0, 1])
    }

    /// Three days of closes ending at `last` (the day before closed at 101): the day's move is
    /// (last − 101) / 101.
    static func series(_ id: String, last: Double) -> PriceSeries {
        CoreAlertTests.series(id, last: last)
    }

    @Test("the overview's tiles and the tape in the day's order; a tap opens the tile's own instrument; re-sorted a minute later")
    func coreOrders() throws {
        var config = Config.watchlist(["A", "B", "C"]) {
            $0.watchlist = .only
            $0.watchlistSort = .move
            $0.tapeSort = .absMove
            $0.tapePosition = .bottom
            $0.cycleSeconds = 0
            $0.touchPauseSeconds = 30
            $0.staleAfterSeconds = 36_500 * 86_400
        }
        config.burnInShift = 0
        let d = CoreDriver(config: config)
        d.send(.start)
        // A: 101 -> 102 (+0.99 %), B: 101 -> 95 (-5.94 %), C: 101 -> 110 (+8.91 %)
        for (id, last) in [("A", 102.0), ("B", 95.0), ("C", 110.0)] {
            d.send(.series(instrumentID: id, slot: .daily, series: Self.series(id, last: last)))
        }
        d.run(for: 2)
        let board = try #require(d.core.watchlist)
        #expect(board.tileContents.map(\.name) == ["C", "A", "B"])
        #expect(d.core.tapeEntries().map(\.instrument.name) == ["C", "B", "A"])
        // A jumps to 130 (+28.7 %): the tiles stay as they are for the rest of the minute.
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.series("A", last: 130)))
        d.run(for: 30)
        #expect(d.core.watchlist?.tileContents.map(\.name) == ["C", "A", "B"])
        d.run(for: 31)
        let resorted = try #require(d.core.watchlist)
        #expect(resorted.tileContents.map(\.name) == ["A", "C", "B"])
        #expect(d.core.tapeEntries().map(\.instrument.name) == ["A", "C", "B"])
        // The first tile is A's now: a tap on it opens A.
        let first = resorted.layout.tiles[0]
        d.send(.gesture(.tap(x: Double(first.x0 + first.x1) / 2, y: Double(first.y0 + first.y1) / 2), inputMicros: nil))
        #expect(d.core.status().instrumentID == "A")
    }

    @Test("check-config words for the sort keys")
    func configKeys() {
        let (config, issues) = Config.parse("[chart]\nwatchlist-sort = move\n[tape]\nsort = abs-move\n", file: "t.conf")
        #expect(!issues.contains { $0.key.contains("sort") }, "\(issues)")
        #expect(config.watchlistSort == .move && config.tapeSort == .absMove)
        let (_, bad) = Config.parse("[tape]\nsort = biggest\n", file: "t.conf")
        #expect(bad.contains { $0.key == "sort" && $0.line == 2 && $0.message.contains("expected config (the config's order), move") }, "\(bad)")
    }
}
