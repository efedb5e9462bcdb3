import Feed

/// The ranges the chart offers, measured back from the newest point in the exchange's calendar.
public enum ChartRange: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneDay = "1D"
    case fiveDays = "5D"
    case oneMonth = "1M"
    case sixMonths = "6M"
    /// Year to date: from the previous year's last close (the baseline finance apps quote the
    /// year's change against) to the newest price.
    case yearToDate = "YTD"
    case oneYear = "1Y"
    case fiveYears = "5Y"
    /// Everything the daily file holds.
    case max = "MAX"

    public var description: String { rawValue }

    /// The ranges offered when the config names none (YTD and MAX are asked for by name).
    public static let standard: [ChartRange] = [.oneDay, .fiveDays, .oneMonth, .sixMonths, .oneYear, .fiveYears]

    /// The labels, for messages: `1D 5D 1M 6M YTD 1Y 5Y MAX`.
    public static var labels: String { allCases.map(\.rawValue).joined(separator: " ") }

    /// Parses `1D`, `5d`, ... (case-insensitive).
    public init?(label: String) {
        guard let r = ChartRange(rawValue: label.uppercased()) else { return nil }
        self = r
    }

    /// Calendar months to go back for the daily ranges.
    var months: Int? {
        switch self {
        case .oneDay, .fiveDays, .yearToDate, .max: return nil
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

/// What 1D measures its change against.
public enum DayBaseline: String, Sendable, CaseIterable {
    /// The previous session's close, as every finance app and exchange quotes "today's change".
    case previousClose = "previous-close"
    /// The first price of the session shown.
    case first
}

/// Pre- and post-market bars (data outside the regular session) on 1D and 5D.
public enum ExtendedHoursDisplay: String, Sendable, CaseIterable {
    case show
    /// Drawn, in a paler line, so the regular session stands out.
    case dim
    case hide
}

/// How the ranges are cut from the data.
public struct RangeOptions: Sendable, Equatable {
    public var dayBaseline: DayBaseline
    public var extendedHours: ExtendedHoursDisplay

    public init(dayBaseline: DayBaseline = .previousClose, extendedHours: ExtendedHoursDisplay = .dim) {
        self.dayBaseline = dayBaseline
        self.extendedHours = extendedHours
    }
}

/// An instrument's data as the chart needs it: daily bars, optional intraday bars, its exchange's
/// time zone and calendar, and which price to show.
public struct MarketData: Sendable {
    public var daily: PriceSeries?
    public var intraday: PriceSeries?
    public var timeZone: ExchangeTimeZone
    public var priceField: PriceField
    /// The exchange's trading calendar (sessions, lunch breaks); nil when unknown.
    public var calendar: ExchangeCalendar?
    /// The previous close as the provider reported it (the fetcher's status file), and the session
    /// date (exchange time) it precedes; used for 1D when it is that session's.
    public var reportedPreviousClose: (value: Double, session: CivilDate)?

    public init(daily: PriceSeries?, intraday: PriceSeries?, timeZone: ExchangeTimeZone,
                priceField: PriceField = .close, calendar: ExchangeCalendar? = nil) {
        self.daily = daily
        // Times written without an offset are the exchange's wall clock (README, "What the numbers mean").
        self.intraday = intraday?.anchored(in: timeZone)
        self.timeZone = timeZone
        self.priceField = priceField
        self.calendar = calendar
    }

    /// The points of `range`, oldest first. 1D/5D use intraday sessions when there are any and
    /// otherwise fall back to daily bars (`usesDailyFallback` says so, for the small note on screen).
    public func points(for range: ChartRange, options: RangeOptions = RangeOptions()) -> RangeSelection {
        if let sessions = range.sessions {
            if let intraday, !intraday.bars.isEmpty, !intradayIsBehindDaily, calendar?.isAlwaysOpen == true {
                return rollingSelection(range, days: sessions, of: intraday)
            }
            if let intraday, !intraday.bars.isEmpty, !intradayIsBehindDaily {
                return intradaySelection(range, sessions: sessions, of: intraday, options: options)
            }
            // One session back needs the previous close too, so the line has a start: n + 1 bars.
            let bars = daily?.bars ?? []
            let picked = bars.suffix(sessions + 1).map(point(of:))
            var selection = RangeSelection(range: range, points: Array(picked), usesDailyFallback: true)
            if range == .oneDay, picked.count == 2 {
                // The start of a daily 1D is the previous close already; `first` means today's open.
                if options.dayBaseline == .first, let last = bars.last, last.open.isFinite, last.open > 0 {
                    selection.baseline = last.open
                    selection.baselineKind = .first
                } else if let reported = reportedPreviousClose, let last = bars.last, reported.value.isFinite,
                          reported.session == CivilDate(unixTime: last.time) {
                    // The provider's (or the portfolio's) own previous close for that day.
                    selection.baseline = reported.value
                    selection.baselineKind = .previousClose
                } else {
                    selection.baseline = picked[0].value
                    selection.baselineKind = .previousClose
                }
            }
            return selection
        }
        guard let daily, let newest = daily.bars.last, range.months != nil || range == .yearToDate || range == .max else {
            return RangeSelection(range: range, points: [], usesDailyFallback: false)
        }
        // One price per instrument: where the intraday file reaches the daily file's last day, or
        // a later one, the line ends at its newest price (a daily bar written during the session,
        // or one day behind, would end 1M at another price than 1D and the tape).
        var points = daily.bars.map(point(of:))
        var end = CivilDate(unixTime: newest.time)
        if let live = intraday?.bars.last, live.price(priceField).isFinite {
            let day = timeZone.localDate(atUnixTime: live.time)
            if day == end {
                points[points.count - 1].value = live.price(priceField)
            } else if day > end {
                points.append(ChartPoint(time: day.unixTimeAtMidnightUTC, value: live.price(priceField)))
                end = day
            }
        }
        // Daily bars are stamped at UTC midnight of their date, so dates compare as times.
        let first: Int
        switch range {
        case .max: first = 0
        case .yearToDate:
            // From the last close of the year before, when the file has it: the year's change is
            // measured against it, as every finance app and index provider quotes YTD.
            let january = CivilDate(year: end.year, month: 1, day: 1)!
            first = max(0, daily.firstIndex(atOrAfter: january.unixTimeAtMidnightUTC) - 1)
        default:
            first = daily.firstIndex(atOrAfter: end.addingMonths(-(range.months ?? 0)).unixTimeAtMidnightUTC)
        }
        return RangeSelection(range: range, points: Array(points[min(first, points.count - 1)...]), usesDailyFallback: false)
    }

    /// The intraday file stopped while the daily one went on (a failover to a daily-only provider):
    /// its newest session is older than the newest daily bar. 1D and 5D then come from the daily
    /// bars (1D leaves the cycle), so every range ends at the one newest price.
    public var intradayIsBehindDaily: Bool {
        guard let i = intraday?.bars.last, let d = daily?.bars.last else { return false }
        return CivilDate(unixTime: d.time) > timeZone.localDate(atUnixTime: i.time)
    }

    /// The instrument's price, previous close and day change: one definition for the header on
    /// 1D, the tiles' and the tape's words, `ctl instruments` (and so the bridge), the status file
    /// and `render --values` (README, "What the numbers mean"). The newest price of both files; the
    /// close of the session before its session (the provider's word, the daily bar before, else the
    /// session's last print up to its closing auction); for 24/7 markets the price 24 hours before.
    public func dayQuote(options: RangeOptions = RangeOptions()) -> DayQuote? {
        let selection = points(for: .oneDay, options: options)
        guard let last = selection.points.last else { return nil }
        // One daily bar alone has no day before it: a price without a change.
        let reference = selection.points.count >= 2 || selection.baseline != nil ? selection.baselineValue : nil
        return DayQuote(price: last.value, time: last.time, reference: reference, referenceKind: selection.baselineKind,
                        fromDailyBars: selection.usesDailyFallback)
    }

    /// Which of `ranges` this data can draw, for the selector and the cycle: 1D needs intraday
    /// bars (from daily bars it is two closes, a ruler line) and every range two points at least
    /// (one bar is a price, which the header shows). All of them when none can (a placeholder),
    /// so the selector never empties. The daemon and `render` ask the same question here.
    public func drawableRanges(of ranges: [ChartRange], options: RangeOptions = RangeOptions()) -> [ChartRange] {
        let drawable = ranges.filter { range in
            let selection = points(for: range, options: options)
            return selection.points.count >= 2 && !(range == .oneDay && selection.usesDailyFallback)
        }
        return drawable.isEmpty ? ranges : drawable
    }

    private func point(of bar: PriceBar) -> ChartPoint {
        ChartPoint(time: bar.time, value: bar.price(priceField))
    }

    /// 1D and 5D from intraday bars: the last `count` sessions (local calendar days of the
    /// exchange), their regular sessions from the calendar, and for 1D the previous close.
    private func intradaySelection(_ range: ChartRange, sessions count: Int, of series: PriceSeries,
                                   options: RangeOptions) -> RangeSelection {
        let startIndex = Self.startOfLastSessions(count, of: series, zone: timeZone)
        var days: [CivilDate] = []
        var points: [ChartPoint] = []
        var sessionStarts: [Int64] = []
        var regular: [TradingSession] = []
        var lastDay: CivilDate?
        var dayHours: TradingSession?
        for bar in series.bars[startIndex...] {
            let day = timeZone.localDate(atUnixTime: bar.time)
            if day != lastDay {
                lastDay = day
                days.append(day)
                dayHours = calendar?.session(on: day, zone: timeZone)
                if let dayHours { regular.append(dayHours) }
                if !points.isEmpty { sessionStarts.append(bar.time) }
            }
            if options.extendedHours == .hide, let hours = dayHours, bar.time < hours.open || bar.time >= hours.close { continue }
            points.append(point(of: bar))
        }
        var selection = RangeSelection(range: range, points: points, usesDailyFallback: false)
        selection.sessionStarts = sessionStarts.filter { t in points.contains { $0.time >= t } }
        selection.regularSessions = options.extendedHours == .show ? [] : regular
        if range == .oneDay, let day = days.last {
            selection.session = regular.last.flatMap { $0.date == day ? $0 : nil }
            if options.dayBaseline == .previousClose, let close = previousClose(before: day, sessionStart: startIndex, of: series) {
                selection.baseline = close
                selection.baselineKind = .previousClose
            } else {
                selection.baselineKind = .first
            }
        }
        return selection
    }

    /// 1D and 5D of an instrument that trades around the clock: the last 24 hours (or five times
    /// that) up to the newest bar, not a calendar day, which at 03:00 would be a sliver. The line
    /// starts at the price the window opens with (the last bar at or before its start), so the
    /// change is the change over 24 hours, as crypto exchanges quote it. 5D marks midnights.
    private func rollingSelection(_ range: ChartRange, days: Int, of series: PriceSeries) -> RangeSelection {
        guard let newest = series.bars.last?.time else {
            return RangeSelection(range: range, points: [], usesDailyFallback: false)
        }
        // (bars at the ends of time must not trap: the window then starts at the first bar)
        let (start, overflow) = newest.subtractingReportingOverflow(Int64(days) * 86_400)
        if overflow { return RangeSelection(range: range, points: series.bars.map(point(of:)), usesDailyFallback: false) }
        var first = series.firstIndex(atOrAfter: start)
        if first > 0, series.bars[first].time > start { first -= 1 }   // the price as the window opens
        let bars = series.bars[first...]
        var selection = RangeSelection(range: range, points: bars.map(point(of:)), usesDailyFallback: false)
        selection.baselineKind = .first
        if days > 1 {
            var lastDay = bars.first.map { timeZone.localDate(atUnixTime: $0.time) }
            for bar in bars.dropFirst() {
                let day = timeZone.localDate(atUnixTime: bar.time)
                if day != lastDay { selection.sessionStarts.append(bar.time); lastDay = day }
            }
        }
        return selection
    }

    /// The close of the session before `day`: the provider's word for it, else the daily bar
    /// before it, else the last intraday print of the session before up to the end of its closing
    /// auction (`ExchangeCalendar.closingPrintSeconds`: Xetra's close is the 17:35 print, not the
    /// 17:29 bar); later bars are after-hours trading.
    private func previousClose(before day: CivilDate, sessionStart: Int, of series: PriceSeries) -> Double? {
        if let reported = reportedPreviousClose, reported.session == day, reported.value.isFinite { return reported.value }
        if let daily {
            let dayStart = day.unixTimeAtMidnightUTC
            let i = daily.firstIndex(atOrAfter: dayStart)
            if i > 0 { return daily.bars[i - 1].price(priceField) }
        }
        guard sessionStart > 0 else { return nil }
        let previous = timeZone.localDate(atUnixTime: series.bars[sessionStart - 1].time)
        let hours = calendar?.session(on: previous, zone: timeZone)
        var i = sessionStart - 1
        while i >= 0, timeZone.localDate(atUnixTime: series.bars[i].time) == previous {
            // Post-market bars are not the close; the closing auction's print is.
            if let hours, series.bars[i].time >= hours.close + (calendar?.closingPrintSeconds ?? 0) { i -= 1; continue }
            return series.bars[i].price(priceField)
        }
        return nil
    }

    /// The index of the first bar of the last `count` sessions (local calendar days).
    static func startOfLastSessions(_ count: Int, of series: PriceSeries, zone: ExchangeTimeZone) -> Int {
        var sessionsSeen = 0
        var currentDay: CivilDate?
        var startIndex = series.bars.count
        for i in series.bars.indices.reversed() {
            let day = zone.localDate(atUnixTime: series.bars[i].time)
            if day != currentDay {
                if sessionsSeen == count { break }
                sessionsSeen += 1
                currentDay = day
            }
            startIndex = i
        }
        return startIndex
    }
}

/// An instrument's price and the change of its day (`MarketData.dayQuote`).
public struct DayQuote: Equatable, Sendable {
    /// The newest price and its time.
    public var price: Double
    public var time: Int64
    /// What the day's change is measured against: the previous close (`referenceKind`
    /// previous-close), or with `[chart] baseline-1d = first` the day's first price; nil when
    /// nothing precedes the price.
    public var reference: Double?
    public var referenceKind: DayBaseline
    /// The price is a daily close (no intraday bars, or they stopped before the daily ones).
    public var fromDailyBars: Bool

    public var previousClose: Double? { referenceKind == .previousClose ? reference : nil }
    public var change: Double? { reference.map { price - $0 } }
    public var changePercent: Double? {
        guard let reference, reference != 0 else { return nil }
        return (price - reference) / abs(reference) * 100
    }
}

/// The points of one range.
public struct RangeSelection: Sendable, Equatable {
    public var range: ChartRange
    public var points: [ChartPoint]
    /// True when an intraday range had to be drawn from daily bars.
    public var usesDailyFallback: Bool
    /// What the change is measured against (the dashed line); nil: the first point.
    public var baseline: Double?
    public var baselineKind: DayBaseline = .first
    /// 1D: the regular session of the day shown, when the exchange's calendar knows it.
    public var session: TradingSession?
    /// The regular sessions of the days shown (bars outside them are pre- or post-market); empty
    /// when unknown or when extended hours are shown like any other.
    public var regularSessions: [TradingSession] = []
    /// Times of the first bar of each session after the first (5D's session boundaries).
    public var sessionStarts: [Int64] = []

    public init(range: ChartRange, points: [ChartPoint], usesDailyFallback: Bool) {
        self.range = range
        self.points = points
        self.usesDailyFallback = usesDailyFallback
    }

    /// The value the change is measured against.
    public var baselineValue: Double? { baseline ?? points.first?.value }

    /// True for a point outside the regular sessions (pre- or post-market).
    public func isExtendedHours(_ time: Int64) -> Bool {
        guard !regularSessions.isEmpty else { return false }
        return !regularSessions.contains { time >= $0.open && time < $0.close }
    }
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
