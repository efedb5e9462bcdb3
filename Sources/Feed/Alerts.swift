// Price alerts (issue 36): `[alert NAME] instrument = X` with `above =`, `below =`, `move = 5%` (against
// the previous close) or `stale = 30m`. A pure state machine per alert: it fires once when its
// condition becomes true, and only fires again after the price has gone back past the level by
// the hysteresis (a price hovering at the level does not fire on every tick). Its state is a value
// the shell persists and hands back at start, so a restart does not fire again a condition that
// already fired that day. In Feed (not KioskCore) because both sides judge alerts: the display
// daemon for its banner and the fetcher for `alert-command`, with this one machine.

/// One `[alert NAME]` section.
public struct AlertConfig: Equatable, Sendable {
    public enum Condition: Equatable, Sendable {
        case above(ExactDecimal)
        case below(ExactDecimal)
        /// The absolute change against the previous close, in percent.
        case move(ExactDecimal)
        /// No new price for this many seconds.
        case stale(Int64)
    }
    public var name: String
    public var instrument: String?
    public var condition: Condition?
    /// How far (percent of the level, or percentage points of a move) the price must go back
    /// before the alert can fire again.
    public var hysteresis = ExactDecimal(units: 500_000_000_000)  // 0.5
    /// How long the banner shows after a firing.
    public var bannerSeconds: Int64 = 300
    /// `command =`: the program and arguments tickerboard-fetch runs when the alert fires (nil: the
    /// `[fetch] alert-command`; empty: `command = none`, no command for this alert).
    public var command: [String]?
    public var line: Int
    public var lines: [String: Int] = [:]
    public var files: [String: String] = [:]
    /// The file whose line set `condition`: a later file (a drop-in) replaces it, one file may not
    /// give two (issue 54: a drop-in's `above = 250` over the main file's `above = 300` was an error).
    public var conditionFile: String?

    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }
}

/// What an alert is judged on at a moment: the newest price, the previous close, and when the newest
/// price is from.
public struct AlertObservation: Equatable, Sendable {
    public var price: ExactDecimal
    public var previousClose: ExactDecimal?
    public var priceTime: Int64
    /// The trading day the price belongs to (a move alert re-arms on a new day).
    public var day: CivilDate

    public init(price: ExactDecimal, previousClose: ExactDecimal?, priceTime: Int64, day: CivilDate) {
        self.price = price
        self.previousClose = previousClose
        self.priceTime = priceTime
        self.day = day
    }
}

/// An alert's memory: what the shell saves and gives back.
public struct AlertState: Equatable, Sendable, Codable {
    /// True when the next crossing fires.
    public var armed = true
    /// The UTC day and time of the last firing.
    public var firedDay: Int?
    public var firedAt: Int64?
    /// The day of the move the alert fired for (a new day re-arms a move alert).
    public var moveDay: Int?

    public init() {}
}

public enum Alerts {
    /// Whether the condition holds, and whether the price has gone back far enough to re-arm.
    static func judge(_ condition: AlertConfig.Condition, hysteresis h: ExactDecimal, _ o: AlertObservation,
                      now: Int64) -> (met: Bool, clear: Bool)? {
        let hundred = ExactDecimal(100)
        switch condition {
        case .above(let level):
            guard let band = level.multiplied(by: h).flatMap({ $0.divided(by: hundred) }) else { return nil }
            return (o.price >= level, o.price < level - band)
        case .below(let level):
            guard let band = level.multiplied(by: h).flatMap({ $0.divided(by: hundred) }) else { return nil }
            return (o.price <= level, o.price > level + band)
        case .move(let percent):
            guard let prev = o.previousClose, !prev.isZero,
                  let move = (o.price - prev).multiplied(by: hundred).flatMap({ $0.divided(by: prev) })?.magnitude
            else { return nil }
            return (move >= percent, move < percent - h)
        case .stale(let seconds):
            let age = now - o.priceTime
            return (age >= seconds, age < seconds)
        }
    }

    /// One step: the alert at `now` with what is known, from `state`. Returns the new state and
    /// whether it fired at this step. Without an observation nothing changes (a stale alert needs one too).
    public static func step(_ alert: AlertConfig, _ observation: AlertObservation?, now: Int64,
                            state: AlertState) -> (state: AlertState, fired: Bool) {
        guard let condition = alert.condition, let o = observation,
              let (met, clear) = judge(condition, hysteresis: alert.hysteresis, o, now: now) else { return (state, false) }
        var s = state
        if case .move = condition, let moveDay = s.moveDay, moveDay != o.day.daysSinceEpoch { s.armed = true }
        if !s.armed {
            if clear { s.armed = true }
            return (s, false)
        }
        guard met else { return (s, false) }
        // Disarmed until the price goes back past the level: a restart is handed this state back,
        // so a condition that fired (today or before) does not fire again at boot.
        s.armed = false
        s.firedDay = CivilDate(unixTime: now).daysSinceEpoch
        s.firedAt = now
        s.moveDay = o.day.daysSinceEpoch
        return (s, true)
    }

    /// The condition in words, for the log and the banner: `above 300`, `move 5%`, `stale 30min`.
    public static func describe(_ condition: AlertConfig.Condition?) -> String {
        switch condition {
        case .above(let v): return "above \(v)"
        case .below(let v): return "below \(v)"
        case .move(let p): return "moved \(p)% or more"
        case .stale(let s): return s % 3600 == 0 ? "no price for \(s / 3600)h" : "no price for \(s / 60)min"
        case nil: return ""
        }
    }

    /// Alerts in effect at `now`: fired and not re-armed (the condition still holds or has not cleared).
    public static func active(_ alerts: [AlertConfig], states: [String: AlertState]) -> [String] {
        alerts.filter { a in states[a.name].map { !$0.armed && $0.firedAt != nil } ?? false }.map(\.name)
    }

    /// The banner's alerts at `now`: those fired within their banner time.
    public static func banners(_ alerts: [AlertConfig], states: [String: AlertState], now: Int64) -> [String] {
        alerts.filter { a in
            guard let at = states[a.name]?.firedAt else { return false }
            return now >= at && now - at < a.bannerSeconds
        }.map(\.name)
    }

    /// What is known at `now`: the newest bar at or before it (intraday when newer than the daily
    /// bars) and the close of the session before that bar's day, as the chart's 1D and the day
    /// change say it (README, "What the numbers mean"): the daily close before, else the last
    /// intraday print of the day before up to its closing auction (`calendar`); a `move` alert on an
    /// instrument with minute bars only never fired without it.
    public static func observation(daily: PriceSeries?, intraday: PriceSeries? = nil, field: PriceField,
                                   zone: ExchangeTimeZone = .utc, calendar: ExchangeCalendar? = nil,
                                   at now: Int64) -> AlertObservation? {
        func newest(_ series: PriceSeries?) -> PriceBar? {
            guard let series else { return nil }
            let i = series.firstIndex(atOrAfter: now + 1) - 1
            return i >= 0 && i < series.count ? series.bars[i] : nil
        }
        let d = newest(daily), m = newest(intraday)
        // A daily bar is stamped at its date's midnight UTC; an intraday one's day is the exchange's.
        // On the same day the minute bar is the newer price (a daily bar written during the session
        // is its price then), as on the chart.
        let useIntraday = m.map { bar in d.map { CivilDate(unixTime: $0.time) <= zone.localDateTime(atUnixTime: bar.time).date } ?? true } ?? false
        guard let bar = useIntraday ? m : d, let price = ExactDecimal(shortest: bar.price(field)) else { return nil }
        let day = useIntraday ? zone.localDateTime(atUnixTime: bar.time).date : CivilDate(unixTime: bar.time)
        var previous: ExactDecimal?
        if let daily {
            let j = daily.firstIndex(atOrAfter: day.unixTimeAtMidnightUTC) - 1
            if j >= 0, j < daily.count { previous = ExactDecimal(shortest: daily.bars[j].price(field)) }
        }
        if previous == nil, useIntraday, let intraday {
            // The day before with bars, and its last print up to the closing auction (after-hours
            // trading is not the close); an older day's close is not the previous close.
            var k = intraday.firstIndex(atOrAfter: zone.startOfDay(day)) - 1
            while k >= 0, zone.localDate(atUnixTime: intraday.bars[k].time) >= day { k -= 1 }
            if k >= 0 {
                let before = zone.localDate(atUnixTime: intraday.bars[k].time)
                let end = calendar?.session(on: before, zone: zone).map { $0.close + (calendar?.closingPrintSeconds ?? 0) }
                while k >= 0, zone.localDate(atUnixTime: intraday.bars[k].time) == before {
                    if end.map({ intraday.bars[k].time < $0 }) ?? true {
                        previous = ExactDecimal(shortest: intraday.bars[k].price(field))
                        break
                    }
                    k -= 1
                }
            }
        }
        return AlertObservation(price: price, previousClose: previous, priceTime: bar.time, day: day)
    }
}

extension Alerts {
    /// The state an alert reaches by `now` when judged at every bar of the last `days` days and at
    /// `now` (what a daemon running through them would hold): for `render --values`, which has no
    /// saved state.
    public static func replay(_ alert: AlertConfig, daily: PriceSeries?, field: PriceField, now: Int64,
                              days: Int64 = 30) -> AlertState {
        var state = AlertState()
        let start = now - days * 86_400
        var times = (daily?.bars ?? []).map(\.time).filter { $0 > start && $0 <= now }
        times.append(now)
        for t in times {
            state = step(alert, observation(daily: daily, field: field, at: t), now: t, state: state).state
        }
        return state
    }
}

extension AlertState {
    /// The states as the daemon saves them: one line per alert, `NAME armed|fired FIRED-DAY FIRED-AT MOVE-DAY`
    /// (`-` for none), sorted by name.
    public static func encode(_ states: [String: AlertState]) -> String {
        func field(_ v: (some BinaryInteger)?) -> String { v.map { String($0) } ?? "-" }
        return states.sorted { $0.key < $1.key }.map { name, s in
            [name, s.armed ? "armed" : "fired", field(s.firedDay), field(s.firedAt), field(s.moveDay)].joined(separator: " ")
        }.map { $0 + "\n" }.joined()
    }

    /// Reads what `encode` wrote; a line it cannot read is skipped (that alert starts armed).
    public static func decode(_ text: String) -> [String: AlertState] {
        var out: [String: AlertState] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 5, words[1] == "armed" || words[1] == "fired" else { continue }
            var s = AlertState()
            s.armed = words[1] == "armed"
            s.firedDay = Int(words[2])
            s.firedAt = Int64(words[3])
            s.moveDay = Int(words[4])
            if words[2] != "-" && s.firedDay == nil || words[3] != "-" && s.firedAt == nil || words[4] != "-" && s.moveDay == nil { continue }
            out[String(words[0])] = s
        }
        return out
    }
}
