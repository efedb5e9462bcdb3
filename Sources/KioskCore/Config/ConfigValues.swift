import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Text

// The kinds of value the config's keys share (durations, curves, switches, the power schedule)
// and the documented bounds on them.

/// The screen's weekly light: per weekday (0 = Sunday) minute ranges of local time, each with a
/// level in percent (100 on, 1-99 dimmed, 0 off). Ranges are kept in the order the clauses gave
/// them and a later one wins where they overlap; a minute no range covers is off.
public struct PowerSchedule: Equatable, Sendable {
    public struct Span: Equatable, Sendable {
        public var minutes: Range<Int>
        public var level: Int
        public init(_ minutes: Range<Int>, level: Int = 100) {
            self.minutes = minutes
            self.level = level
        }
    }

    public var spans: [[Span]]
    public static let always = PowerSchedule(spans: Array(repeating: [Span(0..<1440)], count: 7))
    public static let never = PowerSchedule(spans: Array(repeating: [], count: 7))

    public init(spans: [[Span]] = Array(repeating: [Span(0..<1440)], count: 7)) { self.spans = spans }

    /// The ranges with a level above 0, as given (before later ranges override earlier ones).
    /// Set: those ranges at full level.
    public var onMinutes: [[Range<Int>]] {
        get { spans.map { $0.filter { $0.level > 0 }.map(\.minutes) } }
        set { spans = newValue.map { $0.map { Span($0) } } }
    }

    /// Full level every minute of the week.
    public var isAlwaysOn: Bool {
        (0..<7).allSatisfy { day in boundaries(weekday: day).allSatisfy { level(weekday: day, minute: $0) == 100 } }
    }

    /// No light at any minute of the week.
    public var isNeverOn: Bool {
        (0..<7).allSatisfy { day in boundaries(weekday: day).allSatisfy { level(weekday: day, minute: $0) == 0 } }
    }

    /// Every minute of `weekday` at which a range begins or ends, with 0, ascending (below 1440).
    public func boundaries(weekday: Int) -> [Int] {
        var set: Set<Int> = [0]
        for span in spans[((weekday % 7) + 7) % 7] { set.insert(span.minutes.lowerBound); set.insert(span.minutes.upperBound) }
        return set.filter { $0 < 1440 }.sorted()
    }

    /// The level at `minute` of the day on `weekday`: the last range that covers it, else 0.
    public func level(weekday: Int, minute: Int) -> Int {
        spans[((weekday % 7) + 7) % 7].last { $0.minutes.contains(minute) }?.level ?? 0
    }

    /// True when the screen should be lit at `minute` of the day on `weekday`.
    public func isOn(weekday: Int, minute: Int) -> Bool { level(weekday: weekday, minute: minute) > 0 }
}

package struct ConfigValueError: Error {
    package let message: String
    package init(message: String) { self.message = message }
}

/// The documented bounds on config values (docs/configuration.md, "Limits"): every value inside them runs.
enum Limits {
    static let modeSide = 8192
    /// stale-after: a century (fixtures with old prices use 36500d to mean "never stale").
    static let longestDuration = 36_500.0 * 86_400
    static let nameLength = 64
    static let symbolLength = 8
    static let instruments = 100
    static let scheduleClauses = 32
    static let renderThreads = 8
    /// `[display] safe-area`: a tenth of each side is more than any TV crops (EBU R 95 keeps 3.5 %
    /// for action, 5 % for titles).
    static let safeAreaPercent = 10.0
}

func parseBool(_ v: String) -> Bool? {
    switch v.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    default: return nil
    }
}

/// `8`, `8s`, `1.5s`, `90min`, `2h`, `3d`, `500ms` → seconds.
func parseDuration(_ text: String) -> Double? {
    let t = text.lowercased().replacingSpaces()
    let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
    for (suffix, factor) in units where t.hasSuffix(suffix) {
        guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
        return v * factor
    }
    guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
    return v
}

/// `cubic-bezier(0.64, 0, 0, 1)`, `0.64,0,0,1`, or the CSS names.
func parseCurve(_ text: String) -> CubicBezier? {
    let t = text.lowercased().replacingSpaces()
    switch t {
    case "linear": return .linear
    case "ease": return .ease
    case "ease-in-out": return .easeInOut
    default: break
    }
    var inner = Substring(t)
    if inner.hasPrefix("cubic-bezier(") && inner.hasSuffix(")") { inner = inner.dropFirst(13).dropLast() }
    let parts = inner.split(separator: ",").compactMap { Double($0) }
    guard parts.count == 4, (0...1).contains(parts[0]), (0...1).contains(parts[2]),
          (-5...5).contains(parts[1]), (-5...5).contains(parts[3]) else {
        return nil
    }
    return CubicBezier(parts[0], parts[1], parts[2], parts[3])
}

/// `Mon-Fri 07:00-22:00, Sat 09:00-18:00` (days not named are off); `always` is always on. Each
/// clause is `[DAYS] [HH:MM-HH:MM] [LEVEL]`: days as `Mon` or `Mon-Fri` (left out: the previous
/// clause's), no time range for the whole day, a level as `20%`, `on` (100 %) or `off` (default
/// on); at least a time range or a level. `Mon-Fri 07:00-22:00 100%, 22:00-07:00 20%, Sat-Sun off`.
/// A later clause wins where clauses overlap.
func parseSchedule(_ text: String) -> Result<PowerSchedule, ConfigValueError> {
    if text.lowercased() == "always" { return .success(.always) }
    func failure(_ message: String) -> Result<PowerSchedule, ConfigValueError> { .failure(ConfigValueError(message: message)) }
    let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    var schedule = PowerSchedule.never
    let clauses = text.split(separator: ",")
    // Every screen-power decision scans the ranges: a bound keeps it constant time.
    guard clauses.count <= Limits.scheduleClauses else {
        return failure("expected at most \(Limits.scheduleClauses) clauses, found \(clauses.count)")
    }
    var previousDays: (Int, Int)?
    for clause in clauses {
        var original = clause.split(separator: " ").map(String.init)[...]
        let shown = clause.trimmingWhitespace()
        guard !original.isEmpty else { return failure("an empty clause between commas") }
        func isTime(_ w: String) -> Bool { w.contains(":") }
        func level(_ w: String) -> Int? {
            switch w.lowercased() {
            case "on": return 100
            case "off": return 0
            default:
                guard w.hasSuffix("%"), let n = Int(w.dropLast()), (0...100).contains(n) else { return nil }
                return n
            }
        }
        // Days, unless the clause begins with its time range or level.
        var dayRange: (Int, Int)
        if let first = original.first, !isTime(first), level(first) == nil, !first.hasSuffix("%") {
            let dayParts = first.lowercased().split(separator: "-").map(String.init)
            // "-" alone splits into nothing.
            guard let firstDay = dayParts.first, let d0 = days.firstIndex(of: String(firstDay.prefix(3))),
                  let d1 = days.firstIndex(of: String((dayParts.last ?? firstDay).prefix(3))), dayParts.count <= 2 else {
                return failure("\"\(first)\" is not a day or day range like Mon-Fri")
            }
            dayRange = (d0, d1)
            original = original.dropFirst()
        } else if let previousDays {
            dayRange = previousDays
        } else {
            return failure("\"\(shown)\": the first clause names its days, like Mon-Fri 07:00-22:00")
        }
        previousDays = dayRange
        var range: (start: Int, end: Int)?
        if let word = original.first, isTime(word) {
            let timeParts = word.split(separator: "-").map(String.init)
            func minutes(_ s: String) -> Int? {
                let hm = s.split(separator: ":")
                guard hm.count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0...24).contains(h), (0...59).contains(m),
                      h * 60 + m <= 1440 else { return nil }
                return h * 60 + m
            }
            guard timeParts.count == 2, let start = minutes(timeParts[0]), let end = minutes(timeParts[1]), start != end else {
                return failure("\"\(word)\" is not a time range like 07:00-22:00")
            }
            range = (start, end)
            original = original.dropFirst()
        }
        var lightLevel = 100
        if let word = original.first {
            guard let l = level(word) else {
                return failure("\"\(word)\" is not a level like 20%, on or off (in \"\(shown)\")")
            }
            lightLevel = l
            original = original.dropFirst()
        } else if range == nil {
            return failure("expected \"Mon-Fri 07:00-22:00\" clauses separated by commas, found \"\(shown)\"")
        }
        guard original.isEmpty else {
            return failure("\"\(original.joined(separator: " "))\" after the level in \"\(shown)\"; expected DAYS HH:MM-HH:MM LEVEL")
        }
        let (start, end) = range ?? (0, 1440)
        var d = dayRange.0
        while true {
            if start < end {
                schedule.spans[d].append(.init(start..<end, level: lightLevel))
            } else {
                // Past midnight: the rest of this day and the start of the next.
                schedule.spans[d].append(.init(start..<1440, level: lightLevel))
                if end > 0 { schedule.spans[(d + 1) % 7].append(.init(0..<end, level: lightLevel)) }
            }
            if d == dayRange.1 { break }
            d = (d + 1) % 7
        }
    }
    return .success(schedule)
}

extension String {
    func replacingSpaces() -> String { String(filter { $0 != " " && $0 != "\t" }) }
}
