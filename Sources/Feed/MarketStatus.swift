// Where a market is in its day — open, pre-market, lunch, after hours, closed — and when that
// changes, from the exchange calendar and a moment. Pure: the header's words ("Closed · opens Mon
// 09:30", in the exchange's time) and the daemon's next wake-up come from the same answer.

/// The state of an exchange at one moment.
public struct MarketStatus: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        case open
        case preMarket = "pre-market"
        case lunchBreak = "lunch-break"
        case afterHours = "after-hours"
        case closed
    }

    public var state: State
    /// The start of the next regular trading (the open, or the end of the lunch break); nil when
    /// open or for an around-the-clock market.
    public var nextOpen: Int64?
    /// When `state` next changes (to wake up for it); nil when it never does.
    public var nextChange: Int64?
    /// While open: the session's close, when no lunch break comes before it.
    public var closesAt: Int64?

    /// Computes the state at `time`. `extendedHours` false leaves out pre-market and after hours
    /// (a market whose data has none of it, or a calendar without extended hours).
    public init(calendar: ExchangeCalendar, zone: ExchangeTimeZone, at time: Int64, extendedHours: Bool = true) {
        if calendar.isAlwaysOpen {
            state = .open
            nextOpen = nil
            nextChange = nil
            return
        }
        let today = zone.localDate(atUnixTime: time)
        let extended = extendedHours ? calendar.extendedHours : nil
        // Today's session first, then the next ones: which window is `time` in?
        var found: (State, Int64?, Int64?)?
        for ahead in 0...30 {
            let date = today.adding(days: ahead)
            guard let s = calendar.session(on: date, zone: zone) else { continue }
            let preOpen = extended.map { ExchangeCalendar.instant(date, $0.preOpen, zone) } ?? s.open
            let postClose = extended.map { ExchangeCalendar.instant(date, max($0.postClose, 0), zone) } ?? s.close
            if time < preOpen {
                found = (.closed, s.open, preOpen)
            } else if time < s.open {
                found = (.preMarket, s.open, s.open)
            } else if let lunch = s.lunch, lunch.contains(time) {
                found = (.lunchBreak, lunch.upperBound, lunch.upperBound)
            } else if time < s.close {
                found = (.open, nil, s.lunch.map { time < $0.lowerBound ? $0.lowerBound : s.close } ?? s.close)
                closesAt = found?.2 == s.close ? s.close : nil
            } else if time < max(postClose, s.close) {
                found = (.afterHours, nil, postClose)
            } else {
                continue
            }
            break
        }
        let (state, open, change) = found ?? (.closed, nil, nil)
        self.state = state
        self.nextChange = change
        // After hours and while closed the next open is the next session's.
        if open == nil, state != .open {
            nextOpen = calendar.nextSession(after: time, zone: zone)?.open
        } else {
            nextOpen = open
        }
    }

    /// The header's words: "Open", "Pre-market", "Lunch break · reopens 12:30", "After hours",
    /// "Closed · opens Mon 09:30" (the next open in the exchange's time: the clock alone when it is
    /// today, the weekday within a week, else the date), in the language of `phrases`.
    public func text(zone: ExchangeTimeZone, now: Int64, phrases: Phrases = .english, countdown: Bool = false) -> String {
        let word = phrases.stateWord(state)
        if countdown, let target = countdownTarget(now: now) {
            let template = state == .open ? phrases.closesIn : state == .lunchBreak ? phrases.reopensIn : phrases.opensIn
            return word + " · " + Phrases.fill(template, ["d": phrases.duration(seconds: target - now)])
        }
        guard let nextOpen, state == .lunchBreak || state == .closed else { return word }
        let when = Self.when(nextOpen, zone: zone, now: now, phrases: phrases)
        return word + " · " + Phrases.fill(state == .lunchBreak ? phrases.reopens : phrases.opens, ["t": when])
    }

    /// What the countdown counts to at `now`: the close while open, the next open while closed, in
    /// pre-market or at lunch, when it is at most `countdownReach` away; nil otherwise (a weekend's
    /// wait is said as "opens Mon 09:30").
    public func countdownTarget(now: Int64) -> Int64? {
        let target = state == .open ? closesAt : state == .afterHours ? nil : nextOpen
        guard let target, target > now, target - now <= Self.countdownReach else { return nil }
        return target
    }
    public static let countdownReach: Int64 = 12 * 3600

    /// When a countdown to `target` next shows another number (it counts whole minutes, rounded up).
    public static func nextCountdownChange(to target: Int64, now: Int64) -> Int64 {
        let left = target - now
        return now + (left % 60 == 0 ? 60 : left % 60)
    }

    /// `09:30` today, `Mon 09:30` within six days, `2 Jan 09:30` beyond.
    public static func when(_ time: Int64, zone: ExchangeTimeZone, now: Int64, phrases: Phrases = .english) -> String {
        let t = zone.localDateTime(atUnixTime: time)
        let today = zone.localDate(atUnixTime: now)
        let clock = t.hourMinute
        let days = t.date.daysSinceEpoch - today.daysSinceEpoch
        if days == 0 { return clock }
        if days > 0 && days < 7 { return phrases.weekdayTime(t.date.weekday, clock) }
        return phrases.date(t.date) + " " + clock
    }
}
