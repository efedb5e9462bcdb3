// The New York Stock Exchange trading calendar, computed from its rules rather than a table, so it
// never runs out: the sample market needs it to skip closed days, and a chart's "trading time" axis
// needs to know which days have sessions. Rules as in NYSE Rule 7.2 and its holiday notices;
// MLK Day from 1998 and Juneteenth from 2022. The rule-based part is right from 1998 on; earlier
// years miss holidays the exchange no longer keeps (e.g. Lincoln's Birthday before 1954, election days).

/// NYSE sessions: full-day closures, early closes and the trading days between two dates.
public enum NYSECalendar {
    /// A weekday on which the exchange is closed.
    public struct Holiday: Sendable, Equatable, CustomStringConvertible {
        public let date: CivilDate
        public let name: String

        public var description: String { "\(date) \(name)" }
    }

    /// The regular session, in seconds after midnight New York time: 09:30–16:00.
    public static let regularOpen = 9 * 3600 + 30 * 60
    public static let regularClose = 16 * 3600
    /// Early-close days end at 13:00.
    public static let earlyClose = 13 * 3600

    /// Unscheduled closures that no rule predicts (days of mourning, hurricanes, September 2001).
    static let specialClosures: [(date: CivilDate, name: String)] = [
        (CivilDate(uncheckedYear: 1985, month: 9, day: 27), "Hurricane Gloria"),
        (CivilDate(uncheckedYear: 1994, month: 4, day: 27), "National Day of Mourning for Richard Nixon"),
        (CivilDate(uncheckedYear: 2001, month: 9, day: 11), "September 11 attacks"),
        (CivilDate(uncheckedYear: 2001, month: 9, day: 12), "September 11 attacks"),
        (CivilDate(uncheckedYear: 2001, month: 9, day: 13), "September 11 attacks"),
        (CivilDate(uncheckedYear: 2001, month: 9, day: 14), "September 11 attacks"),
        (CivilDate(uncheckedYear: 2004, month: 6, day: 11), "National Day of Mourning for Ronald Reagan"),
        (CivilDate(uncheckedYear: 2007, month: 1, day: 2), "National Day of Mourning for Gerald Ford"),
        (CivilDate(uncheckedYear: 2012, month: 10, day: 29), "Hurricane Sandy"),
        (CivilDate(uncheckedYear: 2012, month: 10, day: 30), "Hurricane Sandy"),
        (CivilDate(uncheckedYear: 2018, month: 12, day: 5), "National Day of Mourning for George H. W. Bush"),
        (CivilDate(uncheckedYear: 2025, month: 1, day: 9), "National Day of Mourning for Jimmy Carter"),
    ]

    /// Every weekday in `year` on which the exchange is closed, in date order.
    public static func holidays(in year: Int) -> [Holiday] {
        func date(_ month: Int, _ day: Int) -> CivilDate { CivilDate(uncheckedYear: year, month: month, day: day) }
        func monday(_ n: Int, of month: Int) -> CivilDate { CivilDate.nthWeekday(n, .monday, year: year, month: month) }

        var list: [Holiday] = []
        func add(_ day: CivilDate?, _ name: String) {
            if let day, !day.weekday.isWeekend { list.append(Holiday(date: day, name: name)) }
        }

        // New Year's Day on a Saturday is not moved to Friday: that Friday ends the year's last
        // accounting period, so Rule 7.2 keeps the market open (e.g. 2021-12-31 was a trading day).
        let newYear = date(1, 1)
        add(newYear.weekday == .sunday ? newYear.adding(days: 1) : newYear, "New Year's Day")
        if year >= 1998 { add(monday(3, of: 1), "Martin Luther King Jr. Day") }
        add(monday(3, of: 2), "Washington's Birthday")
        add(easterSunday(year: year).adding(days: -2), "Good Friday")
        add(monday(-1, of: 5), "Memorial Day")
        if year >= 2022 { add(observed(date(6, 19)), "Juneteenth") }
        add(observed(date(7, 4)), "Independence Day")
        add(monday(1, of: 9), "Labor Day")
        add(CivilDate.nthWeekday(4, .thursday, year: year, month: 11), "Thanksgiving Day")
        add(observed(date(12, 25)), "Christmas Day")
        for closure in specialClosures where closure.date.year == year {
            add(closure.date, closure.name)
        }
        list.sort { $0.date < $1.date }
        return list
    }

    /// Saturday holidays are kept on the Friday before, Sunday ones on the Monday after.
    private static func observed(_ day: CivilDate) -> CivilDate {
        switch day.weekday {
        case .saturday: return day.adding(days: -1)
        case .sunday: return day.adding(days: 1)
        default: return day
        }
    }

    public static func isTradingDay(_ date: CivilDate) -> Bool {
        !date.weekday.isWeekend && !holidays(in: date.year).contains { $0.date == date }
    }

    /// True for the 13:00 closes: the day after Thanksgiving, and July 3 and December 24 when they
    /// are trading days.
    public static func isEarlyClose(_ date: CivilDate) -> Bool {
        guard isTradingDay(date) else { return false }
        if date.month == 11 {
            return date == CivilDate.nthWeekday(4, .thursday, year: date.year, month: 11).adding(days: 1)
        }
        return (date.month == 7 && date.day == 3) || (date.month == 12 && date.day == 24)
    }

    /// The session's open and close in seconds after midnight New York time; nil when closed.
    public static func session(on date: CivilDate) -> (open: Int, close: Int)? {
        guard isTradingDay(date) else { return nil }
        return (regularOpen, isEarlyClose(date) ? earlyClose : regularClose)
    }

    /// All trading days from `start` through `end`, ascending. Works a year of holidays at a time,
    /// so decades cost microseconds.
    public static func tradingDays(from start: CivilDate, through end: CivilDate) -> [CivilDate] {
        guard start <= end else { return [] }
        var result: [CivilDate] = []
        var closed: Set<CivilDate> = []
        var closedYear = Int.min
        var day = start.daysSinceEpoch
        let last = end.daysSinceEpoch
        while day <= last {
            let date = CivilDate(daysSinceEpoch: day)
            if date.year != closedYear {
                closedYear = date.year
                closed = Set(holidays(in: closedYear).map(\.date))
            }
            if !date.weekday.isWeekend && !closed.contains(date) { result.append(date) }
            day += 1
        }
        return result
    }

    /// Easter Sunday (Gregorian), by the anonymous Gregorian computus (Meeus/Jones/Butcher).
    public static func easterSunday(year: Int) -> CivilDate {
        let a = year % 19
        let b = year / 100
        let c = year % 100
        let d = b / 4
        let e = b % 4
        let f = (b + 8) / 25
        let g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4
        let k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return CivilDate(uncheckedYear: year, month: month, day: day)
    }
}
