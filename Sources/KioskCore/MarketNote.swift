// The header's small print about the market and the data: "Closed · opens Mon 09:30 · as of
// 16:00 EST · delayed 15 min · stale". One pure function, so the daemon and `render` say the same.
import Chart
import Feed

/// The market status line and what it is built from.
public struct MarketNote: Equatable, Sendable {
    /// The status words, e.g. `Closed · opens Mon 09:30`; nil when neither a calendar nor the
    /// provider says.
    public var status: String?
    /// `open`, `pre-market`, `lunch-break`, `after-hours`, `closed` (for `render --values` and the status file).
    public var state: String?
    /// The instant of the newest price, when known (the "as of" time).
    public var asOf: Int64?
    /// The whole line.
    public var text: String?
    /// When the status words next change (the daemon wakes up for it).
    public var nextChange: Int64?
    /// What keeps the prices from being fresh, in a few words (the fetcher's current problem, once
    /// it has lasted `FetchStatus.problemGrace`): `yahoo unreachable`; nil when nothing is wrong.
    public var problem: String?

    /// A provider's market state counts for this long after the fetch (it describes "now").
    static let providerStateLifetime: Int64 = 30 * 60

    /// - Parameters:
    ///   - newest: the newest series (intraday or daily) and whether it is stale, when there is data.
    ///   - alwaysShow: without a fetch status, show the line anyway (the daemon shows it only when
    ///     stale, as before, unless a calendar is known).
    ///   - countdown: "closes in 42 min" / "opens in 2 h 10 min" (`[chart] countdown = on`), the line
    ///     then changing once a minute.
    public init(calendar: ExchangeCalendar?, zone: ExchangeTimeZone, now: Int64, fetch: FetchStatus?,
                newest: PriceSeries?, staleness: Staleness?, phrases: Phrases = .english, countdown: Bool = false) {
        var parts: [String] = []
        // The provider's word wins while it is fresh (an unscheduled closure); otherwise the calendar.
        if let fetch, let word = fetch.marketState?.uppercased(), let at = fetch.fetchedAt ?? fetch.attemptedAt,
           now - at <= Self.providerStateLifetime, let state = Self.providerState(word) {
            self.state = state.rawValue
            var words = phrases.stateWord(state)
            if state == .closed, let calendar, let next = calendar.nextSession(after: now, zone: zone) {
                words += " · " + Phrases.fill(phrases.opens, ["t": MarketStatus.when(next.open, zone: zone, now: now, phrases: phrases)])
            }
            status = words
            nextChange = nil
        } else if let calendar {
            let market = MarketStatus(calendar: calendar, zone: zone, at: now)
            state = market.state.rawValue
            status = market.text(zone: zone, now: now, phrases: phrases, countdown: countdown)
            nextChange = market.nextChange
            if countdown, let target = market.countdownTarget(now: now) {
                // Its number changes each minute; so does the line (and, 12 hours ahead, it starts).
                nextChange = min(nextChange ?? .max, MarketStatus.nextCountdownChange(to: target, now: now))
            } else if countdown, let target = market.state == .open ? market.closesAt : market.nextOpen, target > now {
                nextChange = min(nextChange ?? .max, target - MarketStatus.countdownReach)
            }
        } else if let fetch, let word = fetch.marketState?.uppercased(), let state = Self.providerState(word) {
            self.state = state.rawValue
            status = phrases.stateWord(state)
            nextChange = nil
        }
        if let status { parts.append(status) }
        if let fetch, let t = fetch.lastPriceTime ?? (newest?.interval.isIntraday == true ? newest?.last?.time : nil) {
            asOf = t
        } else if fetch == nil, let newest, newest.interval.isIntraday, calendar != nil {
            asOf = newest.last?.time
        }
        if let asOf {
            parts.append(Phrases.fill(phrases.asOf, ["t": KioskCore.describe(asOf, in: zone, now: Double(now), phrases: phrases)]))
        } else if let staleness, fetch != nil || staleness.isStale {
            parts.append(staleness.text)
        }
        if let delay = fetch?.delaySeconds, delay > 0 {
            parts.append(Phrases.fill(phrases.delayedMinutes, ["n": String(max(1, delay / 60))]))
        }
        // The fetcher knows before `stale-after` does: a problem that lasts is said at once.
        if let fetch, let reason = fetch.reason(at: now) {
            problem = reason
            parts.append(fetch.fetchedAt.map {
                Phrases.fill(phrases.noUpdateSince, ["t": KioskCore.describe($0, in: zone, now: Double(now), phrases: phrases)]) + ": " + reason
            } ?? reason)
        } else if let fetch, fetch.reason != nil, let since = fetch.errorSince ?? fetch.attemptedAt {
            // Not yet: the line changes when the problem has lasted long enough.
            let due = since.addingReportingOverflow(FetchStatus.problemGrace)
            if !due.overflow, due.partialValue > now { nextChange = min(nextChange ?? .max, due.partialValue) }
        }
        if staleness?.isStale == true {
            // Without the fetcher's word the old line said "delayed · updated ..."; keep its sense.
            if fetch == nil && asOf == nil { parts.insert(phrases.delayed, at: status == nil ? 0 : 1) }
            parts.append(phrases.stale)
        }
        text = parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    static func providerState(_ word: String) -> MarketStatus.State? {
        switch word {
        case "REGULAR": return .open
        case "PRE", "PREPRE": return .preMarket
        case "POST", "POSTPOST": return .afterHours
        case "CLOSED": return .closed
        default: return nil
        }
    }
}
