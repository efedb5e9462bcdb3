// KioskCore: The watchlist overview and the tape's words: tiles, movers first, requests to show.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: The watchlist overview

    /// The overview of every instrument when `[chart] watchlist` asks for it, at the screen's size.
    func rebuildWatchlist() {
        guard config.watchlist != .off, let info = displayInfo else {
            if showingWatchlist {
                repaintWhole()
                round.leaveOverview(at: now.mono)
            }
            watchlist = nil
            return
        }
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sceneSize(sideways ? (info.height, info.width) : (info.width, info.height))
        let ordered = showingSample ? [] : moversOrdered(tileIndices.map(watchlistEntry), sort: config.watchlistSort, for: .tiles)
        board.placeTiles(ordered.map(\.index))
        let tiles = showingSample ? [WatchlistEntry(instrument: .sample(phrases: phrases))] : ordered.map(\.entry)
        watchlist = WatchlistScene(entries: tiles, width: max(1, w), height: max(1, h), fonts: fonts,
                                   palette: activePalette, range: watchlist?.range ?? firstRange)
        board.tilesLooked(at: nil, nextChange: showingSample ? nil : tileIndices.compactMap { tileState($0).nextChange }.min())
        if config.watchlist == .only && !showingWatchlist { showWatchlist() }
        if showingWatchlist { repaintWhole() }
    }

    /// What the tape says of each instrument (all of them, in the config's order; not the portfolio,
    /// which has no tile and may not show money): the watchlist
    /// tiles' instruments, staleness and market states.
    package func tapeEntries() -> [WatchlistEntry] {
        showingSample ? [WatchlistEntry(instrument: .sample(phrases: phrases))]
            : moversOrdered(tileIndices.map(watchlistEntry), sort: config.tapeSort, for: .tape).map(\.entry)
    }

    /// `entries` (config order) in the order `movers` decides for `sort` now, each with its config
    /// index; arms the look at the order again when the moves changed inside its minute.
    func moversOrdered(_ entries: [WatchlistEntry], sort: MoveSort, for which: TileBoard.Order)
        -> [(index: Int, entry: WatchlistEntry)] {
        let moves = sort == .config ? entries.map { _ in nil } : entries.map { TapeItem.dayMovePercent(of: $0, options: config.rangeOptions) }
        return board.order(which, sort: sort, moves: moves, now: now.mono).map { (index: $0, entry: entries[$0]) }
    }

    /// What the tile of entry `i` says: the same instrument, placeholder and staleness the chart
    /// would show, and the market status the header would.
    func watchlistEntry(_ i: Int) -> WatchlistEntry {
        let entry = entries[i]
        let state = tileState(i)
        var shown = instrument(of: entry)
        if config.portfolio.tileValues, config.portfolio.show == .value, let position = position(of: entry, shown) { shown = position }
        return WatchlistEntry(instrument: shown, isStale: state.stale, placeholder: placeholderText(for: entry),
                              market: state.market, alert: bannerAlert(for: entry.spec.id)?.name)
    }

    /// `[portfolio] tiles = value`: the instrument as its position, every price times the quantity
    /// held now (sub-unit quotes in their currency: GBp in GBP), the closes exact and rounded to the
    /// currency's minor units as the portfolio's lines are; nil when nothing is held.
    func position(of entry: Entry, _ instrument: Instrument) -> Instrument? {
        let today = CivilDate(unixTime: now.wall.clampedToInt64)
        let quantity = entry.spec.holding.allLots.filter { $0.date.map { $0 <= today } ?? true }
            .reduce(ExactDecimal.zero) { $0 + $1.quantity }
        guard !quantity.isZero else { return nil }
        let code = currencyCode(of: entry)
        let subunit = Currency(code: code)?.isSubunit ?? false
        let money = subunit ? Config.homeCode(of: code) : code
        let minor = Currency(code: money)?.minorUnits ?? 2
        let q = subunit ? quantity.shifted(by: -2) ?? quantity : quantity
        let factor = q.doubleValue
        func value(_ price: Double) -> Double {
            guard let p = ExactDecimal(shortest: price), let v = p.multiplied(by: q) else { return price * factor }
            return v.rounded(to: minor).doubleValue
        }
        func scaled(_ series: PriceSeries?) -> PriceSeries? {
            series.map { s in
                PriceSeries(name: s.name, interval: s.interval, bars: s.bars.map { b in
                    PriceBar(time: b.time, open: b.open * factor, high: b.high * factor, low: b.low * factor,
                             close: value(b.close), adjustedClose: b.adjustedClose.map(value), volume: b.volume)
                }, priceField: s.priceField)
            }
        }
        var out = instrument
        out.market.daily = scaled(instrument.market.daily)
        out.market.intraday = scaled(instrument.market.intraday)
        if let reported = instrument.market.reportedPreviousClose {
            out.market.reportedPreviousClose = (value(reported.value), reported.session)
        }
        out.priceFormat = priceFormat(currencyCode: money)
        return out
    }

    func tileState(_ i: Int) -> (stale: Bool, market: MarketStatus.State?, nextChange: Int64?) {
        let entry = entries[i]
        guard let zone = entry.zone else { return (false, nil, nil) }
        let wall = Int64(now.wall.clampedToInt64)
        let newest = [entry.intraday, entry.daily].compactMap { $0 }.max { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }
        let staleness = newest.flatMap {
            Staleness(series: $0, now: wall, staleAfterSeconds: config.staleAfterSeconds, timeZone: zone)
        }
        // The exchange's calendar even for daily data: the mark is about the market, not the file.
        let note = MarketNote(calendar: entry.spec.calendar, zone: zone, now: wall, fetch: entry.fetch, newest: newest,
                              staleness: staleness)
        return (staleness?.isStale ?? false, note.state.flatMap(MarketStatus.State.init(rawValue:)), note.nextChange)
    }

    /// New data, a fetch status or the clock changed what entry `i` knows: its tile follows.
    func updateTile(_ i: Int) {
        board.dataChanged()
        guard let watchlist, !showingSample, tileIndices.contains(i) else { return }
        let position = board.position(ofTile: i)
        let entry = watchlistEntry(i)
        if watchlist.update(entry, at: position), showingWatchlist { needs.insert(.picture) }
        // Sorted by the day's move: a new price may change the order, looked at when its minute is
        // up; an instrument's first price places it at once.
        if config.watchlistSort != .config {
            board.tileMoved(i, move: TapeItem.dayMovePercent(of: entry, options: config.rangeOptions), now: now.mono)
        }
    }

    /// Staleness and market marks of every tile, as of now.
    func refreshTiles() {
        board.dataChanged()
        guard watchlist != nil, !showingSample else { return }
        for i in tileIndices { updateTile(i) }
        board.tilesLooked(at: now.wall, nextChange: tileIndices.compactMap { tileState($0).nextChange }.min())
    }

    func showWatchlist() {
        guard watchlist != nil else { return }
        round.enterOverview(at: now.mono)
        perform(Round.Action.showOverview)
    }

    /// The chart of instrument `index` (a tapped tile, a request, an alert), drawing itself in; its
    /// round starts now.
    func open(instrument index: Int, range: ChartRange) {
        perform(round.open(instrument: index, of: roundCount, range: range, at: now.mono))
    }

    /// Shows what `request` names and holds the cycle there; a name the config does not have, or
    /// a range the instrument cannot draw, is logged and leaves the next best on screen.
    func show(_ request: ShowRequest) {
        round.pause()
        if request.scene == .watchlist {
            guard let watchlist else {
                log(.warning, "show: no watchlist ([chart] watchlist = off)")
                return
            }
            if let range = request.range { watchlist.select(range) }
            showWatchlist()
            return
        }
        var index = instrumentIndex
        if let id = request.instrumentID {
            guard let i = entries.firstIndex(where: { $0.spec.id == id }) else {
                log(.warning, "show: no instrument \(id) in the config")
                return
            }
            index = i
        }
        let range = request.range ?? firstRange
        open(instrument: index, range: range)
        guard let model else { return }
        if model.range != range {
            log(.warning, "show: \(currentID ?? "-") cannot draw \(range); showing \(model.range)")
        }
        switch request.scene {
        case .draw, .watchlist: break
        case .chart, .tape, .portfolio: model.select(model.range, at: frameTime(), animated: false)
        case .bars: model.show(.bars, at: frameTime())
        }
    }

    /// Swipes and arrow keys on the overview step every tile through the configured ranges.
    func stepWatchlist(_ delta: Int) {
        guard let watchlist else { return }
        let ranges = config.ranges
        let i = ((ranges.firstIndex(of: watchlist.range) ?? 0) + delta % ranges.count + ranges.count) % ranges.count
        watchlist.select(ranges[i])
        needs.insert(.picture)
    }
}
