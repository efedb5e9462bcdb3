import Chart
import CoreDriver
import DisplayModel
import Feed
import InputModel
@testable import KioskCore
import StatusModel
import Testing

/// The watchlist overview in the daemon (`[chart] watchlist`), through the pure core and its
/// manual clock: where it joins the unattended show, what a tap on a tile opens, and how tiles
/// follow the data and the market's hours.
extension KioskCoreTests {
    @Test("watchlist = cycle: the overview once per round through the instruments, for instrument-interval")
    func watchlistJoinsTheCycle() throws {
        let config = Config.watchlist(["A", "B"]) { $0.instrumentCycleSeconds = 120; $0.watchlist = .cycle }
        let d = Self.started(config)
        #expect(!d.core.showingWatchlist)
        var watchlistStatus: KioskStatus?
        d.run(for: 6 * 3600) {
            d.recordShown()
            if d.core.showingWatchlist, watchlistStatus == nil { watchlistStatus = d.core.status() }
        }
        let order = d.shown.map { $0.value == "watchlist" ? "W" : String($0.value.prefix(1)) }
            .reduce(into: [String]()) { out, s in if out.last != s { out.append(s) } }
        #expect(order.count > 20, "\(order)")
        // A, B, overview, A, B, overview, ...
        for (i, s) in order.enumerated() { #expect(s == ["A", "B", "W"][i % 3], "at \(i): \(order)") }
        // The overview stays for instrument-interval, then the first instrument draws itself in.
        for (i, s) in d.shown.enumerated() where s.value == "watchlist" && i + 1 < d.shown.count {
            #expect(d.shown[i + 1].time.mono - s.time.mono >= 120 - 1e-6)
            #expect(d.shown[i + 1].value == "A draw")
        }
        let status = try #require(watchlistStatus)
        #expect(status.scene == .watchlist)
        #expect(status.instrumentID == nil && status.price == nil)
        #expect(KioskStatus.pictureKeys.contains("scene"))
    }

    @Test("watchlist = only without cycling (cycle-interval 0) still goes back to the overview after a tap")
    func watchlistOnlyWithoutCycling() throws {
        let d = Self.started(Config.watchlist(["A", "B"]) { $0.watchlist = .only; $0.cycleSeconds = 0; $0.touchPauseSeconds = 30 })
        d.run(for: 5)
        let tile = try #require(d.core.watchlist?.layout.tiles[0])
        d.send(.gesture(.tap(x: Double(tile.x0 + 5), y: Double(tile.y0 + 5)), inputMicros: nil))
        #expect(!d.core.showingWatchlist && d.core.status().instrumentID == "A")
        d.run(for: 31)
        #expect(d.core.showingWatchlist)
    }

    @Test("watchlist = off (the default) never shows the overview")
    func watchlistOff() {
        let d = Self.started(Config.watchlist(["A", "B"]) { $0.instrumentCycleSeconds = 120 })
        d.run(for: 3600) { d.recordShown() }
        #expect(d.core.watchlist == nil)
        #expect(!d.shown.contains { $0.value == "watchlist" })
    }

    @Test("watchlist = only: the overview is the screen; a tap opens a tile's chart until the touch pause ends")
    func watchlistOnlyAndTap() throws {
        let config = Config.watchlist(["A", "B", "C"]) {
            $0.watchlist = .only; $0.touchPauseSeconds = 30; $0.cycleSeconds = 8; $0.startRange = .sixMonths
        }
        let d = Self.started(config)
        d.run(for: 600) { d.recordShown() }
        #expect(Set(d.shown.map(\.value)) == ["watchlist"])
        #expect(d.core.status().scene == .watchlist)
        let board = try #require(d.core.watchlist)
        #expect(board.tileContents.map(\.name) == ["A", "B", "C"])
        #expect(board.range == .sixMonths)
        // A tap in the gap between tiles opens nothing.
        let first = board.layout.tiles[0], second = board.layout.tiles[1]
        let gap = board.layout.columns > 1
            ? (x: Double(first.x1 + second.x0) / 2, y: Double(first.y0 + first.y1) / 2)
            : (x: Double(first.x0 + first.x1) / 2, y: Double(first.y1 + second.y0) / 2)
        d.send(.gesture(.tap(x: gap.x, y: gap.y), inputMicros: nil))
        #expect(d.core.showingWatchlist)
        // A tap on B's tile opens B's chart on the tile's range.
        d.send(.gesture(.tap(x: Double(second.x0 + second.x1) / 2, y: Double(second.y0 + second.y1) / 2), inputMicros: nil))
        let touched = d.time.mono
        #expect(!d.core.showingWatchlist)
        #expect(d.core.status().instrumentID == "B")
        #expect(d.core.status().scene == .draw)
        #expect(d.core.model?.range == .sixMonths)
        #expect(d.presents.last.map { $0.value.fullCopy && $0.time.mono == touched } == true)
        d.run(until: touched + 20)
        // Another touch on the chart restarts the pause.
        d.send(.gesture(.scrubBegan(x: 100, y: 100), inputMicros: nil))
        d.send(.gesture(.scrubEnded, inputMicros: nil))
        let again = d.time.mono
        d.run(until: again + 29.9)
        #expect(!d.core.showingWatchlist, "back to the overview during the touch pause")
        d.run(until: again + 30 + 0.01)
        #expect(d.core.showingWatchlist, "did not go back to the overview after the touch pause")
        #expect(d.presents.last?.value.fullCopy == true)
        // Every overview frame that is painted is copied whole: the plan says so, the shell obeys.
        let overviews = d.presents.filter { if case .overview = $0.value.scene { $0.value.redraw } else { false } }
        #expect(!overviews.isEmpty && overviews.allSatisfy(\.value.fullCopy))
    }

    @Test("tiles follow the data: a placeholder says what it waits for, data replaces it, old data is stale")
    func watchlistTilesLive() throws {
        let config = Config.watchlist(["A", "B"]) { $0.watchlist = .only }
        let d = CoreDriver(config: config)
        d.send(.start)
        d.send(.series(instrumentID: "A", slot: .daily, series: Self.daily))
        d.run(for: 5)
        var tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles[0].note == "" && tiles[0].points.count > 2)
        #expect(tiles[1].note == "waiting for data: B.csv, B-1m.csv")
        #expect(tiles[1].points.isEmpty)
        // B's data arrives: its tile shows it on the next frame, with no other event.
        let frames = d.presents.count
        d.send(.series(instrumentID: "B", slot: .daily, series: Self.daily))
        #expect(d.presents.count == frames + 1)
        tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles[1].note == "")
        #expect(tiles[1].price == tiles[0].price)
        #expect(d.core.showingWatchlist)
        // Nothing new for a week: the clock alone makes both tiles say stale.
        d.run(for: 7 * 86_400)
        tiles = try #require(d.core.watchlist?.tileContents)
        #expect(tiles.allSatisfy { $0.isStale && $0.note == "stale" }, "\(tiles.map(\.note))")
        #expect(d.core.status().stale)
        // Fresh data for A: only A's tile is fresh again.
        let newer = PriceSeries(name: Self.daily.name, interval: Self.daily.interval,
                                bars: Self.daily.bars + [Self.bar(after: Self.daily.bars.last!, seconds: Int64(7 * 86_400))])
        d.send(.series(instrumentID: "A", slot: .daily, series: newer))
        tiles = try #require(d.core.watchlist?.tileContents)
        #expect(!tiles[0].isStale && tiles[1].isStale)
    }

    @Test("each tile's market mark follows the exchange's hours: closed, pre-market, open, after hours")
    func watchlistMarketMarks() throws {
        // Sun 29 Nov 2026 19:53 EST; New York's sample instrument on the NYSE calendar.
        let d = Self.started(Config.watchlist(["A"]) { $0.watchlist = .only })
        d.run(for: 1)
        func mark() -> WatchlistMarketMark? { d.core.watchlist?.tileContents.first?.mark }
        #expect(mark() == WatchlistMarketMark(.closed))
        #expect(mark()?.shape == .square && mark()?.word == "Closed")
        // Mon 30 Nov 2026 14:31 UTC = 09:31 EST: open, reached by the core's own wake-ups.
        let frames = d.presents.count
        d.run(until: 1000 + (1_796_049_060 - 1_796_000_000))
        #expect(mark() == WatchlistMarketMark(.open))
        #expect(mark()?.shape == .disc)
        #expect(d.presents.count > frames, "the changed mark was never drawn")
        // 16:30 EST: after hours, a ring.
        d.run(for: 7 * 3600)
        #expect(mark() == WatchlistMarketMark(.afterHours))
        #expect(mark()?.shape == .ring && mark()?.word == "After")
    }
}

extension KioskCoreTests {
    /// A daily bar `seconds` after `last`, at its close.
    static func bar(after last: PriceBar, seconds: Int64) -> PriceBar {
        var b = last
        b.time += seconds
        return b
    }
}
