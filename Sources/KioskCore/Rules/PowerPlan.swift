// The screen's plan over a stretch of time, as `tickerboard power-plan` prints it: intervals of one
// state with the reason for it. Built from the same ScreenPower the daemon decides by (schedule and
// market windows; touches and idleness are not planned), so the plan is what the screen will do.
import Feed

public struct PowerPlan: Sendable {
    public struct Interval: Sendable, Equatable {
        /// Unix seconds, `[start, end)`.
        public var start: Int64
        public var end: Int64
        /// Percent: 0 off, 100 on.
        public var level: Int
        public var reason: String

        /// `on`, `dim N%` or `off`.
        public var state: String { level <= 0 ? "off" : level >= 100 ? "on" : "dim \(level)%" }
    }

    /// The intervals covering `[from, to)`, the first and last clipped to it; neighbours differ in
    /// state or reason.
    public static func intervals(_ power: ScreenPower, from: Int64, to: Int64) -> [Interval] {
        guard from < to else { return [] }
        // Reasons are worded from whole stretches: a range that ends on a Friday night still says
        // "weekend" for the stretch it cuts off. A week either side reaches past any stretch's ends
        // except of a schedule that is off for longer (then the reason names less).
        let margin: Int64 = 7 * 86_400
        return unclipped(power, from: from - margin, to: to + margin).compactMap { i in
            guard i.end > from, i.start < to else { return nil }
            var c = i
            c.start = max(i.start, from)
            c.end = min(i.end, to)
            return c
        }
    }

    static func unclipped(_ power: ScreenPower, from: Int64, to: Int64) -> [Interval] {
        let windows = power.markets?.windows(from: from, to: to) ?? []
        let zones = power.markets?.zonesByMIC ?? [:]
        var cuts = Set(power.weeklyChanges(from: from, through: to - 1))
        for w in windows {
            if w.start > from && w.start < to { cuts.insert(w.start) }
            if w.end > from && w.end < to { cuts.insert(w.end) }
        }
        let bounds = [from] + cuts.sorted() + [to]
        // First the pieces with their level and, when lit, the reason; off reasons need the
        // whole off stretch.
        var pieces: [(start: Int64, end: Int64, level: Int, reason: String)] = []
        for i in 0..<(bounds.count - 1) {
            let a = bounds[i], b = bounds[i + 1]
            let weekly = power.weeklyLevel(at: a)
            if weekly < 100, let w = windows.first(where: { $0.start <= a && a < $0.end }) {
                pieces.append((a, b, 100, w.describe(zones: zones)))
            } else if weekly > 0 {
                pieces.append((a, b, weekly, power.schedule.isAlwaysOn ? "schedule: always" : "schedule"))
            } else {
                pieces.append((a, b, 0, ""))
            }
        }
        var merged: [(start: Int64, end: Int64, level: Int, reason: String)] = []
        for p in pieces {
            if let last = merged.last, last.level == p.level, last.reason == p.reason {
                merged[merged.count - 1].end = p.end
            } else {
                merged.append(p)
            }
        }
        return merged.map { p in
            var reason = p.reason
            if p.level == 0 { reason = power.markets.map { $0.closedReason(from: p.start, to: p.end) } ?? "schedule" }
            return Interval(start: p.start, end: p.end, level: p.level, reason: reason)
        }
    }
}
