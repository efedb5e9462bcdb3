// Screen hours that follow the exchanges (`[power] follow-markets = on`, `lead`, `trail`): the
// windows in which the screen is lit because a watched exchange is about to open, is open, or has
// just closed. Pure: a function of the calendars, their zones and the two durations.
import Feed

/// The market-driven part of the screen's plan.
///
/// Decisions (README, "Screen hours that follow the markets"):
/// - A window is a regular session, `lead` before its open to `trail` after its close. Pre-market
///   and after-hours trading do not count: where an owner wants them, a longer lead or trail covers
///   them (New York's pre-market from 04:00 is `lead = 5h30m`), and an exchange's regular hours are
///   what "the market opens" means on the screen itself.
/// - The lunch break of Tokyo and Hong Kong does not turn the screen off: one window per session.
/// - Early closes shorten the window; holidays and weekends have none.
/// - Instruments that trade around the clock (24/7) have no window: they never force the screen on.
/// - Windows of several exchanges that overlap or touch merge into one.
public struct MarketHours: Sendable {
    public struct Exchange: Sendable {
        public var calendar: ExchangeCalendar
        /// The zone its sessions are read in (the instrument's, as everywhere else in the core).
        public var zone: ExchangeTimeZone

        public init(calendar: ExchangeCalendar, zone: ExchangeTimeZone) {
            self.calendar = calendar
            self.zone = zone
        }
    }

    /// One session's contribution to a window.
    public struct Part: Sendable, Equatable {
        public var mic: String
        public var session: TradingSession
        /// The early-close rule that shortened the session ("Christmas Eve").
        public var earlyClose: String?
    }

    /// `[start, end)` in Unix seconds, with the sessions that make it.
    public struct Window: Sendable, Equatable {
        public var start: Int64
        public var end: Int64
        public var parts: [Part]
    }

    /// The longest `lead` or `trail` the config accepts: with windows shorter than a day the search
    /// around an instant stays a few days wide.
    public static let longestMargin: Double = 12 * 3600

    public var exchanges: [Exchange]
    public var leadSeconds: Int64
    public var trailSeconds: Int64

    public init(exchanges: [Exchange], leadSeconds: Double, trailSeconds: Double) {
        self.exchanges = exchanges
        self.leadSeconds = Int64(min(max(0, leadSeconds), MarketHours.longestMargin))
        self.trailSeconds = Int64(min(max(0, trailSeconds), MarketHours.longestMargin))
    }

    /// The exchanges of the configured instruments, each once in config order, without the
    /// around-the-clock calendar; `zones` are the instruments' resolved zones (by instrument id).
    public init(config: Config, zones: [String: ExchangeTimeZone]) {
        var seen: Set<String> = []
        var list: [Exchange] = []
        for inst in config.instruments {
            guard let calendar = inst.calendar, !calendar.isAlwaysOpen, let zone = zones[inst.id],
                  seen.insert(calendar.mic).inserted else { continue }
            list.append(Exchange(calendar: calendar, zone: zone))
        }
        self.init(exchanges: list, leadSeconds: config.marketLeadSeconds, trailSeconds: config.marketTrailSeconds)
    }

    /// The exchanges of `config` that have hours (what `follow-markets` follows), by MIC.
    public static func followedExchanges(of config: Config) -> [String] {
        var out: [String] = []
        for inst in config.instruments {
            guard let calendar = inst.calendar, !calendar.isAlwaysOpen, !out.contains(calendar.mic) else { continue }
            out.append(calendar.mic)
        }
        return out
    }

    /// The merged windows that overlap `[from, to)`, ascending (not clipped to the range).
    public func windows(from: Int64, to: Int64) -> [Window] {
        guard from < to else { return [] }
        var raw: [Window] = []
        for exchange in exchanges {
            // A session lies within its local day, and the margins are at most 12 h each: two days
            // either side of the range find every window that can reach into it.
            let first = exchange.zone.localDate(atUnixTime: from).adding(days: -2)
            let last = exchange.zone.localDate(atUnixTime: to).adding(days: 2)
            for s in exchange.calendar.sessions(from: first, through: last, zone: exchange.zone) {
                let start = s.open - leadSeconds, end = s.close + trailSeconds
                guard end > from, start < to else { continue }
                let part = Part(mic: exchange.calendar.mic, session: s,
                                earlyClose: s.isEarlyClose ? exchange.calendar.earlyCloseName(on: s.date) : nil)
                raw.append(Window(start: start, end: end, parts: [part]))
            }
        }
        raw.sort { $0.start < $1.start || ($0.start == $1.start && $0.end < $1.end) }
        var merged: [Window] = []
        for w in raw {
            if var last = merged.last, w.start <= last.end {
                last.end = max(last.end, w.end)
                last.parts += w.parts
                merged[merged.count - 1] = last
            } else {
                merged.append(w)
            }
        }
        return merged
    }

    /// True when a window covers `time`.
    public func isOn(at time: Int64) -> Bool {
        windows(from: time, to: time + 1).contains { $0.start <= time && time < $0.end }
    }

    /// Every instant in `(start, end]` at which a window begins or ends, ascending.
    public func changes(from start: Int64, through end: Int64) -> [Int64] {
        var out: [Int64] = []
        for w in windows(from: start, to: end + 1) {
            if w.start > start && w.start <= end { out.append(w.start) }
            if w.end > start && w.end <= end { out.append(w.end) }
        }
        return out
    }

    /// Why no window covers `[start, end)`: the holidays each exchange keeps in it, and the weekend
    /// ("XNYS closed: Christmas Day; weekend"); "outside market hours" on an ordinary night. A day
    /// counts when its regular hours would have overlapped the stretch: London's Boxing Day is not
    /// why the screen is off after New York's close on the 26th.
    public func closedReason(from start: Int64, to end: Int64) -> String {
        var reasons: [String] = []
        var weekend = false
        for exchange in exchanges {
            let first = exchange.zone.localDate(atUnixTime: start).adding(days: -1)
            let last = exchange.zone.localDate(atUnixTime: max(start, end - 1))
            var names: [String] = []
            var day = first
            var holidays: [CivilDate: String] = [:]
            var year = Int.min
            while day <= last && names.count < 16 {
                defer { day = day.adding(days: 1) }
                let era = exchange.calendar.era(on: day)
                guard let open = MarketHours.instant(day, era.open, exchange.zone),
                      let close = MarketHours.instant(day, era.close, exchange.zone),
                      close > start, open < end else { continue }
                if day.year != year {
                    year = day.year
                    for h in exchange.calendar.holidays(in: year) { holidays[h.date] = h.name }
                }
                if day.weekday.isWeekend {
                    weekend = true
                } else if let name = holidays[day], !names.contains(name) {
                    names.append(name)
                }
            }
            if !names.isEmpty { reasons.append("\(exchange.calendar.mic) closed: " + names.joined(separator: ", ")) }
        }
        if weekend { reasons.append("weekend") }
        return reasons.isEmpty ? "outside market hours" : reasons.joined(separator: "; ")
    }

    /// `secondOfDay` of `date` in `zone` (nil past midnight: the calendars' regular hours end by 24:00).
    static func instant(_ date: CivilDate, _ secondOfDay: Int, _ zone: ExchangeTimeZone) -> Int64? {
        if secondOfDay >= 86_400 { return zone.startOfDay(date.adding(days: 1)) }
        guard let local = CivilDateTime(date: date, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
                                        second: secondOfDay % 60) else { return nil }
        return zone.unixTime(for: local)
    }
}

extension MarketHours.Window {
    /// "XNYS 09:30-13:00 EST early close: Christmas Eve + XLON 08:00-12:30 GMT ..." in each exchange's zone.
    public func describe(zones: [String: ExchangeTimeZone]) -> String {
        parts.map { part in
            guard let zone = zones[part.mic] else { return part.mic }
            let open = zone.localDateTime(atUnixTime: part.session.open)
            let close = zone.localDateTime(atUnixTime: part.session.close)
            var text = "\(part.mic) open \(open.hourMinute)-\(close.hourMinute) \(zone.abbreviation(atUnixTime: part.session.open))"
            if part.session.isEarlyClose { text += ", early close" + (part.earlyClose.map { ": \($0)" } ?? "") }
            return text
        }.joined(separator: " + ")
    }
}

extension MarketHours {
    /// Each followed exchange's zone, by MIC (for `Window.describe`).
    public var zonesByMIC: [String: ExchangeTimeZone] {
        var out: [String: ExchangeTimeZone] = [:]
        for e in exchanges { out[e.calendar.mic] = e.zone }
        return out
    }
}
