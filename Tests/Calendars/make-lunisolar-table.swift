// Prints the Chinese lunisolar dates the Hong Kong calendar needs, one Gregorian year a line, from
// ICU's astronomical Chinese calendar (through Foundation): Lunar New Year (1/1), Buddha's Birthday
// (4/8), Tuen Ng (5/5), Mid-Autumn (8/15) and Chung Yeung (9/9), each as MMDD.
// Run: swift Tests/Calendars/make-lunisolar-table.swift 1990 2060 — its output is the table in
// Sources/Feed/Lunisolar.swift. (A developer tool: the daemon links no Foundation.)
import Foundation

let args = CommandLine.arguments
let first = args.count > 1 ? Int(args[1])! : 1990
let last = args.count > 2 ? Int(args[2])! : 2060
var chinese = Calendar(identifier: .chinese)
chinese.timeZone = TimeZone(identifier: "Asia/Shanghai")!
var gregorian = Calendar(identifier: .gregorian)
gregorian.timeZone = TimeZone(identifier: "Asia/Shanghai")!

func gregorianDate(lunarYearOf year: Int, month: Int, day: Int) -> String {
    // The lunar year that starts in Gregorian `year`: the cyclic year of mid-year.
    let mid = gregorian.date(from: DateComponents(year: year, month: 7, day: 1))!
    var c = chinese.dateComponents([.era, .year], from: mid)
    c.month = month
    c.day = day
    c.isLeapMonth = false
    let d = chinese.date(from: c)!
    let g = gregorian.dateComponents([.year, .month, .day], from: d)
    precondition(g.year == year, "\(year) \(month)/\(day) -> \(g)")
    return String(format: "%02d%02d", g.month!, g.day!)
}

for year in first...last {
    let parts = [(1, 1), (4, 8), (5, 5), (8, 15), (9, 9)].map { gregorianDate(lunarYearOf: year, month: $0.0, day: $0.1) }
    print("\(year) " + parts.joined(separator: " "))
}
