import Testing

@testable import Feed

@Suite struct CivilTimeTests {
    @Test("known day numbers") func knownDayNumbers() {
        #expect(date(1970, 1, 1).daysSinceEpoch == 0)
        #expect(date(1969, 12, 31).daysSinceEpoch == -1)
        #expect(date(2000, 3, 1).daysSinceEpoch == 11_017)
        #expect(date(2024, 2, 29).daysSinceEpoch == 19_782)
        // 2038-01-19 03:14:07 UTC is Int32.max seconds.
        #expect(date(2038, 1, 19).unixTimeAtMidnightUTC + 3 * 3600 + 14 * 60 + 7 == Int64(Int32.max))
        #expect(date(1600, 3, 1).daysSinceEpoch == -135_080)
    }

    @Test("round trips every day over sixteen centuries") func roundTripsEveryDayOverSixteenCenturies() {
        // From 1200 to 2800: covers the 100- and 400-year leap rules both ways, and negative days.
        var previous = CivilDate(daysSinceEpoch: -280_000)
        for day in -279_999...303_000 {
            let date = CivilDate(daysSinceEpoch: day)
            if date.daysSinceEpoch != day {
                Issue.record("day \(day) -> \(date) -> \(date.daysSinceEpoch)")
                return
            }
            // Consecutive days are consecutive dates.
            let expected =
                previous.day == CivilDate.daysInMonth(year: previous.year, month: previous.month)
                ? (previous.month == 12 ? (previous.year + 1, 1, 1) : (previous.year, previous.month + 1, 1))
                : (previous.year, previous.month, previous.day + 1)
            if (date.year, date.month, date.day) != expected {
                Issue.record("\(previous) is followed by \(date)")
                return
            }
            previous = date
        }
    }

    @Test("rejects impossible dates") func rejectsImpossibleDates() {
        #expect(CivilDate(year: 2023, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2024, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2024, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2024, month: 1, day: 0) == nil)
        #expect(CivilDateTime(year: 2024, month: 1, day: 1, hour: 24, minute: 0) == nil)
        #expect(CivilDateTime(year: 2024, month: 1, day: 1, hour: 23, minute: 60) == nil)
    }

    @Test("weekdays") func weekdays() {
        #expect(date(1970, 1, 1).weekday == .thursday)
        #expect(date(2024, 7, 4).weekday == .thursday)
        #expect(date(2026, 11, 27).weekday == .friday)
        #expect(date(2000, 1, 1).weekday == .saturday)
        #expect(date(1969, 12, 28).weekday == .sunday)
    }

    @Test("nth weekday") func nthWeekday() {
        #expect(CivilDate.nthWeekday(3, .monday, year: 2024, month: 1) == date(2024, 1, 15))
        #expect(CivilDate.nthWeekday(-1, .monday, year: 2024, month: 5) == date(2024, 5, 27))
        #expect(CivilDate.nthWeekday(5, .sunday, year: 2024, month: 3) == date(2024, 3, 31))
        // "Fifth" Sunday in a month with four means the last one (TZ rule M.5).
        #expect(CivilDate.nthWeekday(5, .sunday, year: 2024, month: 10) == date(2024, 10, 27))
        #expect(CivilDate.nthWeekday(1, .sunday, year: 2024, month: 9) == date(2024, 9, 1))
    }

    @Test("date time from unix time") func dateTimeFromUnixTime() {
        let reading = CivilDateTime(unixTime: 1_709_303_400, utcOffset: -5 * 3600)
        #expect(reading.description == "2024-03-01 09:30:00")
        let beforeEpoch = CivilDateTime(unixTime: -1)
        #expect(beforeEpoch.description == "1969-12-31 23:59:59")
        #expect(CivilDate(unixTime: -86_400) == date(1969, 12, 31))
        #expect(CivilDate(unixTime: -86_401) == date(1969, 12, 30))
        #expect(date(2024, 3, 1).dayOfYear == 61)
    }

    @Test("formatting") func formatting() {
        #expect(date(987, 6, 5).description == "0987-06-05")
        #expect(formatUTCOffset(-5 * 3600) == "-05:00")
        #expect(formatUTCOffset(5 * 3600 + 1800) == "+05:30")
        #expect(formatUTCOffset(0) == "+00:00")
        #expect(formatMicros(123_450_000) == "123.450000")
        #expect(formatMicros(7) == "0.000007")
        #expect(formatMicros(-1_500_000) == "-1.500000")
    }
}
