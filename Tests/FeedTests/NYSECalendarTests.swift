import Testing

@testable import Feed

@Suite struct NYSECalendarTests {
    static func closedDays(_ year: Int) -> [String] { NYSECalendar.holidays(in: year).map(\.date.description) }

    @Test("holidays 2024") func holidays2024() {
        #expect(
            Self.closedDays(2024) == [
                "2024-01-01", "2024-01-15", "2024-02-19", "2024-03-29", "2024-05-27", "2024-06-19", "2024-07-04",
                "2024-09-02", "2024-11-28", "2024-12-25",
            ]
        )
        #expect(
            NYSECalendar.holidays(in: 2024).map(\.name) == [
                "New Year's Day", "Martin Luther King Jr. Day", "Washington's Birthday", "Good Friday", "Memorial Day",
                "Juneteenth", "Independence Day", "Labor Day", "Thanksgiving Day", "Christmas Day",
            ]
        )
    }

    @Test("weekend observance rules") func weekendObservanceRules() {
        // 2021: Independence Day on a Sunday -> Monday 5th; Christmas on a Saturday -> Friday 24th;
        // Juneteenth not yet a market holiday.
        #expect(
            Self.closedDays(2021) == [
                "2021-01-01", "2021-01-18", "2021-02-15", "2021-04-02", "2021-05-31", "2021-07-05", "2021-09-06",
                "2021-11-25", "2021-12-24",
            ]
        )
        // 2022: New Year's Day on a Saturday is NOT moved to Friday 2021-12-31; Juneteenth on a Sunday
        // -> Monday 20th; Christmas on a Sunday -> Monday 26th.
        #expect(
            Self.closedDays(2022) == [
                "2022-01-17", "2022-02-21", "2022-04-15", "2022-05-30", "2022-06-20", "2022-07-04", "2022-09-05",
                "2022-11-24", "2022-12-26",
            ]
        )
        #expect(NYSECalendar.isTradingDay(date(2021, 12, 31)))
        // 2026: Independence Day on a Saturday -> Friday 3rd. 2027: Juneteenth Saturday -> Friday 18th.
        #expect(
            Self.closedDays(2026) == [
                "2026-01-01", "2026-01-19", "2026-02-16", "2026-04-03", "2026-05-25", "2026-06-19", "2026-07-03",
                "2026-09-07", "2026-11-26", "2026-12-25",
            ]
        )
        #expect(Self.closedDays(2027).contains("2027-06-18") && Self.closedDays(2027).contains("2027-12-24"))
        #expect(Self.closedDays(2025).contains("2025-01-09"))  // day of mourning for President Carter
        #expect(Self.closedDays(1997).count == 8)  // before MLK Day was a market holiday
        #expect(Self.closedDays(1998).count == 9)
    }

    @Test("trading day counts") func tradingDayCounts() {
        // Published NYSE session counts.
        #expect(NYSECalendar.tradingDays(from: date(2022, 1, 1), through: date(2022, 12, 31)).count == 251)
        #expect(NYSECalendar.tradingDays(from: date(2023, 1, 1), through: date(2023, 12, 31)).count == 250)
        #expect(NYSECalendar.tradingDays(from: date(2024, 1, 1), through: date(2024, 12, 31)).count == 252)
        #expect(
            NYSECalendar.tradingDays(from: date(2024, 3, 28), through: date(2024, 4, 2)).map(\.description)
                == ["2024-03-28", "2024-04-01", "2024-04-02"]
        )
        #expect(NYSECalendar.tradingDays(from: date(2024, 2, 1), through: date(2024, 1, 1)).isEmpty)
    }

    @Test("easter") func easter() {
        let known: [(Int, Int, Int)] = [
            (2000, 4, 23), (2008, 3, 23), (2011, 4, 24), (2019, 4, 21), (2024, 3, 31), (2025, 4, 20),
            (2026, 4, 5), (2038, 4, 25), (1818, 3, 22), (2285, 3, 22),
        ]
        for (year, month, day) in known {
            #expect(NYSECalendar.easterSunday(year: year) == date(year, month, day))
        }
    }

    @Test("sessions and early closes") func sessionsAndEarlyCloses() {
        #expect(NYSECalendar.session(on: date(2026, 11, 25))! == (34_200, 57_600))
        #expect(NYSECalendar.session(on: date(2026, 11, 27))! == (34_200, 46_800))  // after Thanksgiving
        #expect(NYSECalendar.session(on: date(2026, 11, 26)) == nil)
        #expect(NYSECalendar.session(on: date(2026, 11, 28)) == nil)
        #expect(NYSECalendar.isEarlyClose(date(2024, 7, 3)))
        #expect(NYSECalendar.isEarlyClose(date(2024, 12, 24)))
        #expect(!NYSECalendar.isEarlyClose(date(2026, 7, 2)))  // July 3 2026 is itself the holiday
        #expect(!NYSECalendar.isEarlyClose(date(2021, 12, 24)))  // closed, not early
        #expect(!NYSECalendar.isEarlyClose(date(2024, 11, 27)))
    }
}
