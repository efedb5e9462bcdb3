// KioskCore: The chart on screen: its model, ranges, market note and header clock.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: The model

    var quarterTurns: Int {
        config.rotation.map { $0 / 90 } ?? displayInfo?.panelQuarterTurns ?? 0
    }

    /// The range an instrument starts on: the configured start range when it is one of the ranges.
    var firstRange: ChartRange {
        config.ranges.contains(config.startRange) ? config.startRange : config.ranges.first ?? .oneMonth
    }

    func drawableRanges() -> [ChartRange] {
        guard !showingSample, !entries.isEmpty, let market = market(of: entries[instrumentIndex % entries.count]) else {
            return config.ranges
        }
        return market.drawableRanges(of: config.ranges, options: config.rangeOptions)
    }

    func rebuildModel(range: ChartRange? = nil) {
        guard let info = displayInfo else { model = nil; return }
        // A range the instrument cannot draw gives way to the next one it can (RangeChoice).
        let wanted = rangeChoice.choose(asked: range, current: model?.range, first: firstRange, configured: config.ranges,
                                        drawable: drawableRanges())
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sceneSize(sideways ? (info.height, info.width) : (info.width, info.height))
        let palette = activePalette
        board.dataChanged()
        let instrument: Instrument
        var placeholder: String?
        if showingSample {
            instrument = .sample(phrases: phrases)
        } else {
            let entry = entries[instrumentIndex % entries.count]
            instrument = self.instrument(of: entry)
            placeholder = placeholderText(for: entry)
        }
        let m = ScreenModel(instrument: instrument, width: max(1, w), height: max(1, h), fonts: fonts, palette: palette,
                            range: wanted, scale: config.scale, ranges: shownRanges, stats: config.stats)
        m.hidesStats = !showingSample && entries[instrumentIndex % entries.count].isPortfolio
        m.timing = config.morph
        if m.timeAxis != config.timeAxis { m.timeAxis = config.timeAxis }
        m.rangeOptions = config.rangeOptions
        m.placeholder = placeholder
        model = m
        repaintWhole()
        refreshStatusNote()
        emit(.layoutChanged(quarterTurns: quarterTurns, width: m.screen.layout.width, height: m.screen.layout.height))
    }

    /// The small print about the market and freshness (MarketNote): "Closed · opens Mon 09:30"
    /// from the exchange calendar (the provider's own word while fresh), "as of 16:00 EST" (the
    /// newest price's own time, in the exchange's zone — never today's date on yesterday's price),
    /// the provider's delay, and "stale" when the data is older than `stale-after`.
    func refreshStatusNote() {
        refreshClock()
        guard let model, !showingSample, model.placeholder == nil else { return }
        let market = model.instrument.market
        let newest = [market.intraday, market.daily].compactMap { $0 }.max { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }
        // A wall clock more than 36 hours behind the newest price has not been set yet (a board
        // without a battery clock boots at 1970 until NTP answers): no market state, "as of" or
        // staleness from it, they would be wrong.
        if let last = newest?.last?.time, now.wall < Double(last) - 36 * 3600 {
            header.clockNotSet()
            if model.statusNote != phrases.clockNotSet {
                model.statusNote = phrases.clockNotSet
                needs.insert(.picture)
            }
            return
        }
        guard let newest, let staleness = Staleness(series: newest, now: Int64(now.wall.clampedToInt64),
                                                   staleAfterSeconds: config.staleAfterSeconds, timeZone: market.timeZone,
                                                   phrases: phrases)
        else { return }
        let fetch = entries[instrumentIndex % entries.count].fetch
        // The exchange's calendar says whether the market is open, daily file or not (files kept
        // fresh by cron or a broker export have no fetcher's status beside them). The portfolio
        // is no market: its holdings may trade on several.
        let calendar = entries[instrumentIndex % entries.count].isPortfolio ? nil : market.calendar
        let marketNote = MarketNote(calendar: calendar, zone: market.timeZone, now: Int64(now.wall.clampedToInt64),
                                    fetch: fetch, newest: newest, staleness: staleness, phrases: phrases, countdown: config.countdown)
        // A line that changes by itself (a problem that has lasted, the open) wakes the power
        // check, which refreshes it, even when the news came between two of its wake-ups.
        header.shown(marketNote, stale: staleness.isStale, mono: now.mono, wall: now.wall)
        let note = marketNote.text
        // An alert's banner is the band along the foot (as `ctl message`'s), over the picture, so
        // that someone walking past notices; the market line stays true meanwhile.
        if banner.alert(alertBanner()) { repaintWhole() }
        if note != model.statusNote {
            model.statusNote = note
            needs.insert(.picture)
        }
    }

    /// The header's clock (`[chart] clock`), and when it next changes (the power check wakes for it).
    func refreshClock() {
        guard let model, config.clock != .off else {
            header.clock(nextChange: nil, mono: now.mono, wall: now.wall)
            return
        }
        // A board without a battery clock boots in 1970 until NTP answers: no time rather than a
        // wrong one (nor when the clock is more than 36 hours behind the newest price, as the note).
        let market = model.instrument.market
        let newest = [market.intraday?.last?.time, market.daily?.last?.time].compactMap { $0 }.max()
        let set = now.wall >= HeaderClock.earliestPlausibleTime && !(newest.map { now.wall < Double($0) - 36 * 3600 } ?? false)
        let clock = HeaderClock(mode: config.clock, now: Int64(now.wall.clampedToInt64), localZone: localZone,
                                exchangeZone: showingSample ? nil : market.timeZone, phrases: phrases, clockSet: set)
        if model.clock != clock.text {
            model.clock = clock.text
            needs.insert(.picture)
        }
        header.clock(nextChange: clock.nextChange, mono: now.mono, wall: now.wall)
    }
}
