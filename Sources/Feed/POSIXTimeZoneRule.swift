// POSIX TZ rule strings such as `CET-1CEST,M3.5.0,M10.5.0/3` or `EST5EDT,M3.2.0,M11.1.0`.
//
// Every TZif v2+ file ends with one; it gives local time after the file's last transition. Debian
// still ships "fat" files with transitions listed to 2037, but upstream's default is "slim" files
// that stop at the last rule change and leave every later year to this string, so without it a
// slim New York would stay on its 2007 offset forever. Grammar: POSIX.1-2017 §8.3 plus the RFC 8536
// extensions (angle-bracket names, transition times from -167 to 167 hours).

/// A parsed POSIX TZ string: a standard offset and, optionally, a yearly daylight-saving rule.
struct POSIXTimeZoneRule: Sendable, Equatable {
    /// One end of daylight saving time: a day rule and the local time of day it happens at.
    struct Transition: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// `Jn`: day 1...365, February 29 never counted (so March 1 is always J60).
            case julianIgnoringLeapDay(Int)
            /// `n`: day 0...365, February 29 counted in leap years.
            case zeroBasedDayOfYear(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1...4, 5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        /// Seconds after local midnight (in the time in force before the transition); may be
        /// negative or beyond 24 h.
        var time: Int

        func date(inYear year: Int) -> CivilDate {
            switch day {
            case .julianIgnoringLeapDay(let n):
                let leapShift = CivilDate.isLeapYear(year) && n >= 60 ? 1 : 0
                return CivilDate(uncheckedYear: year, month: 1, day: 1).adding(days: n - 1 + leapShift)
            case .zeroBasedDayOfYear(let n):
                return CivilDate(uncheckedYear: year, month: 1, day: 1).adding(days: n)
            case .monthWeekDay(let month, let week, let weekday):
                return CivilDate.nthWeekday(
                    week == 5 ? -1 : week,
                    Weekday(rawValue: weekday)!,
                    year: year,
                    month: month
                )
            }
        }
    }

    struct DaylightSaving: Sendable, Equatable {
        var abbreviation: String
        /// Seconds east of UTC while daylight saving time is in force.
        var utcOffset: Int
        var start: Transition
        var end: Transition
    }

    var standardAbbreviation: String
    /// Seconds east of UTC (note: the TZ string writes the opposite sign, `EST5` is UTC-5).
    var standardOffset: Int
    var daylightSaving: DaylightSaving?

    /// What the rule says for the instant `unixTime`.
    func localTimeType(atUnixTime unixTime: Int64) -> LocalTimeType {
        let standard = LocalTimeType(
            utcOffset: standardOffset,
            isDaylightSaving: false,
            abbreviation: standardAbbreviation
        )
        guard let dst = daylightSaving else { return standard }
        let daylight = LocalTimeType(utcOffset: dst.utcOffset, isDaylightSaving: true, abbreviation: dst.abbreviation)

        // The rule is yearly in local standard time; transition instants of that year decide.
        let year = CivilDate(unixTime: unixTime + Int64(standardOffset)).year
        let start = instant(of: dst.start, year: year, offsetBefore: standardOffset)
        let end = instant(of: dst.end, year: year, offsetBefore: dst.utcOffset)
        if start < end {
            return unixTime >= start && unixTime < end ? daylight : standard  // northern hemisphere
        }
        return unixTime >= end && unixTime < start ? standard : daylight  // southern: DST spans New Year
    }

    private func instant(of transition: Transition, year: Int, offsetBefore: Int) -> Int64 {
        transition.date(inYear: year).unixTimeAtMidnightUTC + Int64(transition.time) - Int64(offsetBefore)
    }

    // MARK: Parsing

    /// Parses a TZ string; nil if it does not follow the grammar. An empty string is not a rule.
    init?(_ text: String) {
        var scanner = RuleScanner(bytes: Array(text.utf8))
        guard let standardName = scanner.abbreviation(),
            let standardWritten = scanner.offset(maxHours: 24)
        else { return nil }
        standardAbbreviation = standardName
        standardOffset = -standardWritten
        daylightSaving = nil
        if scanner.atEnd { return }

        guard let daylightName = scanner.abbreviation() else { return nil }
        var daylightOffset = standardOffset + 3600  // POSIX: one hour ahead unless written
        if !scanner.atEnd && scanner.peek != UInt8(ascii: ",") {
            guard let written = scanner.offset(maxHours: 24) else { return nil }
            daylightOffset = -written
        }
        var start = Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
        var end = Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
        if !scanner.atEnd {
            // Without a rule POSIX leaves the dates to the implementation; glibc and tzcode use the
            // US rules above, and so do we.
            guard scanner.consume(UInt8(ascii: ",")), let first = scanner.transition(),
                scanner.consume(UInt8(ascii: ",")), let second = scanner.transition(), scanner.atEnd
            else { return nil }
            start = first
            end = second
        }
        daylightSaving = DaylightSaving(abbreviation: daylightName, utcOffset: daylightOffset, start: start, end: end)
    }
}

/// A local time type: an offset, whether it is daylight saving time, and its abbreviation.
struct LocalTimeType: Sendable, Equatable {
    var utcOffset: Int
    var isDaylightSaving: Bool
    var abbreviation: String
}

private struct RuleScanner {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// `EST` (three or more letters) or `<+0530>` (letters, digits, + and -).
    mutating func abbreviation() -> String? {
        let start = index
        if consume(UInt8(ascii: "<")) {
            while let byte = peek, byte != UInt8(ascii: ">") {
                let allowed =
                    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || ASCII.isDigit(byte)
                    || byte == ASCII.plus || byte == ASCII.minus
                guard allowed else { return nil }
                index += 1
            }
            guard index - start - 1 >= 3, consume(UInt8(ascii: ">")) else { return nil }
            return String(decoding: bytes[(start + 1)..<(index - 1)], as: UTF8.self)
        }
        while let byte = peek, (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) { index += 1 }
        guard index - start >= 3 else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, as written (west-positive for offsets).
    mutating func offset(maxHours: Int) -> Int? {
        var sign = 1
        if consume(ASCII.minus) {
            sign = -1
        } else {
            _ = consume(ASCII.plus)
        }
        guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
        var seconds = hours * 3600
        if consume(ASCII.colon) {
            guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
            seconds += minutes * 60
            if consume(ASCII.colon) {
                guard let secs = number(maxDigits: 2), secs < 60 else { return nil }
                seconds += secs
            }
        }
        return sign * seconds
    }

    mutating func number(maxDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while let byte = peek, ASCII.isDigit(byte), digits < maxDigits {
            value = value * 10 + Int(byte - ASCII.zero)
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (default 02:00).
    mutating func transition() -> POSIXTimeZoneRule.Transition? {
        let day: POSIXTimeZoneRule.Transition.Day
        if consume(UInt8(ascii: "J")) {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
            day = .julianIgnoringLeapDay(n)
        } else if consume(UInt8(ascii: "M")) {
            guard let month = number(maxDigits: 2), (1...12).contains(month), consume(ASCII.dot),
                let week = number(maxDigits: 1), (1...5).contains(week), consume(ASCII.dot),
                let weekday = number(maxDigits: 1), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(maxDigits: 3), (0...365).contains(n) else { return nil }
            day = .zeroBasedDayOfYear(n)
        }
        var time = 7200
        if consume(UInt8(ascii: "/")) {
            guard let written = offset(maxHours: 167) else { return nil }
            time = written
        }
        return POSIXTimeZoneRule.Transition(day: day, time: time)
    }
}
