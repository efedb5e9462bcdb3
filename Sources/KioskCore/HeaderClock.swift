// The header's clock (`[chart] clock`): the time of day in the wall's zone or the exchange's, as
// the market line writes times (`14:32`, `09:32 EST`). A pure function of the wall clock; the core
// asks again at the next minute, and only then, so an idle wall wakes once a minute for it.
import Feed

/// Whose time of day the header shows.
public enum ClockMode: String, Sendable, CaseIterable {
    case off
    /// The wall's own zone (`/etc/localtime`, or `[power] timezone`), without a zone name: the
    /// time people in the room read.
    case local
    /// The instrument's exchange's, with its zone's abbreviation: the time the market runs on.
    case exchange
}

public struct HeaderClock: Equatable, Sendable {
    /// The words, nil when off (or the wall clock is not set yet: 1970 is not a time to show).
    public var text: String?
    /// When the words next change: the next whole minute.
    public var nextChange: Int64?
    /// Earlier than this (2000-01-01) the wall clock has not been set: a board without a battery
    /// clock boots in 1970. (`render --now` may well show 2013.)
    public static let earliestPlausibleTime = 946_684_800.0

    public init(mode: ClockMode, now: Int64, localZone: ExchangeTimeZone, exchangeZone: ExchangeTimeZone?,
                phrases: Phrases = .english, clockSet: Bool = true) {
        guard mode != .off, clockSet else { return }
        let zone = mode == .exchange ? exchangeZone ?? localZone : localZone
        let t = zone.localDateTime(atUnixTime: now)
        text = mode == .exchange ? t.hourMinute + " " + phrases.zone(zone.abbreviation(atUnixTime: now)) : t.hourMinute
        // Whole minutes of Unix time are whole minutes in every zone in use (offsets are whole minutes).
        nextChange = (now / 60 + 1) * 60
    }
}
