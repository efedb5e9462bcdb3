// `tickerboard calendar`: an exchange's sessions (or closures) between two dates, as the daemon's
// calendar sees them. For users ("is Friday a half day in Tokyo?") and for the oracle check
// (Tests/Calendars/check-calendars.sh reads the --tsv form).
import Feed
import Kiosk
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

enum CalendarCommand {
    static let help = """
        usage: tickerboard calendar [--exchange MIC] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--holidays] [--tsv]

        Lists the trading sessions of an exchange (default XNYS) from --from to --to (default: this
        year), in the exchange's local time: date, weekday, open-close, the lunch break and early
        closes. --holidays lists the weekdays without a session and why instead. --tsv prints one
        session a line as date, open, close, lunch start, lunch end in UTC (YYYY-MM-DDTHH:MMZ, "-"
        without a lunch break). Known exchanges: \(ExchangeCalendar.all.map(\.mic).joined(separator: " ")).
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "calendar", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let mic = try args.option("--exchange") ?? "XNYS"
        guard let calendar = ExchangeCalendar.named(mic) else {
            throw UsageError("calendar: unknown exchange \"\(mic)\" (known: \(ExchangeCalendar.all.map(\.mic).joined(separator: " ")))")
        }
        let thisYear = CivilDate(unixTime: Int64(time(nil))).year
        let from = try args.value("--from", expected: "a date like 2024-01-31", parseDate) ?? CivilDate(year: thisYear, month: 1, day: 1)!
        let to = try args.value("--to", expected: "a date like 2024-12-31", parseDate) ?? CivilDate(year: thisYear, month: 12, day: 31)!
        let holidaysOnly = args.flag("--holidays")
        let tsv = args.flag("--tsv")
        try args.finish()
        guard from <= to else { throw UsageError("calendar: --from is after --to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch <= 200 * 366 else { throw UsageError("calendar: at most 200 years at a time") }

        let zone: ExchangeTimeZone
        do {
            zone = calendar.isAlwaysOpen ? .utc : try ExchangeTimeZone(identifier: calendar.timeZoneIdentifier)
        } catch {
            Log.error("calendar: \(calendar.timeZoneIdentifier): \(error)")
            return 1
        }
        if holidaysOnly {
            for year in from.year...to.year {
                for holiday in calendar.holidays(in: year) where holiday.date >= from && holiday.date <= to {
                    printLine("\(holiday.date) \(holiday.date.weekday.description.prefix(3)) \(holiday.name)")
                }
            }
            return 0
        }
        var lines: [String] = []
        for session in calendar.sessions(from: from, through: to, zone: zone) {
            lines.append(tsv ? tsvLine(session) : localLine(session, zone: zone))
            if lines.count >= 1024 { printLine(lines.joined(separator: "\n")); lines.removeAll(keepingCapacity: true) }
        }
        if !lines.isEmpty { printLine(lines.joined(separator: "\n")) }
        return 0
    }

    static func tsvLine(_ s: TradingSession) -> String {
        func utc(_ t: Int64) -> String {
            let c = CivilDateTime(unixTime: t)
            return "\(c.date)T\(c.hourMinute)Z"
        }
        return [s.date.description, utc(s.open), utc(s.close), s.lunch.map { utc($0.lowerBound) } ?? "-",
                s.lunch.map { utc($0.upperBound) } ?? "-"].joined(separator: "\t")
    }

    static func localLine(_ s: TradingSession, zone: ExchangeTimeZone) -> String {
        func local(_ t: Int64) -> String {
            let c = zone.localDateTime(atUnixTime: t)
            // A close at midnight (around the clock) reads 24:00, not 00:00 of the same day.
            if c.date != s.date, c.hour == 0, c.minute == 0 { return "24:00" }
            return c.hourMinute
        }
        var line = "\(s.date) \(s.date.weekday.abbreviation) \(local(s.open))-\(local(s.close)) \(zone.abbreviation(atUnixTime: s.open))"
        if let lunch = s.lunch { line += " lunch \(local(lunch.lowerBound))-\(local(lunch.upperBound))" }
        if s.isEarlyClose { line += " early close" }
        return line
    }

    /// `YYYY-MM-DD`, years 1900-2200 (the calendars' rules are not meant beyond).
    static func parseDate(_ text: String) -> CivilDate? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1900...2200).contains(y)
        else { return nil }
        return CivilDate(year: y, month: m, day: d)
    }
}
