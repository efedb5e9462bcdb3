import Feed

/// The ranges the chart offers, measured back from the newest point in the exchange's calendar.
public enum ChartRange: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneDay = "1D"
    case fiveDays = "5D"
    case oneMonth = "1M"
    case sixMonths = "6M"
    case oneYear = "1Y"
    case fiveYears = "5Y"

    public var description: String { rawValue }

    /// Parses `1D`, `5d`, ... (case-insensitive).
    public init?(label: String) {
        guard let r = ChartRange(rawValue: label.uppercased()) else { return nil }
        self = r
    }

    /// Calendar months to go back for the daily ranges.
    var months: Int? {
        switch self {
        case .oneDay, .fiveDays: return nil
        case .oneMonth: return 1
        case .sixMonths: return 6
        case .oneYear: return 12
        case .fiveYears: return 60
        }
    }

    /// Trading sessions shown by the intraday ranges.
    var sessions: Int? {
        switch self {
        case .oneDay: return 1
        case .fiveDays: return 5
        default: return nil
        }
    }
}

/// An instrument's data as the chart needs it: daily bars, optional intraday bars, its exchange's
/// time zone, and which price to show.
public struct MarketData: Sendable {
    public var daily: PriceSeries?
    public var intraday: PriceSeries?
    public var timeZone: ExchangeTimeZone
    public var priceField: PriceField
    /// The exchange's trading calendar (sessions, lunch breaks); nil when unknown.
    public var calendar: ExchangeCalendar?

    public init(daily: PriceSeries?, intraday: PriceSeries?, timeZone: ExchangeTimeZone,
                priceField: PriceField = .close, calendar: ExchangeCalendar? = nil) {
        self.daily = daily
        self.intraday = intraday
        self.timeZone = timeZone
        self.priceField = priceField
        self.calendar = calendar
    }

    /// The points of `range`, oldest first. 1D/5D use intraday sessions when there are any and
    /// otherwise fall back to daily bars (`usesDailyFallback` says so, for the small note on screen).
    public func points(for range: ChartRange) -> RangeSelection {
        if let sessions = range.sessions {
            if let intraday, !intraday.bars.isEmpty {
                return RangeSelection(range: range, points: lastSessions(sessions, of: intraday), usesDailyFallback: false)
            }
            // One session back needs the previous close too, so the line has a start: n + 1 bars.
            let bars = daily?.bars ?? []
            let picked = bars.suffix(sessions + 1).map(point(of:))
            return RangeSelection(range: range, points: Array(picked), usesDailyFallback: true)
        }
        guard let months = range.months, let daily, let newest = daily.bars.last else {
            return RangeSelection(range: range, points: [], usesDailyFallback: false)
        }
        let end = CivilDate(unixTime: newest.time)
        let start = end.addingMonths(-months)
        // Daily bars are stamped at UTC midnight of their date, so dates compare as times.
        let first = daily.firstIndex(atOrAfter: start.unixTimeAtMidnightUTC)
        return RangeSelection(range: range, points: daily.bars[first...].map(point(of:)), usesDailyFallback: false)
    }

    private func point(of bar: PriceBar) -> ChartPoint {
        ChartPoint(time: bar.time, value: bar.price(priceField))
    }

    /// The bars of the last `count` trading sessions (local calendar days of the exchange).
    private func lastSessions(_ count: Int, of series: PriceSeries) -> [ChartPoint] {
        var sessionsSeen = 0
        var currentDay: CivilDate?
        var startIndex = series.bars.count
        for i in series.bars.indices.reversed() {
            let day = timeZone.localDate(atUnixTime: series.bars[i].time)
            if day != currentDay {
                if sessionsSeen == count { break }
                sessionsSeen += 1
                currentDay = day
            }
            startIndex = i
        }
        return series.bars[startIndex...].map(point(of:))
    }
}

/// The points of one range.
public struct RangeSelection: Sendable, Equatable {
    public var range: ChartRange
    public var points: [ChartPoint]
    /// True when an intraday range had to be drawn from daily bars.
    public var usesDailyFallback: Bool
}

extension CivilDate {
    /// The same day `months` calendar months later (earlier when negative), clamped to the month's
    /// length: one month before 31 March is 28 or 29 February.
    func addingMonths(_ months: Int) -> CivilDate {
        let total = year * 12 + (month - 1) + months
        let y = total >= 0 ? total / 12 : (total - 11) / 12
        let m = total - y * 12 + 1
        let d = min(day, CivilDate.daysInMonth(year: y, month: m))
        return CivilDate(year: y, month: m, day: d) ?? self
    }
}
