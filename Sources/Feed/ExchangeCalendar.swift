// Trading calendars as data: an exchange is its regular hours (in eras, because hours change), its
// lunch break, and lists of holiday and early-close rules ("Easter Monday", "first Monday of May",
// "December 26, or the next free weekday") plus small tables where history is irregular (one-off
// closures). One small engine evaluates them, so adding an exchange is adding a value, and the
// definitions in ExchangeCalendars.swift read like the exchanges' own notices. Pure: no clock, no I/O.

/// One trading session: its calendar date at the exchange, open and close, and the lunch break.
public struct TradingSession: Sendable, Equatable, CustomStringConvertible {
    public var date: CivilDate
    /// Unix seconds.
    public var open: Int64
    public var close: Int64
    /// The midday pause (Tokyo, Hong Kong) as unix seconds, when the day has one.
    public var lunch: Range<Int64>?
    public var isEarlyClose: Bool

    public init(date: CivilDate, open: Int64, close: Int64, lunch: Range<Int64>? = nil, isEarlyClose: Bool = false) {
        self.date = date
        self.open = open
        self.close = close
        self.lunch = lunch
        self.isEarlyClose = isEarlyClose
    }

    /// True while trading: within [open, close) and not in the lunch break.
    public func isTrading(at time: Int64) -> Bool {
        guard time >= open, time < close else { return false }
        if let lunch, lunch.contains(time) { return false }
        return true
    }

    public var description: String { "\(date) \(open)..<\(close)" }
}

/// The hours of one day in local seconds after midnight.
public struct LocalHours: Sendable, Equatable {
    public var open: Int
    public var close: Int
    public var lunch: Range<Int>?
    public var isEarlyClose: Bool

    public init(open: Int, close: Int, lunch: Range<Int>? = nil, isEarlyClose: Bool = false) {
        self.open = open
        self.close = close
        self.lunch = lunch
        self.isEarlyClose = isEarlyClose
    }
}

/// A day of the year a rule names, before any weekend observance.
public enum DayRule: Sendable {
    case fixed(month: Int, day: Int)
    /// The nth weekday of a month (n = -1: the last).
    case nth(Int, Weekday, month: Int)
    /// The last `weekday` on or before a date (Canada's Victoria Day: the Monday before May 25).
    case weekdayOnOrBefore(Weekday, month: Int, day: Int)
    /// Days after Easter Sunday (Good Friday -2, Easter Monday 1, Ascension 39, Whit Monday 50).
    case easter(Int)
    /// A date of the Chinese lunisolar calendar (Hong Kong), plus `offset` days.
    case lunar(LunarFestival, offset: Int)
    /// Japan's equinox days (Shunbun no Hi, Shūbun no Hi), from the astronomical formula.
    case vernalEquinox, autumnalEquinox
    /// The Qingming solar term (Ching Ming Festival, Hong Kong).
    case qingming
    /// Hong Kong's substitute when one of the three Lunar New Year days is a Sunday: the eve
    /// until `eveUntil`, the fourth day after (the General Holidays Ordinance as amended).
    case lunarNewYearSundaySubstitute(eveUntil: Int)
    /// Another rule's day moved by some days (the day after Thanksgiving).
    indirect case shifted(DayRule, Int)
    /// Explicit dates (one-off closures, moved holidays); only those in the year asked for count.
    case dates([CivilDate])

    func dates(in year: Int) -> [CivilDate] {
        switch self {
        case .fixed(let month, let day):
            return CivilDate(year: year, month: month, day: day).map { [$0] } ?? []
        case .nth(let n, let weekday, let month):
            return [CivilDate.nthWeekday(n, weekday, year: year, month: month)]
        case .weekdayOnOrBefore(let weekday, let month, let day):
            guard let anchor = CivilDate(year: year, month: month, day: day) else { return [] }
            let back = ((anchor.weekday.rawValue - weekday.rawValue) % 7 + 7) % 7
            return [anchor.adding(days: -back)]
        case .easter(let offset):
            return [NYSECalendar.easterSunday(year: year).adding(days: offset)]
        case .lunar(let festival, let offset):
            return Lunisolar.date(festival, year: year).map { [$0.adding(days: offset)] } ?? []
        case .vernalEquinox:
            return [CivilDate(uncheckedYear: year, month: 3, day: JapaneseEquinox.day(year: year, vernal: true))]
        case .autumnalEquinox:
            return [CivilDate(uncheckedYear: year, month: 9, day: JapaneseEquinox.day(year: year, vernal: false))]
        case .qingming:
            return [CivilDate(uncheckedYear: year, month: 4, day: Lunisolar.qingmingDay(year: year))]
        case .lunarNewYearSundaySubstitute(let eveUntil):
            guard let first = Lunisolar.date(.newYear, year: year),
                  (0...2).contains(where: { first.adding(days: $0).weekday == .sunday })
            else { return [] }
            return [year <= eveUntil ? first.adding(days: -1) : first.adding(days: 3)]
        case .shifted(let rule, let offset):
            return rule.dates(in: year).map { $0.adding(days: offset) }
        case .dates(let list):
            return list.filter { $0.year == year }
        }
    }
}

/// What happens when a holiday falls on a weekend (or on another holiday).
public enum Observance: Sendable {
    /// Kept on its day; on a weekend it costs no session.
    case none
    /// Sunday moves to Monday; Saturday is lost.
    case sundayToMonday
    /// Saturday and Sunday both move to Monday.
    case weekendToMonday
    /// Saturday to the Friday before, Sunday to the Monday after (US federal).
    case nearestWeekday
    /// A weekend day, or a day another holiday already took, moves to the next free weekday
    /// (UK and Australian Christmas and Boxing Day, Hong Kong's festivals).
    case nextFreeWeekday
    /// Kept on its day, weekend or not, unless another holiday took it: then the next free weekday.
    case nextFreeIfTaken
    /// Saturday is lost; Sunday, or a weekday another holiday already took, moves to the next weekday
    /// that is no holiday (Japan's furikae kyūjitsu, Hong Kong's festivals).
    case sundayToNextFree
}

/// A full-day closure rule, valid in a span of years.
public struct HolidayRule: Sendable {
    public var name: String
    public var day: DayRule
    public var observance: Observance
    public var years: ClosedRange<Int>

    public init(_ name: String, _ day: DayRule, _ observance: Observance = .none, years: ClosedRange<Int> = Int.min...Int.max) {
        self.name = name
        self.day = day
        self.observance = observance
        self.years = years
    }
}

/// A shortened session: the day (or, when it falls on a weekend, the weekday before) closes early.
public struct EarlyCloseRule: Sendable {
    public var name: String
    public var day: DayRule
    /// Move a weekend date to the Friday before (London's "last business day before Christmas").
    public var weekendToFriday: Bool
    /// Local close in seconds after midnight; nil: the morning session only (closes at lunch).
    public var close: Int?
    public var years: ClosedRange<Int>

    public init(_ name: String, _ day: DayRule, close: Int?, weekendToFriday: Bool = false, years: ClosedRange<Int> = Int.min...Int.max) {
        self.name = name
        self.day = day
        self.close = close
        self.weekendToFriday = weekendToFriday
        self.years = years
    }
}

/// Regular hours from a date on (until the next era).
public struct HoursEra: Sendable {
    public var from: CivilDate?
    public var open: Int
    public var close: Int
    public var lunch: Range<Int>?

    public init(from: CivilDate? = nil, open: Int, close: Int, lunch: Range<Int>? = nil) {
        self.from = from
        self.open = open
        self.close = close
        self.lunch = lunch
    }
}

/// An exchange's calendar: which days trade and when.
public struct ExchangeCalendar: Sendable {
    /// A weekday without a session, and why.
    public struct Holiday: Sendable, Equatable, CustomStringConvertible {
        public let date: CivilDate
        public let name: String
        public var description: String { "\(date) \(name)" }
    }

    /// ISO 10383 market identifier code (`XNYS`), or `24/7` for the around-the-clock calendar.
    public let mic: String
    public let name: String
    /// The IANA zone the hours are in.
    public let timeZoneIdentifier: String
    /// Trades every day around the clock (crypto): every calendar day is one session, midnight to
    /// midnight in the calendar's zone.
    public let isAlwaysOpen: Bool
    let eras: [HoursEra]
    let holidayRules: [HolidayRule]
    let earlyCloseRules: [EarlyCloseRule]
    /// Japan: a weekday between two holidays is one too (kokumin no kyūjitsu).
    let sandwichedDaysAreHolidays: Bool
    /// Extended hours (pre-market from, after-hours until), local seconds; nil: none are traded.
    public let extendedHours: (preOpen: Int, postClose: Int)?

    public init(
        mic: String, name: String, timeZone: String, eras: [HoursEra], holidays: [HolidayRule],
        earlyCloses: [EarlyCloseRule] = [], sandwichedDaysAreHolidays: Bool = false,
        extendedHours: (preOpen: Int, postClose: Int)? = nil, alwaysOpen: Bool = false
    ) {
        self.mic = mic
        self.name = name
        self.timeZoneIdentifier = timeZone
        self.eras = eras
        self.holidayRules = holidays
        self.earlyCloseRules = earlyCloses
        self.sandwichedDaysAreHolidays = sandwichedDaysAreHolidays
        self.extendedHours = extendedHours
        self.isAlwaysOpen = alwaysOpen
    }

    /// How long after the regular close the close is still being made: the closing auction's print
    /// (Xetra, Euronext and London 5 min, Hong Kong and Toronto 10, Sydney 12; New York's cross and
    /// SIX's auction end at the calendar's close) plus 2 minutes in which index providers publish
    /// theirs. The last print of a session day before then is its close. 0 where nothing is made
    /// after the close: a bar stamped at the close itself (Yahoo stamps a bar with its start, so its
    /// New York 16:00 bar is 16:00-16:15) is after-hours trading there.
    public var closingPrintSeconds: Int64 {
        let auction: Int64
        switch mic {
        case "XETR", "XPAR", "XAMS", "XLON": auction = 5 * 60
        case "XHKG", "XTSE": auction = 10 * 60
        case "XASX": auction = 12 * 60
        default: auction = 0
        }
        return isAlwaysOpen || auction == 0 ? 0 : auction + 2 * 60
    }

    // MARK: Days

    /// Every weekday in `year` without a session, in date order.
    public func holidays(in year: Int) -> [Holiday] {
        if isAlwaysOpen { return [] }
        // Observance looks past every rule's own date, not only the ones placed so far: a Sunday
        // holiday's substitute skips the holidays that follow it (Japan's Golden Week).
        let rules = holidayRules.filter { $0.years.contains(year) }
        var raw: Set<CivilDate> = []
        for rule in rules { raw.formUnion(rule.day.dates(in: year)) }
        var taken: [CivilDate: String] = [:]
        for rule in rules {
            for day in rule.day.dates(in: year) {
                let placed = observed(day, rule.observance, raw: raw, taken: taken)
                if taken[placed] == nil { taken[placed] = rule.name }
            }
        }
        if sandwichedDaysAreHolidays {
            let holidays = raw.union(taken.keys)
            for day in holidays {
                let next = day.adding(days: 1)
                if !holidays.contains(next), holidays.contains(day.adding(days: 2)), taken[next] == nil {
                    taken[next] = "Citizens' Holiday"
                }
            }
        }
        return taken.filter { $0.key.year == year && !$0.key.weekday.isWeekend }
            .map { Holiday(date: $0.key, name: $0.value) }
            .sorted { $0.date < $1.date }
    }

    private func observed(_ day: CivilDate, _ observance: Observance, raw: Set<CivilDate>, taken: [CivilDate: String]) -> CivilDate {
        switch observance {
        case .none:
            return day
        case .sundayToMonday:
            return day.weekday == .sunday ? day.adding(days: 1) : day
        case .weekendToMonday:
            switch day.weekday {
            case .saturday: return day.adding(days: 2)
            case .sunday: return day.adding(days: 1)
            default: return day
            }
        case .nearestWeekday:
            switch day.weekday {
            case .saturday: return day.adding(days: -1)
            case .sunday: return day.adding(days: 1)
            default: return day
            }
        case .nextFreeWeekday:
            if !day.weekday.isWeekend && taken[day] == nil { return day }
            var d = day.adding(days: 1)
            while d.weekday.isWeekend || taken[d] != nil || raw.contains(d) { d = d.adding(days: 1) }
            return d
        case .nextFreeIfTaken:
            guard taken[day] != nil else { return day }
            var d = day.adding(days: 1)
            while d.weekday.isWeekend || taken[d] != nil || raw.contains(d) { d = d.adding(days: 1) }
            return d
        case .sundayToNextFree:
            guard day.weekday == .sunday || (day.weekday != .saturday && taken[day] != nil) else { return day }
            var d = day.adding(days: 1)
            while d.weekday.isWeekend || taken[d] != nil || raw.contains(d) { d = d.adding(days: 1) }
            return d
        }
    }

    public func isTradingDay(_ date: CivilDate) -> Bool {
        if isAlwaysOpen { return true }
        return !date.weekday.isWeekend && !holidays(in: date.year).contains { $0.date == date }
    }

    /// The regular hours in force on `date` (ignoring holidays and early closes).
    public func era(on date: CivilDate) -> HoursEra {
        var current = eras[0]
        for era in eras.dropFirst() {
            if let from = era.from, from <= date { current = era }
        }
        return current
    }

    /// The day's hours in local seconds after midnight; nil when the exchange is closed.
    public func localHours(on date: CivilDate) -> LocalHours? {
        localHours(on: date, closed: Set(holidays(in: date.year).map(\.date)))
    }

    /// `closed`: the holidays of `date`'s year, when the caller has them (a run of days).
    private func localHours(on date: CivilDate, closed: Set<CivilDate>) -> LocalHours? {
        if isAlwaysOpen { return LocalHours(open: 0, close: 86_400) }
        guard !date.weekday.isWeekend, !closed.contains(date) else { return nil }
        let era = era(on: date)
        var hours = LocalHours(open: era.open, close: era.close, lunch: era.lunch)
        if let early = earlyClose(on: date) {
            hours.isEarlyClose = true
            if let close = early {
                hours.close = close
                if let lunch = hours.lunch, close <= lunch.upperBound { hours.lunch = nil; hours.close = min(close, lunch.lowerBound) }
            } else if let lunch = hours.lunch {
                hours.close = lunch.lowerBound
                hours.lunch = nil
            }
        }
        return hours
    }

    /// The name of the early-close rule that shortens `date` ("Christmas Eve"); nil on a full day.
    public func earlyCloseName(on date: CivilDate) -> String? {
        for rule in earlyCloseRules where rule.years.contains(date.year) {
            for var day in rule.day.dates(in: date.year) {
                if rule.weekendToFriday {
                    if day.weekday == .saturday { day = day.adding(days: -1) }
                    if day.weekday == .sunday { day = day.adding(days: -2) }
                }
                if day == date { return rule.name }
            }
        }
        return nil
    }

    /// nil: a full day; .some(nil): morning only; .some(close): closes at `close`.
    private func earlyClose(on date: CivilDate) -> Int?? {
        for rule in earlyCloseRules where rule.years.contains(date.year) {
            for var day in rule.day.dates(in: date.year) {
                if rule.weekendToFriday {
                    if day.weekday == .saturday { day = day.adding(days: -1) }
                    if day.weekday == .sunday { day = day.adding(days: -2) }
                }
                if day == date { return .some(rule.close) }
            }
        }
        return nil
    }

    // MARK: Instants

    /// The session on `date` in `zone` (the calendar's own zone, loaded by the caller).
    public func session(on date: CivilDate, zone: ExchangeTimeZone) -> TradingSession? {
        session(on: date, zone: zone, closed: Set(holidays(in: date.year).map(\.date)))
    }

    private func session(on date: CivilDate, zone: ExchangeTimeZone, closed: Set<CivilDate>) -> TradingSession? {
        guard let hours = localHours(on: date, closed: closed) else { return nil }
        let open = Self.instant(date, hours.open, zone)
        let close = Self.instant(date, hours.close, zone)
        // In a zone whose clock jumps inside the session (any rule a config can name, not only the
        // exchange's own), local hours can map to instants out of order: no session then, and no
        // lunch break rather than a backwards one.
        guard open < close else { return nil }
        let lunch = hours.lunch.flatMap { l -> Range<Int64>? in
            let a = Self.instant(date, l.lowerBound, zone), b = Self.instant(date, l.upperBound, zone)
            return a < b && open <= a && b <= close ? a..<b : nil
        }
        return TradingSession(date: date, open: open, close: close, lunch: lunch, isEarlyClose: hours.isEarlyClose)
    }

    /// Every session from `start` through `end`, ascending. Works a year of holidays at a time.
    public func sessions(from start: CivilDate, through end: CivilDate, zone: ExchangeTimeZone) -> [TradingSession] {
        guard start <= end else { return [] }
        var result: [TradingSession] = []
        var day = start
        var closedYear = Int.min
        var closed: Set<CivilDate> = []
        while day <= end {
            if day.year != closedYear {
                closedYear = day.year
                closed = Set(holidays(in: closedYear).map(\.date))
            }
            if let s = session(on: day, zone: zone, closed: closed) { result.append(s) }
            day = day.adding(days: 1)
        }
        return result
    }

    /// The last session that opened at or before `time` (today's while open or after the close).
    public func latestSession(atOrBefore time: Int64, zone: ExchangeTimeZone) -> TradingSession? {
        let today = zone.localDate(atUnixTime: time)
        for back in 0...30 {
            if let s = session(on: today.adding(days: -back), zone: zone), s.open <= time { return s }
        }
        return nil
    }

    /// The first session that opens after `time`.
    public func nextSession(after time: Int64, zone: ExchangeTimeZone) -> TradingSession? {
        let today = zone.localDate(atUnixTime: time)
        for ahead in 0...30 {
            if let s = session(on: today.adding(days: ahead), zone: zone), s.open > time { return s }
        }
        return nil
    }

    /// The session before the one on `date` (the "previous close" of a 1D chart).
    public func previousSession(before date: CivilDate, zone: ExchangeTimeZone) -> TradingSession? {
        for back in 1...30 {
            if let s = session(on: date.adding(days: -back), zone: zone) { return s }
        }
        return nil
    }

    static func instant(_ date: CivilDate, _ secondOfDay: Int, _ zone: ExchangeTimeZone) -> Int64 {
        if secondOfDay >= 86_400 { return zone.startOfDay(date.adding(days: secondOfDay / 86_400)) + Int64(secondOfDay % 86_400) }
        return zone.unixTime(
            for: CivilDateTime(date: date, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)!)
    }
}

/// Japan's equinox days: the day (in March or September) of the equinox in Japan Standard Time, by
/// the National Astronomical Observatory's approximation, good for 1980-2099.
enum JapaneseEquinox {
    static func day(year: Int, vernal: Bool) -> Int {
        let y = Double(year - 1980)
        let base = vernal ? 20.8431 : 23.2488
        return Int(base + 0.242194 * y) - (year - 1980) / 4
    }
}
