import Testing

@testable import Feed

/// The tricky days of the exchange calendars (the whole 2000-2030 span is checked against the
/// exchange-calendars package by Tests/Calendars/check-calendars.sh; these pin the rules here).
@Suite struct ExchangeCalendarTests {
    func date(_ y: Int, _ m: Int, _ d: Int) -> CivilDate { CivilDate(year: y, month: m, day: d)! }
    func hm(_ h: Int, _ m: Int = 0) -> Int { h * 3600 + m * 60 }
    // Zones from their current POSIX rules, so the tests need no tzdata.
    let newYork = try! ExchangeTimeZone(identifier: "America/New_York", posixRule: "EST5EDT,M3.2.0,M11.1.0")
    let tokyo = try! ExchangeTimeZone(identifier: "Asia/Tokyo", posixRule: "JST-9")
    let hongKong = try! ExchangeTimeZone(identifier: "Asia/Hong_Kong", posixRule: "HKT-8")

    /// Found by fuzz-timezone: a zone whose clock jumps back 13.5 hours on 1 Mar at 01:00 (day 60)
    /// mapped Hong Kong's lunch break to a backwards range (a trap). A session is never backwards
    /// and a lunch break lies inside it, whatever zone a config names.
    @Test("a zone that jumps inside the session never turns it backwards") func aZoneThatJumpsInsideTheSessionNeverTurnsItBackwards() throws {
        let zone = try ExchangeTimeZone(identifier: "Fuzz/Rule", posixRule: "XDicXX3YYY-10:30,J60/25,M10.1.0/3")
        for calendar in ExchangeCalendar.all {
            for year in [1934, 2024, 2025] {
                let from = CivilDate(year: year, month: 2, day: 20)!
                for s in calendar.sessions(from: from, through: from.adding(days: 20), zone: zone) {
                    #expect(s.open < s.close, "\(calendar.mic) \(s.date)")
                    if let lunch = s.lunch { #expect(s.open <= lunch.lowerBound && lunch.upperBound <= s.close) }
                }
            }
        }
    }

    @Test("good friday closes the west but not tokyo") func goodFridayClosesTheWestButNotTokyo() {
        let goodFriday = date(2024, 3, 29)
        for calendar in [ExchangeCalendar.xnys, .xetr, .xlon, .xpar, .xswx, .xhkg, .xasx, .xtse] {
            #expect(!calendar.isTradingDay(goodFriday), "\(calendar.mic)")
            #expect(calendar.holidays(in: 2024).contains { $0.date == goodFriday && $0.name == "Good Friday" }, "\(calendar.mic)")
        }
        #expect(ExchangeCalendar.xtks.isTradingDay(goodFriday))
        // Easter Monday: Europe, Hong Kong and Sydney close; New York and Toronto trade.
        #expect(!ExchangeCalendar.xetr.isTradingDay(date(2024, 4, 1)))
        #expect(ExchangeCalendar.xnys.isTradingDay(date(2024, 4, 1)))
        #expect(ExchangeCalendar.xtse.isTradingDay(date(2024, 4, 1)))
    }

    @Test("thanksgiving and its short friday") func thanksgivingAndItsShortFriday() throws {
        let cal = ExchangeCalendar.xnys
        #expect(cal.localHours(on: date(2026, 11, 26)) == nil)
        #expect(cal.localHours(on: date(2026, 11, 27)) == LocalHours(open: hm(9, 30), close: hm(13), isEarlyClose: true))
        // November 2024 starts on a Friday: Thanksgiving is the 28th, the short day the 29th (the fifth Friday).
        #expect(cal.localHours(on: date(2024, 11, 29))?.close == hm(13))
        #expect(cal.localHours(on: date(2024, 11, 22))?.close == hm(16))
        let session = try #require(cal.session(on: date(2026, 11, 27), zone: newYork))
        #expect(session.open == 1_795_789_800)  // 2026-11-27 14:30 UTC
        #expect(session.close - session.open == 3 * 3600 + 1800)
        // The NYSE calendar of old agrees with the data-driven one on every day of a decade.
        for session in cal.sessions(from: date(2020, 1, 1), through: date(2030, 12, 31), zone: newYork) {
            let old = try #require(NYSECalendar.session(on: session.date))
            #expect(cal.localHours(on: session.date).map { [$0.open, $0.close] } == [old.open, old.close])
        }
        #expect(cal.sessions(from: date(2020, 1, 1), through: date(2030, 12, 31), zone: newYork).count
                == NYSECalendar.tradingDays(from: date(2020, 1, 1), through: date(2030, 12, 31)).count)
    }

    @Test("japanese sunday holidays move to the next free day") func japaneseSundayHolidaysMoveToTheNextFreeDay() {
        let cal = ExchangeCalendar.xtks
        // National Foundation Day 2024 was a Sunday: Monday the 12th is its substitute.
        #expect(!cal.isTradingDay(date(2024, 2, 12)))
        #expect(cal.isTradingDay(date(2024, 2, 13)))
        // Constitution Day on Sunday 3 May 2020: the substitute skips Greenery and Children's Day to the 6th.
        #expect(cal.holidays(in: 2020).map(\.date).filter { $0.month == 5 } == [date(2020, 5, 4), date(2020, 5, 5), date(2020, 5, 6)])
        #expect(cal.isTradingDay(date(2020, 5, 7)))
        // A Saturday holiday is not moved (Showa Day 2023-04-29).
        #expect(cal.isTradingDay(date(2023, 5, 1)))
        // A weekday between two holidays is one too: 22 September 2026 (Respect for the Aged, equinox).
        #expect(cal.holidays(in: 2026).contains { $0.date == date(2026, 9, 22) && $0.name == "Citizens' Holiday" })
        // The year-end break, and the equinoxes from the formula.
        #expect(!cal.isTradingDay(date(2025, 12, 31)) && !cal.isTradingDay(date(2026, 1, 2)))
        #expect(!cal.isTradingDay(date(2025, 3, 20)) && !cal.isTradingDay(date(2025, 9, 23)))
    }

    @Test("tokyo lunch and the longer afternoon") func tokyoLunchAndTheLongerAfternoon() throws {
        let cal = ExchangeCalendar.xtks
        #expect(cal.localHours(on: date(2024, 11, 1)) == LocalHours(open: hm(9), close: hm(15), lunch: hm(11, 30)..<hm(12, 30)))
        #expect(cal.localHours(on: date(2024, 11, 5))?.close == hm(15, 30))
        #expect(cal.localHours(on: date(2010, 6, 1))?.lunch == hm(11)..<hm(12, 30))
        let s = try #require(cal.session(on: date(2025, 6, 2), zone: tokyo))
        #expect(s.isTrading(at: s.open) && !s.isTrading(at: s.open + Int64(hm(2, 45))) && s.isTrading(at: s.open + Int64(hm(3, 30))))
    }

    @Test("hong kong lunch and morning only eves") func hongKongLunchAndMorningOnlyEves() throws {
        let cal = ExchangeCalendar.xhkg
        let s = try #require(cal.session(on: date(2025, 1, 27), zone: hongKong))
        #expect(s.lunch == (s.open + Int64(hm(2, 30)))..<(s.open + Int64(hm(3, 30))))  // 12:00-13:00
        #expect(!s.isTrading(at: s.open + Int64(hm(3))) && s.isTrading(at: s.open + Int64(hm(4))))
        // Lunar New Year's Eve 2025: the morning only, no lunch break; then three days closed.
        #expect(cal.localHours(on: date(2025, 1, 28)) == LocalHours(open: hm(9, 30), close: hm(12), isEarlyClose: true))
        #expect((29...31).allSatisfy { !cal.isTradingDay(date(2025, 1, $0)) })
        // 2017: the third day is... the first two fall on the weekend, the fourth day is kept.
        #expect(!cal.isTradingDay(date(2017, 1, 30)) && !cal.isTradingDay(date(2017, 1, 31)) && cal.isTradingDay(date(2017, 2, 1)))
        // Before March 2011: 10:00-12:30 and 14:30-16:00.
        #expect(cal.localHours(on: date(2010, 6, 1)) == LocalHours(open: hm(10), close: hm(16), lunch: hm(12, 30)..<hm(14, 30)))
        // Ching Ming on Saturday 4 April 2020 is lost; Easter Monday and Ching Ming both 6 April 2015.
        #expect(cal.isTradingDay(date(2020, 4, 6)))
        #expect(!cal.isTradingDay(date(2015, 4, 6)) && !cal.isTradingDay(date(2015, 4, 7)))
    }

    @Test("uk bank holidays") func ukBankHolidays() {
        let cal = ExchangeCalendar.xlon
        // 2022: the Platinum Jubilee moved the spring bank holiday; the Queen's funeral.
        #expect(cal.holidays(in: 2022).map(\.date.description) == [
            "2022-01-03", "2022-04-15", "2022-04-18", "2022-05-02", "2022-06-02", "2022-06-03", "2022-08-29",
            "2022-09-19", "2022-12-26", "2022-12-27",
        ])
        // Christmas on Saturday and Boxing Day on Sunday: Monday and Tuesday (2021).
        #expect(!cal.isTradingDay(date(2021, 12, 27)) && !cal.isTradingDay(date(2021, 12, 28)))
        // VE Day 2020 replaced the first Monday of May.
        #expect(!cal.isTradingDay(date(2020, 5, 8)) && cal.isTradingDay(date(2020, 5, 4)))
        // Christmas Eve on a Sunday: the Friday before closes at 12:30.
        #expect(cal.localHours(on: date(2023, 12, 22))?.close == hm(12, 30))
    }

    @Test("lookups and the around the clock calendar") func lookupsAndTheAroundTheClockCalendar() throws {
        #expect(ExchangeCalendar.named("xnas")?.mic == "XNAS")
        #expect(ExchangeCalendar.named("XXXX") == nil)
        #expect(ExchangeCalendar.named("24/7")?.isAlwaysOpen == true)
        #expect(ExchangeCalendar.forTimeZone("Asia/Tokyo")?.mic == "XTKS")
        #expect(ExchangeCalendar.forTimeZone("Europe/Madrid") == nil)
        for calendar in ExchangeCalendar.all where !calendar.isAlwaysOpen {
            #expect(ExchangeCalendar.forTimeZone(calendar.timeZoneIdentifier) != nil, "\(calendar.mic)")
        }
        let crypto = ExchangeCalendar.alwaysOpen
        let christmas = try #require(crypto.session(on: date(2025, 12, 25), zone: .utc))
        #expect(christmas.close - christmas.open == 86_400)
        #expect(Lunisolar.date(.newYear, year: 2024) == date(2024, 2, 10))
        #expect(Lunisolar.date(.newYear, year: 2200) == nil)
        #expect(ExchangeCalendar.xtse.holidays(in: 2024).contains { $0.date == date(2024, 5, 20) && $0.name == "Victoria Day" })
    }

    @Test("previous and next sessions") func previousAndNextSessions() throws {
        let cal = ExchangeCalendar.xnys
        // Saturday 2026-11-28 noon: the last session is the short Friday, the next Monday's.
        let saturday = newYork.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 28, hour: 12, minute: 0)!)
        #expect(cal.latestSession(atOrBefore: saturday, zone: newYork)?.date == date(2026, 11, 27))
        #expect(cal.nextSession(after: saturday, zone: newYork)?.date == date(2026, 11, 30))
        // The session before the Friday after Thanksgiving is Wednesday's.
        #expect(cal.previousSession(before: date(2026, 11, 27), zone: newYork)?.date == date(2026, 11, 25))
    }
}
