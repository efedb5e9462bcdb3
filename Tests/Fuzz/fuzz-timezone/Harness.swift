// libFuzzer harness: TZif files and POSIX TZ rules, then every query the chart and the power
// schedule make of a zone, at times from the epoch's edges to now, and every exchange calendar's
// sessions in that zone (a hostile zone must not trap the calendar's local-to-instant arithmetic).
import Feed
import FuzzSupport

@_cdecl("fuzz_timezone_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let zone: ExchangeTimeZone
    if input.bool() {
        // A POSIX rule ("CET-1CEST,M3.5.0,M10.5.0/3") from the rest of the bytes.
        let rule = String(decoding: input.remaining, as: UTF8.self)
        guard let z = try? ExchangeTimeZone(identifier: "Fuzz/Rule", posixRule: rule) else { return 0 }
        zone = z
    } else {
        guard let z = try? ExchangeTimeZone(identifier: "Fuzz/Zone", tzif: Array(input.remaining)) else { return 0 }
        zone = z
    }
    let times: [Int64] = [0, -1, 1_700_000_000, 1_796_000_000, 4_102_444_800, -2_208_988_800, 253_402_300_799,
                          -62_135_596_800, Int64(Int32.max), Int64(Int32.min), 1 << 40, -(1 << 40)]
    for t in times {
        let offset = zone.utcOffset(atUnixTime: t)
        fuzzCheck(abs(offset) <= 93_600, "offset within RFC 8536 bounds: \(offset)")
        let local = zone.localDateTime(atUnixTime: t)
        fuzzCheck((0..<24).contains(local.hour) && (0..<60).contains(local.minute), "local time in range")
        _ = zone.unixTime(for: local)
        _ = zone.abbreviation(atUnixTime: t)
        _ = zone.startOfDay(local.date)
        _ = zone.description
    }
    let year = 1900 + Int(size % 301)
    for calendar in ExchangeCalendar.all {
        for holiday in calendar.holidays(in: year) {
            fuzzCheck(holiday.date.year == year && !holiday.date.weekday.isWeekend, "a holiday is a weekday of its year")
        }
        let from = CivilDate(year: year, month: 3, day: 1)!
        for session in calendar.sessions(from: from, through: from.adding(days: 14), zone: zone) {
            fuzzCheck(calendar.localHours(on: session.date) != nil, "a session is on a trading day")
            _ = session.isTrading(at: session.open)
        }
        _ = calendar.nextSession(after: 1_796_000_000, zone: zone)
        _ = calendar.latestSession(atOrBefore: 1_796_000_000, zone: zone)
    }
    return 0
}
