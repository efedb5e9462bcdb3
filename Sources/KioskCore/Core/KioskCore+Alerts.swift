// KioskCore: Alerts: judged on the data, their banners and the status file's firings.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Alerts

    /// Judges every alert on what is known now; a firing is logged, jumps the cycle to its
    /// instrument once (unless someone is using the screen) and shows its banner.
    func judgeAlerts() {
        alertDue = config.alerts.isEmpty ? nil : now.mono + 60
        let wall = now.wall.clampedToInt64
        var firedOn: [Int] = []
        for alert in config.alerts {
            guard let id = alert.instrument, let i = entries.firstIndex(where: { $0.spec.id == id }) else { continue }
            let entry = entries[i]
            // A wall clock not set yet (1970 on a board without a battery clock) judges nothing.
            guard let newest = [entry.daily?.last?.time, entry.intraday?.last?.time].compactMap({ $0 }).max(),
                  Double(newest) - 36 * 3600 <= now.wall else { continue }
            let observation = Alerts.observation(daily: entry.daily, intraday: entry.intraday,
                                                 field: entry.spec.adjusted ? .adjustedClose : .close,
                                                 zone: entry.zone ?? .utc, calendar: entry.spec.calendar, at: wall)
            let (state, fired) = Alerts.step(alert, observation, now: wall, state: alertStates[alert.name] ?? AlertState())
            alertStates[alert.name] = state
            guard fired, let observation else { continue }
            log(.notice, "alert \(alert.name): \(id) \(Alerts.describe(alert.condition)), at \(observation.price)")
            firedOn.append(i)
        }
        // The banner's end is a change of the picture too.
        let ends = config.alerts.compactMap { a in alertStates[a.name]?.firedAt.map { $0 + a.bannerSeconds } }
            .filter { Double($0) > now.wall }.min()
        if let end = ends { alertDue = min(alertDue ?? .infinity, now.mono + Double(end) - now.wall) }
        onEachScreen {
            for i in firedOn where round.yieldsToAlert(at: now.mono) && !showingSample
                && (i != instrumentIndex % max(1, entries.count) || showingWatchlist) {
                open(instrument: i, range: model?.range ?? config.startRange)
            }
            refreshStatusNote()
            // A tile is highlighted for its alert's banner time: on at the firing, off at the end.
            for i in tileIndices where config.alerts.contains(where: { $0.instrument == entries[i].spec.id }) { updateTile(i) }
        }
    }

    /// The banner for the instrument on screen: its alert fired within the banner's time.
    func alertBanner() -> String? {
        guard let id = currentID, let alert = bannerAlert(for: id) else { return nil }
        let entry = entries.first { $0.spec.id == id }
        let format = priceFormat(currencyCode: entry.map(currencyCode) ?? "USD")
        return "\u{26A0} " + alert.name + ": " + Self.bannerWords(alert.condition, phrases: phrases, format: format)
    }

    /// An alert's condition in the wall's words and number format: `unter 12.150`, `Bewegung von
    /// 2 % oder mehr` on a de-DE wall. The level keeps the decimals it was written with.
    static func bannerWords(_ condition: AlertConfig.Condition?, phrases: Phrases, format: PriceFormat) -> String {
        func number(_ v: ExactDecimal) -> String {
            let text = v.magnitude.description
            var f = format
            f.decimals = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
            f.significantDigits = nil
            return f.number(v.doubleValue)
        }
        switch condition {
        case .above(let v): return Phrases.fill(phrases.alertAbove, ["n": number(v)])
        case .below(let v): return Phrases.fill(phrases.alertBelow, ["n": number(v)])
        case .move(let p): return Phrases.fill(phrases.alertMoved, ["n": number(p) + format.percentSpacing + "%"])
        case .stale(let s): return Phrases.fill(phrases.alertNoPrice, ["t": s % 3600 == 0 ? "\(s / 3600)h" : "\(s / 60)min"])
        case nil: return ""
        }
    }

    /// The first alert of instrument `id` within its banner time (its tile is highlighted meanwhile).
    func bannerAlert(for id: String) -> AlertConfig? {
        let mine = config.alerts.filter { $0.instrument == id }
        guard let name = Alerts.banners(mine, states: alertStates, now: now.wall.clampedToInt64).first else { return nil }
        return mine.first { $0.name == name }
    }

    /// Each configured instrument's newest data and whether it has a problem (the metrics file).
    public func instrumentHealth() -> [InstrumentHealth] {
        entries.filter { !$0.isPortfolio }.map { e in
            let newest = [e.daily?.bars.last?.time, e.intraday?.bars.last?.time].compactMap { $0 }.max()
            let problem = placeholderText(for: e) != nil || e.fetch?.lastError != nil
                || [e.spec.dailyFile, e.spec.intradayFile].compactMap { $0 }.contains { file in
                    dataProblems.keys.contains { $0.hasSuffix("/" + file) || $0 == file }
                }
            return InstrumentHealth(id: e.spec.id, lastDataTime: newest, problem: problem)
        }
    }

    /// The alerts in effect (fired, not re-armed), for the status file.
    public var activeAlerts: [String] { Alerts.active(config.alerts, states: alertStates) }

    /// The alerts in effect with what fired them and when.
    var alertFirings: [AlertFiring] {
        let active = Set(activeAlerts)
        return config.alerts.compactMap { a in
            guard active.contains(a.name), let at = alertStates[a.name]?.firedAt, let condition = a.condition else { return nil }
            let kind: String
            switch condition {
            case .above: kind = "above"
            case .below: kind = "below"
            case .move: kind = "move"
            case .stale: kind = "stale"
            }
            return AlertFiring(name: a.name, instrument: a.instrument, kind: kind, condition: Alerts.describe(condition), firedAt: at)
        }
    }


    /// `16:00 EST` on the day of `now` (exchange time), else `27 Nov 16:00 EST`, in the language
    /// of `phrases` (`27. Nov. 16:00 MEZ`).
    static func describe(_ time: Int64, in zone: ExchangeTimeZone, now: Double, phrases: Phrases = .english) -> String {
        let t = zone.localDateTime(atUnixTime: time)
        let today = zone.localDateTime(atUnixTime: now.clampedToInt64).date
        let clock = "\(t.hourMinute) " + phrases.zone(zone.abbreviation(atUnixTime: time))
        if t.date == today { return clock }
        // A date without its year reads as this year's: past half a year, say which.
        let days = (today.unixTimeAtMidnightUTC - t.date.unixTimeAtMidnightUTC) / 86_400
        return phrases.date(t.date, year: days > 180 || days < 0) + " " + clock
    }
}
