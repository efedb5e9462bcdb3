import Testing

@testable import Feed

@Suite struct MarketStatusTests {
    let newYork = try! ExchangeTimeZone(identifier: "America/New_York", posixRule: "EST5EDT,M3.2.0,M11.1.0")
    let hongKong = try! ExchangeTimeZone(identifier: "Asia/Hong_Kong", posixRule: "HKT-8")

    func at(_ zone: ExchangeTimeZone, _ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int) -> Int64 {
        zone.unixTime(for: CivilDateTime(year: y, month: m, day: d, hour: h, minute: min)!)
    }

    @Test("a new york day") func aNewYorkDay() {
        func status(_ h: Int, _ m: Int, day: Int = 24) -> MarketStatus {
            MarketStatus(calendar: .xnys, zone: newYork, at: at(newYork, 2026, 11, day, h, m))
        }
        #expect(status(3, 0).state == .closed)
        #expect(status(3, 0).text(zone: newYork, now: at(newYork, 2026, 11, 24, 3, 0)) == "Closed · opens 09:30")
        #expect(status(5, 0).state == .preMarket)
        #expect(status(5, 0).nextChange == at(newYork, 2026, 11, 24, 9, 30))
        #expect(status(9, 30).state == .open)
        #expect(status(15, 59).nextChange == at(newYork, 2026, 11, 24, 16, 0))
        #expect(status(16, 0).state == .afterHours)
        #expect(status(20, 0).state == .closed)
        // Wednesday night: Thanksgiving is closed, the next open is Friday's.
        let wednesday = status(21, 0, day: 25)
        #expect(wednesday.nextOpen == at(newYork, 2026, 11, 27, 9, 30))
        #expect(wednesday.text(zone: newYork, now: at(newYork, 2026, 11, 25, 21, 0)) == "Closed · opens Fri 09:30")
        // The short Friday: after hours from 13:00.
        #expect(status(13, 30, day: 27).state == .afterHours)
        // Without extended hours it is simply closed.
        #expect(MarketStatus(calendar: .xnys, zone: newYork, at: at(newYork, 2026, 11, 24, 5, 0), extendedHours: false).state == .closed)
    }

    @Test("lunch and far opens") func lunchAndFarOpens() {
        let lunch = MarketStatus(calendar: .xhkg, zone: hongKong, at: at(hongKong, 2025, 1, 27, 12, 15))
        #expect(lunch.state == .lunchBreak)
        #expect(lunch.text(zone: hongKong, now: at(hongKong, 2025, 1, 27, 12, 15)) == "Lunch break · reopens 13:00")
        // Lunar New Year's Eve closes at noon; the next open is after the three days, on 3 February.
        let now = at(hongKong, 2025, 1, 28, 12, 30)
        let eve = MarketStatus(calendar: .xhkg, zone: hongKong, at: now)
        #expect(eve.state == .closed)
        #expect(eve.text(zone: hongKong, now: now) == "Closed · opens Mon 09:30")
        // Beyond a week the date is named.
        let christmas = at(newYork, 2026, 12, 24, 20, 0)
        #expect(MarketStatus.when(at(newYork, 2027, 1, 4, 9, 30), zone: newYork, now: christmas) == "4 Jan 09:30")
        #expect(MarketStatus(calendar: .alwaysOpen, zone: .utc, at: 0).state == .open)
    }
}
