// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), so dates can be
// converted without Foundation. The algorithms are Howard Hinnant's `days_from_civil` and
// `civil_from_days` (http://howardhinnant.github.io/date_algorithms.html): exact for every year an
// `Int` can hold, with no tables and no loops.

/// A day of the week. Raw values count from Sunday, as POSIX `tm_wday` and TZ rules do.
public enum Weekday: Int, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case sunday = 0, monday, tuesday, wednesday, thursday, friday, saturday

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    public var isWeekend: Bool { self == .saturday || self == .sunday }

    public var description: String {
        ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][rawValue]
    }

    /// `Mon`: the weekday in English, for logs and commands (the screen's words are `Phrases`).
    public var abbreviation: String { String(description.prefix(3)) }
}


/// A calendar date without a time zone (what an exchange calls "the trading day").
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    /// 1...12
    public let month: Int
    /// 1...31
    public let day: Int

    /// A validated date; nil for dates that do not exist (2023-02-29, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `daysSinceEpoch` days after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // March = 0
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The UTC date of a Unix time (for a daily `PriceBar`, its trading day).
    public init(unixTime: Int64) {
        self.init(daysSinceEpoch: Int(floorDivide(unixTime, 86_400)))
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Unix time of this date's midnight UTC: the `time` of a daily bar for this date.
    public var unixTimeAtMidnightUTC: Int64 { Int64(daysSinceEpoch) * 86_400 }

    public var weekday: Weekday { CivilDate.weekday(daysSinceEpoch: daysSinceEpoch) }

    /// 1 for January 1st.
    public var dayOfYear: Int {
        daysSinceEpoch - CivilDate(uncheckedYear: year, month: 1, day: 1).daysSinceEpoch + 1
    }

    public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// `2024-03-01` (ISO 8601), zero-padded; years outside 0...9999 get a sign as ISO allows.
    public var description: String {
        let yearText: String
        if (0...9999).contains(year) {
            yearText = zeroPadded(year, width: 4)
        } else {
            yearText = (year < 0 ? "-" : "+") + zeroPadded(abs(year), width: 4)
        }
        return "\(yearText)-\(zeroPadded(month, width: 2))-\(zeroPadded(day, width: 2))"
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func weekday(daysSinceEpoch days: Int) -> Weekday {
        // 1970-01-01 was a Thursday.
        Weekday(rawValue: floorModulo(days + 4, 7))!
    }

    /// The `n`th (1-based) `weekday` of a month, or with `n == -1` the last one.
    /// Holiday rules ("third Monday of January") and TZ rules ("M3.2.0") both need this.
    public static func nthWeekday(_ n: Int, _ weekday: Weekday, year: Int, month: Int) -> CivilDate {
        let first = CivilDate(uncheckedYear: year, month: month, day: 1)
        let firstMatch = 1 + floorModulo(weekday.rawValue - first.weekday.rawValue, 7)
        if n > 0 {
            var day = firstMatch + 7 * (n - 1)
            let length = daysInMonth(year: year, month: month)
            while day > length { day -= 7 }
            return CivilDate(uncheckedYear: year, month: month, day: day)
        }
        var day = firstMatch
        let length = daysInMonth(year: year, month: month)
        while day + 7 <= length { day += 7 }
        return CivilDate(uncheckedYear: year, month: month, day: day)
    }

    /// For callers that have already validated the fields (internal arithmetic).
    init(uncheckedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// A wall-clock date and time without a time zone, to the second.
public struct CivilDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let date: CivilDate
    /// 0...23
    public let hour: Int
    /// 0...59
    public let minute: Int
    /// 0...59 (leap seconds are not represented: Unix time has none)
    public let second: Int

    public init?(date: CivilDate, hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0) {
        guard let date = CivilDate(year: year, month: month, day: day) else { return nil }
        self.init(date: date, hour: hour, minute: minute, second: second)
    }

    /// The wall-clock reading at `unixTime` in a zone that is `utcOffset` seconds east of UTC.
    public init(unixTime: Int64, utcOffset: Int = 0) {
        let local = unixTime + Int64(utcOffset)
        date = CivilDate(daysSinceEpoch: Int(floorDivide(local, 86_400)))
        let secondOfDay = Int(floorModulo(local, 86_400))
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    /// Seconds since local midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    /// `09:05`: the clock as every screen and note shows it.
    public var hourMinute: String {
        (hour < 10 ? "0\(hour)" : "\(hour)") + ":" + (minute < 10 ? "0\(minute)" : "\(minute)")
    }

    /// The Unix time this reading would be if the zone were UTC; subtract the UTC offset to get the
    /// real instant (`ExchangeTimeZone.unixTime(for:)` does that, handling DST gaps and overlaps).
    public var secondsSinceEpochAsUTC: Int64 {
        Int64(date.daysSinceEpoch) * 86_400 + Int64(secondOfDay)
    }

    /// `2024-03-01 09:30:00`
    public var description: String {
        "\(date) \(zeroPadded(hour, width: 2)):\(zeroPadded(minute, width: 2)):\(zeroPadded(second, width: 2))"
    }

    public static func < (a: CivilDateTime, b: CivilDateTime) -> Bool {
        a.secondsSinceEpochAsUTC < b.secondsSinceEpochAsUTC
    }
}

/// `+05:30`, `-05:00`, `+00:00`: the ISO 8601 form yfinance writes after a local time.
public func formatUTCOffset(_ seconds: Int) -> String {
    let sign = seconds < 0 ? "-" : "+"
    let magnitude = abs(seconds)
    var text = "\(sign)\(zeroPadded(magnitude / 3600, width: 2)):\(zeroPadded(magnitude / 60 % 60, width: 2))"
    if magnitude % 60 != 0 { text += ":" + zeroPadded(magnitude % 60, width: 2) }
    return text
}

// MARK: - Small integer helpers shared by the module

@inlinable
func floorDivide<T: BinaryInteger>(_ a: T, _ b: T) -> T {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

@inlinable
func floorModulo<T: BinaryInteger>(_ a: T, _ b: T) -> T {
    let remainder = a % b
    return remainder != 0 && (remainder < 0) != (b < 0) ? remainder + b : remainder
}

func zeroPadded(_ value: Int, width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
