// The exchanges Tickerboard knows, as data for ExchangeCalendar: hours, holidays, early closes.
// Each is checked session by session from 2000 to 2030 against the `exchange-calendars` Python
// package (Tests/Calendars/check-calendars.sh); where the two differ on purpose the reason is in
// Tests/Calendars/exceptions.txt. Rules are the exchanges' published ones; the one-off tables hold
// what no rule predicts (days of mourning, storms, royal events).

private func hm(_ hour: Int, _ minute: Int = 0) -> Int { hour * 3600 + minute * 60 }
private func day(_ year: Int, _ month: Int, _ day: Int) -> CivilDate { CivilDate(uncheckedYear: year, month: month, day: day) }
private func days(_ list: [(Int, Int, Int)]) -> DayRule { .dates(list.map { day($0.0, $0.1, $0.2) }) }

extension ExchangeCalendar {
    /// Every known calendar, by MIC.
    public static let all: [ExchangeCalendar] = [xnys, xnas, xetr, xlon, xpar, xams, xswx, xtks, xhkg, xasx, xtse, alwaysOpen]

    /// The calendar for a MIC (case-insensitive; `24/7`, `24x7` and `CRYPTO` name the around-the-clock one).
    public static func named(_ mic: String) -> ExchangeCalendar? {
        let key = mic.uppercased()
        if key == "24/7" || key == "24X7" || key == "CRYPTO" || key == "ALWAYS" { return alwaysOpen }
        return all.first { $0.mic == key }
    }

    /// The exchange an instrument most likely trades on, from its time zone; nil for zones without one.
    public static func forTimeZone(_ identifier: String) -> ExchangeCalendar? {
        switch identifier {
        case "America/New_York", "US/Eastern", "EST5EDT": return xnys
        case "Europe/Berlin", "Europe/Frankfurt": return xetr
        case "Europe/London": return xlon
        case "Europe/Paris": return xpar
        case "Europe/Amsterdam": return xams
        case "Europe/Zurich": return xswx
        case "Asia/Tokyo", "Japan": return xtks
        case "Asia/Hong_Kong", "Hongkong": return xhkg
        case "Australia/Sydney", "Australia/NSW": return xasx
        case "America/Toronto", "Canada/Eastern": return xtse
        default: return nil
        }
    }

    // MARK: United States

    /// US markets' one-off closures (Rule 7.2 names none of them).
    private static let usClosures = days([
        (2001, 9, 11), (2001, 9, 12), (2001, 9, 13), (2001, 9, 14),  // September 11 attacks
        (2004, 6, 11),  // mourning for Ronald Reagan
        (2007, 1, 2),  // mourning for Gerald Ford
        (2012, 10, 29), (2012, 10, 30),  // Hurricane Sandy
        (2018, 12, 5),  // mourning for George H. W. Bush
        (2025, 1, 9),  // mourning for Jimmy Carter
    ])

    private static func us(mic: String, name: String) -> ExchangeCalendar {
        ExchangeCalendar(
            mic: mic, name: name, timeZone: "America/New_York",
            eras: [HoursEra(open: hm(9, 30), close: hm(16))],
            holidays: [
                // A Saturday New Year is not moved to Friday: that Friday closes the accounting year.
                HolidayRule("New Year's Day", .fixed(month: 1, day: 1), .sundayToMonday),
                HolidayRule("Martin Luther King Jr. Day", .nth(3, .monday, month: 1), years: 1998...Int.max),
                HolidayRule("Washington's Birthday", .nth(3, .monday, month: 2)),
                HolidayRule("Good Friday", .easter(-2)),
                HolidayRule("Memorial Day", .nth(-1, .monday, month: 5)),
                HolidayRule("Juneteenth", .fixed(month: 6, day: 19), .nearestWeekday, years: 2022...Int.max),
                HolidayRule("Independence Day", .fixed(month: 7, day: 4), .nearestWeekday),
                HolidayRule("Labor Day", .nth(1, .monday, month: 9)),
                HolidayRule("Thanksgiving Day", .nth(4, .thursday, month: 11)),
                HolidayRule("Christmas Day", .fixed(month: 12, day: 25), .nearestWeekday),
                HolidayRule("Unscheduled closure", usClosures),
            ],
            earlyCloses: [
                EarlyCloseRule("Day after Thanksgiving", .shifted(.nth(4, .thursday, month: 11), 1), close: hm(13)),
                // In 2002 the short day was the Friday after Independence Day instead.
                EarlyCloseRule("Independence Day eve", .fixed(month: 7, day: 3), close: hm(13), years: Int.min...2001),
                EarlyCloseRule("Independence Day eve", .fixed(month: 7, day: 3), close: hm(13), years: 2003...Int.max),
                EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: hm(13)),
                EarlyCloseRule("Day after a holiday", days([(2002, 7, 5), (2003, 12, 26)]), close: hm(13)),
            ],
            extendedHours: (preOpen: hm(4), postClose: hm(20))
        )
    }

    public static let xnys = us(mic: "XNYS", name: "New York Stock Exchange")
    public static let xnas = us(mic: "XNAS", name: "Nasdaq")

    // MARK: Europe

    public static let xetr = ExchangeCalendar(
        mic: "XETR", name: "Xetra", timeZone: "Europe/Berlin",
        eras: [HoursEra(open: hm(9), close: hm(17, 30))],
        holidays: [
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1)),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Easter Monday", .easter(1)),
            HolidayRule("Labour Day", .fixed(month: 5, day: 1)),
            // Whit Monday and German Unity Day were trading days except in these years.
            HolidayRule("Whit Monday", .easter(50), years: 2007...2007),
            HolidayRule("Whit Monday", .easter(50), years: 2015...2021),
            HolidayRule("German Unity Day", .fixed(month: 10, day: 3), years: 2014...2019),
            HolidayRule("Reformation Day", .dates([day(2017, 10, 31)])),
            HolidayRule("Christmas Eve", .fixed(month: 12, day: 24)),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25)),
            HolidayRule("Boxing Day", .fixed(month: 12, day: 26)),
            HolidayRule("New Year's Eve", .fixed(month: 12, day: 31)),
        ],
        earlyCloses: [
            // The last session of the year (December 30, or the Friday before) ends at 14:00.
            EarlyCloseRule("Last session of the year", .fixed(month: 12, day: 30), close: hm(14), weekendToFriday: true, years: 2010...Int.max),
        ]
    )

    public static let xlon = ExchangeCalendar(
        mic: "XLON", name: "London Stock Exchange", timeZone: "Europe/London",
        eras: [HoursEra(open: hm(8), close: hm(16, 30))],
        holidays: [
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1), .nextFreeWeekday),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Easter Monday", .easter(1)),
            // The early May bank holiday moved to VE Day's 75th anniversary in 2020.
            HolidayRule("Early May Bank Holiday", .nth(1, .monday, month: 5), years: Int.min...2019),
            HolidayRule("Early May Bank Holiday", .dates([day(2020, 5, 8)])),
            HolidayRule("Early May Bank Holiday", .nth(1, .monday, month: 5), years: 2021...Int.max),
            // Moved for the Golden (2002), Diamond (2012) and Platinum (2022) Jubilees.
            HolidayRule("Spring Bank Holiday", .nth(-1, .monday, month: 5), years: Int.min...2001),
            HolidayRule("Spring Bank Holiday", .nth(-1, .monday, month: 5), years: 2003...2011),
            HolidayRule("Spring Bank Holiday", .nth(-1, .monday, month: 5), years: 2013...2021),
            HolidayRule("Spring Bank Holiday", .nth(-1, .monday, month: 5), years: 2023...Int.max),
            HolidayRule("Spring Bank Holiday", days([(2002, 6, 4), (2012, 6, 4), (2022, 6, 2)])),
            HolidayRule("Jubilee", days([(2002, 6, 3), (2012, 6, 5), (2022, 6, 3)])),
            HolidayRule("Summer Bank Holiday", .nth(-1, .monday, month: 8)),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25), .nextFreeWeekday),
            HolidayRule("Boxing Day", .fixed(month: 12, day: 26), .nextFreeWeekday),
            HolidayRule("Millennium", .dates([day(1999, 12, 31)])),
            HolidayRule("Royal Wedding", .dates([day(2011, 4, 29)])),
            HolidayRule("State Funeral of Queen Elizabeth II", .dates([day(2022, 9, 19)])),
            HolidayRule("Coronation of King Charles III", .dates([day(2023, 5, 8)])),
        ],
        earlyCloses: [
            EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: hm(12, 30), weekendToFriday: true),
            EarlyCloseRule("New Year's Eve", .fixed(month: 12, day: 31), close: hm(12, 30), weekendToFriday: true),
        ]
    )

    /// Euronext's harmonised calendar (from 2002); before it each market kept some national days.
    private static func euronext(mic: String, name: String, zone: String, national: [HolidayRule]) -> ExchangeCalendar {
        ExchangeCalendar(
            mic: mic, name: name, timeZone: zone,
            eras: [HoursEra(open: hm(9), close: hm(17, 30))],
            holidays: [
                HolidayRule("New Year's Day", .fixed(month: 1, day: 1)),
                HolidayRule("Good Friday", .easter(-2)),
                HolidayRule("Easter Monday", .easter(1)),
                HolidayRule("Labour Day", .fixed(month: 5, day: 1)),
                HolidayRule("Christmas Day", .fixed(month: 12, day: 25)),
                HolidayRule("Boxing Day", .fixed(month: 12, day: 26)),
            ] + national,
            earlyCloses: [
                EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: hm(14, 5)),
                EarlyCloseRule("New Year's Eve", .fixed(month: 12, day: 31), close: hm(14, 5)),
            ]
        )
    }

    public static let xpar = euronext(mic: "XPAR", name: "Euronext Paris", zone: "Europe/Paris", national: [
        HolidayRule("Whit Monday", .easter(50), years: Int.min...2001),
        HolidayRule("Bastille Day", .fixed(month: 7, day: 14), years: Int.min...2000),
        HolidayRule("New Year's Eve", .fixed(month: 12, day: 31), years: 2001...2001),
    ])

    public static let xams = euronext(mic: "XAMS", name: "Euronext Amsterdam", zone: "Europe/Amsterdam", national: [
        HolidayRule("Queen's Day", .fixed(month: 4, day: 30), years: Int.min...2001),
        HolidayRule("Ascension Day", .easter(39), years: Int.min...2000),
        HolidayRule("Whit Monday", .easter(50), years: Int.min...2001),
        HolidayRule("New Year's Eve", .fixed(month: 12, day: 31), years: 2001...2001),
    ])

    public static let xswx = ExchangeCalendar(
        mic: "XSWX", name: "SIX Swiss Exchange", timeZone: "Europe/Zurich",
        eras: [HoursEra(open: hm(9), close: hm(17, 30))],
        holidays: [
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1)),
            HolidayRule("Berchtold's Day", .fixed(month: 1, day: 2)),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Easter Monday", .easter(1)),
            HolidayRule("Labour Day", .fixed(month: 5, day: 1)),
            HolidayRule("Ascension Day", .easter(39)),
            HolidayRule("Whit Monday", .easter(50)),
            HolidayRule("Swiss National Day", .fixed(month: 8, day: 1)),
            HolidayRule("Christmas Eve", .fixed(month: 12, day: 24)),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25)),
            HolidayRule("St. Stephen's Day", .fixed(month: 12, day: 26)),
            HolidayRule("New Year's Eve", .fixed(month: 12, day: 31)),
        ]
    )

    // MARK: Asia-Pacific

    /// Tokyo: the national holidays (Act on National Holidays) plus the exchange's year-end break
    /// (December 31 to January 3). Morning and afternoon sessions; the afternoon runs to 15:30
    /// since November 5, 2024 (arrowhead 4.0).
    public static let xtks = ExchangeCalendar(
        mic: "XTKS", name: "Tokyo Stock Exchange", timeZone: "Asia/Tokyo",
        eras: [
            HoursEra(open: hm(9), close: hm(15), lunch: hm(11)..<hm(12, 30)),
            HoursEra(from: day(2011, 11, 21), open: hm(9), close: hm(15), lunch: hm(11, 30)..<hm(12, 30)),
            HoursEra(from: day(2024, 11, 5), open: hm(9), close: hm(15, 30), lunch: hm(11, 30)..<hm(12, 30)),
        ],
        holidays: [
            // Its Sunday substitute, January 2, is an exchange holiday anyway.
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1)),
            HolidayRule("Exchange holiday", .fixed(month: 1, day: 2)),
            HolidayRule("Exchange holiday", .fixed(month: 1, day: 3)),
            HolidayRule("Coming of Age Day", .nth(2, .monday, month: 1), years: 2000...Int.max),
            HolidayRule("Coming of Age Day", .fixed(month: 1, day: 15), .sundayToNextFree, years: Int.min...1999),
            HolidayRule("National Foundation Day", .fixed(month: 2, day: 11), .sundayToNextFree),
            HolidayRule("Emperor's Birthday", .fixed(month: 2, day: 23), .sundayToNextFree, years: 2020...Int.max),
            HolidayRule("Vernal Equinox Day", .vernalEquinox, .sundayToNextFree),
            HolidayRule("Showa Day", .fixed(month: 4, day: 29), .sundayToNextFree),
            HolidayRule("Constitution Memorial Day", .fixed(month: 5, day: 3), .sundayToNextFree),
            HolidayRule("Greenery Day", .fixed(month: 5, day: 4), .sundayToNextFree, years: 2007...Int.max),
            HolidayRule("Children's Day", .fixed(month: 5, day: 5), .sundayToNextFree),
            HolidayRule("Marine Day", .fixed(month: 7, day: 20), .sundayToNextFree, years: 1996...2002),
            HolidayRule("Marine Day", .nth(3, .monday, month: 7), years: 2003...2019),
            HolidayRule("Marine Day", days([(2020, 7, 23), (2021, 7, 22)])),  // moved for the Olympics
            HolidayRule("Marine Day", .nth(3, .monday, month: 7), years: 2022...Int.max),
            HolidayRule("Mountain Day", .fixed(month: 8, day: 11), .sundayToNextFree, years: 2016...2019),
            HolidayRule("Mountain Day", days([(2020, 8, 10), (2021, 8, 9)])),  // Olympics (2021: 8th, a Sunday)
            HolidayRule("Mountain Day", .fixed(month: 8, day: 11), .sundayToNextFree, years: 2022...Int.max),
            HolidayRule("Respect for the Aged Day", .fixed(month: 9, day: 15), .sundayToNextFree, years: Int.min...2002),
            HolidayRule("Respect for the Aged Day", .nth(3, .monday, month: 9), years: 2003...Int.max),
            HolidayRule("Autumnal Equinox Day", .autumnalEquinox, .sundayToNextFree),
            HolidayRule("Sports Day", .nth(2, .monday, month: 10), years: 2000...2019),
            HolidayRule("Sports Day", days([(2020, 7, 24), (2021, 7, 23)])),  // Olympics
            HolidayRule("Sports Day", .nth(2, .monday, month: 10), years: 2022...Int.max),
            HolidayRule("Culture Day", .fixed(month: 11, day: 3), .sundayToNextFree),
            HolidayRule("Labour Thanksgiving Day", .fixed(month: 11, day: 23), .sundayToNextFree),
            HolidayRule("Emperor's Birthday", .fixed(month: 12, day: 23), .sundayToNextFree, years: 1989...2018),
            HolidayRule("Exchange holiday", .fixed(month: 12, day: 31)),
            HolidayRule("Enthronement", days([(2019, 4, 30), (2019, 5, 1), (2019, 5, 2), (2019, 10, 22)])),
            HolidayRule("Trading system failure", .dates([day(2020, 10, 1)])),
        ],
        sandwichedDaysAreHolidays: true
    )

    /// Hong Kong: general holidays (the lunar ones from Lunisolar's table), a Sunday holiday moved
    /// to the next free weekday, morning-only sessions on the eves of Christmas, New Year and Lunar
    /// New Year. Hours: 10:00-12:30 and 14:30-16:00 until March 2011, then 09:30-12:00 and
    /// 13:30-16:00, with the lunch break down to an hour from March 2012.
    public static let xhkg = ExchangeCalendar(
        mic: "XHKG", name: "Hong Kong Exchanges", timeZone: "Asia/Hong_Kong",
        eras: [
            HoursEra(open: hm(10), close: hm(16), lunch: hm(12, 30)..<hm(14, 30)),
            HoursEra(from: day(2011, 3, 7), open: hm(9, 30), close: hm(16), lunch: hm(12)..<hm(13, 30)),
            HoursEra(from: day(2012, 3, 5), open: hm(9, 30), close: hm(16), lunch: hm(12)..<hm(13)),
        ],
        holidays: [
            // The three days of the Lunar New Year; a Saturday among them is lost, a Sunday gives
            // the eve (until 2012) or the fourth day (from 2013).
            HolidayRule("Lunar New Year", .lunar(.newYear, offset: 0)),
            HolidayRule("Lunar New Year", .lunar(.newYear, offset: 1)),
            HolidayRule("Lunar New Year", .lunar(.newYear, offset: 2)),
            HolidayRule("Lunar New Year", .lunarNewYearSundaySubstitute(eveUntil: 2012)),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Easter Monday", .easter(1)),
            HolidayRule("Ching Ming Festival", .qingming, .sundayToNextFree),
            HolidayRule("Labour Day", .fixed(month: 5, day: 1), .sundayToNextFree),
            HolidayRule("Buddha's Birthday", .lunar(.buddhasBirthday, offset: 0), .sundayToNextFree, years: 1999...Int.max),
            HolidayRule("Tuen Ng Festival", .lunar(.tuenNg, offset: 0), .sundayToNextFree),
            HolidayRule("HKSAR Establishment Day", .fixed(month: 7, day: 1), .sundayToNextFree),
            // On a Sunday it falls back onto the (Saturday) festival itself, so it is lost.
            HolidayRule("Day after Mid-Autumn Festival", .lunar(.midAutumn, offset: 1), .nextFreeIfTaken),
            HolidayRule("National Day", .fixed(month: 10, day: 1), .sundayToNextFree),
            HolidayRule("Chung Yeung Festival", .lunar(.chungYeung, offset: 0), .sundayToNextFree),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25), .sundayToNextFree),
            HolidayRule("Boxing Day", .fixed(month: 12, day: 26), .sundayToNextFree),
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1), .sundayToNextFree),
            // Typhoon signal 8 or black rainstorm warnings that closed the market for the day, and
            // the 2015 holiday for the 70th anniversary of the end of the Second World War.
            HolidayRule("Typhoon or rainstorm", days([
                (2001, 7, 6), (2001, 7, 25), (2008, 8, 6), (2008, 8, 22), (2011, 9, 29), (2013, 8, 14),
                (2016, 8, 2), (2016, 10, 21), (2017, 8, 23), (2020, 10, 13), (2021, 10, 13), (2023, 7, 17),
                (2024, 9, 6),
            ])),
            HolidayRule("Victory anniversary", .dates([day(2015, 9, 3)])),
            // The day after the Mid-Autumn Festival fell on a Sunday and HKEX closed the Monday;
            // in 2002 it had not, so this stays a one-off until the practice is clear.
            HolidayRule("Day after Mid-Autumn Festival (moved)", .dates([day(2022, 9, 12)])),
        ],
        earlyCloses: [
            EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: nil),
            EarlyCloseRule("New Year's Eve", .fixed(month: 12, day: 31), close: nil),
            EarlyCloseRule("Lunar New Year's Eve", .lunar(.newYear, offset: -1), close: nil, years: 2012...Int.max),
        ]
    )

    public static let xasx = ExchangeCalendar(
        mic: "XASX", name: "Australian Securities Exchange", timeZone: "Australia/Sydney",
        eras: [HoursEra(open: hm(10), close: hm(16))],
        holidays: [
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1), .weekendToMonday),
            HolidayRule("Australia Day", .fixed(month: 1, day: 26), .weekendToMonday),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Easter Monday", .easter(1)),
            // Not moved off a weekend (2010, when New South Wales moved it, excepted), but off Easter Monday.
            HolidayRule("Anzac Day", .fixed(month: 4, day: 25), .nextFreeIfTaken),
            HolidayRule("Anzac Day", .dates([day(2010, 4, 26)])),
            HolidayRule("King's Birthday", .nth(2, .monday, month: 6)),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25), .nextFreeWeekday),
            HolidayRule("Boxing Day", .fixed(month: 12, day: 26), .nextFreeWeekday),
            HolidayRule("National Day of Mourning for Queen Elizabeth II", .dates([day(2022, 9, 22)])),
        ],
        earlyCloses: [
            EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: hm(14, 10), weekendToFriday: true, years: 2010...Int.max),
            EarlyCloseRule("New Year's Eve", .fixed(month: 12, day: 31), close: hm(14, 10), weekendToFriday: true, years: 2010...Int.max),
        ]
    )

    // MARK: Canada

    public static let xtse = ExchangeCalendar(
        mic: "XTSE", name: "Toronto Stock Exchange", timeZone: "America/Toronto",
        eras: [HoursEra(open: hm(9, 30), close: hm(16))],
        holidays: [
            HolidayRule("New Year's Day", .fixed(month: 1, day: 1), .weekendToMonday),
            HolidayRule("Family Day", .nth(3, .monday, month: 2), years: 2008...Int.max),
            HolidayRule("Good Friday", .easter(-2)),
            HolidayRule("Victoria Day", .weekdayOnOrBefore(.monday, month: 5, day: 24)),
            HolidayRule("Canada Day", .fixed(month: 7, day: 1), .weekendToMonday),
            HolidayRule("Civic Holiday", .nth(1, .monday, month: 8)),
            HolidayRule("Labour Day", .nth(1, .monday, month: 9)),
            HolidayRule("Thanksgiving", .nth(2, .monday, month: 10)),
            HolidayRule("Christmas Day", .fixed(month: 12, day: 25), .nextFreeWeekday),
            HolidayRule("Boxing Day", .fixed(month: 12, day: 26), .nextFreeWeekday),
            HolidayRule("September 11 attacks", days([(2001, 9, 11), (2001, 9, 12)])),
        ],
        earlyCloses: [
            EarlyCloseRule("Christmas Eve", .fixed(month: 12, day: 24), close: hm(13), years: 2010...Int.max),
        ]
    )

    // MARK: Around the clock

    /// Crypto: every calendar day is a session, midnight to midnight UTC.
    public static let alwaysOpen = ExchangeCalendar(
        mic: "24/7", name: "Around the clock", timeZone: "UTC",
        eras: [HoursEra(open: 0, close: 86_400)], holidays: [], alwaysOpen: true
    )
}
